"""One screen, one story (issue 35, item 4): read what a page or a record prints and name every
place where two numbers for the same quantity differ, where a number is printed in scientific
notation, or with more digits than it means.

The texts are what a person reads (the Explain page's elements as AppTest gives them, the
record's text); each quantity is found by the words it is printed with:

* the risk: "risk 0.57", "P(Yes): 0.57" (a tile), "the model's risk, 0.57,";
* the calibrated risk: "calibrated 0.43", "Calibrated: 0.43";
* the decision threshold: "threshold 0.606", "Decision threshold: 0.606";
* the predicted value: "Predicted value: 269.3", "predicted 269.3";
* the interval or calibrated range: "90% interval 167.7–370.9", "calibrated range 0.42–0.43";
* a guessed value's alarm: "the risk would be 0.26–0.84, and the predicted class could change",
  which the range shown as "how sure" must cover (the tile "With other guesses" when the page
  shows one, else the interval);
* the range over the guesses ("With other guesses: 0.13–0.91", the record's "with other
  plausible values of a missing one, the risk would be 0.13–0.91") is the union of the alarms'
  ranges, and each column's alarm says the same range wherever it is printed;
* the contributions: the waterfall ("Waterfall: 0.47 | −0.087 | 0.39", its base, its pushes and
  its end, read off the page's chart or the record's drawing) adds up to its end, which is the
  printed risk or value, from the base the sentence names ("move the risk down by 0.087 from
  the trees' weighted base 0.47"), and the sentence's move from that base reaches the number;
* shares of one whole: "99% on trees favouring No, 1% on trees favouring Yes" add to 100;
* a percentage is printed one way, "90%", never "90 %" beside it.

Two prints of one quantity agree when they print the same number to the same decimals: 0.0996
beside 0.10 is two stories. Printed numbers that must add up may differ by their rounding: half
a unit of each one's last printed digit.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections import defaultdict
from html.parser import HTMLParser

NUMBER = r"[−-]?\d[\d,]*(?:\.\d+)?"
SIGNED = r"[−+-]?\d[\d,]*(?:\.\d+)?"
RANGE = rf"({NUMBER})\s*[–-]\s*({NUMBER})"
SCIENTIFIC = re.compile(r"(?<![\w.])[−+-]?\d+(?:\.\d+)?[eE][−+-]?\d+(?![\w])")
DECIMAL = re.compile(r"(?<![\w.])\d[\d,]*\.\d+")
SPACED_PERCENT = re.compile(r"\d %")  # forestviz.numbers prints "90%"
MEANINGFUL_DIGITS = 7  # more significant digits than this in a decimal number mean nothing

QUANTITIES = {
    "risk": [r"\brisk,? (" + NUMBER + r")\b(?! *[–-])", r"^P\([^)]*\): (" + NUMBER + r")$"],
    "calibrated risk": [r"\b[Cc]alibrated:? (" + NUMBER + r")\b(?! *[–-])"],
    "threshold": [r"\b(?:[Dd]ecision )?threshold:? (" + NUMBER + r")\b"],
    "predicted value": [r"\bPredicted value:? (" + NUMBER + r")\b",
                        r"\b[Pp]redicted (" + NUMBER + r")\b"],
    "base": [r"\bweighted base (" + NUMBER + r")\b", r"^Waterfall: (" + NUMBER + r") \|"],
}
RANGES = {
    "interval": [r"\b\d+ ?% interval(?:, guesses assumed)?:? " + RANGE,
                 r"\b[Cc]alibrated range(?:, guesses assumed)?:? " + RANGE,
                 r"^(?:Calibrated )?[Rr]ange:? " + RANGE],
    "over the guesses": [r"^With other guesses: " + RANGE,
                         r"with other plausible values of a missing one, .+? would be " + RANGE],
}
# a guessed value's alarm, by its column: "Glucose is missing (used 117, …); had it been …, the
# risk would be 0.26–0.84, and the predicted class could change to Yes" (a value: "…, more
# than the 90% interval's half-width (±51.2) away from 152")
ALARM = re.compile(r"(?:Alarm: )?([^;]+?) is missing\b.*? would be " + RANGE
                   + r"(, and the predicted class could change|, more than the)")
MOVE = re.compile(r"move .+? (up|down) by (" + NUMBER + r") from the trees' weighted base ("
                  + NUMBER + r")")
WATERFALL = re.compile(r"^Waterfall: (.+)$")
SHARES = re.compile(r"((?:\d+(?:\.\d+)? ?% on trees favouring [^,;)]+(?:, )?)+)")


def number(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def places(text: str) -> int:
    return len(text.partition(".")[2])


def unit(text: str) -> float:
    """Half a unit of ``text``'s last printed digit: how far the number it rounds may be."""
    return 0.5 * 10.0 ** -places(text)


def found(texts) -> dict[str, list[str]]:
    """Every print of each quantity in ``texts``: {quantity: [printed text, …]}; a range as
    "low–high"; an alarm as "column: low–high"; the waterfall as its numbers "0.47|−0.087|0.39"
    (base, pushes, end)."""
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
            for m in ALARM.finditer(line):
                seen["alarm"].append(f"{m.group(1)}: {m.group(2)}–{m.group(3)}")
                if m.group(4).startswith(", and"):
                    seen["class-changing alarm"].append(f"{m.group(2)}–{m.group(3)}")
            seen["waterfall"].extend(m.group(1).replace(" | ", "|")
                                     for m in WATERFALL.finditer(line))
    return seen


def _agree(a: str, b: str) -> bool:
    return number(a) == number(b) and places(a) == places(b)


def _ends(text: str) -> list[str]:
    return re.split(r"(?<=\d)–", text.rpartition(": ")[2])


def _printing(text: str) -> list[str]:
    """E-notation, more digits than a number means, shares of one whole not adding to 100."""
    said = [f"scientific notation: {m.group(0)!r} in {text[:80]!r}"
            for m in SCIENTIFIC.finditer(text)]
    for m in DECIMAL.finditer(text):
        digits = m.group(0).replace(",", "").replace(".", "").lstrip("0")
        if len(digits) > MEANINGFUL_DIGITS:
            said.append(f"more digits than it means: {m.group(0)!r} in {text[:80]!r}")
    said += [f"a percentage printed with a space: {m.group(0)!r} in {text[:80]!r}"
             for m in SPACED_PERCENT.finditer(text)]
    for m in SHARES.finditer(text):
        shares = [float(s) for s in re.findall(r"(\d+(?:\.\d+)?) ?%", m.group(1))]
        if len(shares) > 1 and abs(sum(shares) - 100) > 0.5:
            said.append(f"shares add to {sum(shares):g}%: {m.group(1)!r}")
    return said


def _two_prints(seen) -> list[str]:
    """Two prints of one quantity (an alarm's: of one column) that differ."""
    said = []
    for name in (*QUANTITIES, *RANGES, "alarm"):
        prints = seen.get(name, [])
        if name == "alarm":  # one column's alarm against its first print
            firsts = {}
            pairs = [(firsts.setdefault(p.rpartition(": ")[0], p), p) for p in prints]
        else:
            pairs = [(prints[0], other) for other in prints[1:]]
        for first, other in pairs:
            a, b = _ends(first), _ends(other)
            if len(a) != len(b) or not all(map(_agree, a, b)):
                said.append(f"two values of the {name}: {first} and {other}")
    return said


def _guesses(seen) -> list[str]:
    """The range shown as "how sure" covers every alarm that could change the class; the
    range over the guesses is the union of the alarms'."""
    said = []
    sure = seen.get("over the guesses") or seen.get("interval", [])
    for alarm in seen.get("class-changing alarm", []):
        low, high = map(number, _ends(alarm))
        for shown in sure[:1]:
            a, b = map(number, _ends(shown))
            if low < a - 0.005 or high > b + 0.005:
                said.append(f"the range shown as how sure, {shown}, does not cover what a "
                            f"guessed value could do, {alarm}")
    alarms = [_ends(a) for a in seen.get("alarm", [])]
    for shown in seen.get("over the guesses", [])[:1]:
        union = (min((a[0] for a in alarms), key=number, default=None),
                 max((a[1] for a in alarms), key=number, default=None))
        if None in union or not all(map(_agree, _ends(shown), union)):
            said.append(f"the range over the guesses, {shown}, is not the alarms' union "
                        f"{'–'.join(map(str, union))}")
    return said


def _adds_up(seen, texts) -> list[str]:
    """The waterfall adds up to its end, which is the printed number; the sentence's move from
    the base reaches it too (each to its printed rounding)."""
    said = []
    explained = (seen.get("risk") or seen.get("predicted value") or [None])[0]
    for bars in seen.get("waterfall", []):
        base, *pushes, end = bars.split("|")
        total = number(base) + sum(map(number, pushes))
        if abs(total - number(end)) > sum(map(unit, bars.split("|"))) + 1e-12:
            said.append(f"the waterfall {bars} does not add up to its end")
        if explained is not None and not _agree(end, explained):
            said.append(f"the waterfall ends at {end}, the number printed is {explained}")
    for line in (line for text in texts for line in text.splitlines()):
        if explained is None:
            break
        for m in MOVE.finditer(line):
            sign = 1 if m.group(1) == "up" else -1
            reached = number(m.group(3)) + sign * number(m.group(2))
            slack = unit(m.group(2)) + unit(m.group(3)) + unit(explained) + 1e-12
            if abs(reached - number(explained)) > slack:
                said.append(f"{m.group(0)!r} does not reach {explained}")
    return said


def problems(texts) -> list[str]:
    """What the texts get wrong, one line each (empty when they tell one story)."""
    texts = [str(t) for t in texts]
    seen = found(texts)
    return [*(s for text in texts for s in _printing(text)), *_two_prints(seen),
            *_guesses(seen), *_adds_up(seen, texts)]


def waterfall_line(numbers) -> str:
    """The waterfall's printed numbers as the check reads them: "Waterfall: 0.47 | … | 0.39"."""
    return "Waterfall: " + " | ".join(numbers)


def page_texts(at) -> list[str]:
    """What an AppTest page prints for a person: its texts, a tile as "label: value", the
    choices of its selectboxes as shown (Streamlit's markdown escapes undone) and the reasons'
    waterfall's printed numbers. Tables are left out: the browser prints their numbers with its
    own digits."""
    texts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning",
                 "error", "success", "text"):
        texts += [str(element.value) for element in at.get(kind)]
    texts += [f"{m.label}: {m.value}" for m in at.metric]
    for box in at.selectbox:
        texts += [str(option) for option in box.options]
    texts = [re.sub(r"\\(.)", r"\1", text) for text in texts]
    for chart in at.get("plotly_chart"):
        for trace in json.loads(chart.proto.spec).get("data", []):
            if trace.get("type") == "waterfall" and "text" in trace:  # the reasons' one
                texts.append(waterfall_line(trace["text"]))
    return texts


BLOCKS = frozenset({"p", "h1", "h2", "h3", "li", "tr", "figcaption", "caption", "div"})


class _Record(HTMLParser):
    """The record's text as read: a row of its table as "label: value", each paragraph and
    heading a text, a drawn waterfall (an SVG image) as :func:`waterfall_line`."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts, self.parts = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in BLOCKS:
            self.flush()
        if tag == "td" and self.parts:
            self.parts.append(": ")
        if tag == "img" and "reasons" in (attrs.get("class") or "").split():
            svg = base64.b64decode(attrs["src"].partition("base64,")[2]).decode()
            self.texts.append(_drawn_waterfall(svg))

    def handle_endtag(self, tag):
        if tag in BLOCKS:
            self.flush()

    def handle_data(self, data):
        self.parts.append(data)

    def flush(self):
        text = " ".join("".join(self.parts).split())
        if text:
            self.texts.append(text)
        self.parts = []


def _drawn_waterfall(svg: str) -> str:
    """The numbers printed on the record's waterfall: those after its "base value" label."""
    shown = [html.unescape(t).strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    after = shown[shown.index("base value") + 1:] if "base value" in shown else []
    return waterfall_line([t for t in after if re.fullmatch(SIGNED, t)])


def record_texts(document: str) -> list[str]:
    """What a one-page record (HTML) prints for a person (:class:`_Record`)."""
    reader = _Record()
    reader.feed(document.split("</style>")[-1])
    reader.close()
    reader.flush()
    return reader.texts
