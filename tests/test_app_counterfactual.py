"""The counterfactual of an explained row of a model trained in the app
(forestviz.app.counterfactuals): confirmed by the model on the row as the app encodes it, the
fixed columns kept."""

from __future__ import annotations

import numpy as np
import pytest

from forestviz.app.counterfactuals import counterfactual
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.counterfactual.wording import summary
from forestviz.io.bundled import load_dataset


@pytest.mark.slow
def test_an_app_models_counterfactual_is_confirmed_and_keeps_the_fixed_column():
    bench = Workbench(load_dataset("pima_diabetes"))
    bench.train(Settings(family="vanilla", n_estimators=20))
    bundle = bench.model
    explanation = bench.explain(0)
    age = "Age (years)"
    result = counterfactual(bundle, explanation, fixed=[age], time_limit=120)
    assert result.best is not None
    names = bundle.summary.columns.names
    for change in result.changes:
        answer = bundle.estimator.predict(change.row[None])[0]
        assert answer == change.answer != explanation.predicted_class
        age_feature = bundle.summary.columns.columns[names.index(age)].features[0]
        assert change.row[age_feature] == result.x0[age_feature]
        assert np.all(bundle.X_train.min(axis=0) <= change.row)
        assert np.all(change.row <= bundle.X_train.max(axis=0))
    assert summary(result).startswith(f"The model would answer {result.best.answer} if ")
