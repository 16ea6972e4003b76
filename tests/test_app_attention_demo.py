"""Home's second demo, "See attention at work", through Streamlit's AppTest with its real
training: the table is Friedman 2, the model keeps its attention (it beat its own plain forest
on the rows held out in training), beats the same trees averaged equally on the held-out rows
too, and Home opens a lesson of five steps (issue 39, item 4) walked here with Next and Back:
each step's row and view against the model's weights computed here, and its button opens the
step's row on the Explain page."""

import re

import numpy as np
import pytest
from sklearn.metrics import r2_score

from forestviz.app.families import ATTENTION_DEMO
from forestviz.app.lesson import TITLES
from forestviz.numbers import plain_number
from forestviz.trees.ensemble import as_ensemble
from tests.apptest_helpers import app, chart_titles, finish_jobs, metric

pytestmark = pytest.mark.slow

SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")


def unescaped(text: str) -> str:
    """A text as read, without the backslashes ``ui.display.as_text`` puts before markdown."""
    return re.sub(r"\\(.)", r"\1", text)


def lesson_texts(at) -> list[str]:
    return ([unescaped(m.value) for m in at.markdown] + [unescaped(c.value) for c in at.caption]
            + [str(v) for frame in at.dataframe for v in frame.value.to_numpy().ravel()])


def plain_forest(bundle) -> np.ndarray:
    """Brute force: for each held-out row and tree, the mean outcome of the training rows in
    the row's leaf (ABRF's leaf values: all training rows, not the bootstrap's), averaged with
    equal weights (every tree 1/T)."""
    forest = bundle.estimator.forest_
    train, test = forest.apply(bundle.X_train), forest.apply(bundle.X_test)
    return np.array([[bundle.y_train[train[:, k] == leaf].mean() for k, leaf in enumerate(row)]
                     for row in test]).mean(axis=1)


def test_see_attention_at_work_is_a_lesson_walked_step_by_step():
    at = app()
    at.button(key="home_attention").click().run()
    finish_jobs(at)
    assert not at.exception and not at.error
    assert at.session_state["dataset"].name == "friedman2"
    bundle = at.session_state["model"]
    assert bundle.settings == ATTENTION_DEMO.settings
    model = bundle.estimator
    assert not as_ensemble(model).diagnostics().selected_base
    attention = r2_score(bundle.y_test, model.predict(bundle.X_test))
    plain = r2_score(bundle.y_test, plain_forest(bundle))
    assert attention > plain + 0.02

    # the weights of every held-out row, computed here: the rows the steps must open
    weights = model.tree_weights(bundle.X_test)
    effective = 1 / (weights**2).sum(axis=1)
    most, fewest = int(np.argmax(effective)), int(np.argmin(effective))
    assert effective[most] > 3 * effective[fewest]  # the weights differ across rows
    rows = [most, fewest, fewest, fewest, fewest]
    views = ["weights", "weights", "simplex", "tree", "plain"]

    assert at.title[0].value == "forestviz"  # the lesson opens on Home, at step 1
    first = at.main.children[1]  # right under the title: an open lesson is Home's whole page
    assert [p.proto.text for p in first.get("progress")] == [f"Step 1 of 5: {TITLES[0]}"]
    assert len(at.main.children) == 3 and not at.subheader  # the title, the lesson, its scroll
    assert "scrollIntoView" in at.main.children[2].proto.body  # to the step (a fixed script)
    for step, (row, view) in enumerate(zip(rows, views, strict=True), start=1):
        assert at.session_state["lesson_step"] == step
        (progress,) = at.get("progress")
        assert progress.proto.text == f"Step {step} of 5: {TITLES[step - 1]}"
        row_id = str(bundle.ids_test[row])
        assert f"Row {row_id}. The view:" in " ".join(lesson_texts(at))
        assert not any(SCIENTIFIC.search(text) for text in lesson_texts(at))
        back, after = at.button(key="lesson_back"), at.button(key="lesson_next")
        assert back.disabled == (step == 1) and after.disabled == (step == 5)
        if view == "weights":
            assert any(t.startswith("Which trees carry") for t in chart_titles(at))
        if step == 1:
            table = at.dataframe[0].value
            assert table["effective number of trees"].iloc[0] == plain_number(effective[most])
            assert table["effective number of trees"].iloc[-1] == plain_number(
                effective[fewest])
        if view == "simplex":
            assert at.slider(key="lesson_eps").value == 0.3
            at.slider(key="lesson_eps").set_value(0.6).run()
            assert at.session_state["lesson_step"] == step and not at.exception
        if view == "tree":
            heaviest = int(np.argmax(weights[fewest]))
            (image,) = at.get("image")
            assert f"Tree {heaviest + 1}, row {row_id}" in str(image.proto)
        if view == "plain":
            table = at.dataframe[0].value
            assert list(table.iloc[:, 1]) == [plain_number(model.predict(
                bundle.X_test[fewest:fewest + 1])[0], 4), plain_number(
                plain_forest(bundle)[fewest], 4)]
        if step < 5:
            at.button(key="lesson_next").click().run()
    at.button(key="lesson_back").click().run()
    assert at.session_state["lesson_step"] == 4

    # the step's button opens its row on the Explain page
    at.button(key="lesson_explain").click().run()
    assert at.title[0].value == "Explain"
    assert at.session_state["explain_row"] == int(bundle.test_rows[fewest])
    assert float(metric(at, "Effective number of trees")) == pytest.approx(
        effective[fewest], abs=0.05)

    # back on Home the lesson is where it was left; leaving it gives Home back
    at.switch_page("pages/home.py").run()
    (progress,) = at.get("progress")
    assert progress.proto.text == f"Step 4 of 5: {TITLES[3]}"
    at.button(key="lesson_leave").click().run()
    assert not at.get("progress") and "lesson_step" not in at.session_state
    assert [h.value for h in at.subheader][:2] == ["Data set in use", "See an explanation now"]

    # another session: the server has the demo's model, so the click opens the lesson at once
    other = app()
    other.button(key="home_attention").click().run()
    assert not other.exception and other.session_state["lesson_step"] == 1
    assert [p.proto.text for p in other.get("progress")] == [f"Step 1 of 5: {TITLES[0]}"]
