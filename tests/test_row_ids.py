"""One row look-up (issue 40, item 4): the Explain page's "ID, or row number" box and the
command line's ``report --rows`` find rows by :func:`forestviz.io.row_ids.row_position`. Checked
against a brute-force reading of the rule over drawn tables: IDs of any kind, row labels with
the gaps that dropped rows leave, names that are both an ID and a row label."""

import re

import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forestviz.io.row_ids import row_ids, row_position

IDS = st.one_of(st.text(min_size=1, max_size=6).map(str.strip).filter(bool),
                st.integers(0, 60).map(int), st.integers(0, 60).map(float))


def brute_force(frame: pd.DataFrame, id_column, wanted: str):
    """The rule read literally: an ID first (the first row that has it), then a row label."""
    wanted = wanted.strip()
    for position in range(len(frame)):
        if id_column in frame.columns and str(frame[id_column].iloc[position]) == wanted:
            return position
        if id_column not in frame.columns and str(frame.index[position]) == wanted:
            return position
    for position, label in enumerate(frame.index):
        if re.fullmatch(r"[0-9]+", wanted) and label == int(wanted):
            return position
    return None


@st.composite
def tables(draw):
    n = draw(st.integers(1, 12))
    labels = sorted(draw(st.sets(st.integers(0, 40), min_size=n, max_size=n)))
    frame = pd.DataFrame({"x": range(n)}, index=labels)
    if draw(st.booleans()):
        frame["ID"] = draw(st.lists(IDS, min_size=n, max_size=n, unique_by=str))
    return frame


@given(tables(), st.data())
@settings(max_examples=60)
@example(pd.DataFrame({"x": [0, 1], "ID": ["3", "7"]}, index=[3, 7]), None)  # ID wins over label
@example(pd.DataFrame({"x": [0]}, index=[1]), None)  # "¹" is a digit to str.isdigit, not to int
def test_every_row_is_found_by_its_id_and_a_label_by_its_number(frame, data):
    id_column = "ID" if "ID" in frame.columns else None
    names = [*row_ids(frame, id_column), *map(str, frame.index), " 5 ", "nobody", "-1", "¹"]
    if data is not None:
        names.append(data.draw(st.text(max_size=4)))
    for name in names:
        assert row_position(frame, id_column, name) == brute_force(frame, id_column, name), name
    for position, row_id in enumerate(row_ids(frame, id_column)):
        found = row_position(frame, id_column, row_id)
        assert str(row_ids(frame, id_column).iloc[found]) == row_id and found <= position


def test_the_ids_of_a_table_without_an_id_column_are_its_row_labels():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0]}, index=[0, 2, 5])  # row 1, 3, 4 dropped
    assert row_ids(frame, None).tolist() == ["0", "2", "5"]
    assert row_ids(frame, "Patient ID").tolist() == ["0", "2", "5"]  # a frame without it
    assert [row_position(frame, None, w) for w in ("2", "5", "1", "x")] == [1, 2, None, None]
