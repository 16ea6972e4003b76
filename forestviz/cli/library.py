"""The ``models`` and ``audit`` commands (arguments in :mod:`forestviz.cli.library_args`) and
the published models ``explain`` and ``report`` open with ``--model NAME[@VERSION]``. The
command line acts as the actor ``local`` with the role of ``FORESTVIZ_LOCAL_ROLE`` (default
``admin``; :mod:`forestviz.store.roles` says what it may do), and the audit trail records what
it did with a published model's patients (:class:`Trail`: the rows it explained, the reports it
wrote with what each explanation answered (:mod:`forestviz.store.explained`), each file by name
and keyed digest) and each export of the trail itself.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from forestviz.app.model_file import restore
from forestviz.app.workbench import Workbench
from forestviz.batch.model import BatchModel, read_bytes, training_dataset
from forestviz.cli import progress as bars
from forestviz.io.csv_input import DataError
from forestviz.io.limits import MAX_BYTES  # a table is read whole
from forestviz.io.safe_write import write_file, write_pieces
from forestviz.persistence.archive import MAX_FILE_BYTES
from forestviz.persistence.model_file import ModelFile
from forestviz.store import (
    ModelLibrary,
    OpenedModel,
    StoreConfig,
    StoreError,
    open_library,
    parse_ref,
)
from forestviz.store.actor import local_actor
from forestviz.store.audit import facts
from forestviz.store.digests import RowsDigest
from forestviz.store.explained import explanation_facts
from forestviz.store.publishing import check_origin, check_use
from forestviz.store.signing import sign, signing_key

CARD_KINDS = (".json", ".html", ".pdf")


def models_list(args) -> int:
    versions = open_library().versions(include_retired=args.all, actor=local_actor())
    if args.json:
        print(json.dumps([v.as_json() for v in versions], indent=2, ensure_ascii=False))
        return 0
    table = pd.DataFrame([{"model": v.ref, "family": v.family, "trees": v.n_trees,
                           "data set": v.dataset_name,
                           "published": f"{v.published_at:%Y-%m-%d %H:%M} UTC",
                           "by": v.published_by,
                           **({"retired": "yes" if v.retired else ""} if args.all else {})}
                          for v in versions])
    if table.empty:
        bars.OUTPUT.print(bars.Text("No model is published yet."))
    else:
        bars.print_table(table.set_index("model"), f"{len(table)} published versions")
    return 0


def signed_model_file(data: bytes) -> bytes:
    """The model file ``forestviz train`` writes, signed with the library's key (as the app's
    "Save the model" signs it), so that ``models publish`` takes it; unsigned, said in one line,
    when the key cannot be used."""
    try:
        return sign(data, signing_key(StoreConfig.from_env()))
    except StoreError as err:
        bars.ERRORS.print(bars.Text(f"The model file is unsigned ({err}): `forestviz models "
                                    "publish` will refuse it."))
        return data


def models_publish(args) -> int:
    check_use(args.intended_use)  # before the scoring: the library refuses a blank one anyway
    data = read_bytes(args.model, MAX_FILE_BYTES, "model file")
    library = open_library()  # before the scoring: an unavailable library fails at once
    origin = library.verify_file(data).warning
    check_origin(origin)  # the app's check: only files this server signed
    file = ModelFile.read(data)
    training = None if args.training is None else read_bytes(args.training, MAX_BYTES,
                                                             "table")
    name = Path(args.training).name if args.training else file.dataset_name
    dataset = training_dataset(file, training, name)
    if dataset is None:
        problem = (f"'{name}' is not that table" if args.training else
                   "it needs its training table: give it with --training")
        raise DataError(f"To publish this model, its held-out metrics and training rows are "
                        f"read from the table it was trained on ({file.trained_on}); "
                        f"{problem}.")
    with bars.stages("scoring the held-out rows", args.quiet) as progress:
        bundle = restore(file, dataset, file.choice, progress)
    bench = Workbench(dataset, file.choice, model=replace(bundle, origin_warning=origin))
    bench.fix_columns(args.fixed)  # what would change the answer keeps them
    info = library.publish(bench, name=args.name, description=args.description,
                           intended_use=args.intended_use, out_of_scope=args.out_of_scope,
                           subgroups=args.subgroup, actor=local_actor())
    bars.OUTPUT.print(bars.Text(
        f"Published {info.ref} ({info.family}, {info.n_trees} trees, {info.blob_bytes:,} "
        f"bytes). It holds the {info.n_train + info.n_test:,} rows of '{info.dataset_name}' "
        "(its training rows are shown to viewers as similar patients)."))
    return 0


def models_show(args) -> int:
    info = open_library().show(*parse_ref(args.ref))
    if args.json:
        print(json.dumps(info.as_json(), indent=2, ensure_ascii=False))
        return 0
    retired = (f"retired {info.retired_at:%Y-%m-%d %H:%M} UTC by {info.retired_by}"
               if info.retired else "in use")
    facts = [("model", info.ref), ("status", retired), ("description", info.description),
             ("intended use", info.intended_use), ("family", info.family),
             ("trees", str(info.n_trees)), ("task", info.task), ("data set",
             f"{info.dataset_name} (SHA-256 {info.dataset_sha256})"), ("target", info.target),
             ("ID column", info.id_column or "none"),
             ("excluded", ", ".join(info.excluded) or "none"),
             ("rows", f"{info.n_train:,} training, {info.n_test:,} held out"),
             ("published", f"{info.published_at:%Y-%m-%d %H:%M} UTC by {info.published_by}"),
             ("forestviz", info.forestviz_version), ("blob SHA-256", info.blob_sha256),
             ("card SHA-256", info.card_sha256 or "none (published before model cards)")]
    for label, value in facts:
        bars.OUTPUT.print(bars.Text(f"{label:>13}: {value}"))
    metrics = pd.DataFrame(info.metrics).T.astype(float)
    bars.print_table(metrics, "held-out metrics")
    return 0


def models_card(args) -> int:
    """Write a version's model card as JSON (its canonical form: the file's SHA-256 is the
    card's), HTML or PDF, by the suffix of ``--out``."""
    from forestviz.card.card import canonical
    from forestviz.card.views import card_html

    info = open_library().show(*parse_ref(args.ref))
    if info.card is None:
        raise StoreError(f"'{info.ref}' was published before model cards: it has none. "
                         "Publish the model again to give it one.")
    kind = Path(args.out).suffix.lower()
    if kind not in CARD_KINDS:
        raise DataError(f"Write the card to a file ending in .json, .html or .pdf, not "
                        f"'{kind or Path(args.out).name}'.")
    if kind == ".json":
        data = canonical(info.card)
    else:
        data = card_html(info.card, info.card_sha256).encode("utf-8")
    if kind == ".pdf":
        from forestviz.app.printing import print_pdf

        data = print_pdf(data.decode("utf-8"))  # PdfRefused: one line, as for reports
    write_file(args.out, data, force=args.force)  # never through a link
    bars.OUTPUT.print(bars.Text(f"Wrote the model card of {info.ref} (SHA-256 "
                                f"{info.card_sha256}) to {args.out}."), soft_wrap=True)
    return 0


def models_retire(args) -> int:
    name, version = parse_ref(args.ref)
    if version is None:
        raise DataError(f"Name the version to retire: '{name}@VERSION'.")
    info = open_library().retire(name, version, actor=local_actor())
    bars.OUTPUT.print(bars.Text(f"Retired {info.ref}: viewers no longer see it; it stays on "
                                "the record."))
    return 0


def audit_export(args) -> int:
    filters = {"since": args.since, "until": args.until, "action": args.event,
               "who": args.who, "model": args.model}
    trail, actor = open_library().audit, local_actor()
    pieces = trail.export(actor=actor, **filters)  # read and written a piece at a time
    if args.out is None:
        for piece in pieces:
            sys.stdout.buffer.write(piece)
        sys.stdout.flush()
    else:
        write_pieces(args.out, pieces, force=args.force)  # never through a link
    out = None if args.out is None else Path(args.out)
    trail.record(actor, "audit_exported", detail=facts(
        **{k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in filters.items()},
        file="stdout" if out is None else out.name,
        file_digest=None if out is None else trail.digests.file(out)))
    if out is not None:
        bars.OUTPUT.print(bars.Text(f"Wrote the audit trail to {args.out}."))
    return 0


def audit_verify(args) -> int:
    """Every broken link of the trail's hash chain, one line each (status 1), or that it is
    intact with its head hash to note (status 0)."""
    verdict = open_library().audit.verify(args.noted, actor=local_actor())
    for line in verdict.lines():
        bars.OUTPUT.print(bars.Text(line), soft_wrap=True)  # one line each, however long
    return 0 if verdict.intact else 1


def audit_purge(args) -> int:
    """Delete the events older than the retention, the purge recorded (admins only)."""
    purged = open_library().audit.purge(actor=local_actor())
    bars.OUTPUT.print(bars.Text(purged.line()), soft_wrap=True)
    return 0


# --------------------------------------------------------------------- explain and report
@dataclass(frozen=True)
class Trail:
    """What the command line records of its use of a published model's patients: ``model``
    its name and version, ``blob_sha256`` the blob that answered."""

    library: ModelLibrary
    model: tuple[str, int]
    blob_sha256: str
    card: str | None = None  # the SHA-256 of its model card, which its records name

    def rows(self) -> RowsDigest:
        """The running keyed digest of the rows to be explained."""
        return self.library.audit.digests.rows()

    def explained(self, rows: RowsDigest, out: Path, *, unfamiliar: int | None = None,
                  counterfactuals: int | None = None) -> None:
        """``rows`` explained into the file ``out``, ``unfamiliar`` of them flagged as unlike
        the training rows (:mod:`forestviz.explain.row.familiar`), ``counterfactuals`` of them
        given a confirmed change that would change the answer (None: not asked for)."""
        extra = {} if counterfactuals is None else {"counterfactuals": counterfactuals}
        self._record("rows_explained", blob_sha256=self.blob_sha256, rows=rows.rows,
                     rows_digest=rows.hexdigest(), file=out.name,
                     file_digest=self.library.audit.digests.file(out), unfamiliar=unfamiliar,
                     **extra)

    def facts(self, bench, explanation, glance, *, counterfactual: bool = False) -> dict:
        """What :func:`~forestviz.store.explained.explanation_facts` says of ``explanation``
        (its ``glance``, as the report shows it; ``counterfactual``: a change that would change
        the answer is shown)."""
        return explanation_facts(bench, explanation, glance, digests=self.library.audit.digests,
                                 blob_sha256=self.blob_sha256, row=explanation.row_id,
                                 counterfactual=counterfactual)

    def disputes(self, items: dict) -> list[str]:
        """The disagreements recorded with the explanation of ``items`` (:meth:`facts`), by
        anyone, oldest first, a sentence each: the record lists them."""
        found = self.library.audit.disputes(items, actor=local_actor())
        return [said.sentence() for said in found]

    def reported(self, items: dict, out: Path) -> None:
        """A report of the explanation of ``items`` (:meth:`facts`) written to ``out``: those
        facts, and the file's name and keyed digest."""
        self._record("report_written", **items, file=out.name,
                     file_digest=self.library.audit.digests.file(out))

    def _record(self, action: str, **items) -> None:
        self.library.audit.record(local_actor(), action, model=self.model, detail=facts(**items))


def open_published(ref: str) -> tuple[OpenedModel, Trail]:
    """The published model ``NAME[@VERSION]``, opened by the local actor, and its
    :class:`Trail`."""
    library = open_library()
    opened = library.open_model(*parse_ref(ref), actor=local_actor())
    return opened, Trail(library, (opened.info.name, opened.info.version),
                         opened.info.blob_sha256, opened.info.card_sha256)


def published_batch_model(ref: str, *, counterfactual=None) -> tuple[BatchModel, Trail]:
    """The :class:`BatchModel` of a published model, its calibrated interval fitted on its
    own stored held-out rows (no --training needed), and its :class:`Trail`;
    ``counterfactual``: (the columns that cannot change, None for those the model was
    published with; a regression's change) when what would change each answer is asked."""
    opened, trail = open_published(ref)
    bench = opened.workbench
    model = BatchModel.from_file(ModelFile.of(bench.model)).with_training(bench.dataset)
    if counterfactual is not None:
        fixed, change = counterfactual
        model = model.with_counterfactuals(
            bench.dataset, bench.fixed_columns() if fixed is None else fixed, change)
    return model, trail
