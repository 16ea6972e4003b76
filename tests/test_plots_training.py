"""forestviz.explain.plots, what training learned and where a row stands: the ε–τ search
curves, ERF's rounds, the row against the training medians and percentiles (scipy)."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import percentileofscore
from sklearn.datasets import make_classification, make_friedman1

from forestviz.attention import AttentionForestRegressor
from forestviz.enhanced import EnhancedForestClassifier
from forestviz.explain import plots

RNG = np.random.default_rng(0)


# --------------------------------------------------------------------- training diagnostics
def test_tau_curves_one_line_per_eps_the_plain_model_as_a_line_and_the_chosen_pair():
    X, y = make_friedman1(60, random_state=0)
    results = AttentionForestRegressor(10, random_state=0).fit(X, y).search_results_
    grid = results[results["candidate"] == "attention"]
    forest = results[results["candidate"] == "base"].iloc[0]
    fig = plots.tau_curves(results)
    lines = [t for t in fig.data if t.name.startswith("ε")]
    assert len(lines) == grid["eps"].nunique()
    assert fig.layout.xaxis.type == "log"
    for trace, (_, curve) in zip(lines, grid.groupby("eps"), strict=True):
        order = np.argsort(curve["tau"].to_numpy())
        np.testing.assert_allclose(trace.x, curve["tau"].to_numpy()[order])
        np.testing.assert_allclose(trace.y, curve["validation_loss"].to_numpy()[order])
    (line,) = fig.layout.shapes  # the plain forest's held-out loss
    assert line.y0 == line.y1 == forest["validation_loss"]
    # an attention pair chosen: starred, whether or not it has the least loss
    pick = grid.index[3]
    chosen = results.assign(selected=results.index == pick)
    (star,) = [t for t in plots.tau_curves(chosen).data if t.name == "chosen pair"]
    assert (star.x[0], star.y[0]) == (grid.loc[pick, "tau"], grid.loc[pick, "validation_loss"])
    # the plain model chosen: no star, the caption says so
    plain = plots.tau_curves(results.assign(selected=results["candidate"] == "base"))
    assert not [t for t in plain.data if t.name in ("chosen pair", "best pair")]
    assert "plain model" in plain.layout.title.subtitle.text.replace("<br>", " ")


def test_tau_curves_says_when_the_confirmation_kept_the_plain_model():
    """A pair beat the plain model on the held-out rows, but its confirmation on rows it was
    not chosen on failed: the caption must not claim that no pair beat it."""
    results = pd.DataFrame({
        "candidate": ["base", "attention", "attention"], "eps": [np.nan, 0.0, 0.5],
        "tau": [np.nan, 1.0, 1.0], "validation_loss": [2.0, 1.0, 1.5],
        "selected": [True, False, False], "confirmed_difference": -0.5, "confirmed_se": 0.4})
    caption = plots.tau_curves(results).layout.title.subtitle.text.replace("<br>", " ")
    assert "was kept" in caption and "did not hold" in caption
    assert "no pair beat it" not in caption


def test_tau_curves_accepts_records_r2_and_missing_scores():
    records = [{"eps": e, "tau": t, "r2": e * t} for e in (0.0, 1.0) for t in (1.0, 0.1)]
    fig = plots.tau_curves(records, value="r2")
    (star,) = [t for t in fig.data if t.name == "best pair"]
    assert (star.x[0], star.y[0]) == (1.0, 1.0)  # R²: higher is better
    assert "R²" in fig.layout.yaxis.title.text
    losses = [{"eps": 0.5, "tau": t, "validation_loss": v} for t, v in ((1.0, 3.0), (2.0, 1.0))]
    r2 = plots.tau_curves(losses, target_variance=4.0)
    np.testing.assert_allclose(r2.data[0].y, [0.25, 0.75])
    assert r2.data[1].y[0] == 0.75 and "R²" in r2.layout.yaxis.title.text
    empty = plots.tau_curves([{"eps": 0.0, "tau": 1.0, "validation_loss": np.nan}])
    assert not [t for t in empty.data if t.name == "best pair"]
    assert "No held-out scores" in empty.layout.title.subtitle.text.replace("<br>", " ")
    with pytest.raises(ValueError, match="lacks the column"):
        plots.tau_curves([{"eps": 0.0, "tau": 1.0}])


def test_erf_history_from_a_fitted_model():
    X, y = make_classification(80, random_state=0)
    model = EnhancedForestClassifier(10, n_iterations=3, early_stopping=False,
                                     random_state=0).fit(X, y)
    fig = plots.erf_history(model.history_, best_iteration=model.best_iteration_)
    frame = pd.DataFrame(model.history_)
    by_name = {t.name: t for t in fig.data}
    np.testing.assert_allclose(by_name["validation AUC"].y, frame["validation_auc"])
    np.testing.assert_allclose(by_name["training AUC"].y, frame["train_auc"])
    np.testing.assert_allclose(by_name["median sample weight"].y, frame["weight_median"])
    kept = frame.iloc[model.best_iteration_]
    assert by_name["kept round"].x[0] == kept["iteration"]
    assert "decision threshold" in by_name["validation AUC"].hovertext[0]
    assert fig.layout.yaxis2.title.text and fig.layout.xaxis2.title.text
    # each panel explains itself in a title above it; the vertical axis titles stay short
    # enough to fit beside a half-height panel (long ones overlapped each other)
    panel_titles = [a.text for a in fig.layout.annotations]
    assert any("AUC" in t for t in panel_titles) and any("weights" in t for t in panel_titles)
    assert max(len(fig.layout.yaxis.title.text), len(fig.layout.yaxis2.title.text)) <= 15
    assert fig.layout.xaxis2.dtick == 1  # rounds are whole numbers


def test_erf_history_minimal_and_multiclass_records():
    one = plots.erf_history(pd.DataFrame({"iteration": [1], "validation_auc": [np.nan]}))
    assert len(one.data) == 1 and one.layout.xaxis.title.text == "Training round"
    multi = plots.erf_history([{"iteration": 1, "validation_auc": 0.8,
                                "threshold": [0.2, 0.31234, 0.5]}])
    assert "[0.2, 0.312, 0.5]" in multi.data[0].hovertext[0]


# ----------------------------------------------------------------- row vs the training data
def test_row_vs_median_table_matches_scipy_percentiles():
    X = np.round(RNG.normal(size=(101, 4)), 1)  # rounding makes ties
    row = X[7]
    table = plots.row_vs_median_table(row, X, ["a", "b", "c", "d"])
    np.testing.assert_allclose(table["median"], np.median(X, axis=0))
    expected = [percentileofscore(X[:, j], row[j], kind="mean") for j in range(4)]
    np.testing.assert_allclose(table["percentile"], expected)
    const = plots.row_vs_median_table([1.0], np.ones((5, 1)))
    assert const["percentile"].tolist() == [50.0] and const["feature"].tolist() == ["feature 1"]


def test_row_vs_median_bars_run_from_the_median_to_the_percentile():
    table = pd.DataFrame({"feature": ["pulse oximetry", "age", "sex"], "value": [72, 24, "1"],
                          "median": [98, 38, "1"], "percentile": [3.0, 20.0, 50.0]})
    (bar,) = plots.row_vs_median(table).data
    np.testing.assert_allclose(np.asarray(bar.x) + bar.base, table["percentile"])
    assert list(bar.y) == list(table["feature"])
    assert bar.hovertext[0] == ("pulse oximetry: this row 72, training median 98<br>"
                                "3% of the training rows are lower")
    assert list(bar.marker.color) == [plots.STRONG[0], plots.STRONG[0], plots.STRONG[1]]
    with pytest.raises(ValueError, match="lacks"):
        plots.row_vs_median(table.drop(columns="percentile"))


def test_erf_history_caption_names_the_kept_round_and_the_rule():
    """Issue 26: the caption said "the round with the best validation AUC is kept" while the
    star sat on round 1 (0.972 against 0.980): it now names the starred round and the rule."""
    history = [{"iteration": i + 1, "validation_auc": auc}
               for i, auc in enumerate((0.972, 0.975, 0.980))]
    caption = plots.erf_history(history, 0).layout.title.subtitle.text.replace("<br>", " ")
    star = next(t for t in plots.erf_history(history, 0).data if t.name == "kept round")
    assert (star.x[0], star.y[0]) == (1, 0.972)
    assert "round 1 (validation AUC 0.972)" in caption
    assert "not round 3 with the best, 0.980" in caption
    assert "one-standard-error rule" in caption and "best validation AUC is kept" not in caption
    best = plots.erf_history(history, 2).layout.title.subtitle.text.replace("<br>", " ")
    assert "round 3 (validation AUC 0.980): the best validation AUC." in best
    assert "standard error" not in best
