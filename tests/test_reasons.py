"""Reasons on both sides (issue 26, item 2): the two-sided reasons and their sentence on
constructed contributions (one side only, both sides, cancelling) and on fitted models; the
compact waterfall's bars against them."""

import re
from dataclasses import replace

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from forestviz.explain import TrainingSummary, explain
from forestviz.explain.plots.conventions import BAR_ROW, BOTTOM
from forestviz.explain.plots.reasons import reasons_waterfall, waterfall_steps
from forestviz.explain.row.reasons import Reason, Reasons, argument, two_sided
from forestviz.numbers import number_text


@pytest.fixture(scope="module")
def regression():
    X, y = make_friedman1(300, n_features=5, random_state=0)
    model = RandomForestRegressor(20, random_state=0).fit(X, y)
    return explain(model, X[0], summary=TrainingSummary.from_data(model, X, y))


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(300, 5, n_informative=3, n_redundant=0, random_state=0)
    y = np.array(["benign", "malignant"])[y]
    model = RandomForestClassifier(20, random_state=0).fit(X, y)
    return model, X, TrainingSummary.from_data(model, X, y)


def _with(e, total, base=10.0):
    """The explanation ``e`` with the contributions ``total`` (one per column) and ``base``."""
    c = e.contributions
    total = np.asarray(total, dtype=float)
    return replace(e, prediction=base + total.sum(),
                   contributions=replace(c, total=total, base_value=base))


def test_one_side_only_names_no_column_against(regression):
    e = _with(regression, [0.4, 0.3, 0.0, 0.0, 0.0])
    r = two_sided(e)
    assert [x.column for x in r.raising] == ["x0", "x1"] and r.lowering == ()
    assert r.net == pytest.approx(0.7) and not r.balanced
    said = argument(e)
    assert "move the prediction up by 0.7 from the trees' weighted base 10" in said
    assert said.endswith("lowering it: no column.")
    value = e.features.set_index("feature")["value"]
    assert f"raising it: x0 = {value['x0']} (+0.40) and x1 = {value['x1']} (+0.30)" in said
    assert "balanced" not in said


def test_both_sides_name_the_strongest_each_way_toward_the_move_first(regression):
    e = _with(regression, [0.5, -0.2, 0.1, 0.0, -0.05])
    r = two_sided(e)
    assert [x.column for x in r.raising] == ["x0", "x2"]
    assert [x.column for x in r.lowering] == ["x1", "x4"]
    assert (r.up, r.down) == (pytest.approx(0.6), pytest.approx(-0.25)) and not r.balanced
    said = argument(e)
    assert said.index("raising it: x0") < said.index("lowering it: x1")
    assert "(+0.50);" in said and "(−0.20)." in said  # the second of a side only at half or more
    assert "x2 =" not in said and "x4 =" not in said
    down = argument(_with(regression, [-0.5, 0.2, -0.1, 0.0, 0.05]))
    assert "down by 0.35" in down and down.index("lowering it") < down.index("raising it")


def test_sides_that_cancel_are_called_mostly_balanced(regression):
    e = _with(regression, [0.3, -0.28, 0.01, -0.02, 0.0])
    r = two_sided(e)
    assert r.balanced and abs(r.net) < 0.25 * max(r.up, -r.down)
    assert "up by 0.01 from the trees' weighted base 10.00, the two sides mostly balanced" in (
        argument(e))
    assert not two_sided(_with(regression, [0.3, -0.2, 0, 0, 0])).balanced  # 0.1 ≥ 0.075


def test_folded_columns_and_the_waterfall_add_up_to_the_prediction(regression):
    e = _with(regression, [0.5, -0.2, 0.1, 0.03, -0.05])
    r = two_sided(e, shown=1)
    assert r.folded == ("x2", "x3", "x4") and r.rest == pytest.approx(0.1 + 0.03 - 0.05)
    labels, numbers, measures = waterfall_steps(r)
    assert labels[0] == "base value" and labels[-2] == "3 other columns"
    assert measures == ["absolute", "relative", "relative", "relative", "total"]
    assert sum(numbers[:-1]) == pytest.approx(numbers[-1], abs=1e-12)
    assert numbers[-1] == pytest.approx(e.prediction, abs=1e-12)
    fig = reasons_waterfall(r)
    assert list(fig.data[0].x) == numbers
    assert len(fig.data[0].y) == len(labels) == len(set(fig.data[0].y))
    for y, label in zip(fig.data[0].y, labels, strict=True):  # long ones wrapped, cut
        assert y == label or (y.endswith("<br>= " + label.partition(" = ")[2])
                              and len(y.partition("<br>")[0]) <= 22)
    nothing_folded = waterfall_steps(two_sided(e, shown=5))
    assert "other columns" not in " ".join(nothing_folded[0])


def test_on_a_fitted_binary_model_the_sides_are_classes_and_numbers_agree(binary):
    model, X, summary = binary
    for x in X[:20]:
        e = explain(model, x, summary=summary)
        r = two_sided(e)
        total = e.contributions.total[:, 1]
        assert r.target == "the risk"
        assert r.base + sum(x.contribution for x in (*r.raising, *r.lowering)) + r.rest == (
            pytest.approx(e.prediction[1], abs=1e-12))
        assert r.prediction == pytest.approx(model.predict_proba(x[None])[0, 1], abs=1e-9)
        if total.max() > 0:
            assert r.raising[0].contribution == pytest.approx(total.max())
        if total.min() < 0:
            assert r.lowering[0].contribution == pytest.approx(total.min())
        said = argument(e)
        assert said.startswith(f"Predicted {e.predicted_class} (risk {e.prediction[1]:.2f})")
        first = "toward malignant" if e.predicted_class == "malignant" else "toward benign"
        other = "toward benign" if first == "toward malignant" else "toward malignant"
        assert said.index(first) < said.index(other)  # toward the prediction first


def test_a_missing_number_shows_what_stood_in_for_it(binary):
    model, X, summary = binary
    x = X[0].copy()
    x[:] = np.nan  # every column missing: each shown reason is a guess
    e = explain(model, x, summary=summary)
    r = two_sided(e, shown=5)
    assert r.raising or r.lowering
    for reason in (*r.raising, *r.lowering):
        j = e.feature_names.index(reason.column)
        assert reason.value == f"missing (imputed {number_text(np.median(X[:, j]), X[:, j].std())})"


def test_the_waterfall_ends_print_as_the_tiles_and_pushes_never_in_e_notation(regression, binary):
    """Issue 35: a waterfall ended at 0.0996 beside a 0.10 tile, and a regression's sentence said
    "up by 1.2e+02": the ends are the tiles' texts (Explanation.outcome_texts), and every push
    and the net move print without an exponent."""
    model, X, summary = binary
    for e in (*(explain(model, x, summary=summary) for x in X[:10]),
              _with(regression, [120.4, -0.004, 3.3e-5, 2.5e4, -1.7e3], base=152.0)):
        r = two_sided(e)
        texts = list(reasons_waterfall(r).data[0].text)
        column = None if e.task == "regression" else 1
        answer = e.prediction if column is None else e.prediction[column]
        assert texts[-1] == e.outcome_texts(answer)[0]
        assert texts[0] == e.outcome_texts(r.base)[0]
        if column is not None:
            assert texts[-1] == f"{answer:.2f}"  # the tile's two decimals
        said = argument(e)
        assert not re.search(r"\de[+-]?\d", " ".join([*texts, said])), (texts, said)
    assert "+25,000" in texts and "+120" in texts and "−1,700" in texts
    assert f"up by {2.5e4 + 120.4 - 1.7e3 - 0.004 + 3.3e-5:,.0f}"[:11] in said


def test_a_probability_rounded_past_its_bound_prints_as_the_bound(binary):
    """Found on another processor: a row's waterfall ended at base + pushes = −1e-17 and printed
    "-0.00" beside the tile's "0.00"."""
    model, X, summary = binary
    e = explain(model, X[0], summary=summary)
    assert e.outcome_texts(-1e-17, -0.0, 0.0, 1 + 2e-16, 0.004999) == [
        "0.00", "0.00", "0.00", "1.00", "0.00"]


def test_a_two_line_label_gets_a_row_of_its_own():
    """Issue 35: two-line waterfall labels overlapped their neighbours: the figure is tall
    enough for every line of its labels at the bar rows' spacing (BAR_ROW)."""
    long = [Reason(f"a rather long laboratory column {i}", "12.5", 0.1 * (i + 1))
            for i in range(3)]
    r = Reasons(target="the risk", base=0.2, prediction=0.8, raising=tuple(long),
                lowering=(Reason("Age", "40", -0.1),), rest=0.1, folded=("BMI",), up=0.7,
                down=-0.1, toward=1, side_names=("toward Yes", "toward No"), ends=("0.20", "0.80"))
    fig = reasons_waterfall(r, height=100)
    lines = sum(label.count("<br>") + 1 for label in fig.data[0].y)
    assert lines == 7 + 3  # three labels on two lines
    plot = fig.layout.height - fig.layout.margin.t - (fig.layout.margin.b or BOTTOM)
    assert plot >= BAR_ROW * lines
    assert list(fig.data[0].text) == ["0.20", "+0.10", "+0.20", "+0.30", "−0.10", "+0.10", "0.80"]
