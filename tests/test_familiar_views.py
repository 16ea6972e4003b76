"""Familiar ground written once and said everywhere (issue 37, item 1): the Glance's line
(the Explain page and the record render it), the several-patients table and its CSV, the
command line's ``explain`` output and the audit event say the same of one row; a model file
read back rebuilds the same familiar ground."""

from html import escape

import numpy as np
import pandas as pd
import pytest

from forestviz.app import new_rows
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.cli.main import main
from forestviz.explain.row.familiar import ALPHA
from tests.apptest_helpers import app, new_patient_form
from tests.cli_tables import ID, app_choice
from ui.display import as_text

GLUCOSE, AGE = "Glucose (mg/dL)", "Age (years)"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bench(table):
    dataset, choice = app_choice(table)
    found = Workbench(dataset, choice)
    found.train(Settings(family="vanilla", n_estimators=20))
    return found


def unusual_row(bench) -> pd.Series:
    """A held-out row with its glucose three times the largest training value."""
    bundle = bench.model
    values = bench.dataset.X.iloc[bundle.test_rows[0]].copy()
    values[GLUCOSE] = 3 * bench.dataset.X[GLUCOSE].iloc[bundle.train_rows].max()
    return values


def test_an_unusual_row_is_said_alike_on_the_glance_record_table_and_command_line(
        bench, table, tmp_path):
    bundle = bench.model
    values = unusual_row(bench)
    glance = bench.glance(bench.explain(values=values, row_id="U"))
    found = glance.familiarity
    # the numbers against the held-out rows' own scores, counted here
    held = bundle.familiar.scores(bundle.X_test)
    assert found.share == np.mean(held >= found.score) == 0
    assert found.p_value == 1 / (len(held) + 1) <= ALPHA and found.flagged
    assert found.differ[0] == GLUCOSE
    assert glance.unfamiliar == (
        f"Unlike the rows this model learned from: none of the {len(held)} rows it held out "
        f"from training is as unusual; the most similar training rows differ most in {GLUCOSE} "
        f"and {found.differ[1]}")
    # the record: the same line
    assert f'<p class="warning">{escape(glance.unfamiliar)}.</p>' in bench.report(
        bench.explain(values=values, row_id="U"))
    # the several-patients table and its CSV (the command line's columns)
    ordinary = bench.dataset.X.iloc[bundle.test_rows[1]]
    several = new_rows.several(bundle, pd.DataFrame([values, ordinary]))
    plain = bench.glance(bench.explain(values=ordinary)).familiarity
    assert list(several.outputs["unfamiliar"]) == [True, plain.flagged]
    assert list(several.outputs["unusual_share"]) == [found.share, plain.share]
    assert several.outputs["nearest_differ_in"].iloc[0] == "; ".join(found.differ)
    assert several.summary[new_rows.UNFAMILIAR].iloc[0] == (
        f"yes: none of held-out rows as unusual; nearest differ in {', '.join(found.differ)}")
    # the command line's explain of the same rows, from the saved model file
    model, rows, out = tmp_path / "m.skops", tmp_path / "rows.csv", tmp_path / "out.csv"
    model.write_bytes(bench.save())
    pd.DataFrame([values, ordinary]).assign(**{ID: ["U", "O"]}).to_csv(rows, index=False)
    assert main(["--quiet", "explain", str(model), str(rows), "--training", str(table),
                 "--out", str(out)]) == 0
    cli = pd.read_csv(out, keep_default_na=False)
    assert list(cli["unfamiliar"]) == [True, plain.flagged]
    assert list(cli["unusual_share"]) == pytest.approx([found.share, plain.share], rel=1e-15)
    assert cli["nearest_differ_in"].iloc[0] == "; ".join(found.differ)


def test_an_ordinary_row_has_no_line(bench):
    """The training medians in every column: nothing unusual, no line on the glance or in
    the record, "—" in the table."""
    bundle = bench.model
    medians = bench.dataset.X.iloc[bundle.train_rows].median()
    e = bench.explain(values=medians, row_id="M")
    glance = bench.glance(e)
    assert not glance.familiarity.flagged and glance.unfamiliar is None
    assert "Unlike the rows this model learned from" not in bench.report(e)
    several = new_rows.several(bundle, pd.DataFrame([medians]))
    assert several.summary[new_rows.UNFAMILIAR].iloc[0] == "—"


def test_a_model_file_read_back_rebuilds_the_same_familiar_ground(bench):
    bundle = bench.model
    again = Workbench(bench.dataset, bench.choice).load(bench.save())
    assert again.familiar is not bundle.familiar
    rows = np.vstack([bundle.X_test[:20], bench.model.preprocessor.transform(
        pd.DataFrame([unusual_row(bench)]))])
    assert again.familiar.assess_rows(rows) == bundle.familiar.assess_rows(rows)


def test_the_page_warns_as_the_glance_says():
    """The Explain page's New-patient form, age 0: the page shows the Glance's line."""
    at = app()
    bundle, dataset, key = new_patient_form(at)
    at.number_input(key=f"{key}@{GLUCOSE}").set_value(150.0)
    at.number_input(key=f"{key}@{AGE}").set_value(0.0)
    at.checkbox(key=f"{key}@confirmed").check()
    at.button(key=f"{key}_send").click().run()
    assert not at.exception and not at.error
    typed = at.session_state[f"{key}@typed"]
    bench = Workbench(dataset, bundle.choice, model=bundle)
    glance = bench.glance(bench.explain(values=typed))
    assert glance.unfamiliar is not None
    assert as_text(f"{glance.unfamiliar}.") in [w.value for w in at.warning]

