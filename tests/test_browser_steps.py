"""Generated step orders in Debian Chromium (issue 35): the steps whose outcome depends on the
browser's widget state, which AppTest does not reproduce (a keyed widget keeps the value the
browser sent across the reruns that follow a training; a picker's callback; a rerun that
swallows a message), walked against the real server.

One session per walk: upload a small table (an ID, numbers, a text column with gaps), pick its
target, then train three families and switch the current model (on Train and on Explain),
change the explained row, open Forest, publish the current model and open it from Models, go
back to Train, in an order Hypothesis draws (a step not valid at its point, as a switch with one
model, is skipped). The issue's walk (Enhanced RF, then Softmax, then ABRF-1: the third was lost
and the caption, pickers and "Publish" named Softmax) is the explicit example.

After every step: no exception box and no error message; the page names the current model (the
last trained, picked or opened) and only it (Train's caption, picker and publish button,
Explain's picker, Forest's caption); every training says "Trained.". Forests of 10 trees, no
auto-tune; the time limits are hang guards only.
"""

import copy
import io
import os
import re
import time

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from playwright.sync_api import Page, expect

from forestviz.registry import FAMILIES
from tests.browser_helpers import choose, open_expander, run_ended, still_context
from tests.step_pages import DONE, caption_names, plain, publish_names, small_table
from tests.test_browser_flows import go_to, upload_table

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT = 180_000  # ms, a hang guard for a page's run on a loaded machine
# ms, a hang guard for a training of 10 trees: an Enhanced RF took 191 s at load 13 on two cores
TRAIN_WAIT = 900_000
TREES = 10
ISSUE_ORDER = ("erf", "softmax", "abrf1_qp")  # the issue's Enhanced RF, Softmax, ABRF-1
STEPS = ("switch_on_train", "switch_on_explain", "change_row", "open_forest", "publish",
         "open_published", "back_to_train")
PICKERS = {"train": "Current model (Explain and Forest show it)", "explain": "Model"}
ROW_PICKER = "Held-out row (ID · predicted risk · recorded outcome)"
_PUBLISHED = re.compile(r"Published as (.+?@\d+)\. It is on the Models page")
_ROW = re.compile(r"^Row (\S+?): ")


def stem(label: str) -> str:
    """A model's label without the "#2" that tells apart two models of the same name."""
    return re.sub(r" #\d+$", "", label)


def write_table(path) -> None:
    """The step machine's small table with gaps in its text column; ``outcome`` its target."""
    frame = pd.read_csv(io.BytesIO(small_table("classification")))
    frame = frame.drop(columns="amount")
    frame.loc[frame.index % 7 == 3, "region"] = None
    frame.to_csv(path, index=False)


class Walk:
    """One browser session; ``current`` is the label of the model the steps made current."""

    def __init__(self, page: Page, table):
        self.page, self.where = page, "home"
        self.trained: list[str] = []  # the session's models, by label
        self.current: str | None = None
        self.published: dict[str, str] = {}  # NAME@VERSION → the label published under it
        page.goto("/")
        upload_table(page, table, "outcome")
        run_ended(page, WAIT)
        choose(page, "Target column", "outcome", WAIT)
        self.where = "data"
        go_to(page, "Train", WAIT)
        main = page.get_by_test_id("stMain")
        slider = main.get_by_role("slider", name="Number of trees")
        slider.focus()
        slider.press("Home")
        expect(slider).to_have_value(str(TREES), timeout=WAIT)
        run_ended(page, WAIT)
        tune = main.get_by_test_id("stCheckbox").filter(has_text="Auto-tune")
        if tune.locator("input").is_checked():
            tune.locator("label").click(timeout=WAIT)
            expect(tune.locator("input")).not_to_be_checked(timeout=WAIT)
            run_ended(page, WAIT)
        self.where = "train"
        self.check()

    @property
    def main(self):
        return self.page.get_by_test_id("stMain")

    def go(self, where: str) -> None:
        go_to(self.page, where.capitalize(), WAIT)
        self.where = where

    # ------------------------------------------------------------------ steps
    def train(self, family: str) -> None:
        self.go("train")
        choose(self.page, "Model family", FAMILIES[family].label, WAIT)
        self.main.get_by_role("button", name="Train", exact=True).click(timeout=WAIT)
        # the training's progress (or, taken from the server's models, its message at once),
        # then its end; the message is read once the page has settled
        cancel = self.main.get_by_role("button", name="Cancel", exact=True)
        expect(cancel.or_(self.main.get_by_text(DONE).first)).to_be_visible(timeout=WAIT)
        expect(cancel).to_have_count(0, timeout=TRAIN_WAIT)
        run_ended(self.page, WAIT)
        label = f"{FAMILIES[family].label} · {TREES} trees"
        self.trained.append(label)
        self.current = label
        # the message outlives the runs that follow a training (the issue: a rerun lost it)
        expect(self.main.get_by_text(DONE).first).to_be_visible(timeout=WAIT)

    def has_model(self) -> bool:
        return self.current is not None

    def can_switch(self) -> bool:
        return self.has_model() and len(self.trained) > 1

    def switch(self, where: str, pick: int) -> None:
        self.go(where)
        others = [label for label in self.trained if label != self.current]
        label = others[pick % len(others)]
        choose(self.page, PICKERS[where], label, WAIT)
        self.current = label

    def change_row(self, pick: int) -> None:
        self.go("explain")
        combobox = self.main.get_by_role("combobox", name=ROW_PICKER, exact=True)
        shown = combobox.input_value()
        combobox.click(timeout=WAIT)
        options = [text for text in self.page.get_by_role("option").all_inner_texts()
                   if text != shown]
        option = options[pick % min(len(options), 4)]  # among the first drawn
        self.page.get_by_role("option", name=option, exact=True).click(timeout=WAIT)
        row = option.split(" · ")[0]
        heading = self.page.get_by_test_id("stHeading").filter(has_text=f"Row {row}: ")
        expect(heading).to_be_visible(timeout=WAIT)
        run_ended(self.page, WAIT)

    def publish(self) -> None:
        self.go("train")
        open_expander(self.main, "Publish this model", WAIT)
        self.main.get_by_role("textbox", name="Name").fill("Walk model")
        # a new description each time: a repeat of a published version makes none
        self.main.get_by_role("textbox", name="Description").fill(f"walk {time.time_ns()}")
        self.main.get_by_role("textbox", name="Intended use").fill("Screening")
        self.page.get_by_test_id("stFormSubmitButton").get_by_role("button").click(
            timeout=WAIT)
        said = self.main.get_by_text(_PUBLISHED)
        expect(said).to_be_visible(timeout=WAIT)
        run_ended(self.page, WAIT)
        ref = _PUBLISHED.search(plain(said.inner_text())).group(1)
        self.published[ref] = self.current

    def open_published(self, pick: int) -> None:
        refs = list(self.published)
        ref = refs[pick % len(refs)]
        self.go("models")
        choose(self.page, "Published model", ref, WAIT)
        name, version = ref.rsplit("@", 1)
        self.main.get_by_role("button", name=re.compile(
            rf"^Open {re.escape(name)}@\u2060?{version}$")).click(timeout=WAIT)
        expect(self.page.get_by_role("heading", name="Explain", exact=True)).to_be_visible(
            timeout=WAIT)
        run_ended(self.page, WAIT)
        self.where = "explain"
        self.trained = [self.published[ref]]  # the opened model's data set, its only model
        self.current = self.published[ref]

    # ------------------------------------------------------------------ invariants
    def check(self) -> None:
        """No exception box or error message; the page names the current model only."""
        page = self.page
        assert page.get_by_text("This app has encountered an error").count() == 0
        assert page.get_by_test_id("stException").count() == 0, \
            page.get_by_test_id("stException").first.inner_text()
        errors = page.get_by_test_id("stAlertContentError").all_inner_texts()
        assert errors == [], errors
        if self.where not in ("train", "explain", "forest"):
            return
        expected = {stem(self.current)} if self.current else set()
        if self.where == "explain" and len(self.trained) < 2:  # no picker: it names none
            assert self.named() <= expected, self.where
        else:
            assert self.named() == expected, self.where

    def named(self) -> set[str]:
        """The labels the page names, without their "#2"."""
        main = self.main
        texts = [plain(text) for text in
                 main.get_by_test_id("stCaptionContainer").all_inner_texts()]
        named = caption_names(texts, self.where)
        if self.where in PICKERS:
            picker = main.get_by_role("combobox", name=PICKERS[self.where], exact=True)
            named |= {picker.input_value()} if picker.count() else set()
        # the publish button sits in a closed expander: its text, not its rendering
        named |= publish_names(
            plain(text) for text in main.get_by_test_id("stFormSubmitButton").locator(
                "[data-testid=stMarkdownContainer]").all_text_contents())
        return {stem(label) for label in named}


class Script:
    """A fixed walk, read as :func:`walk` reads a drawn one: each step must be valid."""

    def __init__(self, steps: list[tuple[str, int]]):
        self.steps = list(steps)

    def choice(self, valid: list[str]) -> str:
        assert self.steps and self.steps[0][0] in valid, (self.steps, valid)
        return self.steps[0][0]

    def randrange(self, stop: int) -> int:
        return self.steps.pop(0)[1] % stop


def walk(page: Page, table, order: tuple[str, ...], draw) -> None:
    """Train the families of ``order`` in that order, and take every other step once, each
    step ``draw.choice`` among those valid at its point (with ``draw.randrange(6)`` to pick
    among the step's choices, as which model or row); check the invariants after each."""
    state, families = Walk(page, table), list(order)
    steps = {
        "train": (lambda: bool(families), lambda pick: state.train(families.pop(0))),
        "switch_on_train": (state.can_switch, lambda pick: state.switch("train", pick)),
        "switch_on_explain": (state.can_switch, lambda pick: state.switch("explain", pick)),
        "change_row": (state.has_model, state.change_row),
        "open_forest": (lambda: True, lambda pick: state.go("forest")),
        "publish": (state.has_model, lambda pick: state.publish()),
        "open_published": (lambda: bool(state.published), state.open_published),
        "back_to_train": (lambda: True, lambda pick: state.go("train")),
    }
    remaining = ["train"] * len(order) + list(STEPS)
    while valid := [step for step in dict.fromkeys(remaining) if steps[step][0]()]:
        step = draw.choice(valid)
        remaining.remove(step)
        pick, started = draw.randrange(6), time.monotonic()
        steps[step][1](pick)
        print(f"{step}({pick}): {time.monotonic() - started:.1f} s; current {state.current}")
        state.check()


ISSUE_WALK = Script([("train", 0), ("train", 0), ("train", 0), ("switch_on_train", 0),
                     ("switch_on_explain", 1), ("change_row", 1), ("open_forest", 0),
                     ("publish", 0), ("open_published", 0), ("back_to_train", 0)])
LONG = os.environ.get("FORESTVIZ_FUZZ") == "1"


# make test walks the issue's steps (a walk takes minutes on two busy cores); FORESTVIZ_FUZZ=1
# draws BROWSER_WALKS more (default 10), no shrinking
@settings(max_examples=int(os.environ.get("BROWSER_WALKS", 10)), deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate] if LONG else [Phase.explicit],
          suppress_health_check=list(HealthCheck))
@example(order=ISSUE_ORDER, draw=ISSUE_WALK)
@given(order=st.permutations(ISSUE_ORDER), draw=st.randoms(use_true_random=True))
def test_step_orders_in_the_browser(browser, app_url, tmp_path_factory, order, draw):
    table = tmp_path_factory.mktemp("walk") / "walk.csv"
    write_table(table)
    context = still_context(browser, base_url=app_url, viewport={"width": 1400, "height": 2000})
    try:
        started = time.monotonic()
        walk(context.new_page(), table, order, copy.deepcopy(draw))  # a Script is used up
        print(f"walk: {time.monotonic() - started:.0f} s")
    finally:
        context.close()
