"""What each role may do (issue 38, item 5): the one table of :mod:`forestviz.store.roles`
against the matrix written out here, and each action the store gates refused or allowed for
each role on a real library (SQLite and PostgreSQL), by the store, the command line (acting
as FORESTVIZ_LOCAL_ROLE) and the Models page (the app without sign-in acting as it too)."""

from pathlib import Path

import pandas as pd
import pytest

from forestviz.store import LOCAL, Actor, StoreError
from forestviz.store.actor import local_actor
from forestviz.store.roles import MAY, ROLES, NotAllowed, local_role, may, require
from tests.apptest_helpers import app
from tests.store_databases import DATABASES, database_url
from tests.test_store_cli import Library, here
from ui.access import allowed_pages
from ui.identity import SignInSettingsError, local_user

# the matrix, written out independently of the module: role -> the actions it may do
ALL = {"explain", "open", "train", "publish", "open_retired", "retire", "view_trail",
       "export_trail", "verify_trail", "dispute", "purge_trail"}
EXPECTED = {
    "viewer": {"explain", "open", "dispute"},
    "analyst": {"explain", "open", "dispute", "train", "publish"},
    "admin": ALL,
    None: set(),  # no role (a sign-in whose token names none): nothing
    "nurse": set(),  # an unknown role: nothing
}
# the pages each role sees, as before the table (ui.access's old least role per page)
PAGES = {
    "viewer": ["home", "explain", "forest", "models", "lab", "glossary"],
    "analyst": ["home", "explain", "forest", "models", "lab", "glossary", "data", "train"],
    "admin": ["home", "explain", "forest", "models", "lab", "glossary", "data", "train", "audit"],
}
REFUSALS = {
    "publish": "publish models", "retire": "retire models",
    "open_retired": "see or open retired models", "view_trail": "view the audit trail",
    "export_trail": "export the audit trail", "verify_trail": "verify the audit trail",
    "purge_trail": "purge the audit trail's events older than its retention",
}
EVENTS = {"publish": "model_published", "retire": "model_retired"}
NAME = "Pima risk"
RETIRED = 2  # NAME@2 is retired by the fixture


def test_the_table_holds_exactly_the_actions_and_roles():
    assert set(MAY) == ALL and ROLES == ("viewer", "analyst", "admin")


@pytest.mark.parametrize("role", list(EXPECTED))
@pytest.mark.parametrize("action", sorted(ALL))
def test_may_is_the_written_matrix(role, action):
    assert may(role, action) is (action in EXPECTED[role])


@pytest.mark.parametrize("role", ROLES)
def test_each_role_sees_the_pages_it_saw_before(role):
    assert sorted(allowed_pages(role)) == sorted(PAGES[role])


@pytest.mark.parametrize("action, words", REFUSALS.items())
def test_a_refusal_is_one_line_naming_the_role_and_the_action(action, words):
    with pytest.raises(NotAllowed) as refused:
        require("viewer", action)
    assert str(refused.value) == f"The role 'viewer' may not {words}."
    with pytest.raises(NotAllowed, match=r"^No role may not"):
        require(None, action)
    require("admin", action)  # the admin may do everything


def test_the_local_role_is_configured_and_admin_by_default():
    assert local_role({}) == "admin" == LOCAL.role == local_actor({}).role
    assert local_role({"FORESTVIZ_LOCAL_ROLE": " viewer "}) == "viewer"
    assert local_user({"FORESTVIZ_LOCAL_ROLE": "analyst"}).actor == Actor("local", None,
                                                                         "analyst")
    with pytest.raises(StoreError, match=r"^Unknown role 'nurse'; one of viewer, analyst"):
        local_role({"FORESTVIZ_LOCAL_ROLE": "nurse"})
    with pytest.raises(SignInSettingsError, match="FORESTVIZ_LOCAL_ROLE"):
        local_user({"FORESTVIZ_LOCAL_ROLE": "Admin"})
    with pytest.raises(StoreError, match="Unknown role"):
        Actor("someone", role="root")


# ---------------------------------------------------------------- the store, for real
@pytest.fixture(scope="module", params=DATABASES)
def where(request, bench, tmp_path_factory) -> Library:
    """A library on each database holding NAME@1 in use and NAME@2 retired, by the local
    admin."""
    found = Library(tmp_path_factory.mktemp("roles") / "var", Path(), database_url(request))
    library = found.open()
    library.publish(bench, name=NAME, description="in use", intended_use="Screening")
    library.publish(bench, name=NAME, description="retired", intended_use="Screening")
    library.retire(NAME, RETIRED)
    return found


def gated(library, bench, action: str, actor: Actor, tag: str):
    """Do ``action`` through the store as ``actor``; what it gave."""
    if action == "publish":
        return library.publish(bench, name=NAME, description=f"by {tag}", actor=actor,
                               intended_use="Screening")
    if action == "retire":
        info = library.publish(bench, name=NAME, description=f"to retire, {tag}",
                               intended_use="Screening")
        return library.retire(NAME, info.version, actor=actor)
    if action == "open":
        return library.open_model(NAME, 1, actor=actor)
    if action == "open_retired":
        return (library.versions(include_retired=True, actor=actor),
                library.open_model(NAME, RETIRED, actor=actor, allow_retired=True))
    if action == "view_trail":
        return library.audit.query(actor=actor), library.audit.count(actor=actor)
    if action == "export_trail":
        return library.audit.export_csv(actor=actor)
    assert action == "verify_trail"
    return library.audit.verify(actor=actor)


@pytest.mark.slow  # a publish and an open: about a second each
@pytest.mark.parametrize("role", [*ROLES, None])
@pytest.mark.parametrize("action", ["publish", "retire", "open", "open_retired",
                                    "view_trail", "export_trail", "verify_trail"])
def test_the_store_refuses_or_allows_each_role_each_action(where, bench, role, action):
    library = where.open()
    actor = Actor(f"user-{role}", role=role)
    before = library.audit.count()
    tag = f"{role} {action}"
    if action not in EXPECTED[role]:
        with pytest.raises(NotAllowed) as refused:
            gated(library, bench, action, actor, tag)
        assert "\n" not in str(refused.value) and str(refused.value).endswith(
            f"may not {REFUSALS.get(action, 'open published models')}.")
        setup = 1 if action == "retire" else 0  # the version to retire, published by LOCAL
        assert library.audit.count() == before + setup  # the refusal wrote nothing
        assert f"by {tag}" not in {v.description for v in library.versions()}
        return
    done = gated(library, bench, action, actor, tag)
    trail = library.audit.query()
    if action in ("publish", "retire"):
        assert done.published_by == ("local" if action == "retire" else actor.subject)
        assert trail["action"].iloc[-1] == EVENTS[action]
        assert trail["subject"].iloc[-1] == actor.subject
    if action == "retire":
        assert done.retired and done.retired_by == actor.subject
    if action in ("open", "open_retired"):
        opened = done if action == "open" else done[1]
        assert (opened.info.version, trail["subject"].iloc[-1]) == (
            1 if action == "open" else RETIRED, actor.subject)
    if action == "open_retired":
        assert RETIRED in {v.version for v in done[0] if v.retired}
    if action == "view_trail":
        assert len(done[0]) == done[1] == before
    if action == "export_trail":
        assert done.decode().count("\n") == before + 1  # a header and each event
    if action == "verify_trail":
        assert done.intact


# ---------------------------------------------------------------- the command line
@pytest.mark.slow
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("command, action", [
    (("models", "list", "--all"), "open_retired"),
    (("models", "retire", f"{NAME}@1"), "retire"),
    (("audit", "export"), "export_trail"),
    (("audit", "verify"), "verify_trail"),
    (("audit", "purge"), "purge_trail"),  # nothing older than six months: an event only
])
def test_the_command_line_acts_as_the_local_role(where, bench, role, command, action,
                                                 monkeypatch, capsys, tmp_path, request):
    if action == "retire":  # a library of its own: the admin's retirement changes it
        url = None if where.url is None else request.getfixturevalue("postgres").new_database()
        where = Library(tmp_path / "var", Path(), url)
        where.open().publish(bench, name=NAME, intended_use="Screening")
    monkeypatch.setenv("FORESTVIZ_LOCAL_ROLE", role)
    capsys.readouterr()
    code = here(where.folder, *command, url=where.url)
    err = capsys.readouterr().err
    if action in EXPECTED[role]:
        assert code == 0 and not err
        return
    assert code != 0
    assert err == f"forestviz: error: The role '{role}' may not {REFUSALS[action]}.\n"
    if action == "retire":
        assert not where.open().show(NAME, 1).retired


def test_the_command_line_refuses_an_unknown_local_role(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FORESTVIZ_LOCAL_ROLE", "nurse")
    assert here(tmp_path / "var", "audit", "verify") != 0
    assert capsys.readouterr().err.startswith("forestviz: error: Unknown role 'nurse'")


# ---------------------------------------------------------------- a page
@pytest.mark.slow
@pytest.mark.parametrize("role", ROLES)
def test_the_models_page_offers_retirement_and_retired_versions_by_the_table(
        where, role, monkeypatch):
    where.use(monkeypatch)
    monkeypatch.setenv("FORESTVIZ_LOCAL_ROLE", role)
    at = app().switch_page("pages/models.py").run()
    at.selectbox(key="models_choice").set_value(f"{NAME}@1").run()  # in use
    assert not at.exception
    shown = pd.Series(at.dataframe[0].value["version"]).tolist()
    assert (RETIRED in shown) is may(role, "open_retired") is (role == "admin")
    retire = [b for b in at.button if b.key == "models_retire"]
    assert bool(retire) is (role == "admin")
