"""The Forest page without reweighting rounds (issue 35: on a regression model it showed a live
"Rounds" slider above "Cleaning rounds need an Enhanced RF", and advised training an Enhanced
RF, which a regression target does not offer)."""

import pytest

from forestviz.registry import families_for
from tests.apptest_helpers import app, train, upload_csv
from tests.step_pages import plain, small_table

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_a_model_without_rounds_shows_no_rounds_slider_and_only_advice_it_can_follow(task):
    at = upload_csv(app(), "table.csv", small_table(task))
    assert at.session_state["dataset"].task == task
    train(at, "vanilla", trees=10)
    at.switch_page("pages/forest.py").run()
    assert not at.exception
    assert [s.key for s in at.slider if s.key == "forest_rounds"] == []
    assert not any(b.key == "forest_clean" for b in at.button)
    said = " ".join(plain(i.value) for i in at.info)
    offered = "erf" in families_for(task)
    assert ("train an Enhanced RF" in said) == offered, said
    assert ("classification targets only" in said) == (not offered), said
