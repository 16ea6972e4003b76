"""Rules with one home (issue 40, item 4), where a second representation cannot import the
first: Streamlit's upload cap in ``.streamlit/config.toml`` is the library's table cap, and
no module of the library or the app writes a byte cap of tables or model files of its own;
one test of equal tree weights for one row and for many; one count of the held-out rows."""

import re
import tomllib
from pathlib import Path

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from forestviz.explain.row.tree_choice import EQUAL_WEIGHTS, equal_weights
from forestviz.io.limits import MAX_BYTES
from forestviz.trees.rows import held_out_count, split_rows

REPO = Path(__file__).resolve().parents[1]


def test_streamlits_upload_cap_is_the_librarys_table_cap():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] * 2**20 == MAX_BYTES


def test_no_module_writes_a_cap_of_its_own():
    """A literal 200 MiB or 1 GiB outside the two homes (io/limits.py for tables,
    persistence/archive.py for model files) is a copy of a cap."""
    copy = re.compile(r"200 \* 1024 \* 1024|200 \* 2\s*\*\*\s*20|1 << 30|2\s*\*\*\s*30")
    homes = {REPO / "forestviz" / "io" / "limits.py", REPO / "forestviz" / "persistence" /
             "archive.py"}
    found = {str(p.relative_to(REPO)) for folder in ("forestviz", "ui", "pages")
             for p in (REPO / folder).rglob("*.py")
             if p not in homes and copy.search(p.read_text(encoding="utf-8"))}
    assert found == set()


@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 8)),
              elements=st.floats(0.01, 1.0)), st.integers(0, 5))
@example(np.full((2, 100), 0.01), 0)  # a hundred equal bars
@example(np.array([[0.5, 0.5 + 1e-13]]), 0)  # equal to rounding: the old 1/T test said so
def test_equal_weights_is_one_test_for_one_row_and_for_many(weights, flat):
    """The Explain page's test of one row and the neighbours' stability over many rows are
    one function: per row, the same answer; equal means the spread is within 1e-9 of the
    largest weight."""
    rows = equal_weights(weights)
    assert rows.shape == (len(weights),)
    for row, found in zip(weights, rows, strict=True):
        assert equal_weights(row) is bool(found)
        assert bool(found) is bool(row.max() - row.min() <= EQUAL_WEIGHTS * row.max())
    if flat < len(weights):
        weights[flat] = weights[flat, 0]
        assert equal_weights(weights)[flat] and equal_weights(weights[flat])


@given(st.integers(4, 400), st.floats(0.05, 0.5), st.booleans())
@example(632, 0.25, True)  # the bundled table at the default split
def test_the_held_out_count_is_the_splits_own(n, test_size, stratify):
    """The training caps count the rows the split trains on (``plan_training``), by the
    split's own count."""
    y = np.arange(n) % 3
    train, held = split_rows(y, test_size, 0, stratify=stratify)
    assert len(held) == held_out_count(n, test_size) and len(train) == n - len(held)
