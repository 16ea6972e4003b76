"""The ``models`` and ``audit`` commands' arguments and help (the commands themselves are in
:mod:`forestviz.cli.library`), and the ``--model NAME[@VERSION]`` option of ``explain`` and
``report``. Every command reads the library of ``FORESTVIZ_DATABASE_URL`` /
``FORESTVIZ_DATA_DIR``, as the app does.
"""

from __future__ import annotations

import argparse
import re
from datetime import datetime

LIBRARY = """\
The model library the app's viewers open models from: SQLite in FORESTVIZ_DATA_DIR
(default ./var), or the database of FORESTVIZ_DATABASE_URL.

  forestviz models list [--json] [--all]
  forestviz models publish MODEL.skops --name NAME --intended-use TEXT [--out-of-scope TEXT]
      [--subgroup COLUMN ...] [--description TEXT] [--training DATA.csv]
  forestviz models show NAME[@VERSION] [--json]
  forestviz models card NAME[@VERSION] --out CARD.html|CARD.pdf|CARD.json
  forestviz models retire NAME@VERSION"""

PUBLISH = """\
Publish a model file as the next version of NAME. The library keeps what explanations need
without the upload, the table's rows included (the training rows are shown as similar
patients): the held-out metrics are computed anew on the model's own split, so the model's
training table is needed. Bundled tables are found by name; give an uploaded one with
--training (the very file the model was trained on). Only a model file this library signed is
published, as in the app: `forestviz train` and the app's "Save the model" sign what they write
with the key of FORESTVIZ_DATA_DIR (or FORESTVIZ_SIGNING_KEY). The same model with the same
description and intended use as a version in use makes no new version.

Each version carries a model card: its intended use (required) and out-of-scope use, its data,
its held-out metrics with 95% bootstrap intervals, its calibration and its performance by each
--subgroup column (e.g. sex, or age cut at its quartiles).

example:
  forestviz models publish model.skops --name "Pima risk" --training registry.csv \\
      --description "Risk of diabetes within 5 years" --intended-use "Screening clinic" \\
      --out-of-scope "Children; pregnant women" --subgroup "Age (years)\""""

AUDIT = """\
Write the audit trail (who opened which model, explained which rows, wrote or downloaded
which file, published or retired a model, was refused at sign-in, looked at the trail) as CSV,
oldest first, optionally filtered. The export is itself recorded.

Verify it: each event holds the hash of the one before it; `verify` names every broken link
(an event deleted, edited or inserted), one line each, and exits with status 1 if there is
one. It prints the newest event's hash: note it somewhere else, and a later `verify --noted
HASH` also shows the newest events removed or the whole chain rewritten.

Purge it (admins: FORESTVIZ_LOCAL_ROLE=admin, the default): the events older than the
retention (FORESTVIZ_AUDIT_RETENTION_DAYS, default and minimum 183 days: six months) are
deleted, the purge recorded as an event naming the last deleted event's hash, and `verify`
still passes.

examples:
  forestviz audit export --since 2026-11-01 --action row_explained --out audit.csv
  forestviz audit verify --noted 3f5a…
  FORESTVIZ_AUDIT_RETENTION_DAYS=365 forestviz audit purge"""


def add_commands(commands, raw) -> None:
    """The ``models`` and ``audit`` commands on the top parser's ``commands``."""
    models = commands.add_parser("models", help="the published models (list, publish, show, "
                                 "card, retire)", description=LIBRARY, formatter_class=raw)
    actions = models.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the published versions, newest first")
    listing.add_argument("--json", action="store_true", help="JSON instead of a table")
    listing.add_argument("--all", action="store_true", help="retired versions too")
    publish = actions.add_parser("publish", help="publish a model file", description=PUBLISH,
                                 formatter_class=raw)
    publish.add_argument("model", metavar="MODEL.skops", help="a model file")
    publish.add_argument("--name", required=True, help="the model's name (at most 80 "
                         "characters; a name published before gets its next version)")
    publish.add_argument("--description", default="", metavar="TEXT",
                         help="what the model predicts, in plain text")
    publish.add_argument("--intended-use", default="", metavar="TEXT",
                         help="who should use it, and for what, in plain text (required: a "
                              "model is not published without it)")
    publish.add_argument("--out-of-scope", default="", metavar="TEXT",
                         help="uses and patients the model is not for, in plain text")
    publish.add_argument("--subgroup", action="append", default=[], metavar="COLUMN",
                         help="a column to give the model card's performance by (repeat for "
                              "more; at most 5)")
    publish.add_argument("--training", metavar="TRAIN.csv",
                         help="the table the model was trained on (not for bundled tables)")
    publish.add_argument("--fixed", action="append", default=[], metavar="COL",
                         help="a column that cannot change, for what would change the answer "
                              "(repeat for more; kept with the published model)")
    show = actions.add_parser("show", help="one version's provenance and metrics")
    show.add_argument("ref", metavar="NAME[@VERSION]", help="default: the newest version")
    show.add_argument("--json", action="store_true", help="JSON instead of text")
    card = actions.add_parser("card", help="one version's model card as HTML, PDF or JSON")
    card.add_argument("ref", metavar="NAME[@VERSION]", help="default: the newest version")
    card.add_argument("--out", required=True, metavar="CARD.html|CARD.pdf|CARD.json",
                      help="the file to write; its suffix says the format")
    card.add_argument("--force", action="store_true", help="replace an output that is a "
                      "symbolic link or not a regular file")
    retire = actions.add_parser("retire", help="hide a version from viewers (it is kept)")
    retire.add_argument("ref", metavar="NAME@VERSION")

    audit = commands.add_parser("audit", help="the audit trail (export, verify, purge)",
                                description=AUDIT,
                                formatter_class=raw)
    audit_actions = audit.add_subparsers(dest="action", required=True, metavar="ACTION")
    export = audit_actions.add_parser("export", help="the trail as CSV")
    export.add_argument("--out", metavar="FILE.csv", help="file to write (default: stdout)")
    export.add_argument("--force", action="store_true", help="replace an output that is a "
                        "symbolic link or not a regular file (the link itself is replaced, "
                        "never the file it points to); without it such an output is refused")
    export.add_argument("--since", type=_moment, metavar="DATE", help="from this ISO date/time")
    export.add_argument("--until", type=_moment, metavar="DATE", help="before this date/time")
    export.add_argument("--action", dest="event", metavar="ACTION",
                        help="one kind: model_opened, row_explained, rows_explained, "
                             "report_downloaded, explanations_downloaded, report_written, "
                             "model_published, model_retired, signin_refused, signed_in, "
                             "signed_out, audit_viewed, audit_exported, "
                             "explanation_disputed, audit_purged")
    export.add_argument("--who", metavar="SUBJECT", help="one actor (subject or e-mail)")
    export.add_argument("--model", metavar="NAME", help="one model's events")
    verify = audit_actions.add_parser("verify", help="check the trail's hash chain")
    verify.add_argument("--noted", metavar="HASH", type=_hash,
                        help="a head hash noted before: it must still be in the chain")
    audit_actions.add_parser("purge", help="delete the events older than the retention "
                             "(FORESTVIZ_AUDIT_RETENTION_DAYS, at least 183 days; admins)")


def add_published_option(command) -> None:
    """``--model NAME[@VERSION]``, a published model in place of MODEL.skops."""
    command.add_argument("--model", dest="published", metavar="NAME[@VERSION]",
                         help="a model from the library (FORESTVIZ_DATA_DIR / "
                              "FORESTVIZ_DATABASE_URL) instead of a model file; its "
                              "training rows and calibrated interval come with it")


def _hash(text: str) -> str:
    if re.fullmatch(r"[0-9a-fA-F]{64}", text.strip()) is None:
        raise argparse.ArgumentTypeError("expected a SHA-256 hash: 64 hexadecimal digits")
    return text.strip().lower()


def _moment(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an ISO date such as 2026-11-01, got "
                                         f"{text!r}") from None
