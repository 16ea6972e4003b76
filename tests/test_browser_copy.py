"""What a user copies is what the page says, with nothing invisible in it, and no text from a
file becomes a link (issue 36, item 7), in Debian Chromium against the real server with
sign-in: the signed-in e-mail in the sidebar, and on the Models page a published model's
reference (``NAME@VERSION``) beside a data-set name and a target column that read as a URL and
an e-mail address. Each text is selected and copied with the keyboard (Ctrl+C) and read back
from the clipboard. Before, ``ui.display.as_text`` put a U+2060 WORD JOINER after every "@"
and inside every "://": a copied address or reference was another text."""

import re

import icu
import pytest
from playwright.sync_api import Page, expect

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.io.bundled import load_dataset
from forestviz.io.dataset import Dataset
from forestviz.store import LOCAL, StoreConfig, open_library
from tests.test_browser_signin import TIMEOUT, oidc_provider, serve_with_signin, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.slow]

USERS = {"adam": ("adam@clinic.test", ["admin"])}  # sub → (e-mail, roles)
DATASET = "export from www.registry.example"  # the file's names: a URL and an e-mail address
TARGET = "owner@lab.example"
FROM_FILE = ("registry.example", "lab.example")  # what a link made of them would carry
INVISIBLE = icu.UnicodeSet("[[:Default_Ignorable_Code_Point:][:Cf:]]")
ANCHORS = """(element) => Array.from(element.querySelectorAll('a')).map(a => [
    a.textContent, a.getAttribute('href') || ''])"""
SELECT = """(element) => { const range = document.createRange();
    range.selectNodeContents(element); const selection = window.getSelection();
    selection.removeAllRanges(); selection.addRange(range); }"""


@pytest.fixture(scope="module")
def signin_app(tmp_path_factory):
    with oidc_provider(USERS) as provider, serve_with_signin(
            provider, tmp_path_factory.mktemp("copy")) as app:
        yield app


def published(data_dir):
    """A model of a table whose data-set name and target column come from a hostile file,
    published into the server's library by another process (this test's)."""
    pima = load_dataset("pima_diabetes")
    frame = pima.frame.rename(columns={pima.target: TARGET})
    bench = Workbench(Dataset.from_frame(frame, TARGET, id_column=pima.id_column,
                                         task="classification", name=DATASET))
    bench.train(Settings(family="vanilla", n_estimators=10, random_state=1))
    return open_library(StoreConfig(data_dir)).publish(bench, name="Pima risk", actor=LOCAL,
                                                       intended_use="Screening")


def copied(page: Page, element) -> str:
    """What Ctrl+C puts on the clipboard with ``element``'s text selected (emptied first)."""
    page.evaluate("navigator.clipboard.writeText('')")
    element.evaluate(SELECT)
    page.keyboard.press("Control+C")
    return page.evaluate("navigator.clipboard.readText()")


def invisible(text: str) -> list[str]:
    return [f"U+{ord(char):04X}" for char in text if INVISIBLE.contains(char)]


def test_a_copied_email_and_model_reference_are_as_shown_and_no_file_text_is_a_link(
        signin_app, page, context):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    info = published(signin_app["data_dir"])
    sign_in(page, signin_app["url"], "adam")

    signed_in = page.get_by_test_id("stSidebar").get_by_text(re.compile("^Signed in:"))
    expect(signed_in).to_be_visible(timeout=TIMEOUT)
    said = copied(page, signed_in)
    assert said.strip() == "Signed in: adam@clinic.test (admin)" and not invisible(said), (
        said, invisible(said))

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Models").click()
    main = page.get_by_test_id("stMain")
    caption = main.get_by_text(re.compile(r"^Pima risk@1: "))
    expect(caption).to_be_visible(timeout=TIMEOUT)
    said = copied(page, caption)
    assert said.strip() == (
        f"Pima risk@1: {info.family} with 10 trees on {DATASET} (target {TARGET}, classification); "
        f"{info.n_train:,} training rows, {info.n_test:,} held-out rows; forestviz "
        f"{info.forestviz_version}."), said
    assert not invisible(said), invisible(said)
    for name in ("Open Pima risk@1", "Retire Pima risk@1"):  # read as written, not copied
        button = main.get_by_role("button", name=name, exact=True)
        expect(button).to_be_visible(timeout=TIMEOUT)
        assert button.inner_text().strip().endswith(name)
    shown = main.inner_text() + page.get_by_test_id("stSidebar").inner_text()
    assert not invisible(shown), invisible(shown)
    anchors = page.get_by_test_id("stApp").evaluate(ANCHORS)
    assert not [a for a in anchors if any(f in " ".join(a) for f in FROM_FILE)], anchors
    assert not [a for a in anchors if "clinic.test" in " ".join(a)], anchors
