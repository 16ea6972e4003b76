"""The Forest page's cleaning rounds (ERF Algorithm 2, :mod:`forestviz.enhanced.cleaning`) ready
to show: the validation AUC by round with the shares of rows and features dropped, the rounds
as a table in words, and the features dropped before the last round by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from forestviz.enhanced.cleaning import CleaningResult
from forestviz.explain import plots


@dataclass(frozen=True, eq=False)
class CleaningViews:
    figure: go.Figure
    table: pd.DataFrame  # one row a round (plots.cleaning_table)
    last_dropped: str  # the features dropped before the last round, by name ("none")


def cleaning_views(result: CleaningResult, feature_names: Sequence[str], *,
                   width: int = plots.WIDTH) -> CleaningViews:
    """The views of ``result``, whose rounds' feature indices point into ``feature_names``."""
    records = pd.DataFrame(result.records())
    table = plots.cleaning_table(records, feature_names)
    figure = plots.cleaning_rounds_figure(records, width=width)
    return CleaningViews(figure, table, table["features dropped"].iloc[-1])
