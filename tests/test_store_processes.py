"""The library with several processes: two publishing one name at once get versions 1 and 2,
and a publisher killed with SIGKILL after writing its blob, or inside its transaction, leaves
no half model: no row, a library that opens, and a later publish (here) that gets version 1; on
SQLite (the publishers take turns: ``BEGIN IMMEDIATE``) and on PostgreSQL (the race is real:
both read no version, both insert 1, the unique constraint refuses the second commit and its
retry takes 2)."""

import os
import signal
import time
from pathlib import Path

import pytest

from tests.store_helpers import HANG_GUARD, database_env, library_at, run_script, trained

PUBLISH = """
    import json, os, time
    from pathlib import Path
    from forestviz.store import blobs, library as library_module, open_library
    from tests.store_helpers import trained

    bench = trained("vanilla", 5)
    store = open_library()
    {patch}
    info = store.publish(bench, name=os.environ.get("MODEL_NAME", "Pima risk"),
                         intended_use="Screening")
    print(json.dumps(info.version))
"""
# both publishers hold their blob, then go into the transaction together
TOGETHER = """
    write = blobs.write_blob
    def write_then_wait(folder, data):
        name = write(folder, data)
        Path(os.environ["READY"]).touch()
        while not all(Path(p).exists() for p in os.environ["ALL"].split(":")):
            time.sleep(0.005)
        return name
    blobs.write_blob = write_then_wait
"""
PAUSE_AFTER_BLOB = """
    write = blobs.write_blob
    def write_then_pause(folder, data):
        name = write(folder, data)
        Path(os.environ["READY"]).touch()
        time.sleep(600)
    blobs.write_blob = write_then_pause
"""
PAUSE_IN_TRANSACTION = """
    event_row = library_module.event_row
    def row_then_pause(*args):
        found = event_row(*args)
        Path(os.environ["READY"]).touch()
        time.sleep(600)
    library_module.event_row = row_then_pause
"""


@pytest.mark.slow
def test_two_processes_publishing_one_name_get_versions_1_and_2(tmp_path, database):
    folder = tmp_path / "var"
    library_at(folder, database)  # migrated once; each child opens it as a server would
    ready = [tmp_path / "ready-a", tmp_path / "ready-b"]
    children = [run_script(PUBLISH.format(patch=TOGETHER), folder, wait=False, READY=str(mine),
                           ALL=":".join(map(str, ready)), **database_env(database))
                for mine in ready]
    versions = []
    for child in children:
        out, err = child.communicate(timeout=HANG_GUARD)
        assert child.returncode == 0, err
        versions.append(int(out.strip().splitlines()[-1]))
    assert sorted(versions) == [1, 2]
    library = library_at(folder, database)
    found = library.versions()
    assert sorted(v.version for v in found) == [1, 2]
    assert len({v.blob_sha256 for v in found}) == 2
    for v in found:
        assert library.open_model("Pima risk", v.version).info == v
    assert list(library.audit.query(action="model_published")["version"]) == [1, 2]
    assert library.audit.verify().intact  # the refused commit's event left no fork


@pytest.mark.parametrize("pause", [PAUSE_AFTER_BLOB, PAUSE_IN_TRANSACTION],
                         ids=["after the blob", "inside the transaction"])
@pytest.mark.slow
def test_a_publisher_killed_mid_way_leaves_no_half_model(tmp_path, pause, database):
    folder, ready = tmp_path / "var", tmp_path / "ready"
    library_at(folder, database)
    child = run_script(PUBLISH.format(patch=pause), folder, wait=False, READY=str(ready),
                       **database_env(database))
    started = time.monotonic()
    while not ready.exists():
        assert child.poll() is None, child.communicate()[1]
        assert time.monotonic() - started < HANG_GUARD
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.communicate(timeout=HANG_GUARD)
    library = library_at(folder, database)
    assert library.versions(include_retired=True) == []
    assert library.audit.query().empty
    blobs = Path(folder / "blobs")
    assert len(list(blobs.iterdir())) == 1  # the killed publisher's blob, named by no row
    assert len(library.sweep(older_than=0)) == 1
    library.publish(trained("vanilla", 5), name="Pima risk", intended_use="Screening")
    assert [v.ref for v in library.versions()] == ["Pima risk@1"]
    verdict = library.audit.verify()
    assert verdict.intact and verdict.checked == 1  # the killed one's event: never written
