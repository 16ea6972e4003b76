"""Every kind of element the pages feed from ``ui.display`` shows a text that could be a link
as written, in the code font, never as a link and with nothing invisible (issue 36, item 7):
``tests/display_app.py`` on a real server, in Debian Chromium. ``as_text`` writes such a word
as a code span: this checks that Streamlit 1.67 renders one as such in captions, Markdown,
alerts, headings, metrics, progress texts and widget labels."""

import icu
import pytest
from playwright.sync_api import expect

from tests.conftest import serve_script
from tests.display_app import VALUES

pytestmark = [pytest.mark.browser]

TIMEOUT = 60_000  # ms
INVISIBLE = icu.UnicodeSet("[[:Default_Ignorable_Code_Point:][:Cf:]]")
# each kind of element, by its test id, holds one text per value, exactly the value
KINDS = ("stCaptionContainer", "stAlertContainer", "stHeading", "stMetricLabel",
         "stMetricValue", "stButton", "stCheckbox")
ANCHORS = "(element) => Array.from(element.querySelectorAll('a')).map(a => a.outerHTML)"


@pytest.fixture(scope="module")
def display_app(tmp_path_factory):
    with serve_script(tmp_path_factory, "tests/display_app.py") as url:
        yield url


def test_every_element_shows_link_like_text_as_written_and_never_as_a_link(page,
                                                                             display_app):
    page.goto(display_app)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_test_id("stNumberInput")).to_have_count(len(VALUES), timeout=TIMEOUT)
    for kind in KINDS:
        texts = [t.strip() for t in main.get_by_test_id(kind).all_inner_texts()]
        per_value = len(texts) // len(VALUES)
        assert texts == [v for v in VALUES for _ in range(per_value)], (kind, texts)
    for kind in ("stProgress", "stNumberInput", "stMarkdownContainer"):
        shown = "\n".join(main.get_by_test_id(kind).all_inner_texts())
        assert all(value in shown for value in VALUES), (kind, shown)
    text = main.inner_text()
    assert not [c for c in text if INVISIBLE.contains(c)]
    assert main.evaluate(ANCHORS) == []
    assert main.locator("code").count() > 0  # the link-like words are code spans
