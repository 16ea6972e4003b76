"""A generated table on the Explain page (issue 35, item 4, "used by the tests above"): uploaded
on the Data page with its target and ID chosen, trained on the Train page, its rows explained on
the Explain page under Streamlit's AppTest: the page a person reads, with the record of the same
row, tells one story (``tests/one_story.py``) for the ranked held-out rows' first and last.

The bounded profile (``make test``) draws one table; ``make fuzz-tables`` a share of its tables
(``tests/table_paths.profile``).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forestviz.app.workbench import Workbench
from tests.apptest_helpers import app, train, upload_csv
from tests.one_story import page_texts, problems, record_texts
from tests.table_paths import (
    TREES,
    dataset_of,
    drawn,
    families,
    picked,
    profile,
    read,
    trained,
)
from tests.table_strategies import tables

SETTINGS, ROWS = profile(1, 0.05, max_rows=120)


@pytest.mark.slow
@SETTINGS
@given(table=tables(max_rows=ROWS), pick=st.integers(0, 7))
def test_a_generated_table_tells_one_story_on_the_explain_page(table, pick):
    with drawn("a_generated_table_tells_one_story_on_the_explain_page", table):
        if dataset_of(table) is None:  # refused in one line (checked there)
            return
        _, target, id_column = read(table)
        at = upload_csv(app(), "export.csv", table.csv)
        assert not at.exception, at.exception
        at.selectbox(key=next(b.key for b in at.selectbox if b.key.startswith("target@"))
                     ).set_value(target).run()
        at.selectbox(key=next(b.key for b in at.selectbox if b.key.startswith("id@"))
                     ).set_value(id_column).run()
        assert not at.exception, at.exception
        dataset = at.session_state["dataset"]
        family = picked(families(dataset.task), pick)
        if not trained(Workbench(dataset), family):  # the Train page refuses it in one line
            return
        bundle = train(at, family, trees=TREES, auto=False)
        at.switch_page("pages/explain.py").run()
        assert not at.exception, at.exception
        bench = Workbench(dataset, bundle.choice, model=bundle)
        (row_picker,) = [b for b in at.selectbox if b.key.startswith("explain_ranked@")]
        for position in bench.ranked_rows()["position"].iloc[[0, -1]]:
            row_picker.set_value(int(position)).run()
            assert not at.exception, at.exception
            record = record_texts(bench.report(bench.explain(int(position))))
            said = problems([*page_texts(at), *record])
            assert said == [], said
