"""A clinician's "I disagree / acted otherwise" (issue 38, item 3): an ``explanation_disputed``
event holding the explanation's facts, the kind and the reason (required, one line, capped);
refused for a role that may not explain; its reason text everywhere (escaped in the record, a
plain cell on the Audit page); recorded from the Explain page's glance through AppTest, on a
real SQLite library; read back for the row's record by anyone, on SQLite and PostgreSQL, only
for the same model and the same values, its detail parsed and checked, never trusted."""

import html
import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from forestviz.store import LOCAL, Actor, NotAllowed, StoreError
from forestviz.store.audit import DETAIL_CHARS
from forestviz.store.disputes import KINDS, REASON_CHARS
from forestviz.store.explained import explanation_facts
from tests.apptest_helpers import app
from tests.store_helpers import library_at
from tests.test_report_record import Document

pytestmark = pytest.mark.slow  # a model trained, published and explained

REASON = 'Glucose was 120 mg/dL, <b>known</b> & "measured" today'


@pytest.fixture
def explained(bench, tmp_path):
    """A library, and the facts of the explanation of a held-out row by ``bench``."""
    library = library_at(tmp_path / "var")
    e = bench.explain(int(bench.model.test_rows[2]))
    g = bench.glance(e)
    return library, e, explanation_facts(bench, e, g, digests=library.audit.digests,
                                         blob_sha256="a" * 64, row=e.row_id)


@pytest.mark.parametrize("role", ["viewer", "analyst", "admin"])
def test_a_disagreement_is_an_event_with_the_explanations_facts(explained, role):
    library, _, items = explained
    actor = Actor(f"sub-{role}", f"{role}@clinic.test", role)
    made = library.audit.dispute(actor, items, "acted_otherwise", f"  {REASON}\n",
                                 model=("Pima risk", 3))
    event = library.audit.query().iloc[-1]
    assert (event["action"], event["model"], event["version"]) == (
        "explanation_disputed", "Pima risk", 3)
    assert json.loads(event["detail"]) == {
        **{k: v for k, v in items.items() if v is not None}, "disputed": "acted_otherwise",
        "reason": REASON}
    assert event["subject"] == actor.subject and made.reason == REASON
    assert made.sentence().startswith(f"{KINDS['acted_otherwise']}: {REASON} "
                                      f"({role}@clinic.test, ")


@pytest.mark.parametrize("role", [None])
def test_a_role_that_may_not_explain_may_not_dispute(explained, role):
    library, _, items = explained
    before = library.audit.count()
    with pytest.raises(NotAllowed, match="may not record a disagreement"):
        library.audit.dispute(Actor("sub-x", role=role), items, "disagree", REASON)
    assert library.audit.count() == before


@pytest.mark.parametrize("kind, reason, refusal", [
    ("disagree", "", "needs a reason"), ("disagree", " \n\t\u200b ", "needs a reason"),
    ("disagree", "x" * (REASON_CHARS + 1), f"at most {REASON_CHARS} characters"),
    ("disagree", "x" * 10_000_000, f"at most {REASON_CHARS} characters"),
    ("<script>", REASON, "Unknown kind of disagreement"),
])
def test_a_reason_is_required_and_capped_and_the_kind_known(explained, kind, reason, refusal):
    library, _, items = explained
    before = library.audit.count()
    with pytest.raises(StoreError, match=refusal) as refused:
        library.audit.dispute(LOCAL, items, kind, reason)
    assert "\n" not in str(refused.value) and library.audit.count() == before


@settings(max_examples=30, deadline=None,  # the events add up: the last one is read
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reason=st.text(min_size=1, max_size=REASON_CHARS))
@example(reason='"' * REASON_CHARS)
@example(reason="\\" * REASON_CHARS)
def test_the_events_detail_stays_whole_json(explained, reason):
    library, _, items = explained
    try:
        made = library.audit.dispute(LOCAL, items, "disagree", reason)
    except StoreError:  # nothing left once cleaned
        return
    detail = library.audit.query().iloc[-1]["detail"]
    assert len(detail) <= DETAIL_CHARS and json.loads(detail)["reason"] == made.reason


def test_the_record_lists_the_disagreement_as_text(explained, bench):
    library, e, items = explained
    made = library.audit.dispute(Actor("sub", "ann@clinic.test", "viewer"), items,
                                 "disagree", REASON)
    document = bench.report(e, disputes=[made.sentence()])
    assert "<b>known</b>" not in document and html.escape(REASON) in document
    assert Document(document).record()["Disagreement recorded"] == made.sentence()


def test_the_glance_records_a_disagreement_shown_on_the_audit_page(bench, tmp_path,
                                                                   monkeypatch):
    folder = tmp_path / "var"
    monkeypatch.setenv("FORESTVIZ_DATA_DIR", str(folder))
    library = library_at(folder)
    info = library.publish(bench, name="Pima risk", intended_use="Screening")
    at = app()
    at.button(key="home_open").click().run()  # the published model, its riskiest row
    assert not at.exception and not at.error
    at.text_input(key="explain_dispute_reason").set_value(REASON)
    at.radio(key="explain_dispute_kind").set_value("disagree")
    at.button(key="explain_dispute_send").click().run()
    assert not at.exception and not at.error
    trail = library.audit.query()
    explained_, disputed = (json.loads(trail.loc[trail["action"] == action, "detail"].iloc[-1])
                            for action in ("row_explained", "explanation_disputed"))
    assert disputed == {**explained_, "disputed": "disagree", "reason": REASON}
    assert disputed["blob_sha256"] == info.blob_sha256
    (kept,) = library.audit.disputes(explained_)  # what the row's record lists
    assert (kept.kind, kept.reason, kept.by) == ("disagree", REASON, "local")
    at.switch_page("pages/audit.py").run()
    assert not at.exception
    shown = at.dataframe[0].value
    cell = shown.loc[shown["action"] == "explanation_disputed", "detail"].iloc[-1]
    assert f"reason {REASON}" in cell and "disputed disagree" in cell  # plain text, as typed


def facts_of(bench, library, position: int, blob: str) -> dict:
    e = bench.explain(int(bench.model.test_rows[position]))
    return explanation_facts(bench, e, bench.glance(e), digests=library.audit.digests,
                             blob_sha256=blob, row=e.row_id)


def test_a_rows_disagreements_are_read_back_by_anyone_for_its_model_and_values(bench,
                                                                                library):
    row, other_row, other_model = (facts_of(bench, library, 2, "a" * 64),
                                   facts_of(bench, library, 3, "a" * 64),
                                   facts_of(bench, library, 2, "b" * 64))
    ann, bob = Actor("s-ann", "ann@clinic.test", "viewer"), Actor("s-bob", None, "analyst")
    first = library.audit.dispute(ann, row, "disagree", "first")
    library.audit.dispute(ann, other_row, "disagree", "another row")
    library.audit.dispute(ann, other_model, "disagree", "another model")
    second = library.audit.dispute(bob, {**row, "row": None, "patient": "typed"},
                                   "acted_otherwise", "second")  # the same values, typed
    read = library.audit.disputes(row, actor=Actor("s-cy", None, "viewer"))
    assert [(d.kind, d.reason, d.by) for d in read] == [
        ("disagree", "first", "ann@clinic.test"), ("acted_otherwise", "second", "s-bob")]
    assert [d.sentence() for d in read] == [first.sentence(), second.sentence()]
    assert library.audit.disputes(facts_of(bench, library, 4, "a" * 64)) == []
    with pytest.raises(NotAllowed):
        library.audit.disputes(row, actor=Actor("s-x", None, None))


@pytest.mark.parametrize("detail, read", [
    ('{%s,"disputed":"disagree","reason":"fine"}', True),  # what the app writes
    ('not json {%s}', False), ('[{%s,"disputed":"disagree","reason":"x"}]', False),
    ("{%s}", False), ('{%s,"disputed":["disagree"],"reason":"x"}', False),
    ('{%s,"disputed":"<script>","reason":"x"}', False),
    ('{%s,"disputed":"disagree","reason":3}', False),
    ('{%s,"disputed":"disagree","reason":"  padded\\n"}', False),
    ('{%s,"disputed":"disagree","reason":"' + "x" * (REASON_CHARS + 1) + '"}', False),
])
def test_an_event_that_is_not_a_disagreement_is_left_out_of_the_record(bench, library,
                                                                       detail, read):
    items = facts_of(bench, library, 2, "a" * 64)
    same = f'"blob_sha256":"{"a" * 64}","input":{json.dumps(items["input"])}'
    library.audit.record(LOCAL, "explanation_disputed", detail=detail % same)
    assert [d.reason for d in library.audit.disputes(items)] == (["fine"] if read else [])
