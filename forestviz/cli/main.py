"""The ``forestviz`` command: its arguments, help and plain errors (the commands themselves are
in :mod:`forestviz.cli.commands`).

A problem with the user's files or arguments (a missing or unreadable file, a table or model
file forestviz refuses, an unknown column, a model file from another version) ends the command
with exit code 2 and one line on standard error naming the problem, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings

from forestviz import __version__
from forestviz.app.families import default_settings
from forestviz.cli import library_args
from forestviz.parameters import COUNT, PARAMETERS, Domain
from forestviz.registry import CLASSIFICATION, FAMILIES, REGRESSION, Family
from forestviz.settings import DEFAULT_BASE

USAGE_ERROR = 2
COUNTERFACTUAL_CHUNK = 10  # rows per chunk with --counterfactual (seconds a row)
RUNS = {"global": "global_views"}  # a command whose name is a Python keyword → its function

DESCRIPTION = """\
Explain tree-ensemble predictions one row at a time, from the command line.

  forestviz train DATA.csv --target COL --out MODEL.skops
      train a model as the Train page does (same data handling, split, metrics and model
      file format); the model file loads in the app, and app model files work here
  forestviz explain MODEL.skops ROWS.csv|ROWS.parquet --out OUT.parquet|OUT.csv
      one output row per input row: prediction, interval, threshold, effective number of
      trees, share of the top-5 trees, the top-K trees and their weights, optionally
      per-column contributions; streamed in chunks, on this machine or a Dask cluster
  forestviz report MODEL.skops DATA.csv --rows ID ... --out DIR
      the HTML report of the Explain page for each row
  forestviz global MODEL.skops DATA.csv --out DIR
      the Forest page's whole model: global tables (CSV or Parquet) and figures (HTML)
  forestviz models list|publish|show|card|retire
      the model library the app opens published models from; explain and report take
      --model NAME[@VERSION] in place of MODEL.skops
  forestviz audit export --out AUDIT.csv
      the audit trail: who opened, explained, published or retired what, and when
  forestviz audit verify [--noted HASH]
      the trail's hash chain: every event deleted, edited or inserted, one line each
  forestviz audit purge
      delete the events older than the retention (admins; at least six months kept)

Run 'forestviz COMMAND --help' for a command's options."""

TRAIN = """\
Train a model on a CSV table exactly as the app's Train page does: the same reading of the
file, the same split into training and held-out rows, the model next to a vanilla random
forest and gradient boosting on the held-out rows (the metrics table is printed), and the
same safe model file. Upload the same CSV in the app with the same target, ID and excluded
columns (and task) to load the model there.

example:
  forestviz train registry.csv --target Outcome --id "Patient ID" --model abrf1 \\
      --trees 200 --out model.skops"""

EXPLAIN = """\
Explain every row of a CSV or Parquet table with a saved model, chunk by chunk (memory does
not grow with the file), into a Parquet or CSV file with one row per input row: id,
prediction (predicted_class and P(<class>) for a classifier), threshold (binary models),
interval_low/interval_high when the model has a calibrated interval (calibrated_risk for a
binary risk), with --counterfactual what would change the answer (counterfactual_found,
counterfactual: the Explain page's sentence, counterfactual_changes: "Glucose: 148 → 121"),
effective_trees (1/sum of squared weights), top5_share (weight of the five
heaviest trees), top_tree_r/top_weight_r for the top K trees (numbered from 1 as in the app)
and, with --contributions, base_value and contribution[<column>] per column.

The calibrated interval is fitted on the model's held-out rows, so it needs the training
table: bundled tables are found by name; give an uploaded one with --training (the very
file the model was trained on) or explain that file itself.

examples:
  forestviz explain model.skops registry.parquet --out explained.parquet
  forestviz explain model.skops registry.csv --out explained.csv --local-cluster 2
  forestviz explain model.skops registry.csv --out explained.csv --counterfactual \
      --fixed "Age (years)" --fixed Sex
  forestviz explain model.skops registry.parquet --out explained.parquet \\
      --scheduler tcp://10.0.0.5:8786"""

REPORT = """\
Write the Explain page's report for each chosen row: one page with the summary (prediction,
interval, reasons both ways, missing-value alarm, similar patients), and with --appendix the
technical appendix after it (the model's settings and metrics, the weights, the trees drawn
with the row's path, contributions, the row beside the training rows); with --pdf the same
report as PDF. Files are named by row ID, model and date
(forestviz-P0001-ABRF-1-2026-11-27.html); with --counterfactual each also says what would
change the answer, as the Explain page does. The report reads the training rows, so DATA.csv must
be the table the model was trained on, or --training must name it.

example:
  forestviz report model.skops registry.csv --rows P0001 P0002 --out reports/"""


def parser() -> argparse.ArgumentParser:
    """The command line's parser (its ``--help`` texts are the reference)."""
    top = argparse.ArgumentParser(prog="forestviz", description=DESCRIPTION,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version=f"forestviz {__version__}")
    top.add_argument("--quiet", action="store_true", help="no progress bars")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    raw = argparse.RawDescriptionHelpFormatter

    train = commands.add_parser("train", help="train a model on a CSV table",
                                description=TRAIN, formatter_class=raw)
    train.add_argument("data", metavar="DATA.csv", help="the training table (CSV)")
    train.add_argument("--target", required=True, metavar="COL", help="the column to predict")
    _family_option(train)
    train.add_argument("--id", metavar="COL", help="the column that names the rows")
    train.add_argument("--drop", nargs="+", default=[], metavar="COL",
                       help="columns the model must not use")
    train.add_argument("--task", choices=["auto", "classification", "regression"],
                       default="auto", help="what the target is (default: inferred)")
    for parameter in PARAMETERS:  # the training numbers the command line sets
        if parameter.option is not None:
            train.add_argument(parameter.option, dest=parameter.name,
                               type=whole_number(parameter.domain), default=parameter.default,
                               metavar="N",
                               help=f"{parameter.option_help} (default {parameter.default})")
    train.add_argument("--out", required=True, metavar="MODEL.skops", help="model file to write")
    _force_option(train)
    _cluster_options(train, "fit the trees")

    explain = commands.add_parser("explain", help="explain every row of a table",
                                  description=EXPLAIN, formatter_class=raw)
    explain.add_argument("model", nargs="?", metavar="MODEL.skops",
                         help="a model file (or --model NAME)")
    explain.add_argument("data", metavar="DATA.csv|DATA.parquet", help="the rows to explain")
    explain.add_argument("--out", required=True, metavar="OUT.parquet|OUT.csv",
                         help="output file (its ending chooses the format)")
    _force_option(explain)
    explain.add_argument("--top-trees", type=_positive, default=5, metavar="K",
                         help="top trees per row (default 5)")
    explain.add_argument("--contributions", action="store_true",
                         help="add per-column contributions (about 1 ms a row)")
    explain.add_argument("--chunk-rows", type=_positive, metavar="N",
                         help="rows per chunk, the unit of work and of memory (default 5000; "
                              f"{COUNTERFACTUAL_CHUNK} with --counterfactual, so the progress "
                              "moves)")
    explain.add_argument("--id", metavar="COL",
                         help="the column naming the rows (default: the model's ID column when "
                              "the file has it, else the row's position from 0)")
    explain.add_argument("--training", metavar="TRAIN.csv",
                         help="the table the model was trained on (for the calibrated interval)")
    _counterfactual_options(explain, "add what would change each row's answer")
    explain.add_argument("--jobs", type=_positive, default=1, metavar="N",
                         help="chunks explained at once on threads of this process (default 1)")
    _cluster_options(explain, "explain the chunks")
    library_args.add_published_option(explain)

    report = commands.add_parser("report", help="HTML reports of chosen rows",
                                 description=REPORT, formatter_class=raw)
    report.add_argument("model", nargs="?", metavar="MODEL.skops",
                        help="a model file (or --model NAME)")
    report.add_argument("data", nargs="?", metavar="DATA.csv",
                        help="the table holding the rows (with --model: by default the "
                             "published model's own table)")
    report.add_argument("--rows", nargs="+", required=True, metavar="ID",
                        help="the rows' IDs (positions from 0 when the table has no ID column)")
    report.add_argument("--out", required=True, metavar="DIR", help="folder for the reports")
    _force_option(report, "write through a report folder given as a symbolic link, and "
                          "replace a report file that is a link (the link itself, never the "
                          "file it points to); without it either is refused")
    report.add_argument("--training", metavar="TRAIN.csv",
                        help="the table the model was trained on, when DATA.csv is another")
    report.add_argument("--pdf", action="store_true",
                        help="also write each report as PDF (when this forestviz can print "
                             "PDF)")
    _counterfactual_options(report, "say in each report what would change the answer")
    report.add_argument("--appendix", action="store_true",
                        help="add the technical appendix (settings, metrics, weights, trees "
                             "and paths) after the one-page summary")
    library_args.add_published_option(report)

    whole = commands.add_parser("global", help="the whole model: global tables and figures",
                                description=GLOBAL, formatter_class=raw)
    whole.add_argument("model", nargs="?", metavar="MODEL.skops",
                       help="a model file (or --model NAME)")
    whole.add_argument("data", nargs="?", metavar="DATA.csv",
                       help="the table the model was trained on (with --model: its own)")
    whole.add_argument("--out", required=True, metavar="DIR", help="folder for the files")
    whole.add_argument("--format", choices=("csv", "parquet"), default="csv",
                       help="the tables' format (default csv)")
    whole.add_argument("--training", metavar="TRAIN.csv",
                       help="the table the model was trained on, when DATA.csv is another")
    _force_option(whole, "write through an output folder given as a symbolic link, and replace "
                         "an output file that is a link (the link itself); without it either is "
                         "refused")
    library_args.add_published_option(whole)
    library_args.add_commands(commands, raw)
    return top


GLOBAL = """\
The Forest page's view of the whole model, through its explanations: every held-out row
explained as on the Explain page (its contributions through its own tree weights), then read
together. Writes into DIR: importance (mean |contribution| per column and its spread),
contributions (each held-out row's), trust (each row's stability among similar training rows
and compacity), partial_dependence (per column and value) as CSV or Parquet, and figures.html
(the importance bars, the beeswarm, the dependence and partial dependence of the top columns).

example:
  forestviz global model.skops registry.csv --out global/ --format parquet"""


def _counterfactual_options(command, what: str) -> None:
    """--counterfactual, --fixed and --change of ``command`` (``what`` the first does)."""
    command.add_argument("--counterfactual", action="store_true",
                         help=f"{what}: the nearest change, confirmed by the model, as the "
                              "Explain page says it (seconds a row; needs the training table)")
    command.add_argument("--fixed", action="append", metavar="COL",
                         help="with --counterfactual: a column that cannot change (repeat for "
                              "more; default: those a published model was published with, "
                              "else none)")
    command.add_argument("--change", metavar="X",
                         help="with --counterfactual, for a regression: how much the "
                              "prediction should move (e.g. -10)")


def _force_option(command, what: str = "replace an output that is a symbolic link or another "
                  "file that is not a regular file (the link itself is replaced, never the "
                  "file it points to); without it such an output is refused") -> None:
    command.add_argument("--force", action="store_true", help=what)


def _cluster_options(command, what: str) -> None:
    where = command.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help=f"{what} on a Dask cluster, e.g. tcp://10.0.0.5:8786")
    where.add_argument("--local-cluster", type=_positive, metavar="WORKERS",
                       help=f"{what} on a Dask cluster of WORKERS processes on this machine")


def whole_number(domain: Domain):
    """The argument type of a whole number in ``domain`` (an integer domain of
    :mod:`forestviz.parameters`), refusing anything else in one line."""
    bounds = (f"of at least {domain.text(domain.low)}" if domain.high == math.inf
              else f"from {domain.text(domain.low)} to {domain.text(domain.high)}")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value not in domain:
            raise argparse.ArgumentTypeError(f"expected a whole number {bounds}, got {text!r}")
        return value

    return parse


_positive = whole_number(COUNT)


def command_families() -> list[Family]:
    """The families ``--model`` offers, the papers' models first and the plain forest (the
    baseline, which tunes nothing) last, in registry order otherwise."""
    offered = [family for family in FAMILIES.values() if family.option is not None]
    return sorted(offered, key=lambda family: not family.tunes)


def _family_option(train) -> None:
    """``--model``: a family by its command-line name; its help lists them with their words
    (consecutive families of the same words together: "abrf1/abrf2/abrf3 attention RF")."""
    groups: list[tuple[list[str], str]] = []
    for family in command_families():
        if groups and groups[-1][1] == family.option_words:
            groups[-1][0].append(family.option)
        else:
            groups.append(([family.option], family.option_words))
    listing = ", ".join(f"{'/'.join(names)} {words}" for names, words in groups)
    default = {task: FAMILIES[default_settings(task).family].option
               for task in (CLASSIFICATION, REGRESSION)}
    train.add_argument("--model", choices=[family.option for family in command_families()],
                       default=None,
                       help=f"model family (default: {default[CLASSIFICATION]} for classes, "
                            f"{default[REGRESSION]} for numbers): {listing}")
    bases = {key for family in command_families() for key in family.bases or ()}
    offering = ", ".join(f"{f.option}: {'/'.join(f.bases)}" for f in command_families()
                         if f.bases)
    train.add_argument("--base", choices=sorted(bases), default=DEFAULT_BASE,
                       help=f"the base ensemble the family grows (default: {DEFAULT_BASE}); "
                            f"offered by {offering}; the Enhanced RF grows its own")


def main(argv=None) -> int:
    """Run the command line; returns the exit code (0, or 2 after a plain error).

    Warnings of the libraries underneath (numba unable to cache a compiled function on a full
    disk, a deprecation in a dependency) are not shown: they print a line of their source code
    and say nothing the user can act on. The terminal shows progress, results and one-line
    errors."""
    top = parser()
    args = top.parse_args(argv)
    _check_model_source(top, args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run(args)


def _run(args) -> int:
    from forestviz.cli import commands  # the heavy imports only once the arguments are good
    from forestviz.io.csv_input import DataError
    from forestviz.persistence.archive import ModelFileError
    from forestviz.store.config import StoreError

    try:
        if args.command in ("models", "audit"):
            from forestviz.cli import library

            return getattr(library, f"{args.command}_{args.action}")(args)
        return getattr(commands, RUNS.get(args.command, args.command))(args)
    except (DataError, ModelFileError, StoreError) as err:
        return _fail(str(err))
    except OSError as err:  # a file that cannot be written, a disk that is full
        name = f" '{err.filename}'" if err.filename else ""
        return _fail(f"{err.strerror or err}{name}")
    except KeyboardInterrupt:
        return 130


def _check_model_source(top, args) -> None:
    """``explain`` and ``report`` take a model file or ``--model NAME``, not both (a
    published model's report may leave out DATA.csv: its own table is used)."""
    if args.command not in ("explain", "report", "global"):
        return
    if args.published is None:
        if args.model is None or args.data is None:
            top.error(f"{args.command} needs a model file and a table, or --model NAME")
        return
    if args.command == "report" and args.data is None:
        args.model, args.data = None, args.model
    if args.model is not None:
        top.error(f"{args.command} takes a model file or --model NAME, not both")
    if args.command == "explain" and args.data is None:
        top.error("explain needs the table of rows to explain")
    if args.training is not None:
        top.error("--training is not needed with --model: the published model holds its table")


def _fail(message: str) -> int:
    line = " ".join(message.split())  # one line, whatever the message held
    print(f"forestviz: error: {line}", file=sys.stderr)
    return USAGE_ERROR


def run() -> None:
    """The console script's entry point."""
    sys.exit(main())
