"""The glance's waterfall (issue 35: "two-line waterfall labels overlap their neighbours"): on the
Explain page it keeps a fixed height so that the summary fits 1400 × 900, so every label is on
one line and, when the bars still need more rows than that height holds, the weakest columns
join the "other columns" bar. Checked on the figure's data: a row (BAR_ROW) for every bar
within the height, no label on two lines, the bars adding up to the prediction, each shown
label whole on hover."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forestviz.explain.plots.conventions import BAR_ROW, BOTTOM
from forestviz.explain.plots.reasons import (
    ONE_LINE,
    fitted_waterfall,
    fold,
    reasons_waterfall,
    waterfall_steps,
)
from forestviz.explain.row.reasons import Reason, Reasons
from ui.summary_view import WATERFALL_HEIGHT, WATERFALL_WIDTH

LONG = "a rather long laboratory column {}"


def reasons(names, pushes, folded: int = 0, target: str = "the risk") -> Reasons:
    """Reasons of ``pushes`` (one per name, none zero) from a base of 0.4, strongest first
    each way, ``folded`` more columns in the rest (each +0.001)."""
    pairs = sorted(zip(names, pushes, strict=True), key=lambda p: -abs(p[1]))
    up = tuple(Reason(n, "12.5", p) for n, p in pairs if p > 0)[:3]
    down = tuple(Reason(n, "missing (imputed 48.7)", p) for n, p in pairs if p < 0)[:3]
    rest = sum(p for n, p in pairs if n not in {r.column for r in up + down}) + 0.001 * folded
    others = tuple(n for n, _ in pairs if n not in {r.column for r in up + down})
    total = sum(pushes) + 0.001 * folded
    return Reasons(target=target, base=0.4, prediction=0.4 + total, raising=up, lowering=down,
                   rest=rest, folded=(*others, *(f"c{i}" for i in range(folded))),
                   up=sum(p for p in pushes if p > 0) + 0.001 * folded,
                   down=sum(p for p in pushes if p < 0), toward=1,
                   side_names=("toward Yes", "toward No"),
                   ends=(f"{0.4:.2f}", f"{0.4 + total:.2f}"))


def _rows(fig) -> tuple[int, int]:
    """(rows the bars' labels take, rows the plot has at BAR_ROW pixels each)."""
    lines = sum(label.count("<br>") + 1 for label in fig.data[0].y)
    plot = fig.layout.height - fig.layout.margin.t - (fig.layout.margin.b or BOTTOM)
    return lines, plot // BAR_ROW


NAMES = st.one_of(st.sampled_from(["Age", "BMI (kg/m2)", "Glucose (mg/dL)", "体重 kg"]),
                  st.integers(0, 99).map(LONG.format), st.text(min_size=1, max_size=60))


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(names=st.lists(NAMES, min_size=1, max_size=6, unique=True), data=st.data(),
       folded=st.integers(0, 30),
       target=st.sampled_from(["the risk", "the prediction",
                               "P(a class with a rather long name indeed)"]))
# the issue's crowding: three long two-line labels each way and the other columns' bar
@example(names=[LONG.format(i) for i in range(6)], data=None, folded=4, target="the risk")
def test_the_glance_waterfall_gives_each_label_its_row(names, data, folded, target):
    pushes = ([0.3, 0.2, 0.1, -0.05, -0.04, -0.03] if data is None else data.draw(st.lists(
        st.sampled_from([-0.3, -0.04, -0.001, 0.002, 0.05, 0.2]), min_size=len(names),
        max_size=len(names))))
    r = reasons(names, pushes, folded, target)
    fig = fitted_waterfall(r, width=WATERFALL_WIDTH, height=WATERFALL_HEIGHT)
    assert fig.layout.height == WATERFALL_HEIGHT
    lines, rows = _rows(fig)
    assert lines <= rows and lines == len(fig.data[0].y)
    assert all(len(label) <= ONE_LINE for label in fig.data[0].y)
    # a column's label keeps its value (cut at its end), its name cut to what is left
    for label, hover in zip(fig.data[0].y, fig.data[0].hovertext, strict=True):
        if " = " in hover:
            value = hover.rpartition(": ")[0].partition(" = ")[2]
            assert label.partition(" = ")[2].rstrip("…").split(" #")[0] in value
    # the strongest columns each way, the others in one bar: a fold of the reasons, adding up
    folds = [fold(r, k) for k in range(3, -1, -1)]
    assert any(waterfall_steps(f)[1] == list(fig.data[0].x) for f in folds)
    assert sum(fig.data[0].x[:-1]) == pytest.approx(r.prediction)
    assert fig.data[0].text[0] == r.ends[0] and fig.data[0].text[-1] == r.ends[1]


def test_the_old_glance_crowded_the_issues_labels():
    """The figure the page drew before: the record's waterfall squeezed into the glance's
    height, two-line labels with fewer rows than lines (the overlap the issue saw)."""
    r = reasons([LONG.format(i) for i in range(6)], [0.3, 0.2, 0.1, -0.05, -0.04, -0.03], 4)
    lines, rows = _rows(reasons_waterfall(r, width=WATERFALL_WIDTH).update_layout(
        height=WATERFALL_HEIGHT))
    assert lines > rows
    lines, rows = _rows(fitted_waterfall(r, width=WATERFALL_WIDTH, height=WATERFALL_HEIGHT))
    assert lines <= rows
