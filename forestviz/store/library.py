"""The model library: publish a trained model once, list, show, open and retire its versions.

Publishing writes the blob first (:func:`forestviz.store.blobs.write_blob`: whole or not at
all), then in one transaction reads the name's last version, inserts the next one and its
audit event, and commits. Two publishers of one name at once take turns (SQLite's ``BEGIN
IMMEDIATE``) or, on a server database, the loser of the race breaks the unique (name,
version) constraint and tries again with the next number; either way they get versions 1 and
2. A process killed before the commit leaves a blob no row names, never a row without a blob.

Opening reads the blob, refuses it when its SHA-256 differs from the one recorded at publish
or when :func:`forestviz.persistence.loads` refuses it (naming the model either way), and
rebuilds a workbench ready to explain (:mod:`forestviz.store.published`). What it rebuilt is
kept, keyed by the blob's SHA-256, in a small LRU cache (:mod:`forestviz.store.cache`), so
another session opening the same version skips the load; the blob is still read and its
SHA-256 checked on every open, so a blob changed on disk is refused even when its model is
cached.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime

from sqlalchemy import Engine, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from forestviz import __version__, persistence
from forestviz.app.workbench import Workbench
from forestviz.card import card as cards
from forestviz.names import look_alike_key
from forestviz.persistence.archive import ModelFileError
from forestviz.store import blobs, engine, published, signing
from forestviz.store.actor import LOCAL, Actor
from forestviz.store.audit import AuditTrail, event_row, utc
from forestviz.store.cache import OpenedCache
from forestviz.store.chain import append
from forestviz.store.config import StoreConfig, StoreError
from forestviz.store.engine import reached
from forestviz.store.publishing import AlreadyPublished, check_origin, check_use
from forestviz.store.roles import require
from forestviz.store.tables import AuditEvent, PublishedModel
from forestviz.store.text import model_name, plain_text, reference

PUBLISH_ATTEMPTS = 5
PUBLISHED, RETIRED = "model_published", "model_retired"  # the events that change the list


@dataclass(frozen=True)
class ModelVersion:
    """One published version as the library's row records it (no blob read)."""

    name: str
    version: int
    description: str
    intended_use: str
    dataset_name: str
    dataset_sha256: str
    target: str
    id_column: str | None
    excluded: tuple[str, ...]
    task: str
    family: str
    n_trees: int
    n_train: int
    n_test: int
    settings: dict
    metrics: dict  # model → metric → value (None where not a number)
    columns: list  # the column schema: column, kind, median or levels
    forestviz_version: str
    published_by: str
    published_email: str | None
    published_at: datetime
    retired_by: str | None
    retired_at: datetime | None
    blob_sha256: str
    blob_bytes: int
    card: dict | None = None  # the model card (forestviz.card; None: published before cards)
    card_sha256: str | None = None  # the SHA-256 of its canonical JSON

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def retired(self) -> bool:
        return self.retired_at is not None

    def as_json(self) -> dict:
        """Plain JSON values (times in ISO 8601 UTC)."""
        found = asdict(self)
        found.update(excluded=list(self.excluded), published_at=self.published_at.isoformat(),
                     retired_at=None if self.retired_at is None else self.retired_at.isoformat())
        return found

    @classmethod
    def of(cls, row: PublishedModel) -> ModelVersion:
        found = {field.name: getattr(row, field.name) for field in fields(cls)}
        found.update(excluded=tuple(row.excluded), published_at=utc(row.published_at),
                     retired_at=utc(row.retired_at))
        return cls(**found)


@dataclass(frozen=True, eq=False)
class OpenedModel:
    """A published version opened: its row and a workbench ready to explain."""

    info: ModelVersion
    workbench: Workbench


def parse_ref(text: str) -> tuple[str, int | None]:
    """``NAME`` or ``NAME@VERSION`` as (name, version or None); StoreError when the version
    is not a whole number of at least 1."""
    typed = reference(text)
    name, at, version = typed.rpartition("@") if "@" in typed else (typed, "", "")
    if not at:
        return model_name(name), None
    if not (version.isascii() and version.isdigit()) or int(version) < 1:
        raise StoreError(f"'{text}' names no version: write NAME or NAME@VERSION, e.g. "
                         "'Pima risk@2'.")
    return model_name(name), int(version)


class ModelLibrary:
    """The published models and the audit trail of one data directory and database."""

    def __init__(self, config: StoreConfig, bound: Engine, cache: OpenedCache | None = None):
        self.config, self.engine = config, bound
        self._publishing = engine.patient(bound)  # a publish waits for another publisher
        self.audit = AuditTrail(bound, config)
        self.opened = OpenedCache() if cache is None else cache

    # ------------------------------------------------------------------ publish
    def publish(self, bench: Workbench, *, name: str, description: str = "",
                intended_use: str, out_of_scope: str = "", subgroups=(),
                actor: Actor = LOCAL) -> ModelVersion:
        """Publish the current model of ``bench`` as the next version of ``name``, with its
        model card (:func:`forestviz.card.build_card`: ``intended_use``, required,
        ``out_of_scope`` and the ``subgroups`` columns its performance is given by). Refused
        in one line (StoreError) when the intended use is blank (:func:`check_use`), when the
        model comes from a file whose origin cannot be verified (:func:`check_origin`), when
        ``name`` looks like another published name, or (:class:`AlreadyPublished`) when this
        very model, description and card choices are a version of ``name`` already; DataError
        for a subgroup column that is not one; :class:`~forestviz.store.roles.NotAllowed`
        when the actor's role may not publish."""
        require(actor.role, "publish")
        name = model_name(name)
        typed = {"description": plain_text(description, "description"),
                 "intended_use": plain_text(intended_use, "intended use")}
        check_use(typed["intended_use"])
        check_origin(None if bench.model is None else bench.model.origin_warning)
        self._unlike_others(name)
        facts = published.describe(bench)
        card = cards.build_card(bench, intended_use=typed["intended_use"],
                                out_of_scope=plain_text(out_of_scope, "out-of-scope use"),
                                subgroups=subgroups)
        data = persistence.dumps(published.published_payload(bench))
        self._not_again(name, typed, card, data)
        sha = blobs.write_blob(self.config.blob_dir, data)
        facts.update(card=card, blob_sha256=sha, blob_bytes=len(data))
        for _ in range(PUBLISH_ATTEMPTS):
            with contextlib.suppress(IntegrityError):  # another publisher took the number
                return self._insert(name, typed, facts, actor)
        raise StoreError(f"The model '{name}' could not be published: other versions of it "
                         "were being published at the same time. Try again.")

    def _unlike_others(self, name: str) -> None:
        """StoreError when another published name (retired ones too) looks like ``name``."""
        key = look_alike_key(name)
        with reached(), Session(self._publishing) as session:
            names = session.scalars(select(PublishedModel.name).distinct()).all()
        for other in names:
            if other != name and look_alike_key(other) == key:
                raise StoreError(f"The name '{name}' looks like the published model's name "
                                 f"'{other}' (they differ only in characters that look "
                                 "alike): publish under that name, or choose another.")

    def _not_again(self, name: str, typed: dict, card: dict, data: bytes) -> None:
        """AlreadyPublished when a version of ``name`` in use holds the model of ``data``
        (:func:`forestviz.store.blobs.content_digest`) with the same texts and card choices."""
        statement = (select(PublishedModel)
                     .where(PublishedModel.name == name, PublishedModel.retired_at.is_(None),
                            PublishedModel.description == typed["description"],
                            PublishedModel.intended_use == typed["intended_use"])
                     .order_by(PublishedModel.version.desc()))
        with reached(), Session(self._publishing) as session:
            rows = [ModelVersion.of(row) for row in session.scalars(statement)]
        chosen = cards.publisher_choices(card)
        rows = [info for info in rows if cards.publisher_choices(info.card) == chosen]
        digest = blobs.content_digest(data, published.SCORED) if rows else None
        for info in rows:
            try:
                kept = blobs.read_blob(self.config.blob_dir, info.blob_sha256,
                                       info.blob_sha256, info.ref)
            except StoreError:  # a blob changed on disk: not this model
                continue
            if blobs.content_digest(kept, published.SCORED) == digest:
                raise AlreadyPublished(info)

    def _insert(self, name, typed, facts, actor) -> ModelVersion:
        with reached(), Session(self._publishing) as session, session.begin():
            last = session.scalar(select(func.max(PublishedModel.version))
                                  .where(PublishedModel.name == name))
            version = (last or 0) + 1
            card = cards.finished(facts["card"], name=name, version=version,
                                  blob_sha256=facts["blob_sha256"])
            row = PublishedModel(
                name=name, version=version, **typed, **{**facts, "card": card},
                card_sha256=cards.digest(card), forestviz_version=__version__,
                published_by=actor.subject, published_email=actor.email,
                published_at=datetime.now(UTC))
            session.add(row)
            session.flush()
            append(session, [event_row(actor, PUBLISHED, (name, row.version))])
            return ModelVersion.of(row)

    # ------------------------------------------------------------------ read
    def versions(self, name: str | None = None, *, include_retired: bool = False,
                 actor: Actor = LOCAL) -> list[ModelVersion]:
        """Published versions by name, newest version first (retired ones only when asked, by
        a role that may see them: else :class:`~forestviz.store.roles.NotAllowed`)."""
        if include_retired:
            require(actor.role, "open_retired")
        statement = select(PublishedModel).order_by(PublishedModel.name,
                                                    PublishedModel.version.desc())
        if name is not None:
            statement = statement.where(PublishedModel.name == model_name(name))
        if not include_retired:
            statement = statement.where(PublishedModel.retired_at.is_(None))
        with reached(), Session(self.engine) as session:
            return [ModelVersion.of(row) for row in session.scalars(statement)]

    def stamp(self) -> int | None:
        """A number that changes whenever the list of versions does, on any replica: the id
        of the newest publish or retirement in the audit trail (written in the same
        transaction as the row it names, after taking the chain's turn, so ids grow in the
        order of the commits), None before the first. One query on the trail's action index;
        the pages that list versions ask it every second and run again when it changed."""
        with reached(), Session(self.engine) as session:
            return session.scalar(select(func.max(AuditEvent.id))
                                  .where(AuditEvent.action.in_((PUBLISHED, RETIRED))))

    def show(self, name: str, version: int | None = None) -> ModelVersion:
        """``name@version`` (retired ones too: they stay on the record), or the newest
        version of ``name`` that is not retired; StoreError when there is none."""
        with reached(), Session(self.engine) as session:
            return ModelVersion.of(self._row(session, model_name(name), version))

    def _row(self, session: Session, name: str, version: int | None) -> PublishedModel:
        statement = select(PublishedModel).where(PublishedModel.name == name)
        if version is None:
            statement = statement.where(PublishedModel.retired_at.is_(None))
        else:
            statement = statement.where(PublishedModel.version == version)
        row = session.scalars(statement.order_by(PublishedModel.version.desc())).first()
        if row is None:
            which = f"'{name}@{version}'" if version else f"'{name}' (not retired)"
            raise StoreError(f"No published model {which} is in the library.")
        return row

    def open_model(self, name: str, version: int | None = None, *, actor: Actor = LOCAL,
                   allow_retired: bool = False) -> OpenedModel:
        """The workbench of a published version (as :meth:`show` finds it), recorded as
        opened by ``actor``; a retired version opens only with ``allow_retired``, for a
        role that may open retired models (:class:`~forestviz.store.roles.NotAllowed`)."""
        require(actor.role, "open")
        info = self.show(name, version)
        if info.retired and not allow_retired:
            raise StoreError(f"The model '{info.ref}' was retired on "
                             f"{info.retired_at:%Y-%m-%d}; it is kept for the record only.")
        if info.retired:
            require(actor.role, "open_retired")
        bench = self._workbench(info)
        self.audit.record(actor, "model_opened", model=(info.name, info.version))
        # each caller its own workbench (sessions keep models of their own beside it)
        return OpenedModel(info, Workbench(bench.dataset, bench.choice, model=bench.model))

    def _workbench(self, info: ModelVersion) -> Workbench:
        """The opened workbench of ``info``: its blob checked, then the cached model or a
        fresh load (kept in the cache)."""
        what = f"The published model '{info.ref}'"
        data = blobs.read_blob(self.config.blob_dir, info.blob_sha256, info.blob_sha256, what)
        with self.opened.loading(info.blob_sha256):
            bench = self.opened.get(info.blob_sha256)
            if bench is None:
                try:
                    bench = published.opened_workbench(persistence.loads(data))
                except ModelFileError as err:
                    raise StoreError(f"{what} was refused: {err}") from err
                self.opened.put(info.blob_sha256, data, bench)
        return bench

    def warm(self) -> list[str]:
        """Load the newest version of each published name into the cache (as many as it
        keeps, most recently published first; nothing recorded: nobody opened them), so the
        first session after a restart opens them at once; the refs loaded (refused ones are
        left for :meth:`open_model` to name)."""
        newest = {}
        for info in self.versions():
            newest.setdefault(info.name, info)
        newest = sorted(newest.values(), key=lambda v: v.published_at, reverse=True)
        return [info.ref for info in newest[:self.opened.models] if self.preload(info)]

    def preload(self, info: ModelVersion) -> bool:
        """Load ``info`` into the cache, recording nothing (the app calls it in the background
        once a model is published, so that its first opener does not wait for the load);
        False when its blob is refused, which :meth:`open_model` then names."""
        try:
            self._workbench(info)
        except StoreError:
            return False
        return True

    # ------------------------------------------------------------------ retire and tidy
    def retire(self, name: str, version: int, *, actor: Actor = LOCAL) -> ModelVersion:
        """Hide ``name@version`` from viewers; its row, blob and trail stay (NotAllowed for a
        role that may not retire)."""
        require(actor.role, "retire")
        with reached(), Session(self.engine) as session, session.begin():
            row = self._row(session, model_name(name), version)
            if row.retired_at is not None:
                raise StoreError(f"The model '{row.name}@{row.version}' is retired already.")
            row.retired_at, row.retired_by = datetime.now(UTC), actor.subject
            append(session, [event_row(actor, RETIRED, (row.name, row.version))])
            session.flush()
            return ModelVersion.of(row)

    def sweep(self, older_than: float = blobs.SWEEP_AGE) -> list[str]:
        """Remove blobs no version names (a publish killed before its commit) once older
        than ``older_than`` seconds; the names removed."""
        with reached(), Session(self.engine) as session:
            named = set(session.scalars(select(PublishedModel.blob_sha256)))
        return blobs.sweep(self.config.blob_dir, named, older_than)

    # ------------------------------------------------------------------ downloads
    def sign_download(self, data: bytes) -> bytes:
        """A model file the server hands out, signed with the server's key."""
        return signing.sign(data, signing.signing_key(self.config))

    def signing_problem(self) -> str | None:
        """Why this server cannot sign the model files it hands out (one line), or None."""
        try:
            signing.signing_key(self.config)
        except StoreError as err:
            return str(err)
        return None

    def verify_file(self, data: bytes) -> signing.Verdict:
        """Whether a model file carries this server's valid signature."""
        return signing.verify(data, signing.signing_key(self.config))


def open_library(config: StoreConfig | None = None) -> ModelLibrary:
    """The library of ``config`` (default: the environment), migrated and tidied;
    StoreUnavailable when it cannot be used."""
    config = StoreConfig.from_env() if config is None else config
    library = ModelLibrary(config, engine.connect(config))
    with contextlib.suppress(OSError):
        library.sweep()
    return library
