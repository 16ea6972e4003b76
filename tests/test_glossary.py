"""The glossary (issue 39, item 3): one table of every term the app uses, whose families, role
actions and audit events are read off their own tables; the tiles' help and the record's
appendix come from it."""

import html
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification

from forestviz import glossary
from forestviz.attention import AttentionForestClassifier
from forestviz.explain import explain
from forestviz.explain.report.document import to_html
from forestviz.registry import FAMILIES, Family
from forestviz.store import glossary as library_glossary
from forestviz.store.audit import ACTIONS
from forestviz.store.roles import MAY


def test_every_family_role_action_and_audit_event_has_an_entry():
    terms = {(t.section, t.term) for t in library_glossary.entries()}
    assert {(glossary.FAMILY, f.label) for f in FAMILIES.values()} <= terms
    assert {(glossary.RIGHT, action) for action in MAY} <= terms
    assert {(glossary.EVENT, action) for action in ACTIONS} <= terms


def test_a_family_without_words_is_an_error_not_a_gap(monkeypatch):
    erf = FAMILIES["erf"]
    with pytest.raises(TypeError, match="'plain', 'means', and 'source'"):
        Family(erf.key, erf.label, erf.tasks, erf.build, erf.saves)  # its words are its own
    monkeypatch.setitem(FAMILIES, "new", replace(erf, key="new", label="New", plain="new",
                                                 means="a new family.", source="its paper"))
    assert [(t.plain, t.definition, t.source) for t in library_glossary.entries()
            if t.term == "New"] == [("new", "a new family.", "its paper")]


def test_each_entry_is_whole_and_named_once_per_section():
    found = library_glossary.entries()
    assert len({(t.section, t.term) for t in found}) == len(found)
    assert [t.section for t in found] == sorted(
        (t.section for t in found), key=glossary.SECTIONS.index)
    for t in found:
        assert t.term and t.plain and t.source and t.definition.endswith("."), t


def test_help_says_the_plain_phrase_then_the_term():
    assert glossary.help_text("Venn-ABERS").startswith("Calibrated range (Venn-ABERS): ")
    assert glossary.help_text("Youden's J").startswith("Decision threshold (Youden's J): ")
    assert glossary.TERMS["ε"].help.startswith("Contamination (ε): ")
    # a plain phrase that is the term itself is said once
    assert glossary.help_text("margin").startswith("Margin: ")


@given(st.sampled_from(sorted(glossary.TERMS)), st.text(alphabet="abc ", max_size=5),
       st.text(alphabet="abc ", max_size=5))
@example("w", "the ", " were")  # a one-letter symbol inside a word is no use of it
@settings(max_examples=40)
def test_used_in_finds_a_term_as_a_whole_word(term, before, after):
    found = [t.term for t in glossary.used_in(f"{before} {term} {after}")]
    assert term in found
    glued = f"x{term}x"
    assert term not in [t.term for t in glossary.used_in(glued)] or not term[0].isalnum()


def test_find_matches_any_part_in_any_case():
    terms = library_glossary.entries()
    assert [t.term for t in glossary.find(terms, "venn-abers")][:1] == ["Venn-ABERS"]
    assert glossary.find(terms, "  ") == terms
    assert glossary.find(terms, "no such words anywhere") == []


@pytest.mark.slow  # the appendix draws its charts
def test_the_records_appendix_carries_the_glossary():
    X, y = make_classification(120, n_features=3, n_informative=2, n_redundant=0,
                               random_state=0)
    model = AttentionForestClassifier(8, max_depth=3, random_state=0).fit(X, y)
    e = explain(model, X[0], X_train=X, y_train=y, top_k=2)
    with_appendix, without = to_html(e, appendix=True), to_html(e)
    body = with_appendix[with_appendix.index("<h2>Glossary</h2>"):]
    record = glossary.entries(glossary.RECORD_SECTIONS)
    assert {t.section for t in record} == set(glossary.RECORD_SECTIONS)
    for t in record:
        assert html.escape(t.definition) in body and html.escape(t.source) in body, t.term
    for t in library_glossary.entries((glossary.EVENT,)):  # the trail's events are not the record's
        assert html.escape(t.definition) not in body
    assert "<h2>Glossary</h2>" not in without
