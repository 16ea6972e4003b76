"""Every figure laid out for the width it gets and for the narrowest it is shown at (issue 15:
no overlapping or clipped titles, captions, legends or ticks in a 700 px and a 1400 px window).

A figure built for ``WIDTH`` is shrunk by Streamlit to a narrow window's column
(``conventions.NARROW``): what plotly cannot rewrap, the title and caption, must fit that at
generous character widths, and the legend must sit under the caption on the container, where
plotly keeps the plot below it however many rows it takes. These are the layout numbers; the
browser test (tests/test_browser_narrow.py) measures the drawn boxes."""

import functools
import html

import numpy as np
import pandas as pd
import pytest

from forestviz.explain import plots
from forestviz.explain.plots import conventions as c
from forestviz.explain.plots.contributions import contribution_waterfall, contributions_by_tree
from forestviz.explain.row.reasons import Reason, Reasons
from forestviz.names import NAME_LIMIT
from tests.plot_helpers import dirichlet

LONG = "Haemoglobin A1c at the second visit, mmol per mol"[:NAME_LIMIT]  # a 40-character name
MODELS = ["AGBoost (attention over gradient-boosted trees)", "Vanilla RF (baseline)",
          "Gradient boosting (baseline)"]  # the Train page's longest legend
WIDTHS = [c.HALF, 640, c.WIDTH, 1400]


@functools.cache
def every_figure(width: int) -> dict:
    """Every figure function at ``width`` with long names and legends of several entries."""
    T, n = 30, 12
    D, w = dirichlet(T, seed=1), dirichlet(T, seed=3)
    alpha = 0.7 * D + 0.3 * w
    W = dirichlet(T, n, seed=2)
    rng = np.random.default_rng(0)
    y = rng.normal(150, 50, 40)
    names = [f"{LONG[:30]} {j}" for j in range(6)]
    table = plots.row_vs_median_table(W[0, :6], W[:, :6], feature_names=names)
    tau = pd.DataFrame([{"eps": e, "tau": t, "R2": -e * t} for e in np.linspace(0, 1, 11)
                        for t in (0.05, 0.5, 5, 50)])
    history = [{"iteration": i, "validation_auc": 0.7 + i / 100, "train_auc": 0.8,
                "weight_min": 0.5, "weight_q25": 0.8, "weight_median": 1.0, "weight_q75": 1.2,
                "weight_max": 2.0} for i in range(1, 6)]
    rounds = [{"round": r, "n_features": 3, "features": [0, 1, 2], "n_rows": 100 - r,
               "validation_auc": 0.7, "feature_reduction": 0.0, "sample_reduction": 1.0 * r}
              for r in (1, 2, 3)]
    contributions = rng.normal(size=6)
    binary = rng.integers(0, 2, 40)
    return {
        "bars": plots.tree_weight_bars(alpha, parts=[0.7 * D, 0.3 * w], label=LONG,
                                       width=width),
        "kde": plots.attention_kde(alpha, D, names=[LONG, MODELS[0]], width=width),
        "heatmap": plots.weight_heatmap(W, width=width),
        "simplex": plots.simplex_figure(D, w, 0.3, group_names=[LONG] * 3, width=width),
        "tau": plots.tau_curves(tau, value="R2", baseline=-0.5, baseline_name=LONG,
                                width=width),
        "history": plots.erf_history(history, 2, width=width),
        "median": plots.row_vs_median(table, width=width),
        "roc": plots.roc_figure(binary, {m: rng.random(40) for m in MODELS}, 1, width=width),
        "pva": plots.predicted_vs_actual(y, {m: y + rng.normal(0, 9, 40) for m in MODELS},
                                         LONG, width=width),
        "reliability": plots.reliability_figure(binary, rng.random(40), LONG, width=width),
        "waterfall": contribution_waterfall(0.3, contributions, names, target=LONG,
                                            width=width),
        "by_tree": contributions_by_tree(rng.normal(size=(T, 6)) / T, names, [0, 1, 2],
                                         target=LONG, width=width),
        "importance": plots.importance_bars(rng.random(6), names, width=width),
        "sample_weights": plots.sample_weight_histogram(rng.random(50), width=width),
        "effective": plots.effective_trees_histogram(rng.uniform(1, T, n), T, width=width),
        "cleaning": plots.cleaning_rounds_figure(rounds, width=width),
        "reasons": plots.reasons_waterfall(Reasons(
            target=LONG, base=0.3, prediction=0.3 + contributions.sum(),
            raising=tuple(Reason(name, LONG, v) for name, v in zip(names[:2], [0.5, 0.2],
                                                                   strict=True)),
            lowering=(Reason(names[2], "missing", -0.4),),
            rest=float(contributions.sum() - 0.3), folded=tuple(names[3:]), up=1.0, down=-0.7,
            toward=1, side_names=("raising it", "lowering it"), ends=("0.30", "0.60")),
            width=width),
    }


KEYS = ("bars", "kde", "heatmap", "simplex", "tau", "history", "median",
        "roc", "pva", "reliability", "waterfall", "by_tree", "importance", "sample_weights",
        "effective", "cleaning", "reasons")
CASES = [(width, key) for width in WIDTHS for key in KEYS]


def lines(text) -> list[str]:
    return [html.unescape(line) for line in (text or "").split("<br>")]


def text_height(fig) -> int:
    """Pixels finish() allows for the title and caption."""
    title, caption = lines(fig.layout.title.text), lines(fig.layout.title.subtitle.text)
    return 24 + 24 * len(title) + 17 * len(caption)


@pytest.mark.parametrize(("width", "key"), CASES)
def test_title_and_caption_fit_the_narrowest_width_shown(width, key):
    """Every line fits the narrowest column the figure is shown in at generous character
    widths (plotly clips the text it cannot rewrap); a title of several lines is lowered so
    its first line stays in the figure."""
    fig = every_figure(width)[key]
    room = c.narrowest(width) - 30
    assert fig.layout.width == width and fig.layout.height > 0
    title, caption = lines(fig.layout.title.text), lines(fig.layout.title.subtitle.text)
    assert all(len(line) * c.TITLE_CHAR <= room for line in title), title
    assert all(len(line) * c.CAPTION_CHAR <= room for line in caption), caption
    assert fig.layout.title.pad.t == 12 + c.HALF_LINE * (len(title) - 1)
    assert fig.layout.margin.t >= text_height(fig)


@pytest.mark.parametrize(("width", "key"), CASES)
def test_legend_rows_have_room_at_every_width_shown(width, key):
    """A legend at the top sits on the container under the caption, with the top margin
    grown by its rows at ``width``: narrower, plotly lowers the plot under its extra rows
    (its reserved margin) and the plot keeps most of the height. A legend at the foot (under a
    ternary or subplot panels) has room for its rows at the narrowest width."""
    fig = every_figure(width)[key]
    names = c.legend_entries(fig)
    if not names:
        return
    legend, margin, height = fig.layout.legend, fig.layout.margin, fig.layout.height
    assert (legend.orientation, legend.yref, legend.x, legend.xanchor) == (
        "h", "container", 0, "left")
    sides = max(c.SIDES, margin.l + margin.r + 50)
    narrow = c.legend_rows(names, c.narrowest(width), sides)
    if legend.yanchor == "top":
        assert legend.y == pytest.approx(1 - text_height(fig) / height)
        wide = c.legend_rows(names, width, sides)
        assert margin.t >= text_height(fig) + c.LEGEND_ROW * wide
        # narrowest: by these generous estimates the plot keeps a quarter of the figure
        assert text_height(fig) + c.LEGEND_ROW * narrow + 8 + 70 <= 0.75 * height, (key, narrow)
    else:
        assert (legend.y, legend.yanchor) == (0, "bottom")
        assert margin.b >= 70 + c.LEGEND_ROW * narrow


def test_the_issue_figures_at_full_width():
    """The two figures of the issue, built for a 1400 px window's column: the caption of "This
    row compared with the training data" is wrapped for a 700 px window's, and the legend of
    "Predicted against actual" has two rows of room at full width, four (one a line) at the
    narrowest, under the caption."""
    median = every_figure(c.WIDTH)["median"]
    caption = lines(median.layout.title.subtitle.text)
    assert len(caption) == 2 and max(map(len, caption)) <= (c.NARROW - 30) / c.CAPTION_CHAR
    pva = every_figure(c.WIDTH)["pva"]
    names = c.legend_entries(pva)
    assert names == [*MODELS, "perfect"]
    assert [c.legend_rows(names, w) for w in (c.WIDTH, c.NARROW)] == [2, 4]
    assert pva.layout.margin.t == text_height(pva) + c.LEGEND_ROW * 2 + 8
    assert pva.layout.legend.yanchor == "top"


def test_the_cases_are_every_figure_function():
    """All 19 functions that return a figure (each calls finish())."""
    assert tuple(every_figure(c.HALF)) == KEYS


def test_legend_rows_as_plotly_lays_them_out():
    """One row when every entry fits the plot's width, else columns as wide as the widest."""
    room = 700 - c.SIDES  # 540 px
    short = "x" * 30  # 30·7 + 40 = 250 px
    assert c.legend_rows([short] * 2, 700) == 1  # 505 px < 540
    assert c.legend_rows([short] * 3, 700) == 2  # two columns of 255 px
    assert c.legend_rows([short, "x" * 60, "x"], 700) == 3  # the widest (460 px) alone
    assert c.legend_rows(["x" * 60] * 4, 700) == 4
    assert c.legend_rows([short] * 3, 1400) == 1
    assert c.legend_rows([short] * 3, 700, sides=700 - 2 * 255) == 2
    assert c.legend_rows([], 700) == 0 and room == 540


def test_figures_are_laid_out_for_the_narrowest_width_shown():
    assert c.narrowest(c.WIDTH) == c.narrowest(1400) == c.NARROW < c.WIDTH
    assert c.narrowest(c.HALF) == c.HALF
    # slanted tree names below the bars whenever the figure may be shown narrow
    weights = dirichlet(100, seed=5)
    for width in (c.HALF, c.WIDTH, 1400):
        assert plots.tree_weight_bars(weights, width=width).layout.xaxis.tickangle == -35


@pytest.mark.parametrize("chart", ["importance", "row_vs_median"])
def test_every_bar_of_the_feature_charts_is_named(chart):
    """Issue 26: with 30 features plotly named every other bar (the top one unnamed); now the
    axis lists every bar's name and the plot gives each bar a line of text."""
    rng = np.random.default_rng(5)
    names = [f"mean feature {j}" for j in range(30)]
    if chart == "importance":
        fig = plots.importance_bars(rng.dirichlet(np.ones(30)), names)
    else:
        X = rng.normal(size=(50, 30))
        fig = plots.row_vs_median(plots.row_vs_median_table(X[0], X, feature_names=names))
    (bars,) = fig.data
    axis = fig.layout.yaxis
    assert sorted(bars.y) == sorted(names)  # one category a bar
    # one tick a category (dtick in category units, from the first)
    assert (axis.type, axis.tickmode, axis.tick0, axis.dtick) == ("category", "linear", 0, 1)
    margin = fig.layout.margin
    plot = fig.layout.height - margin.t - (c.BOTTOM if margin.b is None else margin.b)
    assert plot / len(names) >= 18  # 12 px text and a gap
