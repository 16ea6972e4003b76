"""The file name a report is saved under: the row's ID, the model and the date, so that a
filed report says what it is before it is opened; an edited (what-if) report says so.

Row IDs and model names come from files: only letters, digits, ``.``, ``_`` and ``-`` are
kept (anything else becomes ``_``), each part is cut, and no part can name another folder.
"""

from __future__ import annotations

import datetime
import re

NEW_PATIENT = "new patient"  # the row ID of a row typed in (the Explain page's "New patient")
_TYPED = f" ({NEW_PATIENT})"  # the end of a typed-in row's ID when it has an identifier
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+|\.{2,}")  # and runs of dots
PART_LIMIT = 40  # characters of the row ID or model part


def safe_part(text: str, default: str) -> str:
    """``text`` with every run of other characters than letters, digits, ``.``, ``_``, ``-``
    (or of two or more dots)
    as one ``_``, without leading or trailing dots and underscores, cut to
    :data:`PART_LIMIT` characters; ``default`` when nothing is left."""
    part = UNSAFE.sub("_", str(text)).strip("._-")[:PART_LIMIT].strip("._-")
    return part or default


def new_patient_id(identifier: str = "") -> str:
    """The row ID of a patient typed in: :data:`NEW_PATIENT`, or "P-17 (new patient)" when
    the user gave the identifier "P-17"."""
    return identifier + _TYPED if identifier else NEW_PATIENT


def typed_identifier(row_id) -> str | None:
    """The identifier in a typed-in patient's row ID (:func:`new_patient_id`): "" for
    :data:`NEW_PATIENT`, "P-17" for "P-17 (new patient)"; None for a row of a table."""
    if row_id == NEW_PATIENT:
        return ""
    text = "" if row_id is None else str(row_id)
    return text.removesuffix(_TYPED) if text.endswith(_TYPED) else None


def report_file_name(row_id, model: str, suffix: str, *, edited: bool = False,
                     date: datetime.date | None = None) -> str:
    """"forestviz-P0543-Enhanced_RF_ERF-2026-11-27.pdf"; "…-P0543-edited-…" for a what-if
    row; "new-patient" for a row typed in (``row_id`` None or :data:`NEW_PATIENT`),
    "new-patient-P-17" for one typed in with its identifier (:func:`new_patient_id`)."""
    date = datetime.date.today() if date is None else date
    typed = "" if row_id is None else typed_identifier(row_id)
    if typed is None:
        row = safe_part(str(row_id).removesuffix(" (edited)"), "row")
    else:
        part = safe_part(typed, "")
        row = f"new-patient-{part}" if part else "new-patient"
    parts = ["forestviz", row, *(["edited"] if edited else []), safe_part(model, "model"),
             date.isoformat()]
    return "-".join(parts) + "." + suffix
