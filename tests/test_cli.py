"""The command line (forestviz.cli): a model trained by `forestviz train` loads in the app (and an
app's model file works here), `explain` and `report` give the Explain page's numbers, and a bad
file or argument ends with exit code 2 and one plain line."""

import io
import json
import subprocess
import sys
from html import escape

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.cli.main import main, parser
from forestviz.explain.report.names import report_file_name
from forestviz.io.csv_input import load_csv
from tests import hostile_arrays, hostile_models
from tests.cli_tables import ID, TARGET, app_choice


def command_help(capsys, *command) -> str:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_help_reads_like_the_readme(capsys):
    text = parser().format_help()
    for usage in ("forestviz train DATA.csv --target COL --out MODEL.skops",
                  "forestviz explain MODEL.skops ROWS.csv|ROWS.parquet --out OUT.parquet|OUT.csv",
                  "forestviz report MODEL.skops DATA.csv --rows ID ... --out DIR",
                  "forestviz global MODEL.skops DATA.csv --out DIR"):
        assert usage in text
    for option in ("--top-trees K", "--contributions", "--chunk-rows N", "--scheduler ADDRESS",
                   "--local-cluster WORKERS", "--training TRAIN.csv"):
        assert option in command_help(capsys, "explain")
    for option in ("--target COL", "--model {erf,abrf1,abrf2,abrf3,softmax,agboost,rf}",
                   "--id COL", "--drop COL [COL ...]", "--trees N", "--seed N"):
        assert option in command_help(capsys, "train")
    assert "--rows ID [ID ...]" in command_help(capsys, "report")
    run = subprocess.run([sys.executable, "-m", "forestviz", "--help"], capture_output=True,
                         text=True, check=True)
    assert "forestviz explain MODEL.skops ROWS.csv|ROWS.parquet" in run.stdout


@pytest.mark.slow
def test_a_model_trained_here_loads_in_the_app(cli_model, table, capsys):
    dataset, choice = app_choice(table)
    bundle = Workbench(dataset, choice).load(cli_model.read_bytes())
    assert bundle.settings == Settings(family="abrf1_qp", n_estimators=10, random_state=3)
    assert bundle.n_trees == 10 and "note" not in bundle.preprocessor.feature_names_in_
    reloaded = Workbench(dataset, choice, model=bundle).save()
    metrics = bundle.results.drop(columns="fit seconds")  # the fit is not timed again
    assert Workbench(dataset, choice).load(reloaded).results.drop(
        columns="fit seconds").equals(metrics)


@pytest.mark.slow
def test_train_prints_the_train_page_s_metrics(table, tmp_path, capsys):
    out = tmp_path / "m.skops"
    assert main(["--quiet", "train", str(table), "--target", TARGET, "--id", ID, "--drop",
                 "note", "--model", "rf", "--trees", "10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    dataset, choice = app_choice(table)
    bundle = Workbench(dataset, choice).load(out.read_bytes())
    for name, auc in zip(bundle.results["model"], bundle.results["AUC"], strict=True):
        assert name in printed and f"{auc:.3f}" in printed


@pytest.mark.slow
def test_explain_of_the_training_table_gives_the_explain_page_s_numbers(cli_model, table,
                                                                        tmp_path):
    out = tmp_path / "explained.parquet"
    assert main(["--quiet", "explain", str(cli_model), str(table), "--out", str(out),
                 "--top-trees", "3", "--chunk-rows", "100"]) == 0
    found = pd.read_parquet(out)
    dataset, choice = app_choice(table)
    bench = Workbench(dataset, choice)
    bench.load(cli_model.read_bytes())
    assert len(found) == len(dataset.frame) and list(found["id"]) == list(dataset.ids)
    for position in range(0, len(found), 61):
        e = bench.explain(position)
        row = found.iloc[position]
        assert [row["P(No)"], row["P(Yes)"]] == list(e.prediction)
        assert (row["interval_low"], row["interval_high"]) == e.interval
        assert [row[f"top_tree_{r}"] for r in (1, 2, 3)] == list(e.top_trees[:3] + 1)


@pytest.mark.slow
def test_an_app_model_explains_and_reports_here(table, tmp_path):
    dataset, choice = app_choice(table)
    bench = Workbench(dataset, choice)
    bench.train(Settings(family="erf", n_estimators=10))
    model = tmp_path / "from the app.skops"
    model.write_bytes(bench.save())
    rows = tmp_path / "new rows.csv"
    new = dataset.frame.iloc[:5].drop(columns=[TARGET]).copy()
    new[ID] = ["A", "B", "../../escape", "D", "E"]
    new.to_csv(rows, index=False)
    out = tmp_path / "out.csv"
    assert main(["--quiet", "explain", str(model), str(rows), "--training", str(table),
                 "--out", str(out), "--contributions"]) == 0
    found = pd.read_csv(out)
    reports, summaries = tmp_path / "reports", tmp_path / "summaries"
    assert main(["--quiet", "report", str(model), str(rows), "--training", str(table),
                 "--rows", "../../escape", "A", "--out", str(reports), "--pdf",
                 "--appendix"]) == 0
    assert main(["--quiet", "report", str(model), str(rows), "--training", str(table),
                 "--rows", "A", "--out", str(summaries)]) == 0
    named = {row: report_file_name(row, bench.model.name, "html") for row in ("A", "escape")}
    assert named["escape"].startswith("forestviz-escape-")  # no folder can be named
    assert sorted(p.name for p in reports.iterdir()) == sorted(
        [*named.values(), *(n.replace(".html", ".pdf") for n in named.values())])
    assert [p.name for p in summaries.iterdir()] == [named["A"]]
    pdf = (reports / named["A"].replace(".html", ".pdf")).read_bytes()
    assert pdf.startswith(b"%PDF-") and len(PdfReader(io.BytesIO(pdf)).pages) > 1
    summary = (summaries / named["A"]).read_text()
    said = bench.glance(bench.explain(values=new.iloc[0].drop(ID), row_id="A"))
    assert escape(said.argument) in summary and escape(said.headline) in summary
    assert "Technical appendix" not in summary and "Held-out metrics" not in summary
    assert '<img class="tree"' not in summary
    for i, values in new.iterrows():
        e = bench.explain(values=values.drop(ID), row_id=values[ID])
        assert found.loc[i, "id"] == values[ID]
        assert found.loc[i, "P(Yes)"] == pytest.approx(e.prediction[1], rel=1e-15)
        assert found.loc[i, "interval_low"] == pytest.approx(e.interval[0], rel=1e-15)
        assert found.loc[i, "contribution[Glucose (mg/dL)]"] == pytest.approx(
            e.contributions.table(1).set_index("feature").loc["Glucose (mg/dL)",
                                                               "contribution"], abs=1e-12)
    html = (reports / named["A"]).read_text()
    assert '<img class="tree"' in html and "Technical appendix" in html  # --appendix
    assert "Held-out metrics" in html and escape(table.name) in html  # the page's record
    for metric, value in bench.model.results.set_index("model").loc[bench.model.name].items():
        if isinstance(value, float) and np.isfinite(value):
            assert f"{value:.4g}" in html, metric
    assert "A" in html and f"{bench.explain(values=new.iloc[0].drop(ID)).prediction[1]:.2f}" in html


def other_version(model: bytes) -> bytes:
    def as_format_3(schema):
        schema["content"]["format"]["content"] = json.dumps("forestviz-model/3")
    return hostile_models.edit(model, as_format_3)


BAD = {
    "no such table": (["train", "{missing}", "--target", TARGET, "--out", "{tmp}/m.skops"],
                      "There is no table"),
    "an image as the table": (["train", "{image}", "--target", TARGET, "--out", "{tmp}/m.skops"],
                              "is a PNG image"),
    "unknown target": (["train", "{table}", "--target", "Nope", "--out", "{tmp}/m.skops"],
                       "There is no column 'Nope' (chosen as target)"),
    "unknown dropped column": (["train", "{table}", "--target", TARGET, "--drop", "zzz", "--out",
                                "{tmp}/m.skops"], "There is no column 'zzz'"),
    "a family the target rules out": (["train", "{table}", "--target", TARGET, "--model",
                                       "agboost", "--out", "{tmp}/m.skops"],
                                      "needs a numeric (regression) target"),
    "a model file from another version": (["explain", "{old}", "{table}", "--out",
                                           "{tmp}/o.parquet"], "saved by another version"),
    "a table as the model file": (["explain", "{table}", "{table}", "--out", "{tmp}/o.parquet"],
                                  "not a forestviz model file"),
    "rows without a model column": (["explain", "{model}", "{short}", "--out",
                                     "{tmp}/o.parquet"], "no column 'Glucose (mg/dL)'"),
    "an output of another kind": (["explain", "{model}", "{table}", "--out", "{tmp}/o.xlsx"],
                                  "must end in .parquet or .csv"),
    "an output of another kind, of a missing table": (  # the output is refused first
        ["explain", "{model}", "{missing}", "--out", "{tmp}/o.xlsx"],
        "must end in .parquet or .csv"),
    "another training table": (["explain", "{model}", "{table}", "--training", "{short}",
                                "--out", "{tmp}/o.csv"], "is not the table this model"),
    "an unknown row": (["report", "{model}", "{table}", "--rows", "P9999", "--out", "{tmp}/r"],
                       "has the ID 'P9999'"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_file_or_argument_is_one_plain_line_and_exit_2(case, cli_model, table, tmp_path,
                                                             capsys):
    image = tmp_path / "photo.csv"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    old = tmp_path / "old.skops"
    old.write_bytes(other_version(cli_model.read_bytes()))
    short = tmp_path / "short.csv"
    pd.read_csv(table).drop(columns=["Glucose (mg/dL)"]).to_csv(short, index=False)
    names = {"missing": tmp_path / "none.csv", "image": image, "table": table, "old": old,
             "model": cli_model, "short": short, "tmp": tmp_path}
    arguments, message = BAD[case]
    assert main(["--quiet", *(a.format(**names) for a in arguments)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("forestviz: error: ")
    assert message in captured.err
    assert not list(tmp_path.glob("o.*")) and not list(tmp_path.glob("m.skops"))


@pytest.mark.slow
def test_a_pdf_past_its_time_limit_is_one_plain_line_and_exit_2(cli_model, table, tmp_path,
                                                               capsys, monkeypatch):
    """``report --pdf`` prints within the app's limit (forestviz.app.printing): here a 0.5 s
    limit the report with its appendix never meets (its layout alone is over a second of CPU,
    even in a worker that has WeasyPrint imported already), so the command stops at the first
    row with one line, exit code 2."""
    import math

    from forestviz.app import printing
    from forestviz.app.jobs import JobPool

    pool = JobPool(max_running=1, max_queued=0, lease=math.inf, time_limit=0.5)
    monkeypatch.setattr(printing, "pdf_pool", lambda: pool)
    row = str(load_csv(table.read_bytes())[ID].iloc[0])
    assert main(["--quiet", "report", str(cli_model), str(table), "--rows", row, "--out",
                 str(tmp_path / "r"), "--pdf", "--appendix"]) == 2
    err = capsys.readouterr().err
    assert err == (f"forestviz: error: Row '{row}': The PDF report was not made: laying it out "
                   "took longer than 0.5 s in all, the limit for a PDF (the HTML report has the "
                   "same content).\n")
    assert not list((tmp_path / "r").glob("*.pdf"))


@pytest.mark.slow
def test_training_on_a_local_dask_cluster_fits_the_same_model(table, tmp_path):
    here, there = tmp_path / "here.skops", tmp_path / "there.skops"
    common = ["--quiet", "train", str(table), "--target", TARGET, "--id", ID, "--drop", "note",
              "--model", "erf", "--trees", "12"]
    assert main([*common, "--out", str(here)]) == 0
    assert main([*common, "--out", str(there), "--local-cluster", "2"]) == 0
    dataset, choice = app_choice(table)
    local = Workbench(dataset, choice).load(here.read_bytes())
    cluster = Workbench(dataset, choice).load(there.read_bytes())
    np.testing.assert_array_equal(local.test_weights, cluster.test_weights)
    np.testing.assert_array_equal(local.estimator.predict_proba(local.X_test),
                                  cluster.estimator.predict_proba(cluster.X_test))


def edited(model: bytes, suffix: str, change) -> bytes:
    """``model`` with ``change(array)`` as the stored array whose path ends with ``suffix``."""

    member = next(m for p, m in hostile_arrays.stored_arrays(model).items()
                  if p.endswith(suffix))
    return hostile_arrays.with_array(model, member, change(hostile_arrays.load_array(model,
                                                                                      member)))


def back_up(nodes):
    """A tree's nodes with the root's right child pointing back at the root."""
    nodes = nodes.copy()
    nodes["right_child"][0] = 0
    return nodes


EDITED = {  # issue 25: too few leaf values, a key row too many, NaN weights, a tree cycle
    "too few leaf values": ("leaf_stats_.leaf_values", lambda a: a[:-1], "leaf values"),
    "a key row too many": ("leaf_stats_.leaf_means", lambda a: np.vstack([a, a[:1]]),
                           "leaf statistics' keys"),
    "NaN tree weights": ("estimator.w_", lambda a: np.full_like(a, np.nan), "tree weights w"),
    "a tree whose child points back up": ("estimators_.0.tree_.nodes", back_up,
                                          "decision trees is damaged"),
}


def edited_run(cli_model, table, tmp_path, case, command) -> list[str]:
    """The arguments of ``command`` on ``cli_model`` edited as ``EDITED[case]`` says."""
    suffix, change, _ = EDITED[case]
    model = tmp_path / "edited.skops"
    model.write_bytes(edited(cli_model.read_bytes(), suffix, change))
    rows = ["--rows", "P0001"] if command == "report" else []
    return ["--quiet", command, str(model), str(table), *rows, "--out", str(tmp_path / "out.csv")]


def assert_refused(err: str, case: str) -> None:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("forestviz: error: This model file was refused"), err
    assert EDITED[case][2] in err, err


@pytest.mark.parametrize("command", ["explain", "report"])
@pytest.mark.parametrize("case", list(EDITED))
def test_an_edited_model_file_is_one_line_and_exit_2(command, case, cli_model, table, tmp_path,
                                                     capsys):
    assert main(edited_run(cli_model, table, tmp_path, case, command)) == 2
    assert_refused(capsys.readouterr().err, case)
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.slow
@pytest.mark.parametrize("command, case", [("explain", "NaN tree weights"),
                                           ("report", "a tree whose child points back up")])
def test_an_edited_model_file_is_one_line_and_exit_2_in_a_fresh_process(command, case,
                                                                        cli_model, table,
                                                                        tmp_path):
    """As above, in a process that imports forestviz for this command alone (no module of the
    test run already loaded); one case per command, each ~3 s of start-up."""
    run = subprocess.run([sys.executable, "-m", "forestviz",
                          *edited_run(cli_model, table, tmp_path, case, command)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert_refused(run.stderr, case)
