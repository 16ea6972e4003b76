"""forestviz.explain.plots.calibration: the reliability curve's points are scikit-learn's
calibration_curve, its row counts add up, and the figure draws exactly those numbers."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve

from forestviz.explain import plots
from tests.plot_helpers import axis_titles, strings


def risks(n=300, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    y = np.where(rng.uniform(size=n) < p**2, "malignant", "benign")
    return y, p


@pytest.mark.parametrize("n_bins", [1, 4, 10])
def test_bins_are_calibration_curves_points_with_counts_that_add_up(n_bins):
    y, p = risks()
    mean, share, counts = plots.reliability_bins(y, p, "malignant", n_bins)
    truth, predicted = calibration_curve(y == "malignant", p, n_bins=n_bins,
                                         strategy="quantile")
    np.testing.assert_allclose(mean, predicted)
    np.testing.assert_allclose(share, truth)
    assert counts.sum() == p.size
    # the counts are the bins' own: they recompose the totals of risks and of positives
    assert counts @ mean == pytest.approx(p.sum())
    assert counts @ share == pytest.approx(np.sum(y == "malignant"))
    assert np.all(np.abs(counts - p.size / n_bins) <= 1)  # equal-count bins, distinct risks


def test_tied_risks_empty_some_bins_and_the_counts_follow():
    y, p = risks(200, seed=1)
    p = np.round(p, 1) * 0.5  # eleven distinct risks for 20 quantile bins
    mean, share, counts = plots.reliability_bins(y, p, "malignant", 20)
    assert mean.size < 20 and counts.sum() == 200
    assert counts @ mean == pytest.approx(p.sum())
    assert counts @ share == pytest.approx(np.sum(y == "malignant"))


def test_figure_draws_the_diagonal_and_the_bins_with_their_counts():
    y, p = risks()
    fig = plots.reliability_figure(y, p, "malignant", n_bins=5, name="ERF <b>")
    diagonal, curve = fig.data
    assert list(diagonal.x) == [0, 1] and list(diagonal.y) == [0, 1]
    mean, share, counts = plots.reliability_bins(y, p, "malignant", 5)
    np.testing.assert_allclose(curve.x, mean)
    np.testing.assert_allclose(curve.y, share)
    assert list(curve.customdata) == counts.tolist()
    assert list(curve.text) == [f"n={c}" for c in counts]
    assert curve.name == "ERF &lt;b&gt;"
    assert "malignant" in fig.layout.title.text
    assert set(axis_titles(fig)) == {"mean predicted risk", "share of rows that were malignant"}
    assert not [s for s in strings(fig) if "<b>" in s and "ERF" in s]


def test_a_well_calibrated_risk_lies_near_the_diagonal_and_a_bad_one_does_not():
    rng = np.random.default_rng(2)
    p = rng.uniform(size=20000)
    y = rng.uniform(size=p.size) < p
    mean, share, counts = plots.reliability_bins(y, p, True, 10)
    assert np.max(np.abs(share - mean)) < 4 * np.sqrt(0.25 / counts.min())
    mean, share, _ = plots.reliability_bins(y, np.sqrt(p), True, 10)  # over-stated risk
    assert np.all(share < mean)


def test_a_risk_a_rounding_error_above_one_counts_as_one():
    y, p = risks(50)
    p[np.argmax(p)] = 1.0
    rounded = np.where(p == 1.0, 1 + 2.2e-16, p)
    for got, want in zip(plots.reliability_bins(y, rounded, "malignant", 5),
                         plots.reliability_bins(y, p, "malignant", 5), strict=True):
        np.testing.assert_array_equal(got, want)


def test_bad_arguments_are_refused():
    y, p = risks(20)
    with pytest.raises(ValueError, match="one outcome per risk"):
        plots.reliability_figure(y[:-1], p, "malignant")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        plots.reliability_figure(y, p + 1, "malignant")
    with pytest.raises(ValueError, match="n_bins"):
        plots.reliability_figure(y, p, "malignant", n_bins=0)
    with pytest.raises(ValueError, match="finite"):
        plots.reliability_figure(y, np.r_[p[:-1], np.nan], "malignant")


def test_every_bin_label_lies_inside_the_plot():
    """Issue 26: a bin's "n=…" label above and left of its point was cut off at the plot's
    top (a share of 1) and left edge (a risk near 0); now it turns inward there."""
    p = np.r_[np.full(20, 0.02), np.linspace(0.3, 0.7, 40), np.full(20, 0.97)]
    y = np.r_[np.zeros(20), np.arange(40) % 2, np.ones(20)]
    fig = plots.reliability_figure(y, p, 1.0, n_bins=4)
    points = next(t for t in fig.data if t.mode == "lines+markers+text")
    assert points.cliponaxis is False
    for x, share, where in zip(points.x, points.y, points.textposition, strict=True):
        vertical, horizontal = where.split()
        assert vertical == ("bottom" if share > 0.85 else "top"), (share, where)
        assert horizontal == ("right" if x < 0.1 else "left"), (x, where)
    assert {tuple(w.split()) for w in points.textposition} >= {("top", "right"),
                                                               ("bottom", "left")}
