"""Reading which model a page of the app names (under AppTest, or from its texts read in a
browser), and the small tables the step tests upload."""

import re

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

DONE = "Trained."  # how every training's success message starts (ui.models)
_ESCAPE = re.compile(r"\\(.)")
_CURRENT = re.compile(r"the current one is (.+?)\.(?: Sensitivity|$)")
_CONFUSION = re.compile(r"^Held-out confusion matrix of (.+) at its threshold")
_FOREST = re.compile(r"^(.+): (\d+) trees\.$")


def plain(text: str) -> str:
    """Shown Markdown as read: without ``as_text``'s escapes and word joiners."""
    return _ESCAPE.sub(r"\1", text).replace("\u2060", "")


def captions(at: AppTest) -> list[str]:
    return [plain(c.value) for c in at.caption]


def successes(at: AppTest) -> list[str]:
    return [plain(s.value) for s in at.success]


def named_models(at: AppTest, page: str) -> set[str]:
    """Every model label the page ``page`` ("train", "explain", "forest") names: its captions,
    its model picker, its publish button."""
    pickers = {"train": "train_current", "explain": "explain_model"}
    named = caption_names(captions(at), page)
    if page in pickers:
        named |= {box.value for box in at.selectbox if box.key == pickers[page]}
    return named | publish_names(plain(b.label) for b in at.get("button"))


def caption_names(texts: list[str], page: str) -> set[str]:
    """The model labels that the captions ``texts`` (as read) of the page ``page`` name. The
    Forest page names a model by its name and trees, which a label begins with."""
    named = set()
    for text in texts:
        for pattern in (_CURRENT, _CONFUSION):
            found = pattern.search(text)
            if found:
                named.add(found.group(1))
        found = _FOREST.match(text) if page == "forest" else None
        if found:
            name, trees = found.group(1).rsplit(" on ", 1)[0], found.group(2)
            named.add(f"{name} · {trees} trees")
    return named


def publish_names(labels) -> set[str]:
    """The model labels that the button labels ``labels`` (as read) offer to publish."""
    return {label.removeprefix("Publish ") for label in labels if label.startswith("Publish ")}


def small_table(task: str, n_rows: int = 120, random_state: int = 0) -> bytes:
    """A CSV of ``n_rows`` rows, quick to train on: an ID, two numbers, a text column, a
    yes/no ``outcome`` and a number ``amount``; ``task`` says which of the two is named like
    the target (the other is a column that can be picked as the target instead)."""
    rng = np.random.default_rng(random_state)
    x = rng.normal(size=(n_rows, 2))
    group = rng.choice(["north", "south", "east"], size=n_rows)
    signal = x[:, 0] - 0.5 * x[:, 1] + (group == "north") + rng.normal(scale=0.5, size=n_rows)
    frame = pd.DataFrame({"ID": [f"p{i}" for i in range(n_rows)], "age": x[:, 0] * 10 + 50,
                          "dose": x[:, 1], "region": group})
    yes_no, amount = np.where(signal > 0.3, "yes", "no"), np.round(signal * 100 + 300, 1)
    frame["outcome"], frame["amount"] = ((yes_no, amount) if task == "classification"
                                         else (amount, yes_no))
    return frame.to_csv(index=False).encode()
