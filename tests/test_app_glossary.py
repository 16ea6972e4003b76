"""Words people read (issue 39, item 3), through Streamlit's AppTest: every technical term on
the first screen (Home, then the explanation's glance: tiles, summary, the model-and-rule line)
is in the glossary, each tile's help says its term from the glossary, and the Glossary page
lists every entry."""

import re

import pytest

from forestviz import glossary
from forestviz.store import glossary as library_glossary
from tests.apptest_helpers import app, finish_jobs

pytestmark = pytest.mark.slow

# what reads as a technical term: a Greek letter, a name with a capitalised part after a hyphen
# (Venn-ABERS), a person's letter (Youden's J), an acronym (ERF, ABRF-2, AUC), a probability
# P(…), an equation's sum or square
JARGON = re.compile(r"[α-ωΓ-Ω]|\b\w+-[A-Z]{2,}\b|\b[A-Z]\w+'s [A-Z]\b|\b[A-Z]*[A-Z]{2}\w*(?:-\d)?"
                    r"|\bP\([^)]*\)|R²|split-conformal|Softmax")


def unescaped(text: str | None) -> str:
    """A text as read, without the backslashes ``ui.display.as_text`` puts before markdown."""
    return re.sub(r"\\(.)", r"\1", text or "")


def own_words(text: str, dataset) -> str:
    """``text`` without what the data set itself names (its columns, classes, IDs, name and
    description): those are the user's words, not the app's."""
    names = [dataset.name, dataset.description or "", dataset.target, dataset.id_column or "",
             *map(str, dataset.classes or ()), *map(str, dataset.frame.columns),
             *dataset.ids.astype(str)]
    for name in sorted(filter(None, names), key=len, reverse=True):
        text = text.replace(name, " ")
    return text


def defined(token: str) -> bool:
    """Whether the glossary has an entry for ``token`` (a probability P(…) is "P(class)")."""
    token = "P(class)" if token.startswith("P(") else token
    return any(token in t.term for t in library_glossary.entries())


def shown(at) -> list[tuple[str, str]]:
    """(text, its help) of every text, tile and button of the page as run."""
    out = [(f"{m.label} {m.value}", m.help) for m in at.metric]
    for kind in ("markdown", "caption", "info", "warning", "subheader", "title", "button"):
        for element in getattr(at, kind):
            out.append((getattr(element, "label", None) or element.value,
                        getattr(element.proto, "help", "")))
    return [(unescaped(text), unescaped(help)) for text, help in out]


def undefined_terms(at) -> dict[str, list[str]]:
    """The technical terms of the page's texts with no glossary entry, and where."""
    dataset = at.session_state["dataset"]
    missing = {}
    for text, _ in shown(at):
        for token in JARGON.findall(own_words(text, dataset)):
            if not defined(token):
                missing.setdefault(token, []).append(text[:80])
    return missing


def test_every_term_on_the_first_screen_is_in_the_glossary():
    at = app()
    assert undefined_terms(at) == {}
    at.button(key="home_explain").click().run()
    finish_jobs(at)
    assert at.title[0].value == "Explain"
    assert undefined_terms(at) == {}
    helps = {unescaped(m.label): unescaped(m.help) for m in at.metric}
    terms = {"Calibrated range": "Venn-ABERS", "Calibrated": "calibrated risk",
             "Decision threshold": "Youden's J",
             "Effective number of trees": "effective number of trees",
             "Weight of the top 5 trees": "top 5 share"}
    for label, term in terms.items():
        assert glossary.help_text(term) in helps[label], label
    (p,) = [label for label in helps if label.startswith("P(")]
    assert glossary.help_text("P(class)") in helps[p]
    # the summary's line and the model-and-rule line: their help defines the terms they name
    lines = {unescaped(c.value): unescaped(c.proto.help) for c in at.caption if c.proto.help}
    said = {t.term for text, help in lines.items() for t in glossary.used_in(text)
            if t.help in help}
    assert said == {t.term for text in lines for t in glossary.used_in(text)}
    assert {"Youden's J", "top 3 reasons", "most similar training rows"} <= said


def test_the_glossary_page_lists_every_entry_and_finds_a_term():
    at = app().switch_page("pages/glossary.py").run()
    assert not at.exception and at.title[0].value == "Glossary"
    listed = [term for frame in at.table for term in frame.value.index]
    assert listed == [t.term for t in library_glossary.entries()]
    assert [s.value for s in at.subheader] == list(glossary.SECTIONS)
    at.text_input(key="glossary_find").set_value("contamination").run()
    listed = [term for frame in at.table for term in frame.value.index]
    assert "ε" in listed and len(listed) < len(library_glossary.entries())
    at.text_input(key="glossary_find").set_value("no such words").run()
    assert not at.table and at.info
