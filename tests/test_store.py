"""The model library (forestviz.store) on a real SQLite file and a real PostgreSQL database
(each test taking ``database`` runs on both, ``tests/store_databases.py``): a published model
opens without the upload and explains the same numbers bit for bit, in this process and after
a restart; versions, retirement, the audit trail (append-only in the database too), owner-only
files, a changed blob refused by name, and a library that cannot be used failing in one line."""

import hashlib
import io
import json
import stat
import zipfile

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import inspect, text
from sqlalchemy.exc import DBAPIError

from forestviz import persistence
from forestviz.store import (
    LOCAL,
    Actor,
    AlreadyPublished,
    StoreConfig,
    StoreError,
    StoreUnavailable,
    parse_ref,
)
from forestviz.store.blobs import content_digest
from forestviz.store.library import OpenedCache, open_library
from forestviz.store.tables import Base
from tests.store_helpers import database_env, library_at, numbers, run_script


def held_out(bench, count=6):
    return bench.model.test_rows[:count]


@pytest.mark.slow
def test_an_opened_model_explains_the_same_numbers_without_the_upload(bench, library):
    info = library.publish(bench, name="Pima risk", description="Diabetes risk",
                           intended_use="Screening")
    opened = library.open_model("Pima risk")
    assert opened.info == info and info.ref == "Pima risk@1"
    assert numbers(opened.workbench, held_out(bench)) == numbers(bench, held_out(bench))
    pd.testing.assert_frame_equal(opened.workbench.ranked_rows(), bench.ranked_rows())
    pd.testing.assert_frame_equal(opened.workbench.comparison().table, bench.comparison().table)
    pd.testing.assert_frame_equal(opened.workbench.dataset.frame, bench.dataset.frame)
    # the row's facts, without reading the blob
    assert info.dataset_name == "pima_diabetes" and info.target == "Diabetes"
    assert info.id_column == "Patient ID" and info.n_trees == 10
    assert info.n_train + info.n_test == len(bench.dataset.frame)
    expected_auc = bench.comparison().table.loc[bench.model.name, "AUC"]
    assert info.metrics[bench.model.name]["AUC"] == expected_auc
    assert [c["column"] for c in info.columns] == [c for c, _, _ in bench.editable_columns()]
    assert info.settings["n_estimators"] == 10 and info.published_by == "local"


@pytest.mark.slow
def test_a_restarted_process_opens_the_model_and_explains_the_same_numbers(bench, tmp_path,
                                                                           database):
    folder = tmp_path / "var"
    library_at(folder, database).publish(bench, name="Pima risk", intended_use="Screening")
    positions = [int(p) for p in held_out(bench)]
    found = run_script(f"""
        import json
        from forestviz.store import open_library
        from tests.store_helpers import numbers
        opened = open_library().open_model("Pima risk")
        print(json.dumps(numbers(opened.workbench, {positions})))
        """, folder, **database_env(database))
    assert found == json.loads(json.dumps(numbers(bench, positions)))


def test_a_model_file_digest_does_not_depend_on_which_values_were_one_object():
    # a trained workbench shares its data set's name with other values, an opened one holds
    # a string of its own: the app made a new version of an opened model published again
    # under its name (make fuzz-steps)
    name = "Pima risk"
    own = "".join(["Pima", " risk"])
    assert own == name and own is not name
    shared = persistence.dumps({"name": name, "source": name, "notes": [name]})
    apart = persistence.dumps({"name": name, "source": own, "notes": ["Pima risk"[:]]})
    assert content_digest(shared) == content_digest(apart)
    other = persistence.dumps({"name": name, "source": "Pima risks", "notes": [name]})
    assert content_digest(other) != content_digest(shared)


def test_an_opened_model_published_again_under_its_name_makes_no_version(bench, library):
    first = library.publish(bench, name="Pima risk", description="Diabetes risk",
                            intended_use="Screening")
    opened = library.open_model("Pima risk")
    with pytest.raises(AlreadyPublished) as again:
        library.publish(opened.workbench, name="Pima risk", description="Diabetes risk",
                        intended_use="Screening")
    assert again.value.info == first
    assert [v.version for v in library.versions()] == [1]


def test_versions_and_retirement(bench, library):
    first = library.publish(bench, name="Pima risk",
                            actor=Actor("u-1", "ann@example.org", "analyst"),
                            intended_use="Screening")
    second = library.publish(bench, name="Pima risk", description="second",
                             intended_use="Screening")
    other = library.publish(bench, name="Other", intended_use="Screening")
    assert (first.version, second.version, other.version) == (1, 2, 1)
    assert [v.ref for v in library.versions()] == ["Other@1", "Pima risk@2", "Pima risk@1"]
    assert library.open_model("Pima risk").info.version == 2
    library.retire("Pima risk", 2, actor=Actor("admin-7", role="admin"))
    assert [v.ref for v in library.versions("Pima risk")] == ["Pima risk@1"]
    assert len(library.versions(include_retired=True)) == 3
    assert library.open_model("Pima risk").info.version == 1  # the newest one in use
    kept = library.show("Pima risk", 2)
    assert kept.retired and kept.retired_by == "admin-7"
    with pytest.raises(StoreError, match="retired"):
        library.open_model("Pima risk", 2)
    assert library.open_model("Pima risk", 2, allow_retired=True).info.retired
    with pytest.raises(StoreError, match="retired already"):
        library.retire("Pima risk", 2)
    with pytest.raises(StoreError, match="No published model 'Pima risk@9'"):
        library.show("Pima risk", 9)
    assert first.published_email == "ann@example.org"


def test_names_and_descriptions_are_plain_bounded_text(bench, library):
    info = library.publish(bench, name="  <b>Risk</b>\u202e \n model ",
                           description="line <a href='x'>one</a>\x07\nline two\n\n",
                           intended_use="Screening")
    assert info.name == "<b>Risk</b> model"  # kept as text: the pages never render markup
    assert info.description == "line <a href='x'>one</a>\nline two"
    for bad, message in (("", "needs a name"), ("x" * 81, "at most 80"), ("a@b", "'@'")):
        with pytest.raises(StoreError, match=message):
            library.publish(bench, name=bad, intended_use="Screening")
    with pytest.raises(StoreError, match="at most 2,000"):
        library.publish(bench, name="ok", description="x" * 2001, intended_use="Screening")
    assert parse_ref("Pima risk@12") == ("Pima risk", 12)
    assert parse_ref("Pima risk") == ("Pima risk", None)
    with pytest.raises(StoreError, match="names no version"):
        parse_ref("Pima risk@two")
    assert library.versions() == [info]  # nothing was published by the refused calls


def test_a_changed_blob_is_refused_with_the_model_name(bench, library, tmp_path):
    info = library.publish(bench, name="Pima risk", intended_use="Screening")
    blob = tmp_path / "var" / "blobs" / info.blob_sha256
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 0xFF
    blob.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"'Pima risk@1' was refused: its file was changed"):
        library.open_model("Pima risk")
    # a blob whose recorded digest was changed with it still meets forestviz.persistence
    edited = hashlib.sha256(bytes(data)).hexdigest()
    with library.engine.begin() as connection:
        connection.execute(text("UPDATE published_models SET blob_sha256 = :sha"),
                           {"sha": edited})
    (blob.parent / edited).write_bytes(data)
    with pytest.raises(StoreError, match=r"'Pima risk@1' was refused: This"):
        library.open_model("Pima risk")


def test_files_are_owner_only(bench, tmp_path):
    library = library_at(tmp_path / "var")  # SQLite: its file is the library's
    library.publish(bench, name="Pima risk", intended_use="Screening")
    library.sign_download(bench.save())  # creates the signing key
    folder = tmp_path / "var"
    files = [p for p in folder.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"forestviz.db", "signing.key"} <= names and len(files) >= 4
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for path in (folder, folder / "blobs"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path


def test_the_audit_trail_is_append_only_and_filtered(bench, library, tmp_path):
    ann, bob = Actor("sub-ann", "ann@example.org", "analyst"), Actor("=HYPERLINK(1)", None,
                                                                     "viewer")
    library.publish(bench, name="Pima risk", actor=ann, intended_use="Screening")
    library.open_model("Pima risk", actor=bob)
    library.audit.record(bob, "row_explained", model=("Pima risk", 1), detail="P0001")
    values = library.audit.digests.values
    digest = values({"Age": 50, "BMI": 31.5})
    assert digest == values({"BMI": 31.5, "Age": 50}) != values({"BMI": 31.6, "Age": 50})
    library.audit.record(LOCAL, "row_explained", model=("Pima risk", 1), detail=digest)
    library.audit.record(LOCAL, "signin_refused", detail="not in the allowed group")
    trail = library.audit.query()
    assert list(trail["action"]) == ["model_published", "model_opened", "row_explained",
                                     "row_explained", "signin_refused"]
    assert list(library.audit.query(who="ann@example.org")["action"]) == ["model_published"]
    assert list(library.audit.query(action="row_explained")["detail"]) == ["P0001", digest]
    assert len(library.audit.query(model="Pima risk")) == 4
    assert library.audit.query(since=trail["at"].iloc[2])["action"].iloc[0] == "row_explained"
    assert len(library.audit.query(until=trail["at"].iloc[2])) == 2
    with pytest.raises(StoreError, match="Unknown audit action"):
        library.audit.record(LOCAL, "model_deleted")
    exported = library.audit.export_csv().decode()
    assert "'=HYPERLINK(1)" in exported and ",=HYPERLINK" not in exported
    for statement in ("UPDATE audit_events SET subject = 'x'", "DELETE FROM audit_events"):
        with library.engine.begin() as connection, pytest.raises(DBAPIError,
                                                                 match="append-only"):
            connection.execute(text(statement))
    assert len(library.audit.query()) == 5


def test_the_migrated_schema_is_the_mapped_one(tmp_path, database):
    library = library_at(tmp_path / "var", database)
    library_at(tmp_path / "var", database)  # a second open finds the schema at its head
    found = inspect(library.engine)
    for table in Base.metadata.sorted_tables:
        assert {c["name"] for c in found.get_columns(table.name)} == set(table.columns.keys())
    with library.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").all() == [
            ("0004",)]


def test_an_unusable_library_fails_in_one_line(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    for config in (StoreConfig(blocker / "var"),
                   StoreConfig(tmp_path / "var", "postgresql+psycopg://forestviz@127.0.0.1:9/x"),
                   StoreConfig(tmp_path / "var2", "sqlite:////nonexistent/folder/forestviz.db"),
                   StoreConfig(tmp_path / "var3", "not a url")):
        with pytest.raises(StoreUnavailable) as refused:
            open_library(config)
        message = str(refused.value)
        assert "\n" not in message and "working in memory only" in message


def test_blobs_no_row_names_are_swept(bench, library, tmp_path):
    kept = library.publish(bench, name="Pima risk", intended_use="Screening")
    blobs = tmp_path / "var" / "blobs"
    stray = blobs / ("0" * 64)
    stray.write_bytes(b"left by a publish killed before its commit")
    (blobs / ".partial-0123456789abcdef").write_bytes(b"half")
    assert library.sweep() == []  # young files may belong to a publish in progress
    assert sorted(library.sweep(older_than=0)) == [".partial-0123456789abcdef", "0" * 64]
    assert sorted(p.name for p in blobs.iterdir()) == [kept.blob_sha256]
    assert np.isfinite(library.open_model("Pima risk").workbench.explain(0).prediction).all()


def test_an_opened_version_is_loaded_once_and_a_changed_blob_is_still_refused(bench, tmp_path,
                                                                              database):
    folder = tmp_path / "var"
    library_at(folder, database).publish(bench, name="Pima risk", intended_use="Screening")
    # a server started anew warms its cache, recording nothing
    restarted = library_at(folder, database)
    assert restarted.warm() == ["Pima risk@1"] and len(restarted.opened) == 1
    assert list(restarted.audit.query()["action"]) == ["model_published"]
    # a version preloaded once published: in the cache, unrecorded
    fresh = library_at(folder, database)
    assert fresh.preload(fresh.show("Pima risk")) and len(fresh.opened) == 1
    assert fresh.open_model("Pima risk").workbench.model is fresh.opened.get(
        fresh.show("Pima risk").blob_sha256).model
    assert list(fresh.audit.query()["action"]) == ["model_published", "model_opened"]
    first = restarted.open_model("Pima risk").workbench
    second = restarted.open_model("Pima risk").workbench
    assert first is not second and first.model is second.model  # one load, shared
    assert numbers(second, held_out(bench)) == numbers(bench, held_out(bench))
    assert list(restarted.audit.query()["action"]) == ["model_published", "model_opened",
                                                       "model_opened", "model_opened"]
    blob = folder / "blobs" / restarted.show("Pima risk").blob_sha256
    data = bytearray(blob.read_bytes())
    data[len(data) // 3] ^= 0xFF
    blob.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=r"'Pima risk@1' was refused: its file was changed"):
        restarted.open_model("Pima risk")


def zip_of(size: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("0.npy", b"\0" * size)
    return out.getvalue()


def test_the_opened_cache_is_bounded_by_count_and_unpacked_bytes():
    cache = OpenedCache(models=2, max_bytes=1000)
    for sha in "abc":
        cache.put(sha, zip_of(100), sha.upper())
    assert len(cache) == 2 and cache.get("a") is None and cache.get("c") == "C"
    cache.put("d", zip_of(900), "D")  # the least recently used go first
    assert cache.get("d") == "D" and cache.get("b") is None and cache.get("c") == "C"
    cache.put("e", zip_of(5000), "E")  # larger than the whole cache: not kept
    assert cache.get("e") is None and cache.get("d") == "D"
