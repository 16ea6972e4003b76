"""The Paper lab says what each figure shows and what to try, and opens Fig. 2 and 3 on the
table where they show something (issue 39, item 4), through Streamlit's AppTest."""

import numpy as np
import pytest

from forestviz.app import lab
from tests.apptest_helpers import app

pytestmark = pytest.mark.slow


def test_each_figure_says_what_it_shows_and_what_to_try():
    at = app().switch_page("pages/lab.py").run()
    assert not at.exception and not at.error
    headers = [h.value for h in at.header]
    tips = [i.value for i in at.info]
    shown = [m.value for m in at.markdown]
    for figure in lab.FIGURES.values():
        assert figure.title in headers
        assert figure.shows in shown
        assert f"**Try:** {figure.tries}" in tips
    assert at.selectbox(key="lab_dataset").value == lab.SHOWING


def test_fig_3_opens_on_the_only_table_where_attention_is_not_flat():
    """On each synthetic table the search either keeps the plain forest (α equal for every
    tree: Fig. 3 flat) or chooses attention; the lab opens on the one that chooses it."""
    showing = []
    for info in lab.synthetic_datasets():
        *_, alpha, _, _, plain = lab.eps_tau_search(info.name)
        flat = np.allclose(alpha, 1 / alpha.shape[1])
        assert flat == plain, info.name
        if not flat:
            showing.append(info.name)
    assert showing == [lab.SHOWING]
