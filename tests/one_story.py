"""One screen, one story (issue 35, item 4): read what a page or a record prints and name every
place where two numbers for the same quantity differ, where a number is printed in scientific
notation, or with more digits than it means.

The texts are what a person reads (the Explain page's elements as AppTest gives them, the
record's text); each quantity is found by the words it is printed with:

* the risk: "risk 0.57", "P(Yes): 0.57" (a tile), "the model's risk, 0.57,";
* the calibrated risk: "calibrated 0.43", "Calibrated: 0.43";
* the decision threshold: "threshold 0.606", "Decision threshold: 0.606";
* the predicted value: "Predicted value: 269.3", "predicted 269.3";
* the interval or calibrated range: "90% interval 167.7–370.9", "Venn-ABERS range 0.42–0.43";
* a guessed value's alarm: "the risk would be 0.26–0.84, and the predicted class could change",
  which the range shown as "how sure" must cover (the tile "With other guesses" when the page
  shows one, else the interval);
* shares of one whole: "99 % on trees favouring No, 1 % on trees favouring Yes" add to 100.

Two prints of one quantity agree when they print the same number to the same decimals: 0.0996
beside 0.10 is two stories.
"""

from __future__ import annotations

import re
from collections import defaultdict

NUMBER = r"[−-]?\d[\d,]*(?:\.\d+)?"
RANGE = rf"({NUMBER})\s*[–-]\s*({NUMBER})"
SCIENTIFIC = re.compile(r"(?<![\w.])[−+-]?\d+(?:\.\d+)?[eE][−+-]?\d+(?![\w])")
DECIMAL = re.compile(r"(?<![\w.])\d[\d,]*\.\d+")
MEANINGFUL_DIGITS = 7  # more significant digits than this in a decimal number mean nothing

QUANTITIES = {
    "risk": [r"\brisk,? (" + NUMBER + r")\b(?! *[–-])", r"^P\([^)]*\): (" + NUMBER + r")$"],
    "calibrated risk": [r"\b[Cc]alibrated:? (" + NUMBER + r")\b(?! *[–-])"],
    "threshold": [r"\b(?:[Dd]ecision )?threshold:? (" + NUMBER + r")\b"],
    "predicted value": [r"\bPredicted value:? (" + NUMBER + r")\b",
                        r"\b[Pp]redicted (" + NUMBER + r")\b"],
}
RANGES = {
    "interval": [r"\b\d+ ?% interval(?:, guesses assumed)?:? " + RANGE,
                 r"Venn-ABERS range(?:, guesses assumed)?:? " + RANGE,
                 r"^(?:Calibrated )?[Rr]ange:? " + RANGE],
    "over the guesses": [r"^With other guesses: " + RANGE],
    "alarm": [r"risk would be " + RANGE + r",? and the predicted class could change"],
}
SHARES = re.compile(r"((?:\d+(?:\.\d+)? ?% on trees favouring [^,;)]+(?:, )?)+)")


def number(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def places(text: str) -> int:
    return len(text.partition(".")[2])


def found(texts) -> dict[str, list[str]]:
    """Every print of each quantity in ``texts``: {quantity: [printed text, …]}; a range as
    "low–high"."""
    seen: dict[str, list[str]] = defaultdict(list)
    for text in texts:
        for line in text.splitlines():
            for name, patterns in QUANTITIES.items():
                for pattern in patterns:
                    seen[name].extend(m.group(1) for m in re.finditer(pattern, line))
            for name, patterns in RANGES.items():
                for pattern in patterns:
                    seen[name].extend(f"{m.group(1)}–{m.group(2)}"
                                      for m in re.finditer(pattern, line))
    return seen


def _agree(a: str, b: str) -> bool:
    return number(a) == number(b) and places(a) == places(b)


def problems(texts) -> list[str]:
    """What the texts get wrong, one line each (empty when they tell one story)."""
    texts = [str(t) for t in texts]
    said = []
    for text in texts:
        said += [f"scientific notation: {m.group(0)!r} in {text[:80]!r}"
                 for m in SCIENTIFIC.finditer(text)]
        for m in DECIMAL.finditer(text):
            digits = m.group(0).replace(",", "").replace(".", "").lstrip("0")
            if len(digits) > MEANINGFUL_DIGITS:
                said.append(f"more digits than it means: {m.group(0)!r} in {text[:80]!r}")
        for m in SHARES.finditer(text):
            shares = [float(s) for s in re.findall(r"(\d+(?:\.\d+)?) ?%", m.group(1))]
            if len(shares) > 1 and abs(sum(shares) - 100) > 0.5:
                said.append(f"shares add to {sum(shares):g} %: {m.group(1)!r}")
    seen = found(texts)
    for name in (*QUANTITIES, "interval"):
        prints = seen.get(name, [])
        for other in prints[1:]:
            ends = [p.split("–") for p in (prints[0], other)] if name == "interval" else [
                [prints[0]], [other]]
            if not all(_agree(a, b) for a, b in zip(*ends, strict=True)):
                said.append(f"two values of the {name}: {prints[0]} and {other}")
    sure = seen.get("over the guesses") or seen.get("interval", [])
    for alarm in seen.get("alarm", []):
        low, high = (number(t) for t in alarm.split("–"))
        for shown in sure[:1]:
            a, b = (number(t) for t in shown.split("–"))
            if low < a - 0.005 or high > b + 0.005:
                said.append(f"the range shown as how sure, {shown}, does not cover what a "
                            f"guessed value could do, {alarm}")
    return said


def page_texts(at) -> list[str]:
    """What an AppTest page prints for a person: its texts, a tile as "label: value" and the
    choices of its selectboxes as shown (Streamlit's markdown escapes undone). Tables are left
    out: the browser prints their numbers with its own digits."""
    texts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning",
                 "error", "success", "text"):
        texts += [str(element.value) for element in at.get(kind)]
    texts += [f"{m.label}: {m.value}" for m in at.metric]
    for box in at.selectbox:
        texts += [str(option) for option in box.options]
    return [re.sub(r"\\(.)", r"\1", text) for text in texts]
