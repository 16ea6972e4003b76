"""One answer to "how sure" (issue 35): when a guessed value could change the predicted class,
the Glance's range over the guesses covers what each missing value can do, recomputed here by
putting the training deciles of each missing column into the row and asking the model; the
record says the numbers assume the guesses, with that range."""

import numpy as np
import pandas as pd
import pytest

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.report.names import NEW_PATIENT
from forestviz.io.bundled import load_dataset

GLUCOSE, BMI = "Glucose (mg/dL)", "BMI (kg/m2)"


@pytest.fixture(scope="module")
def pima():
    bench = Workbench(load_dataset("pima_diabetes"))
    bench.train(Settings(family="abrf1_qp", n_estimators=20, random_state=0))
    return bench


def risks_over_deciles(bench, values, column, used):
    """P(Yes) with ``column`` at each of its training deciles 10–90 %, the other missing
    values at what the model used (``used``: column → value)."""
    model = bench.model
    training = bench.dataset.X.iloc[model.train_rows][column].dropna().to_numpy(float)
    rows = []
    for level in np.quantile(training, np.linspace(0.1, 0.9, 9)):
        row = values.fillna(pd.Series(used)).copy()
        row[column] = level
        rows.append(row)
    return model.estimator.predict_proba(model.preprocessor.transform(pd.DataFrame(rows)))[:, 1]


@pytest.mark.slow
def test_the_range_over_the_guesses_covers_every_alarm(pima):
    X = pima.dataset.X
    for position in pima.model.test_rows[:40]:
        values = X.iloc[position].astype(float).copy()
        values[[GLUCOSE, BMI]] = np.nan
        e = pima.explain(values=values, row_id=NEW_PATIENT)
        g = pima.glance(e)
        if not g.alarms:
            assert g.guessed is None and g.guess_note is None
            continue
        low = min(min(c.low for c in g.alarms), g.value)
        high = max(max(c.high for c in g.alarms), g.value)
        assert g.guessed == f"{round(low, 2):.2f}–{round(high, 2):.2f}"
        used = {c.column: c.used for c in g.checks}
        for check in g.checks:  # "used …, the training median"
            training = X.iloc[pima.model.train_rows][check.column].dropna()
            assert check.used == pytest.approx(training.median())
        for check in g.alarms:
            risks = risks_over_deciles(pima, values, check.column, used)
            np.testing.assert_allclose(np.sort(check.outputs), np.sort(risks), atol=1e-9)
            assert round(low, 2) <= round(risks.min(), 2) and round(risks.max(), 2) <= round(
                high, 2)
        record = pima.report(e, glance=g)
        assert g.guessed in record and "assume the guessed values" in record
        return
    pytest.fail("no row of the first 40 held-out rows raised an alarm")
