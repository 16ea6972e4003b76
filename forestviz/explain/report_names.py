"""The file name a report is saved under: the row's ID, the model and the date, so that a
filed report says what it is before it is opened; an edited (what-if) report says so.

Row IDs and model names come from files: only letters, digits, ``.``, ``_`` and ``-`` are
kept (anything else becomes ``_``), each part is cut, and no part can name another folder.
"""

from __future__ import annotations

import datetime
import re

NEW_PATIENT = "new patient"  # the row ID of a row typed in (the Explain page's "New patient")
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+|\.{2,}")  # and runs of dots
PART_LIMIT = 40  # characters of the row ID or model part


def safe_part(text: str, default: str) -> str:
    """``text`` with every run of other characters than letters, digits, ``.``, ``_``, ``-``
    (or of two or more dots)
    as one ``_``, without leading or trailing dots and underscores, cut to
    :data:`PART_LIMIT` characters; ``default`` when nothing is left."""
    part = UNSAFE.sub("_", str(text)).strip("._-")[:PART_LIMIT].strip("._-")
    return part or default


def report_file_name(row_id, model: str, suffix: str, *, edited: bool = False,
                     date: datetime.date | None = None) -> str:
    """"forestviz-P0543-Enhanced_RF_ERF-2026-11-27.pdf"; "…-P0543-edited-…" for a what-if
    row; "new-patient" for a row typed in (``row_id`` None or :data:`NEW_PATIENT`)."""
    date = datetime.date.today() if date is None else date
    new = row_id is None or row_id == NEW_PATIENT
    row = "new-patient" if new else safe_part(str(row_id).removesuffix(" (edited)"), "row")
    parts = ["forestviz", row, *(["edited"] if edited else []), safe_part(model, "model"),
             date.isoformat()]
    return "-".join(parts) + "." + suffix
