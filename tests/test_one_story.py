"""One screen, one story (issue 35, item 4): the check that reads a page's and a record's texts
(tests/one_story.py) on the defects it must catch, then on the Explain page and the record of
rows of a classification and a regression model, and of a new patient with guessed values."""

import pytest
from apptest_helpers import app, choose_bundled, new_patient_form, train
from one_story import found, page_texts, problems, record_texts

from forestviz.app.workbench import Workbench


@pytest.mark.parametrize("texts", [
    ["this row's columns move the prediction up by 1.2e+02 from the trees' weighted base 152"],
    ["403 · 881.2 · recorded: 881.2115099303014"],
    ["P(Yes): 0.10", "Predicted Yes (risk 0.0996)"],
    ["Calibrated: 0.43", "Calibrated range: 0.42–0.43",
     "Glucose is missing; the risk would be 0.26–0.84, and the predicted class could change "
     "to Yes."],
    ["of this row's tree weight, 99% on trees favouring No, 2% on trees favouring Yes ("],
    ["Decision threshold: 0.606", "Predicted No (risk 0.57; threshold 0.500)"],
    ["90% interval: 167.7–370.9", "Predicted 269.3 (90% interval 167.7–371.9)"],
])
def test_the_check_names_each_defect_of_issue_35(texts):
    assert len(problems(texts)) == 1, problems(texts)


def test_one_number_printed_alike_everywhere_is_one_story():
    texts = ["P(Yes): 0.57", "Predicted Yes (risk 0.57, calibrated 0.61, calibrated range "
             "0.58–0.66)", "Calibrated: 0.61", "Calibrated range: 0.58–0.66",
             "Decision threshold: 0.606", "the decision threshold 0.606",
             "of this row's tree weight, 98% on trees favouring No, 2% on trees favouring Yes",
             "Glucose is missing; the risk would be 0.59–0.64, and the predicted class could "
             "change to No.", "glucose = 0.0061437 and 1,234,567"]
    assert problems(texts) == []
    seen = found(texts)
    assert seen["risk"] == ["0.57", "0.57"] and seen["threshold"] == ["0.606", "0.606"]


def _story(at, bench, e) -> list[str]:
    return problems([*page_texts(at), *record_texts(bench.report(e))])


@pytest.mark.slow
@pytest.mark.parametrize(("table", "family"), [("pima_diabetes", "abrf2"),
                                               ("friedman1", "softmax")])
def test_the_explain_page_and_its_record_tell_one_story(table, family):
    at = app()
    choose_bundled(at, table)
    bundle = train(at, family, trees=30, auto=False)
    at.switch_page("pages/explain.py").run()
    assert not at.exception, at.exception
    bench = Workbench(at.session_state["dataset"], bundle.choice, model=bundle)
    (picker,) = [box for box in at.selectbox if box.key.startswith("explain_ranked@")]
    for position in bench.ranked_rows()["position"].iloc[[0, 7]]:
        picker.set_value(int(position)).run()
        assert not at.exception, at.exception
        e = bench.explain(int(position))
        assert _story(at, bench, e) == []


@pytest.mark.slow
def test_a_new_patient_with_key_values_guessed_tells_one_story():
    """Issue 35, defect 3: Glucose and BMI left empty on Pima; the tiles read a range of 0.42–0.43
    while the alarm said 0.26–0.84 and the class could change: the page and its record must
    give one answer to "how sure"."""
    at = app()
    bundle, dataset, key = new_patient_form(at)
    train = dataset.X.iloc[bundle.train_rows]
    for column in dataset.X.columns:
        if column not in ("Glucose (mg/dL)", "BMI (kg/m2)"):
            at.number_input(key=f"{key}@{column}").set_value(float(train[column].median()))
    at.button(key=f"{key}_send").click().run()
    assert not at.exception, at.exception
    bench = Workbench(dataset, bundle.choice, model=bundle)
    typed = train.median().drop(["Glucose (mg/dL)", "BMI (kg/m2)"]).reindex(dataset.X.columns)
    e = bench.explain(values=typed)
    assert _story(at, bench, e) == []
