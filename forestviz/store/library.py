"""The model library: publish a trained model once, list, show, open and retire its versions.

Publishing writes the blob first (:func:`forestviz.store.blobs.write_blob`: whole or not at
all), then in one transaction reads the name's last version, inserts the next one and its
audit event, and commits. Two publishers of one name at once take turns (SQLite's ``BEGIN
IMMEDIATE``) or, on a server database, the loser of the race breaks the unique (name,
version) constraint and tries again with the next number; either way they get versions 1 and
2. A process killed before the commit leaves a blob no row names, never a row without a blob.

Opening reads the blob, refuses it when its SHA-256 differs from the one recorded at publish
or when :func:`forestviz.persistence.loads` refuses it (naming the model either way), and
rebuilds a workbench ready to explain (:mod:`forestviz.store.published`).
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
from forestviz.persistence.archive import ModelFileError
from forestviz.store import blobs, engine, published, signing
from forestviz.store.audit import LOCAL, Actor, AuditTrail, event_row, utc
from forestviz.store.config import StoreConfig, StoreError
from forestviz.store.engine import reached
from forestviz.store.tables import PublishedModel
from forestviz.store.text import model_name, plain_text

PUBLISH_ATTEMPTS = 5


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
    name, at, version = str(text).rpartition("@") if "@" in str(text) else (text, "", "")
    if not at:
        return model_name(name), None
    if not version.isdigit() or int(version) < 1:
        raise StoreError(f"'{text}' names no version: write NAME or NAME@VERSION, e.g. "
                         "'Pima risk@2'.")
    return model_name(name), int(version)


class ModelLibrary:
    """The published models and the audit trail of one data directory and database."""

    def __init__(self, config: StoreConfig, bound: Engine):
        self.config, self.engine = config, bound
        self.audit = AuditTrail(bound)

    # ------------------------------------------------------------------ publish
    def publish(self, bench: Workbench, *, name: str, description: str = "",
                intended_use: str = "", actor: Actor = LOCAL) -> ModelVersion:
        """Publish the current model of ``bench`` as the next version of ``name``."""
        name = model_name(name)
        typed = {"description": plain_text(description, "description"),
                 "intended_use": plain_text(intended_use, "intended use")}
        facts = published.describe(bench)
        data = persistence.dumps(published.published_payload(bench))
        sha = blobs.write_blob(self.config.blob_dir, data)
        for _ in range(PUBLISH_ATTEMPTS):
            with contextlib.suppress(IntegrityError):  # another publisher took the number
                return self._insert(name, typed, facts, sha, len(data), actor)
        raise StoreError(f"The model '{name}' could not be published: other versions of it "
                         "were being published at the same time. Try again.")

    def _insert(self, name, typed, facts, sha, size, actor) -> ModelVersion:
        with reached(), Session(self.engine) as session, session.begin():
            last = session.scalar(select(func.max(PublishedModel.version))
                                  .where(PublishedModel.name == name))
            row = PublishedModel(
                name=name, version=(last or 0) + 1, **typed, **facts,
                forestviz_version=__version__, published_by=actor.subject,
                published_email=actor.email, published_at=datetime.now(UTC),
                blob_sha256=sha, blob_bytes=size)
            session.add(row)
            session.flush()
            session.add(event_row(actor, "model_published", (name, row.version)))
            return ModelVersion.of(row)

    # ------------------------------------------------------------------ read
    def versions(self, name: str | None = None, *,
                 include_retired: bool = False) -> list[ModelVersion]:
        """Published versions by name, newest version first (retired ones only when asked)."""
        statement = select(PublishedModel).order_by(PublishedModel.name,
                                                    PublishedModel.version.desc())
        if name is not None:
            statement = statement.where(PublishedModel.name == model_name(name))
        if not include_retired:
            statement = statement.where(PublishedModel.retired_at.is_(None))
        with reached(), Session(self.engine) as session:
            return [ModelVersion.of(row) for row in session.scalars(statement)]

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
        opened by ``actor``; a retired version opens only with ``allow_retired``."""
        info = self.show(name, version)
        if info.retired and not allow_retired:
            raise StoreError(f"The model '{info.ref}' was retired on "
                             f"{info.retired_at:%Y-%m-%d}; it is kept for the record only.")
        what = f"The published model '{info.ref}'"
        data = blobs.read_blob(self.config.blob_dir, info.blob_sha256, info.blob_sha256, what)
        try:
            bench = published.opened_workbench(persistence.loads(data))
        except ModelFileError as err:
            raise StoreError(f"{what} was refused: {err}") from err
        self.audit.record(actor, "model_opened", model=(info.name, info.version))
        return OpenedModel(info, bench)

    # ------------------------------------------------------------------ retire and tidy
    def retire(self, name: str, version: int, *, actor: Actor = LOCAL) -> ModelVersion:
        """Hide ``name@version`` from viewers; its row, blob and trail stay."""
        with reached(), Session(self.engine) as session, session.begin():
            row = self._row(session, model_name(name), version)
            if row.retired_at is not None:
                raise StoreError(f"The model '{row.name}@{row.version}' is retired already.")
            row.retired_at, row.retired_by = datetime.now(UTC), actor.subject
            session.add(event_row(actor, "model_retired", (row.name, row.version)))
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
