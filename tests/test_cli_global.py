"""`forestviz global` (forestviz.cli.whole): the Forest page's whole-model tables and figures
written to a folder, with the numbers of the page (Workbench.whole on the same model file)."""

import numpy as np
import pandas as pd
import pytest

from forestviz.app.workbench import Workbench
from forestviz.cli.main import main
from tests.cli_tables import app_choice


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_global_tables_are_the_pages_numbers(cli_model, table, tmp_path, kind):
    out = tmp_path / "global"
    assert main(["--quiet", "global", str(cli_model), str(table), "--out", str(out),
                 "--format", kind]) == 0
    read = pd.read_csv if kind == "csv" else pd.read_parquet
    dataset, choice = app_choice(table)
    bench = Workbench(dataset, choice)
    bench.load(cli_model.read_bytes())
    whole = bench.whole()
    population = whole.population()
    importance = read(out / f"importance.{kind}")
    expected = population.importance()
    assert list(importance["column"]) == list(expected["column"])
    np.testing.assert_allclose(importance["mean |contribution|"],
                               expected["mean |contribution|"], rtol=1e-12)
    rows = read(out / f"contributions.{kind}")
    assert list(rows["id"].astype(str)) == list(population.ids.astype(str))
    np.testing.assert_allclose(rows.filter(like="contribution[").to_numpy(),
                               population.contributions, rtol=0, atol=1e-12)
    np.testing.assert_allclose(rows["base_value"] + rows.filter(like="contribution[").sum(
        axis=1), rows["prediction"], rtol=0, atol=1e-12)
    curves = read(out / f"partial_dependence.{kind}")
    glucose = curves[curves["column"] == "Glucose (mg/dL)"]
    np.testing.assert_allclose(glucose["average"],
                               whole.partial_dependence("Glucose (mg/dL)").average, rtol=1e-12)
    trust = read(out / f"trust.{kind}")
    assert (trust["compacity"].to_numpy() == whole.trust()["compacity"].to_numpy()).all()
    page = (out / "figures.html").read_text(encoding="utf-8")
    assert page.count("Plotly.newPlot") >= 2 and "Which columns move the predictions" in page
    assert "<script src=\"http" not in page  # plotly's script embedded, nothing fetched


@pytest.mark.slow
def test_global_refuses_a_link_at_its_output(cli_model, table, tmp_path, capsys):
    victim = tmp_path / "victim.csv"
    victim.write_text("mine")
    out = tmp_path / "global"
    out.mkdir()
    (out / "importance.csv").symlink_to(victim)
    assert main(["--quiet", "global", str(cli_model), str(table), "--out", str(out)]) == 2
    assert victim.read_text() == "mine"
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
