"""Sign-in through Streamlit's AppTest (``st.user`` set by the test, the ``[auth]`` section in
``at.secrets``): local mode, the sign-in page, the navigation of each role, the refusal and its
audit event in a real SQLite library, the Audit page's filters; and the pure parts (claims to
identity, the dates of the Audit page's filter). The real sign-in against an OpenID provider is
``tests/test_browser_signin.py``."""

import ast
from datetime import UTC, date, datetime

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from forestviz.store import StoreConfig, open_library
from forestviz.store.actor import Actor
from tests.apptest_helpers import REPO
from tests.signin_helpers import (
    ALL_PAGES,
    ISSUER,
    actor,
    runs,
    signed_in_app,
    use_data_dir,
    user,
)
from tests.test_display import shown
from ui.access import PAGES
from ui.audit_view import day_bounds, query_filters
from ui.identity import NO_SUBJECT, identity_from_user, local_user, roles_claim
from ui.signin import LOCAL_MODE

ROLE_PAGES = {
    "viewer": ["home", "explain", "forest", "lab", "glossary"],
    "analyst": ["home", "data", "train", "explain", "forest", "lab", "glossary"],
    "admin": ALL_PAGES,
}


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """The library's data directory of this test (a real SQLite file in it)."""
    return use_data_dir(tmp_path, monkeypatch)


@pytest.mark.slow
def test_without_an_auth_section_one_local_admin_and_the_sidebar_says_so(data_dir):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180).run()
    assert not at.exception
    assert [caption.value for caption in at.sidebar.caption] == [LOCAL_MODE]
    assert [button.label for button in at.sidebar.button] == []
    assert [page for page in ALL_PAGES if runs(at, page)] == ALL_PAGES
    assert at.title[0].value == "Audit"


@pytest.mark.slow
def test_nobody_signed_in_gets_only_the_sign_in_page(data_dir):
    at = signed_in_app(None)
    assert [button.label for button in at.main.button] == ["Sign in"]
    assert not at.sidebar.caption
    assert not [page for page in ALL_PAGES if runs(at, page)]


@pytest.mark.slow
@pytest.mark.parametrize("role", list(ROLE_PAGES))
def test_each_role_has_exactly_its_pages_and_they_run(role, data_dir):
    at = signed_in_app(user(f"{role}-1", [role]))
    caption = shown(at.sidebar.caption[0].value)
    assert caption == f"Signed in: {role}-1@clinic.test ({role})"
    assert [button.label for button in at.sidebar.button] == ["Sign out"]
    assert [page for page in ALL_PAGES if runs(at, page)] == ROLE_PAGES[role]
    events = open_library(StoreConfig(data_dir)).audit.query()
    signed_in = [actor(f"{role}-1"), "signed_in", f"role {role}"]  # once, whatever the runs
    assert events[["subject", "action", "detail"]].values.tolist()[:1] == [signed_in]
    # and only a role that may open the Audit page leaves its viewing there (issue 36)
    seen = events["action"].tolist()[1:]
    assert seen == (["audit_viewed"] if "audit" in ROLE_PAGES[role] else [])


@pytest.mark.slow
def test_a_user_without_a_role_is_refused_once_in_the_trail_and_can_sign_out(data_dir):
    at = signed_in_app(user("nina", ["nurse", "roles"], email="nina@clinic.test"))
    (refusal,) = at.error
    assert shown(refusal.value).startswith(
        "Sign-in refused: nina@clinic.test has no forestviz role")
    assert not [page for page in ALL_PAGES if runs(at, page)]
    at.run()
    events = open_library(StoreConfig(data_dir)).audit.query()
    assert events[["subject", "email", "action", "detail"]].values.tolist() == [
        [actor("nina"), "nina@clinic.test", "signin_refused",
         "no known role in the 'groups' claim"]]
    at.button(key="sign_out").click().run()
    assert at.user == {"is_logged_in": False}
    at.run()
    assert [button.label for button in at.main.button] == ["Sign in"]


@pytest.mark.slow
def test_an_unusable_library_does_not_undo_the_refusal(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(blocked / "var"))
    at = signed_in_app(user("nina", "nurse"))
    assert len(at.error) == 1 and "model library is unavailable" in at.warning[0].value
    assert not [page for page in ALL_PAGES if runs(at, page)]


@pytest.mark.slow
def test_an_unreadable_secrets_file_shows_no_page(tmp_path, data_dir):
    broken = tmp_path / "secrets.toml"
    broken.write_text("[auth\nredirect_uri = ")
    saved = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(broken)])
    try:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180).run()
        assert "sign-in settings (secrets.toml) cannot be read" in at.error[0].value
        assert not at.sidebar.caption
        assert not [page for page in ALL_PAGES if runs(at, page)]
    finally:
        config.set_option("secrets.files", saved)


@pytest.mark.slow
def test_the_audit_page_filters_the_trail(data_dir):
    trail = open_library(StoreConfig(data_dir)).audit
    trail.record(Actor("nina", "nina@clinic.test"), "signin_refused", detail="no role")
    trail.record(Actor("vera", "vera@clinic.test"), "model_opened", model=("Pima risk", 2))
    at = signed_in_app(user("adam", "admin"))
    at.switch_page("pages/audit.py").run()
    table = at.dataframe[0].value  # the page's own viewing is in the trail (issue 36)
    assert table["subject"].tolist() == ["nina", "vera", actor("adam"), actor("adam")]
    assert table["action"].tolist()[-1] == "audit_viewed"
    assert at.caption[1].value == "4 matching events"
    at.text_input(key="audit_who").set_value("vera@clinic.test").run()
    assert at.dataframe[0].value["action"].tolist() == ["model_opened"]
    at.text_input(key="audit_who").set_value("").run()
    at.text_input(key="audit_model").set_value("Pima risk").run()
    assert at.dataframe[0].value[["subject", "version"]].values.tolist() == [["vera", 2]]
    at.selectbox(key="audit_action").set_value("signin_refused").run()
    assert at.info[0].value == "No event matches these filters."
    at.text_input(key="audit_model").set_value("").run()
    at.date_input(key="audit_days").set_value((date(2020, 1, 1), date(2020, 1, 31))).run()
    assert at.info[0].value == "No event matches these filters."


@pytest.mark.parametrize("claims, subject, email, role", [
    ({"sub": "s1", "email": "a@b.test", "email_verified": True, "groups": ["analyst"]},
     actor("s1"), "a@b.test", "analyst"),
    ({"sub": "s1", "groups": "admin"}, actor("s1"), None, "admin"),
    ({"sub": "s1", "email": 7, "roles": ["admin"]}, actor("s1"), None, None),  # "groups"
    ({"email": "a@b.test", "groups": ["admin"]}, NO_SUBJECT, None, None),
    ({"sub": " ", "groups": ["admin"]}, NO_SUBJECT, None, None),
])
def test_identity_from_the_tokens_claims(claims, subject, email, role):
    identity = identity_from_user({"is_logged_in": True, "iss": ISSUER, **claims}, "groups")
    assert (identity.actor, identity.role, identity.signed_in) == (
        Actor(subject, email, role), role, True)


def test_nobody_signed_in_has_no_identity_and_local_mode_is_the_local_admin():
    assert identity_from_user({"is_logged_in": False, "sub": "s1", "groups": "admin"},
                              "groups") is None
    assert identity_from_user({}, "groups") is None
    local = local_user({})
    assert (local.actor.subject, local.role, local.actor.role) == ("local", "admin", "admin")


def test_the_roles_claim_is_configurable_and_defaults_to_roles():
    assert roles_claim({"roles_claim": "groups"}) == "groups"
    assert roles_claim({}) == roles_claim({"roles_claim": " "}) == "roles"


def test_a_date_range_is_whole_utc_days():
    since, until = day_bounds(date(2026, 2, 28), date(2026, 3, 1))
    assert (since, until) == (datetime(2026, 2, 28, tzinfo=UTC), datetime(2026, 3, 2, tzinfo=UTC))
    assert query_filters(" vera ", "any", "", (date(2026, 3, 1),)) == {
        "who": "vera", "model": None, "action": None,
        "since": datetime(2026, 3, 1, tzinfo=UTC), "until": datetime(2026, 3, 2, tzinfo=UTC)}
    assert query_filters("", "signed_in", " Pima ", ()) == {
        "who": None, "model": "Pima", "action": "signed_in"}


def module_body(path) -> list[ast.stmt]:
    return ast.parse(path.read_text()).body


def test_every_page_is_named_in_the_one_page_table_and_guards_itself_first():
    """A page file ``pages/NAME.py`` is named NAME in ``ui.access.PAGES`` (which app.py's
    navigation is built from; it has no table of its own), and its first statement after the
    imports is ``signin.guard("NAME")``."""
    assert not [node for node in module_body(REPO / "app.py") if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "PAGES" for t in node.targets)]
    files = sorted((REPO / "pages").glob("*.py"))
    assert sorted(f"pages/{path.stem}.py" for path in files) == sorted(
        page.path for page in PAGES.values())
    for path in files:
        name = path.stem
        first = next(node for node in module_body(path)
                     if not isinstance(node, ast.Import | ast.ImportFrom) and not (
                         isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)))
        assert ast.unparse(first) == f"signin.guard('{name}')", name
