"""The library's command line: `forestviz models publish|list|show|retire`, `forestviz audit
export`, and `explain`/`report` with `--model NAME[@VERSION]` giving the numbers of the model
file they were published from, all on the library of FORESTVIZ_DATA_DIR, its database SQLite
there or PostgreSQL (FORESTVIZ_DATABASE_URL); a bad reference or an unusable library ends with
exit code 2 and one plain line."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest

from forestviz.cli.main import main
from forestviz.explain.report.names import report_file_name
from forestviz.store import Actor, StoreConfig, open_library
from forestviz.store.explained import explanation_facts
from tests.cli_tables import ID, TARGET
from tests.store_databases import DATABASES, database_url
from tests.store_helpers import REPO
from tests.test_report_record import Document


class Library(NamedTuple):
    """A library for the command line: its data folder, the model file published, and its
    database URL (None: SQLite in the folder)."""

    folder: Path
    model: Path
    url: str | None = None

    def use(self, monkeypatch) -> None:
        """This process's library, for the test's length."""
        monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(self.folder))
        if self.url is None:
            monkeypatch.delenv("FORESTVIZ_DATABASE_URL", raising=False)
        else:
            monkeypatch.setenv("FORESTVIZ_DATABASE_URL", self.url)

    def open(self):
        return open_library(StoreConfig(self.folder, database_url=self.url))


def forestviz(folder, *arguments, code=0, url=None):
    """``python -m forestviz ARGUMENTS`` in a fresh process on the library in ``folder`` (its
    database at ``url``, default SQLite there)."""
    environment = {**os.environ, "FORESTVIZ_DATA_DIR": str(folder), "OMP_NUM_THREADS": "1",
                   "PYTHONPATH": str(REPO)}
    environment.pop("FORESTVIZ_DATABASE_URL", None)
    if url is not None:
        environment["FORESTVIZ_DATABASE_URL"] = url
    done = subprocess.run([sys.executable, "-m", "forestviz", "--quiet", *map(str, arguments)],
                          cwd=REPO, env=environment, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == code, done.stderr
    return done


def here(folder, *arguments, url=None) -> int:
    """``forestviz ARGUMENTS`` in this process on the library in ``folder`` (its database at
    ``url``, default SQLite there): its exit code."""
    with pytest.MonkeyPatch.context() as patch:
        Library(folder, Path(), url).use(patch)
        try:
            return main(["--quiet", *map(str, arguments)])
        except SystemExit as done:
            return done.code


@pytest.fixture(scope="module")
def trained(table, tmp_path_factory):
    """A model file trained by `forestviz train` on the upload, signed with the key of the
    library in its folder, which publish requires."""
    folder = tmp_path_factory.mktemp("library")
    model = folder / "model.skops"
    assert here(folder / "var", "train", table, "--target", TARGET, "--id", ID, "--drop",
                "note", "--model", "abrf1", "--trees", "10", "--seed", "3",
                "--out", model) == 0
    return folder / "var", model


@pytest.fixture(scope="module", params=DATABASES)
def published(request, trained, table) -> Library:
    """The model published twice as 'Pima risk' with two descriptions, in a library on each
    database (in this process; the tests read the library from fresh processes too)."""
    folder, model = trained
    library = Library(folder, model, database_url(request))
    for description in ("Diabetes risk", "Diabetes risk\nwithin 5 years"):
        assert here(folder, "models", "publish", model, "--name", "Pima risk",
                    "--training", table, "--description", description,
                    "--intended-use", "Screening", url=library.url) == 0
    return library


@pytest.mark.slow
def test_publishing_without_the_training_table_is_refused_in_a_fresh_process(published):
    refused = forestviz(published.folder, "models", "publish", published.model, "--name",
                        "Pima risk", "--intended-use", "Screening", code=2, url=published.url)
    assert refused.stderr.count("\n") == 1
    assert "needs its training table: give it with --training" in refused.stderr
    library = published.open()  # nothing published by the refused command
    assert [v.version for v in library.versions(include_retired=True)] == [2, 1]


@pytest.mark.slow
def test_published_models_are_listed_shown_and_retired(published, monkeypatch, capsys):
    listed = json.loads(forestviz(published.folder, "models", "list", "--json",
                                  url=published.url).stdout)
    assert [(v["name"], v["version"]) for v in listed] == [("Pima risk", 2), ("Pima risk", 1)]
    assert listed[0]["description"] == "Diabetes risk\nwithin 5 years"
    assert listed[0]["dataset_name"] == "pima upload.csv" and listed[0]["excluded"] == ["note"]
    published.use(monkeypatch)
    assert main(["models", "show", "Pima risk@1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["version"] == 1
    assert main(["models", "show", "Pima risk"]) == 0
    shown = capsys.readouterr().out
    assert "Pima risk@2" in shown and "held-out metrics" in shown and "AUC" in shown
    assert main(["models", "retire", "Pima risk@2"]) == 0
    assert "Retired Pima risk@2" in capsys.readouterr().out
    assert main(["models", "list", "--json"]) == 0
    assert [v["version"] for v in json.loads(capsys.readouterr().out)] == [1]
    assert main(["models", "list", "--all"]) == 0
    assert "Pima risk@2" in capsys.readouterr().out
    out = published.folder.parent / f"audit-{published.url is None}.csv"
    assert main(["audit", "export", "--action", "model_published", "--out", str(out)]) == 0
    trail = pd.read_csv(out)
    assert list(trail["version"]) == [1, 2] and set(trail["subject"]) == {"local"}
    assert main(["audit", "export", "--action", "model_retired"]) == 0
    assert "model_retired,Pima risk,2" in capsys.readouterr().out


@pytest.mark.slow
def test_explain_and_report_with_model_give_the_model_file_s_numbers(published, table,
                                                                       tmp_path, monkeypatch):
    published.use(monkeypatch)
    by_name, by_file = tmp_path / "by-name.csv", tmp_path / "by-file.csv"
    assert main(["--quiet", "explain", "--model", "Pima risk@1", str(table),
                 "--out", str(by_name)]) == 0
    assert main(["--quiet", "explain", str(published.model), str(table), "--training", str(table),
                 "--out", str(by_file)]) == 0
    opened = published.open().open_model("Pima risk", 1).workbench
    assert "note" not in opened.dataset.frame  # an excluded column is not shared
    assert opened.dataset.feature_columns == tuple(
        c for c in pd.read_csv(table).columns if c not in (TARGET, ID, "note"))
    found, expected = pd.read_csv(by_name), pd.read_csv(by_file)
    assert "interval_low" in found  # the calibrated interval, from the stored table
    pd.testing.assert_frame_equal(found, expected)
    row = str(pd.read_csv(table)[ID].iloc[-1])
    assert main(["--quiet", "report", "--model", "Pima risk@1", "--rows", row,
                 "--out", str(tmp_path / "reports")]) == 0
    assert main(["--quiet", "report", str(published.model), str(table), "--rows", row,
                 "--out", str(tmp_path / "file-reports")]) == 0
    (report,) = (tmp_path / "reports").iterdir()
    assert report.name == report_file_name(row, opened.model.name, "html")
    record = Document(report.read_text()).record()  # the library's name and version said
    assert record["Published model"] == "Pima risk@1" and record["Row ID"] == row
    (other,) = (tmp_path / "file-reports").iterdir()
    assert "Published model" not in Document(other.read_text()).record()


def test_a_report_lists_the_disagreements_recorded_in_the_app_with_its_row(published, table,
                                                                          tmp_path,
                                                                          monkeypatch):
    published.use(monkeypatch)
    library = published.open()
    opened = library.open_model("Pima risk", 1).workbench
    row = str(pd.read_csv(table)[ID].iloc[-2])
    ids = opened.dataset.frame[opened.choice.id_column].astype(str).tolist()
    e = opened.explain(ids.index(row))  # as the Explain page explains the row picked by ID
    items = explanation_facts(opened, e, opened.glance(e), digests=library.audit.digests,
                              blob_sha256=library.show("Pima risk", 1).blob_sha256, row=row)
    said = library.audit.dispute(Actor("s-ann", "ann@clinic.test", "viewer"), items,
                                 "acted_otherwise", "Seen in clinic <today>")
    assert main(["--quiet", "report", "--model", "Pima risk@1", "--rows", row,
                 "--out", str(tmp_path / "reports")]) == 0
    (report,) = (tmp_path / "reports").iterdir()
    assert Document(report.read_text()).record()["Disagreement recorded"] == said.sentence()
    written = json.loads(library.audit.query(action="report_written")["detail"].iloc[-1])
    assert written["input"] == items["input"] and written["row"] == row


@pytest.mark.parametrize("arguments, message", [
    (["models", "show", "Nobody"], "No published model 'Nobody' (not retired)"),
    (["models", "show", "Pima risk@x"], "names no version"),
    (["models", "retire", "Pima risk"], "Name the version to retire"),
    (["explain", "--model", "Nobody@3", "rows.csv", "--out", "x.csv"],
     "No published model 'Nobody@3'"),
])
def test_a_bad_reference_is_one_line_and_exit_2(published, arguments, message, capsys):
    assert here(published.folder, *arguments, url=published.url) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_an_unusable_library_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    (tmp_path / "a file").write_text("")
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(tmp_path / "a file" / "var"))
    assert main(["models", "list"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "The model library is unavailable" in error
    with pytest.raises(SystemExit) as done:
        main(["explain", "model.skops", "rows.csv", "--model", "x", "--out", "y.csv"])
    assert done.value.code == 2
    assert "not both" in capsys.readouterr().err
