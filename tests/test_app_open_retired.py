"""An Open click on a version that another replica retired after the page was drawn (issue 38,
item 2), through Streamlit's AppTest on a real SQLite file: the click's run reads the list anew,
so the click used to be lost ("No model has been published yet") or, under the Open button's
one key, to open the newer version listed in its place. It is refused in one line, naming the
version clicked, and nothing is opened or recorded as opened."""

import pytest

from forestviz.store import Actor, StoreConfig, open_library
from tests.apptest_helpers import app
from tests.store_helpers import trained
from ui import library as app_library
from ui.display import as_text
from ui.identity import Identity

pytestmark = pytest.mark.slow  # a real training: seconds


@pytest.fixture
def viewer(monkeypatch):
    """The sessions' user: a viewer (who may not open retired versions)."""
    who = Identity(actor=Actor("viewer-1", "viewer@example.org", "viewer"), role="viewer",
                   signed_in=True)
    monkeypatch.setattr(app_library, "identity", lambda: who)


@pytest.mark.parametrize("versions", [1, 2])
def test_open_of_a_version_retired_since_the_page_was_drawn_is_refused(
        versions, viewer, tmp_path, monkeypatch):
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(tmp_path / "var"))
    library = open_library(StoreConfig(tmp_path / "var"))
    bench = trained()
    for number in range(versions):
        library.publish(bench, name="Pima risk", description=f"version {number + 1}",
                        intended_use="Screening")
    at = app().switch_page("pages/models.py").run()
    at.selectbox(key="models_choice").set_value("Pima risk@1").run()
    retired = library.retire("Pima risk", 1)  # by the admin of another replica

    at.button(key="models_open").click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [as_text(
        f"The model 'Pima risk@1' was retired on {retired.retired_at:%Y-%m-%d}; it is kept "
        "for the record only.")]
    assert app_library.OPENED not in at.session_state
    assert at.title[0].value == "Models"  # still on the Models page
    trail = library.audit.query()
    assert "model_opened" not in set(trail["action"])
