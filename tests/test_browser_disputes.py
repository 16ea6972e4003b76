""""I disagree / acted otherwise" in Debian Chromium (issue 38, item 3): the glance's button opens
the form, a reason holding markup is recorded, said as text, and the row's record then lists
it, escaped, in its "Disagreement recorded" row."""

import pytest
from playwright.sync_api import expect

from tests.test_browser_flows import TIMEOUT, download_report
from tests.test_browser_glance import SCREEN, home_button, summary
from tests.test_report_record import Document

pytestmark = pytest.mark.browser

REASON = "Known glucose 120 <b>mg/dL</b>"


def test_a_disagreement_on_the_glance_is_in_the_rows_record(page, dialogs):
    page.set_viewport_size(SCREEN)
    home_button(page, "Train the default model and explain a row")
    box = summary(page)
    box.get_by_role("button", name="I disagree / acted otherwise").click(timeout=TIMEOUT)
    form = page.get_by_test_id("stPopoverBody")
    form.get_by_text("I acted otherwise than the model's answer suggests").click()
    form.get_by_role("textbox", name="Reason (required)").fill(REASON)
    form.get_by_role("button", name="Record in the audit trail").click()
    expect(page.get_by_text(f"Recorded: I acted otherwise than the model's answer suggests: "
                            f"{REASON}").first).to_be_attached(timeout=TIMEOUT)
    page.keyboard.press("Escape")
    document = download_report(page)
    said = Document(document).record()["Disagreement recorded"]
    assert said.startswith(f"I acted otherwise than the model's answer suggests: {REASON} "
                           "(local, ")
    assert "<b>mg/dL</b>" not in document
    assert dialogs == []
