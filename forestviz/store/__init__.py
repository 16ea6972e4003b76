"""The model library: models published once and opened by many, and the audit trail.

A published model is a blob (:mod:`forestviz.persistence` bytes, named by its SHA-256, in
``DATA_DIR/blobs``) and a row of provenance in a SQLAlchemy database (SQLite in ``DATA_DIR``
by default, any URL through ``FORESTVIZ_DATABASE_URL``) whose schema Alembic migrates at open.

    library = open_library()                       # StoreUnavailable: the app works in memory
    info = library.publish(bench, name="Pima risk", description="…",
                           intended_use="Screening clinic", actor=LOCAL)  # with its card
    opened = library.open_model("Pima risk")       # a Workbench ready to explain, no upload
    library.audit.record(actor, "row_explained", model=info.ref, detail="P0001")

:mod:`.config` reads the environment, :mod:`.engine` connects and migrates, :mod:`.tables`
holds the schema, :mod:`.blobs` the files, :mod:`.published` turns a workbench into plain data
and back, :mod:`.library` publishes and opens, :mod:`.audit` appends and reads the trail,
:mod:`.chain` links each event to the one before by its hash (``forestviz audit verify``) and
:mod:`.signing` signs downloaded model files, :mod:`.publishing` says what may be published
(one origin check for the app and the command line; a repeat refused), :mod:`.text` holds
names in their one normal form, :mod:`.cache` the opened models and :mod:`.roles` the one
table of what each role may do (``may``), which the library and the trail check.
``docs/security.md`` ("Model library and audit") says what each part promises.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "AlreadyPublished": "forestviz.store.publishing",
    "LOCAL": "forestviz.store.actor",
    "Actor": "forestviz.store.actor",
    "AuditTrail": "forestviz.store.audit",
    "ModelLibrary": "forestviz.store.library",
    "ModelVersion": "forestviz.store.library",
    "NotAllowed": "forestviz.store.roles",
    "OpenedModel": "forestviz.store.library",
    "StoreBusy": "forestviz.store.config",
    "StoreConfig": "forestviz.store.config",
    "StoreError": "forestviz.store.config",
    "StoreUnavailable": "forestviz.store.config",
    "open_library": "forestviz.store.library",
    "may": "forestviz.store.roles",
    "parse_ref": "forestviz.store.library",
})
