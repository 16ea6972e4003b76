"""The library's two tables (SQLAlchemy 2 declarative mapping); the migrations in
``migrations/versions`` create exactly these, and ``tests/test_store.py`` compares them.

``published_models``: one row per published version, the provenance typed or known at publish
and what the pages show without opening the blob (metrics, column schema, model card).
``audit_events``: the append-only trail (no API updates or deletes a row, and database
triggers refuse it), each event linked to the one before by its hash (:mod:`.chain`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, DateTime, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAME_CHARS = 80
TEXT_CHARS = 2000
SUBJECT_CHARS = 255


class Base(DeclarativeBase):
    pass


class PublishedModel(Base):
    __tablename__ = "published_models"
    __table_args__ = (UniqueConstraint("name", "version", name="uq_published_models_version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_CHARS))
    version: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(Text)
    intended_use: Mapped[str] = mapped_column(Text)
    dataset_name: Mapped[str] = mapped_column(String(SUBJECT_CHARS))
    dataset_sha256: Mapped[str] = mapped_column(String(64))
    target: Mapped[str] = mapped_column(Text)
    id_column: Mapped[str | None] = mapped_column(Text)
    excluded: Mapped[list] = mapped_column(JSON)
    task: Mapped[str] = mapped_column(String(20))
    family: Mapped[str] = mapped_column(String(40))
    n_trees: Mapped[int] = mapped_column(Integer)
    n_train: Mapped[int] = mapped_column(Integer)
    n_test: Mapped[int] = mapped_column(Integer)
    settings: Mapped[dict] = mapped_column(JSON)
    metrics: Mapped[dict] = mapped_column(JSON)
    columns: Mapped[list] = mapped_column(JSON)
    forestviz_version: Mapped[str] = mapped_column(String(40))
    published_by: Mapped[str] = mapped_column(String(SUBJECT_CHARS))
    published_email: Mapped[str | None] = mapped_column(String(SUBJECT_CHARS))
    published_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    retired_by: Mapped[str | None] = mapped_column(String(SUBJECT_CHARS))
    retired_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    blob_sha256: Mapped[str] = mapped_column(String(64))
    blob_bytes: Mapped[int] = mapped_column(Integer)
    # the model card (forestviz.card; None: published before cards) and its SHA-256
    card: Mapped[dict | None] = mapped_column(JSON)
    card_sha256: Mapped[str | None] = mapped_column(String(64))


class AuditEvent(Base):
    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_at", "at"),
                      Index("ix_audit_events_action", "action"),
                      Index("ux_audit_events_seq", "seq", unique=True))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    subject: Mapped[str] = mapped_column(String(SUBJECT_CHARS))
    email: Mapped[str | None] = mapped_column(String(SUBJECT_CHARS))
    action: Mapped[str] = mapped_column(String(40))
    model_name: Mapped[str | None] = mapped_column(String(NAME_CHARS))
    model_version: Mapped[int | None] = mapped_column(Integer)
    detail: Mapped[str | None] = mapped_column(Text)
    # the hash chain (:mod:`forestviz.store.chain`; None: written before the chain began)
    seq: Mapped[int | None] = mapped_column(Integer)
    prev_sha256: Mapped[str | None] = mapped_column(String(64))
    sha256: Mapped[str | None] = mapped_column(String(64))


def utc(moment: datetime | None) -> datetime | None:
    """``moment`` as an aware UTC time (SQLite hands back naive times, written as UTC)."""
    if moment is None or moment.tzinfo is not None:
        return None if moment is None else moment.astimezone(UTC)
    return moment.replace(tzinfo=UTC)
