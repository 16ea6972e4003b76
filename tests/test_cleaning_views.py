"""The Forest page's cleaning views built from a CleaningResult (forestviz.app.cleaning_views)."""

import numpy as np

from forestviz.app.cleaning_views import cleaning_views
from forestviz.enhanced.cleaning import CleaningResult, CleaningRound


def test_the_views_name_what_the_last_round_dropped():
    rounds = [CleaningRound(1, np.arange(4), np.arange(50), 0.70, 0.0, 0.0),
              CleaningRound(2, np.array([0, 2, 3]), np.arange(49), 0.72, 25.0, 2.0),
              CleaningRound(3, np.array([0, 3]), np.arange(48), 0.71, 50.0, 4.0)]
    names = ["age", "bmi", "glucose", "insulin"]
    views = cleaning_views(CleaningResult(rounds), names)
    assert views.last_dropped == "bmi, glucose"
    assert views.table["features dropped"].tolist() == ["none", "bmi", "bmi, glucose"]
    assert views.table["round"].tolist() == [1, 2, 3]
    auc = next(trace for trace in views.figure.data if trace.name == "validation AUC")
    assert list(auc.y) == [0.70, 0.72, 0.71]
