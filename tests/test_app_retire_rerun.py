"""An admin's retirement on the Models page, through Streamlit's AppTest on a real SQLite file:
the click's run used to draw the list before retiring, so the table went on saying "in use"
until the next click (and, now that an open page follows the library, the line saying it was
done would vanish at the next poll). The page runs again once retired: the table says
"retired", the line says so once, and the page's stamp is the library's (no poll reruns it)."""

import pytest

from forestviz.store import StoreConfig, open_library
from tests.apptest_helpers import app
from tests.store_helpers import trained
from ui.display import as_text

pytestmark = pytest.mark.slow  # a real training: seconds


def test_a_retirement_shows_in_the_list_of_the_same_click_and_is_said_once(
        tmp_path, monkeypatch):
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(tmp_path / "var"))
    library = open_library(StoreConfig(tmp_path / "var"))
    bench = trained()
    library.publish(bench, name="Pima risk", intended_use="Screening")
    library.publish(bench, name="Pima risk", description="second", intended_use="Screening")
    at = app().switch_page("pages/models.py").run()
    at.selectbox(key="models_choice").set_value("Pima risk@1").run()
    at.checkbox(key="models_retire_sure").check().run()

    at.button(key="models_retire").click().run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value["status"].str[:7]) == ["in use", "retired"]
    assert [s.value for s in at.success] == [as_text("Pima risk@1 is retired.")]
    assert at.selectbox(key="models_choice").value == "Pima risk@1"  # still the one chosen
    at.run()  # the next run: said once
    assert not at.success
    assert list(at.dataframe[0].value["status"].str[:7]) == ["in use", "retired"]
