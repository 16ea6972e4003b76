"""The one-story check's reading of the record and of what must add up (tests/one_story.py,
issue 35 item 4): each check on a crafted text or record it must fail, then on real records of
a classification and a regression model, a held-out row and a new row with a guessed value,
which tell one story."""

import base64

import numpy as np
import pandas as pd
import pytest

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.io.bundled import load_dataset
from tests.one_story import found, problems, record_texts
from tests.table_paths import adds_up

ALARM = ("Age is missing (used 48.7, the training median); had it been anywhere from 40.96 to "
         "59.43 (its training 10th to 90th percentiles, tried at each decile), the risk would "
         "be {}, and the predicted class could change to Yes.")
VALUE_ALARM = ("Age is missing (used 48.7, the training median); had it been anywhere from 40 "
               "to 59 (its training 10th to 90th percentiles, tried at each decile), the "
               "predicted value would be {}, more than the 90% interval's half-width (±20.1) "
               "away from 150.3.")
NOTE = ("The numbers above assume the guessed values; with other plausible values of a missing "
        "one, the risk would be {}.")


def record(*blocks: str, waterfall: tuple[str, ...] = ()) -> str:
    """A one-page record as forestviz writes one: its table, paragraphs and a drawn waterfall
    (an SVG image whose texts are the axis ticks, the labels, then the bars' numbers)."""
    svg = "".join(f"<text x='0'>{t}</text>" for t in ("0.0", "0.2", "the risk", "base value",
                                                      "Glucose", "= 148", "the risk",
                                                      *waterfall, "Orange raises the risk"))
    image = base64.b64encode(f"<svg>{svg}</svg>".encode()).decode()
    return ("<html><head><style>p{margin:0}</style></head><body><table class='record'><tbody>"
            "<tr><th>Decision threshold</th><td>0.478: P(Yes) at or above it predicts Yes"
            "</td></tr></tbody></table>" + "".join(f"<p>{b}</p>" for b in blocks)
            + f"<img class='reasons' alt='' src='data:image/svg+xml;base64,{image}'>"
            "</body></html>")


@pytest.mark.parametrize(("texts", "said"), [
    # the range over the guesses: the page's tile and the record's note, two values
    (["With other guesses: 0.13–0.91", NOTE.format("0.13–0.92"), ALARM.format("0.13–0.91")],
     "two values of the over the guesses"),
    # … not the alarms' union (it must start where the lowest alarm does)
    (["With other guesses: 0.10–0.91", ALARM.format("0.13–0.91")], "not the alarms' union"),
    # a value's alarm (regression) is read too
    (["With other guesses: 120.5–180.3", VALUE_ALARM.format("120.5–180.2")],
     "not the alarms' union"),
    # one column's alarm, two ranges
    (["With other guesses: 0.26–0.85", ALARM.format("0.26–0.84"), ALARM.format("0.26–0.85")],
     "two values of the alarm"),
    # the waterfall does not add up to its end
    (["P(Yes): 0.30", "Waterfall: 0.47 | −0.087 | 0.30"], "does not add up"),
    # the waterfall ends at 0.0996 beside a 0.10 tile
    (["P(Yes): 0.10", "Waterfall: 0.20 | −0.1004 | 0.0996"], "the waterfall ends at 0.0996"),
    # the sentence's base and the waterfall's
    (["the trees' weighted base 0.47", "Waterfall: 0.48 | −0.087 | 0.39", "P(Yes): 0.39"],
     "two values of the base"),
    # the sentence's move from the base does not reach the risk
    (["Predicted No (risk 0.39): this row's columns move the risk up by 0.087 from the trees' "
      "weighted base 0.47; toward No: no column."], "does not reach 0.39"),
    # a percentage printed the computer's other way
    (["Predicted 151 (90 % interval 98.2–204)"], "printed with a space"),
])
def test_each_check_names_its_defect(texts, said):
    assert [p for p in problems(texts) if said in p] != [], problems(texts)
    assert len(problems(texts)) == 1, problems(texts)


def test_the_record_is_read_as_a_person_reads_it():
    """A row of the record's table is "label: value" (its threshold is read), a paragraph's
    character references are undone, the drawn waterfall's numbers follow its "base value"."""
    document = record("Predicted No (risk 0.39; threshold 0.500), it&#x27;s said",
                      waterfall=("0.47", "−0.087", "0.39"))
    texts = record_texts(document)
    assert "Decision threshold: 0.478: P(Yes) at or above it predicts Yes" in texts
    assert "Predicted No (risk 0.39; threshold 0.500), it's said" in texts
    assert "Waterfall: 0.47 | −0.087 | 0.39" in texts
    assert problems(texts) == ["two values of the threshold: 0.478 and 0.500"]
    drawn = record("Predicted No (risk 0.40)", waterfall=("0.47", "−0.087", "0.40"))
    assert [p for p in problems(record_texts(drawn)) if "does not add up" in p] != []


def test_rounding_alone_is_one_story():
    """Printed numbers that add up to their rounding: 0.474 − 0.0874 = 0.3866 prints as 0.47,
    −0.087 and 0.39."""
    texts = ["P(Yes): 0.39", "Waterfall: 0.47 | −0.087 | 0.39",
             "Predicted No (risk 0.39): this row's columns move the risk down by 0.087 from the "
             "trees' weighted base 0.47; toward No: Age (−0.087).",
             "With other guesses: 0.13–0.91", NOTE.format("0.13–0.91"),
             ALARM.format("0.13–0.91"), ALARM.format("0.13–0.91")]
    assert problems(texts) == []


@pytest.mark.slow
@pytest.mark.parametrize(("table", "family"), [("pima_diabetes", "erf"),
                                               ("friedman1", "vanilla")])
def test_real_records_tell_one_story(table, family):
    """A held-out row's record and a new row's with its strongest column blank (a guessed
    value): every check reads something in them, and finds nothing wrong."""
    dataset = load_dataset(table)
    bench = Workbench(dataset)
    bench.train(Settings(family=family, n_estimators=20, random_state=0))
    e = bench.explain(int(bench.model.test_rows[0]))
    texts = record_texts(bench.report(e))
    seen = found(texts)
    assert seen["waterfall"] and seen["base"] and (seen["risk"] or seen["predicted value"])
    assert problems(texts) == []
    _, total = adds_up(e)
    column = e.contributions.feature_names[int(np.argmax(np.abs(total)))]
    values = pd.Series(dataset.X.iloc[int(bench.model.test_rows[0])]).copy()
    values[column] = np.nan
    guessed = bench.explain(values=values, row_id="new")
    assert problems(record_texts(bench.report(guessed))) == []
