"""The search's verdict in words (forestviz.explain.whole.selection_note) on hand-built search
tables: every number in the sentence is read off the table, R² = 1 − loss / Var(y) for a
regression's squared loss, AUC = 1 − loss when the table holds 1 − AUC."""

import numpy as np
import pandas as pd
import pytest

from forestviz.explain.whole.selection_note import r2_variance, selection_note
from forestviz.trees.diagnostics import Search

PLAIN = "the plain forest"


def table(candidate="attention", *, selected_base=False, difference=0.05, smoothest=False,
          confirmed=False, base_loss=0.40):
    """The base row, the best candidate (loss 0.35) and a simpler one within its standard
    error (loss 0.37); ``smoothest``: the simpler one was chosen."""
    frame = pd.DataFrame({
        "candidate": ["base", candidate, candidate],
        "validation_loss": [base_loss, 0.35, 0.37],
        "standard_error": [0.01, 0.01, 0.01],
        "n_rows": [1234, 1234, 1234],
        "difference_to_best": [difference, 0.0, 0.02],
        "difference_se": [0.02, 0.0, 0.03],
        "selected": [selected_base, not selected_base and not smoothest,
                     not selected_base and smoothest]})
    if confirmed:
        frame["confirmed_difference"] = [-0.031, np.nan, np.nan]
        frame["confirmed_se"] = [0.012, np.nan, np.nan]
    return frame


def test_a_win_in_r2_quotes_the_paired_difference_and_the_confirmation():
    variance = 0.8
    note = selection_note(Search(table(smoothest=True, confirmed=True), False), plain=PLAIN,
                          task="regression", loss="l2", variance=variance)
    r2 = [f"{1 - loss / variance:.3f}" for loss in (0.40, 0.35, 0.37)]  # 0.500 0.562 0.537
    assert note == (
        f"Attention improved on the plain forest (on the 1,234 training rows the search held "
        f"out: the plain forest R² {r2[0]}, the best attention setting R² {r2[1]}; the paired "
        f"difference, 0.05, is larger than its standard error, 0.02; redone without each "
        f"fifth of those rows, it beat it on the fifth left out by {0.031 / variance:.3g} ± "
        f"{0.012 / variance:.3g} in R²). Of the settings within one standard error of the "
        f"best, the one with the smoothest weights was chosen (R² {r2[2]}).")


def test_an_enhanced_forest_kept_at_round_one_speaks_auc():
    frame = table("enhanced", selected_base=True, difference=0.01).assign(rounds=[1, 2, 3])
    note = selection_note(Search(frame, True, score="AUC"), plain=PLAIN,
                          task="classification", loss="l2", variance=None)
    assert note == (
        "Reweighting and model weighting did not beat the plain forest on this data set (on "
        "the 1,234 training rows the search held out: round 1 with plain averaging AUC 0.600, "
        "the best Enhanced RF setting AUC 0.650, a difference within its standard error), so "
        "the model is the plain forest: the explanation shows its own trees with equal "
        "weights.")


def test_a_kept_base_model_after_a_failed_confirmation_says_the_gain_in_the_loss():
    note = selection_note(Search(table(selected_base=True, confirmed=True), True),
                          plain="the plain boosting machine", task="regression", loss="l1",
                          variance=None)
    assert ("the plain boosting machine mean absolute error 0.4000, the best attention setting "
            "mean absolute error 0.3500, but the search, redone without each fifth of those "
            "rows, did not beat it on the fifth left out: its gain in mean absolute error was "
            "+0.031 ± 0.012, not above zero by two standard errors") in note


def test_settings_by_hand_and_no_search():
    fixed = selection_note(Search(table(difference=0.01), False), plain=PLAIN,
                           task="classification", loss="l2", variance=None)
    assert fixed.startswith("Some settings were fixed by hand, so the plain forest was not a "
                            "candidate (on the 1,234 training rows")
    assert fixed.endswith("; this model Brier score 0.3500).")
    unscored = selection_note(Search(table(base_loss=np.nan), False), plain=PLAIN,
                              task="regression", loss="l2", variance=1.0)
    assert unscored == ("Attention was not compared with the plain forest: ε and τ were set "
                        "by hand and no rows were held out to score them.")
    assert selection_note(None, plain=PLAIN, task="regression", loss="l2", variance=1.0) is None
    no_base = table().assign(candidate=["attention"] * 3)
    assert selection_note(Search(no_base, False), plain=PLAIN, task="regression", loss="l2",
                          variance=1.0) is None


def test_r2_is_said_only_for_a_regressions_squared_loss():
    y = np.array([1.0, 2.0, 4.0, 7.0])
    assert r2_variance("regression", "l2", y) == pytest.approx(np.mean((y - y.mean()) ** 2))
    assert r2_variance("regression", "l1", y) is None
    assert r2_variance("classification", "l2", y) is None
