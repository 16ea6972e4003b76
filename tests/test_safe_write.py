"""Outputs written one safe way (forestviz.io.safe_write): never through a link planted at the
output's name or at any name the write used to go through, refused in one line when the target
is a link, a folder or a FIFO (unless forced; then the link itself is replaced), and never left
half-written: a full disk, a read-only folder or a write failing half-way leaves the folder as
it was and says how much had been written."""

import errno
import io
import os
import stat
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forestviz.app import model_cache, workflow
from forestviz.batch.sink import RowSink
from forestviz.io import safe_write
from forestviz.io.bundled import bundled_choice, load_dataset
from forestviz.io.safe_write import OutputError, SafeOutput, write_file

VICTIM = b"the victim's own file\n"


def frame(n: int) -> pd.DataFrame:
    return pd.DataFrame({"id": [f"row {i}" for i in range(n)], "value": np.arange(n) / 7})


def write_rows(path, *, force=False, chunks=3, rows=1_000):
    with RowSink(path, force=force) as sink:
        for _ in range(chunks):
            sink.write(frame(rows))
    return sink.rows


WRITERS = {
    "write_file": lambda path, force=False: write_file(path, b"x" * 10_000, force=force),
    "rows to Parquet": lambda path, force=False: write_rows(path.with_suffix(".parquet"),
                                                            force=force),
    "rows to CSV": lambda path, force=False: write_rows(path.with_suffix(".csv"), force=force),
}
SUFFIX = {"write_file": ".skops", "rows to Parquet": ".parquet", "rows to CSV": ".csv"}


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "private" / "victim.txt"
    path.parent.mkdir()
    path.write_bytes(VICTIM)
    return path


def entries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("writer", list(WRITERS))
def test_an_output_planted_as_a_link_is_refused_and_the_victim_unchanged(writer, victim,
                                                                         tmp_path):
    out = (tmp_path / "out").with_suffix(SUFFIX[writer])
    out.symlink_to(victim)
    with pytest.raises(OutputError, match="is a symbolic link") as refused:
        WRITERS[writer](out)
    assert "\n" not in str(refused.value)
    assert victim.read_bytes() == VICTIM and out.is_symlink()
    assert entries(tmp_path) == sorted(["private", out.name])  # no temporary file left


@pytest.mark.parametrize("writer", list(WRITERS))
def test_force_replaces_the_link_itself_never_the_file_it_points_to(writer, victim, tmp_path):
    out = (tmp_path / "out").with_suffix(SUFFIX[writer])
    out.symlink_to(victim)
    WRITERS[writer](out, force=True)
    assert victim.read_bytes() == VICTIM
    assert not out.is_symlink() and out.is_file() and out.stat().st_size > 0


@pytest.mark.parametrize("writer", list(WRITERS))
def test_links_planted_at_the_names_a_write_used_to_go_through_are_never_followed(
        writer, victim, tmp_path):
    out = (tmp_path / "out").with_suffix(SUFFIX[writer])
    planted = [f".{out.name}.partial", f"{out.name}.part", f"{out.name}.tmp",
               f".{out.name}.tmp", f"{out.name}~"]
    for name in planted:
        (tmp_path / name).symlink_to(victim)
    WRITERS[writer](out)
    assert victim.read_bytes() == VICTIM
    assert out.is_file() and not out.is_symlink()
    assert entries(tmp_path) == sorted(["private", out.name, *planted])
    assert all((tmp_path / name).is_symlink() for name in planted)


def test_a_folder_or_a_fifo_at_the_output_is_refused_unless_forced(tmp_path):
    (tmp_path / "folder.skops").mkdir()
    with pytest.raises(OutputError, match="is a folder"):
        write_file(tmp_path / "folder.skops", b"x", force=True)
    os.mkfifo(tmp_path / "pipe.skops")
    with pytest.raises(OutputError, match="not a regular file"):
        write_file(tmp_path / "pipe.skops", b"x")
    write_file(tmp_path / "pipe.skops", b"x", force=True)  # the FIFO is replaced, not opened
    assert (tmp_path / "pipe.skops").read_bytes() == b"x"
    with pytest.raises(OutputError, match="does not exist"):
        write_file(tmp_path / "no folder" / "m.skops", b"x")


def test_a_new_file_gets_the_usual_permissions_and_a_replaced_one_keeps_its_own(tmp_path):
    mask = os.umask(0o022)
    os.umask(mask)
    write_file(tmp_path / "new.skops", b"x")
    assert stat.S_IMODE((tmp_path / "new.skops").stat().st_mode) == 0o666 & ~mask
    private = tmp_path / "private.skops"
    private.write_bytes(b"old")
    private.chmod(0o600)
    write_file(private, b"new")
    assert private.read_bytes() == b"new" and stat.S_IMODE(private.stat().st_mode) == 0o600


def mount_tmpfs(folder: Path, options: str) -> None:
    """A tmpfs at ``folder`` (root only; the test is skipped elsewhere)."""
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")


@pytest.fixture
def small_disk(tmp_path):
    """A 256 KiB file system, unmounted afterwards."""
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "size=256k")
    yield disk
    subprocess.run(["umount", str(disk)], check=True)


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder nobody may write to: a read-only tmpfs (as root, who ignores permissions),
    else a folder without write permission."""
    folder = tmp_path / "read-only"
    if os.geteuid() != 0:
        folder.mkdir()
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    mount_tmpfs(folder, "ro,size=64k")
    yield folder
    subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_read_only_folder_is_one_line_and_nothing_is_made(writer, read_only_folder):
    with pytest.raises(OutputError, match="cannot be created in its folder") as refused:
        WRITERS[writer]((read_only_folder / "out").with_suffix(SUFFIX[writer]))
    assert "\n" not in str(refused.value) and entries(read_only_folder) == []


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_full_disk_leaves_nothing_and_says_the_output_is_incomplete(writer, small_disk):
    out = (small_disk / "out").with_suffix(SUFFIX[writer])
    with pytest.raises(OutputError, match="the output is incomplete and was not kept") as full:
        if writer == "write_file":
            write_file(out, os.urandom(1 << 20))
        else:
            write_rows(out, chunks=20, rows=5_000)
    message = str(full.value)
    assert "No space left on device" in message and "\n" not in message
    assert (" bytes" if writer == "write_file" else " rows") in message
    assert entries(small_disk) == []


class FailingFile(io.FileIO):
    """A file on which every write past ``LIMIT`` bytes fails as on a full disk."""

    LIMIT = 20_000

    def write(self, data):
        if self.tell() + len(data) > self.LIMIT:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(data)


@pytest.fixture
def failing_writes(monkeypatch):
    monkeypatch.setattr(safe_write.os, "fdopen",
                        lambda fd, mode: io.BufferedWriter(FailingFile(fd, "wb"), 4096))


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_write_failing_half_way_leaves_nothing(writer, tmp_path, failing_writes):
    out = (tmp_path / "out").with_suffix(SUFFIX[writer])
    with pytest.raises(OutputError, match=r"failed after [\d,]+ (rows|of [\d,]+ bytes) \("
                                          "No space left on device"):
        if writer == "write_file":
            write_file(out, b"x" * 100_000)
        else:
            write_rows(out, chunks=10, rows=2_000)
    assert entries(tmp_path) == []


def test_rows_written_before_the_failure_are_counted(tmp_path, failing_writes):
    FailingFile.LIMIT = 1 << 30  # the first chunks fit
    sink = RowSink(tmp_path / "out.csv")
    with pytest.raises(OutputError, match="failed after 2,000 rows"), sink:
        sink.write(frame(1_000))
        sink.write(frame(1_000))
        FailingFile.LIMIT = 0
        sink.write(frame(1_000))
        sink.write(frame(1_000))  # pyarrow's CSV writer may buffer one chunk
    FailingFile.LIMIT = 20_000
    assert entries(tmp_path) == []


def test_a_discarded_output_leaves_no_temporary_file(tmp_path):
    output = SafeOutput(tmp_path / "out.bin")
    output.open().write(b"half")
    output.discard()
    assert entries(tmp_path) == []


@pytest.mark.slow
def test_the_app_s_model_store_refuses_a_planted_link(tmp_path, monkeypatch, victim):
    monkeypatch.setenv(model_cache.CACHE_ENV, str(tmp_path / "models"))
    dataset = load_dataset("friedman1")
    choice = bundled_choice("friedman1", dataset)
    settings = replace(workflow.default_settings(dataset.task), n_estimators=5)
    bundle = workflow.train_bundle(dataset, choice, settings, lambda *_: None)
    path = model_cache.path_of(dataset, choice, settings)
    path.parent.mkdir()
    path.symlink_to(victim)
    assert model_cache.store(bundle, dataset) is None
    assert victim.read_bytes() == VICTIM and path.is_symlink()
    assert entries(path.parent) == [path.name]
    path.unlink()
    assert model_cache.store(bundle, dataset) == path and path.is_file()
