"""The command line's files, tried as an attacker and a clumsy user would: `train`, `explain`
(Parquet and CSV) and `report` never write through a link planted at the output or in the report
folder (the victim file is unchanged), refuse a read-only folder, and on a full disk end with
exit code 2, one line and nothing at the target; no command prints a traceback or a warning's
source line."""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from forestviz.cli import commands
from forestviz.cli.main import main
from forestviz.explain.report.names import report_file_name
from forestviz.persistence.model_file import ModelFile
from forestviz.registry import FAMILIES
from tests.cli_tables import ID, TARGET
from tests.test_safe_write import entries, mount_tmpfs

VICTIM = b"the victim's own file\n"
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "private" / "victim.txt"
    path.parent.mkdir()
    path.write_bytes(VICTIM)
    return path


def train(table, out, *extra):
    return ["--quiet", "train", str(table), "--target", TARGET, "--id", ID, "--drop", "note",
            "--model", "rf", "--trees", "5", "--out", str(out), *extra]


def explain(model, table, out, *extra):
    return ["--quiet", "explain", str(model), str(table), "--out", str(out), "--chunk-rows",
            "200", *extra]


def report(model, table, out, *extra):
    return ["--quiet", "report", str(model), str(table), "--rows", "P0001", "P0002", "--out",
            str(out), *extra]


def report_name(model, row: str) -> str:
    """The file name ``forestviz report`` gives the row's HTML report of the model file."""
    settings = ModelFile.read(model.read_bytes()).settings
    return report_file_name(row, FAMILIES[settings.family].label, "html")


def one_error_line(capsys, message: str) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("forestviz: error: ") and message in err, err


@pytest.mark.parametrize("command", [pytest.param("train", marks=pytest.mark.slow),
                                     "explain to Parquet", "explain to CSV"])
@pytest.mark.slow
def test_an_output_planted_as_a_link_is_refused_and_the_victim_unchanged(
        command, cli_model, table, victim, tmp_path, capsys):
    out = tmp_path / {"train": "m.skops", "explain to Parquet": "o.parquet",
                      "explain to CSV": "o.csv"}[command]
    out.symlink_to(victim)
    arguments = (train(table, out) if command == "train" else explain(cli_model, table, out))
    assert main(arguments) == 2
    one_error_line(capsys, "is a symbolic link")
    assert victim.read_bytes() == VICTIM and out.is_symlink()
    assert entries(tmp_path) == sorted(["private", out.name])
    # a link at the name the output used to be written through first is never followed
    out.unlink()
    (tmp_path / f".{out.name}.partial").symlink_to(victim)
    assert main(arguments) == 0
    assert victim.read_bytes() == VICTIM and out.is_file() and not out.is_symlink()
    # --force replaces a link at the output itself, never the file it points to
    out.unlink()
    out.symlink_to(victim)
    assert main([*arguments, "--force"]) == 0
    assert victim.read_bytes() == VICTIM and out.is_file() and not out.is_symlink()


@pytest.mark.slow
def test_a_report_folder_entry_planted_as_a_link_is_refused(
        cli_model, table, victim, tmp_path, capsys):
    folder = tmp_path / "reports"
    folder.mkdir()
    first, second = report_name(cli_model, "P0001"), report_name(cli_model, "P0002")
    (folder / second).symlink_to(victim)
    assert main(report(cli_model, table, folder)) == 2
    one_error_line(capsys, "is a symbolic link")
    assert victim.read_bytes() == VICTIM
    assert entries(folder) == sorted([first, second])
    assert (folder / first).read_text().startswith("<!DOCTYPE html>")
    linked = tmp_path / "linked reports"
    linked.symlink_to(victim.parent)
    assert main(report(cli_model, table, linked)) == 2
    one_error_line(capsys, "is a symbolic link")
    assert entries(victim.parent) == ["victim.txt"]


@pytest.fixture
def small_disk(tmp_path):
    disk = tmp_path / "disk"
    mount_tmpfs(disk, "size=64k")
    yield disk
    subprocess.run(["umount", str(disk)], check=True)


@pytest.mark.parametrize("command", [pytest.param("train", marks=pytest.mark.slow),
                                     "explain to Parquet", "explain to CSV",
                                     pytest.param("report", marks=pytest.mark.slow)])
def test_a_full_disk_ends_in_one_line_and_leaves_nothing(
        command, cli_model, table, small_disk, capsys):
    with open(small_disk / "filler", "wb") as filler:  # leave 8 KiB free
        filler.write(b"\0" * (56 << 10))
    if command == "train":
        arguments = train(table, small_disk / "m.skops")
    elif command == "report":
        arguments = report(cli_model, table, small_disk / "reports")
    else:
        big = small_disk.parent / "big.csv"
        pd.concat([pd.read_csv(table)] * 4).to_csv(big, index=False)
        suffix = ".parquet" if command.endswith("Parquet") else ".csv"
        arguments = explain(cli_model, big, (small_disk / "o").with_suffix(suffix))
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err, err
    assert "the output is incomplete and was not kept" in err
    if command.startswith("explain"):
        assert " rows (" in err
    leftover = entries(small_disk / "reports") if command == "report" else []
    assert entries(small_disk) == ["filler", *(["reports"] if command == "report" else [])]
    assert leftover == []


@pytest.mark.slow
def test_a_read_only_folder_is_refused_before_any_work(
        cli_model, table, tmp_path, capsys):
    folder = tmp_path / "read-only"
    if os.geteuid() == 0:
        mount_tmpfs(folder, "ro,size=64k")
    else:
        folder.mkdir()
        folder.chmod(0o555)
    try:
        assert main(explain(cli_model, table, folder / "o.parquet")) == 2
        one_error_line(capsys, "cannot be created in its folder")
        assert main(report(cli_model, table, folder)) == 2
        one_error_line(capsys, "cannot be created in its folder")
        assert entries(folder) == []
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(folder)], check=True)


def test_a_dependency_s_warning_never_reaches_the_terminal(
        table, tmp_path, capsys, monkeypatch):
    def noisy(args):
        warnings.warn("a dependency's deprecation", DeprecationWarning, stacklevel=1)
        warnings.warn("cannot cache compiled function", UserWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(commands, "train", noisy)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(train(table, tmp_path / "m.skops")) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_every_command_prints_no_traceback_or_source_line(
        cli_model, table, tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "always", "PYTHONPATH": str(REPO),
           "OMP_NUM_THREADS": "1"}
    runs = [train(table, tmp_path / "m.skops"),
            explain(cli_model, table, tmp_path / "o.csv"),
            report(cli_model, table, tmp_path / "reports"),
            explain(cli_model, table, tmp_path / "o.xlsx")]  # an error: one line
    for arguments in runs:
        done = subprocess.run([sys.executable, "-m", "forestviz", *arguments], env=env,
                              capture_output=True, text=True, timeout=600)
        lines = done.stderr.splitlines()
        assert done.returncode == (2 if arguments[-3].endswith(".xlsx") else 0), done.stderr
        assert len(lines) == (done.returncode == 2), done.stderr
        assert not any("Traceback" in line or "Warning" in line or line.startswith("  ")
                       for line in lines), done.stderr
