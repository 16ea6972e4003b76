"""The command line's commands: ``train``, ``explain`` and ``report`` (arguments parsed by
:mod:`forestviz.cli.main`). Each is the app's own workflow without the pages: the Train page's
:func:`~forestviz.app.workflow.train_bundle` and model file, the batch explanation of
:mod:`forestviz.batch`, and the Explain page's :meth:`Workbench.explain` and HTML report.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import time
from pathlib import Path
from typing import TYPE_CHECKING

from forestviz.app import workflow
from forestviz.app.workbench import Workbench
from forestviz.batch.model import BatchModel, read_bytes, read_model, training_dataset
from forestviz.batch.run import CHUNK_ROWS, backend, check_columns, explain_file, id_column_of
from forestviz.batch.sink import RowSink
from forestviz.batch.source import RowSource
from forestviz.cli import progress as bars
from forestviz.cli.main import COUNTERFACTUAL_CHUNK
from forestviz.io.csv_input import DataError, load_csv
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.io.limits import MAX_BYTES  # a table is read whole
from forestviz.io.row_ids import row_position
from forestviz.io.safe_write import OutputError, check_target, write_file
from forestviz.names import elide
from forestviz.parameters import PARAMETERS
from forestviz.persistence.archive import MAX_FILE_BYTES
from forestviz.persistence.model_file import ModelFile
from forestviz.registry import options

if TYPE_CHECKING:
    from forestviz.cli.library import Trail



# ---------------------------------------------------------------------------------- train
def train(args) -> int:
    check_target(args.out, force=args.force)  # before the training, not after it
    path = Path(args.data)
    data = read_bytes(path, MAX_BYTES, "table")
    frame = load_csv(data, max_bytes=MAX_BYTES)
    order = {name: i for i, name in enumerate(frame.columns)}
    # the Data page lists excluded columns in the table's order
    exclude = tuple(sorted(dict.fromkeys(args.drop), key=lambda c: order.get(c, len(order))))
    choice = DataChoice(f"upload:{hashlib.sha256(data).hexdigest()}", args.target, args.id,
                        exclude, args.task)
    dataset = Dataset.from_frame(frame, args.target,
                                 task=None if args.task == "auto" else args.task,
                                 id_column=args.id, exclude=exclude, name=path.name)
    defaults = workflow.default_settings(dataset.task)
    family = options()[args.model] if args.model else defaults.family
    numbers = {p.name: getattr(args, p.name) for p in PARAMETERS if p.option is not None}
    try:
        settings = workflow.Settings(family=family, base=args.base, **numbers)
    except ValueError as err:  # a base the family does not offer
        raise DataError(f"--base: {err}.") from err
    workflow.make_estimator(settings, dataset.task)  # DataError: a family the task rules out
    where = (backend(scheduler=args.scheduler, local_cluster=args.local_cluster)
             if args.scheduler or args.local_cluster else contextlib.nullcontext())
    with where, bars.stages("training", args.quiet) as progress:
        bundle = workflow.train_bundle(dataset, choice, settings, progress)
    bench = Workbench(dataset, choice, model=bundle)
    comparison = bench.comparison()
    # the table's notes once the training is done: a refused training prints one line
    for note in (*dataset.notes, *bundle.preprocessor.notes_):
        bars.ERRORS.print(bars.Text(note))
    bars.print_table(comparison.table, f"{bundle.name} on {dataset.name}: "
                     f"{len(bundle.train_rows)} training rows, {len(bundle.test_rows)} "
                     f"held-out rows ({dataset.task})")
    if comparison.selection:
        bars.OUTPUT.print(bars.Text(comparison.selection))
    from forestviz.cli.library import signed_model_file  # the library's packages on demand

    written = write_file(args.out, signed_model_file(bench.save()), force=args.force)
    bars.OUTPUT.print(bars.Text(f"Saved the model to {args.out} ({written:,} bytes)."))
    return 0


# ---------------------------------------------------------------------------------- explain
def explain(args) -> int:
    trail = rows = None
    flagged = []  # per chunk, the rows flagged as unlike the training rows
    change = _asked_change(args)
    if args.published is not None:  # its interval comes from its own stored table
        from forestviz.cli.library import published_batch_model

        model, trail = published_batch_model(
            args.published, counterfactual=(args.fixed, change) if args.counterfactual
            else None)
        rows = trail.rows()  # the audit trail's keyed digest of the rows explained
    else:
        model = read_model(args.model)
    sink = RowSink(args.out, force=args.force)  # a bad output is refused before the table is read
    source = RowSource(args.data)
    check_columns(model, source)
    id_column = id_column_of(model, source, args.id)
    if args.published is None:
        model = _with_interval(model, args, source, change)
    if args.contributions:
        model = model.with_contributions()
    started = time.perf_counter()
    with backend(scheduler=args.scheduler, local_cluster=args.local_cluster,
                 jobs=args.jobs, scatter=[model]), sink, bars.rows(
            "explaining rows", source.estimated_rows(), args.quiet) as progress:
        n = explain_file(model, source, sink, top_k=args.top_trees,
                         contributions=args.contributions, chunk_rows=args.chunk_rows or (
                             COUNTERFACTUAL_CHUNK if args.counterfactual else CHUNK_ROWS),
                         id_column=id_column, progress=progress,
                         read=None if rows is None else (
                             lambda chunk: rows.update(chunk.table.to_pandas())),
                         written=None if trail is None else (  # a published model's
                             lambda frame: flagged.append(_flags(frame))))
    if trail is not None:
        trail.explained(rows, sink.path, unfamiliar=sum(f[0] for f in flagged),
                        counterfactuals=sum(f[1] for f in flagged) if args.counterfactual
                        else None)
    seconds = time.perf_counter() - started
    bars.OUTPUT.print(bars.Text(f"Explained {n:,} rows into {args.out} in {seconds:.1f} s "
                                f"({n / seconds:,.0f} rows/s)."))
    return 0


def _flags(frame) -> tuple[int, int]:
    """(rows flagged as unlike the training rows, rows given a confirmed counterfactual)
    of a chunk's explanations: the audit trail's counts."""
    found = frame.get("counterfactual_found")
    return int(frame["unfamiliar"].sum()), 0 if found is None else int(found.sum())


def _asked_change(args) -> float | None:
    """The regression's change of ``--change`` (DataError in one line when it is no number,
    or when --fixed or --change come without --counterfactual)."""
    if not args.counterfactual:
        if args.fixed or args.change is not None:
            raise DataError("--fixed and --change go with --counterfactual.")
        return None
    from forestviz.explain.counterfactual.asked import requested_change

    return None if args.change is None else requested_change(args.change)


def _with_interval(model: BatchModel, args, source, change: float | None) -> BatchModel:
    """``model`` with what its training table adds (the interval, familiar ground and, with
    --counterfactual, the counterfactual's space)."""
    dataset = _training(model.file, args.training, source.path if not source.parquet else None)
    if dataset is not None:
        model = model.with_training(dataset)
        return (model.with_counterfactuals(dataset, args.fixed or (), change)
                if args.counterfactual else model)
    if args.counterfactual:
        raise DataError(f"--counterfactual reads the training rows: the model was trained on "
                        f"{model.file.trained_on}; give that file with --training.")
    if not args.quiet:
        bars.ERRORS.print(bars.Text(
            f"No calibrated interval: the model was trained on {model.file.trained_on}; give that "
            "file with --training to add it."))
    return model


def _training(model: ModelFile, training, data_path) -> Dataset | None:
    """The model's training data set: ``training`` (a path, which must be that table), else
    a bundled table, else ``data_path`` when it is the very file the model was trained on."""
    if training is not None:
        path = Path(training)
        found = training_dataset(model, read_bytes(path, MAX_BYTES, "table"), path.name)
        if found is None:
            raise DataError(f"'{path.name}' is not the table this model was trained on "
                            f"({model.trained_on}).")
        return found
    found = training_dataset(model)
    if found is not None or data_path is None or data_path.stat().st_size > MAX_BYTES:
        return found
    return training_dataset(model, data_path.read_bytes(), data_path.name)


# ---------------------------------------------------------------------------------- report
def report(args) -> int:
    change = _asked_change(args)
    bench, frame, where, trail = (_published_rows(args) if args.published is not None
                                  # the baselines: only the appendix shows them
                                  else (*_model_file_rows(args, with_baselines=args.appendix),
                                        None))
    if args.fixed is not None:  # else a published model's own, or none
        bench.fix_columns(args.fixed)
    if args.counterfactual:
        from forestviz.explain.counterfactual.asked import check_goal

        check_goal(bench.model.task == "classification", change)
    published = None if trail is None else f"{trail.model[0]}@{trail.model[1]}"
    dataset = bench.dataset
    wanted = [row_position(frame, bench.choice.id_column, row) for row in args.rows]
    if None in wanted:
        missing = args.rows[wanted.index(None)]
        raise DataError(f"No row of {where} has the ID '{missing}'.")
    to_pdf = _pdf_printer() if args.pdf else None
    out = _report_folder(Path(args.out), args.force)
    written = []
    with bars.rows("writing reports", len(wanted), args.quiet) as progress:
        for row_id, position in zip(args.rows, wanted, strict=True):
            values = frame.iloc[position]
            e = bench.explain(values=values[[c for c in values.index
                                             if c in dataset.feature_columns]],
                              row_id=str(row_id))
            target = _report_path(out, bench.report_name(e, "html"), written)
            glance = bench.glance(e)  # the summary of the Explain page, in the trail too
            found = bench.counterfactual(e, change=change) if args.counterfactual else None
            items = None if trail is None else trail.facts(
                bench, e, glance, counterfactual=found is not None and found.best is not None)
            mine = frame is dataset.frame  # a row of the model's own data: its outcome is known
            document = bench.report(e, appendix=args.appendix, published=published,
                                    glance=glance, card=None if trail is None else trail.card,
                                    training_row=mine and bench.is_training_row(position),
                                    actual=dataset.y.iloc[position] if mine else None,
                                    counterfactual=found,
                                    disputes=() if trail is None else trail.disputes(items))
            files = {target: document.encode("utf-8")}
            if to_pdf is not None:
                files[target.with_suffix(".pdf")] = to_pdf(document, row_id)
            for name, data in files.items():
                try:
                    write_file(name, data, force=args.force)
                except OutputError as err:
                    raise OutputError(f"{err} The {len(written):,} report files written "
                                      "before it are complete.") from err
                written.append(name)
                if trail is not None:
                    trail.reported(items, name)
            progress(1)
    for target in written:
        bars.OUTPUT.print(bars.Text(str(target)))
    return 0


def _model_file_rows(args, *, with_baselines: bool = True) -> tuple[Workbench, object, str]:
    """The workbench of a model file on its training table (the model read once, the baselines
    fitted beside it unless not ``with_baselines``), the table of the rows to report and its
    name in messages."""
    model = ModelFile.read(read_bytes(args.model, MAX_FILE_BYTES, "model file"))
    path = Path(args.data)
    data = read_bytes(path, MAX_BYTES, "table")
    training = data if args.training is None else read_bytes(args.training, MAX_BYTES,
                                                             "table")
    name = path.name if args.training is None else Path(args.training).name
    dataset = training_dataset(model, training, name)
    if dataset is None:
        which = "--training" if args.training else f"'{path.name}'"
        raise DataError(f"{which} is not the table this model was trained on "
                        f"({model.trained_on}); the report reads its training rows.")
    frame = dataset.frame if training is data else load_csv(data, max_bytes=MAX_BYTES)
    bench = Workbench(dataset, model.choice)
    with bars.stages("loading the model", args.quiet) as progress:
        bench.load(model, progress, with_baselines=with_baselines)
    return bench, frame, f"'{path.name}'"


def _published_rows(args) -> tuple[Workbench, object, str, Trail]:
    """The workbench of a published model, the rows to report (DATA.csv when given, else the
    model's own stored table), their name in messages, and the model's audit
    :class:`~forestviz.cli.library.Trail` (its "NAME@VERSION" too)."""
    from forestviz.cli.library import open_published

    opened, trail = open_published(args.published)
    bench = opened.workbench
    if args.data is None:
        return bench, bench.dataset.frame, f"the table of '{args.published}'", trail
    path = Path(args.data)
    frame = load_csv(read_bytes(path, MAX_BYTES, "table"), max_bytes=MAX_BYTES)
    return bench, frame, f"'{path.name}'", trail


# ---------------------------------------------------------------------------------- global
def global_views(args) -> int:
    """``forestviz global``: the Forest page's whole-model tables and figures
    (:mod:`forestviz.cli.whole`)."""
    from forestviz.cli.whole import write_global_views

    bench = (_published_rows(args) if args.published is not None
             else _model_file_rows(args))[0]
    return write_global_views(args, bench, _report_folder(Path(args.out), args.force))


def _pdf_printer():
    """The report's HTML-to-PDF printer: WeasyPrint in a worker process within the app's time
    limit (:func:`forestviz.app.printing.print_pdf`), a refusal (DataError) naming the row;
    DataError when this version of forestviz cannot print PDF."""
    if importlib.util.find_spec("weasyprint") is None:  # the worker imports it
        raise DataError("This version of forestviz cannot print PDF reports; leave out --pdf "
                        "for the HTML reports.")
    from forestviz.app.printing import PdfRefused, print_pdf

    def to_pdf(document: str, row_id) -> bytes:
        try:
            return print_pdf(document)
        except PdfRefused as err:
            raise DataError(f"Row '{elide(row_id)}': {err}") from err

    return to_pdf


def _report_folder(folder: Path, force: bool) -> Path:
    """``folder``, made when missing; OutputError when it is a link (unless ``force``: then
    the folder it points to is used) or no folder."""
    if folder.is_symlink() and not force:
        raise OutputError(f"The report folder '{folder}' is a symbolic link; forestviz does "
                          "not write through links. Give the folder itself (--force follows "
                          "the link).")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError as err:
        raise OutputError(f"'{folder}' is a file, not a folder for the reports.") from err
    except OSError as err:
        raise OutputError(f"The report folder '{folder}' cannot be made "
                          f"({err.strerror or err}).") from err
    return folder


def _report_path(folder: Path, name: str, taken) -> Path:
    """``folder / name`` (a :func:`~forestviz.explain.report.names.report_file_name`: row ID,
    model and date, each cut to safe characters, so no other path can be named), numbered
    ("…-2.html") when two IDs end up alike."""
    stem, suffix = name.rsplit(".", 1)
    target, copy = folder / name, 1
    while target in taken:
        copy += 1
        target = folder / f"{stem}-{copy}.{suffix}"
    return target
