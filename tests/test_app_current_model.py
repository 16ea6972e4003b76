"""The session's current model has one owner: the model last trained, or the one last picked
(issue 35: after a third training the Train page's picker, which kept its widget value, set the
previous model back, and the "Trained." message was lost)."""

import pytest

from tests.apptest_helpers import app, train, upload_csv
from tests.step_pages import DONE, named_models, small_table, successes

pytestmark = pytest.mark.slow


def label(bundle) -> str:
    return f"{bundle.name} · {bundle.n_trees} trees"


def test_every_training_becomes_the_current_model_and_a_pick_overrides_it():
    at = upload_csv(app(), "churn.csv", small_table("classification"))
    trained = []
    for family in ("erf", "softmax", "abrf1_qp"):
        bundle = train(at, family, trees=10, auto=False)
        assert bundle.settings.family == family  # the third came back as the second
        trained.append(bundle)
        assert any(text.startswith(DONE) for text in successes(at)), successes(at)
        assert named_models(at, "train") == {label(bundle)}
    at.selectbox(key="train_current").set_value(label(trained[0])).run()
    assert not at.exception
    assert at.session_state["model"] is trained[0]
    assert named_models(at, "train") == {label(trained[0])}
    for page in ("forest", "explain"):
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception
        assert named_models(at, page) == {label(trained[0])}
    at.selectbox(key="explain_model").set_value(label(trained[1])).run()
    assert at.session_state["model"] is trained[1]
    at.switch_page("pages/train.py").run()
    assert named_models(at, "train") == {label(trained[1])}
