"""The whole model from its explanations: every held-out row's contributions through its own
attention-weighted trees, read together.

A row's contributions φ_j(x) (Saabas path contributions through the row's tree weights α(x),
:mod:`forestviz.explain.row.contributions`; base value + Σ_j φ_j(x) = the prediction) are the
numbers the Explain page shows for that row. Over many rows they give what SHAP's summary
views give for Shapley values (Lundberg et al., "From local explanations to global
understanding with explainable AI for trees", Nature Machine Intelligence 2020, §"Global
explanations"): the importance of a column as the mean |φ_j| over rows, the spread of φ_j
against the column's value (a beeswarm), and the dependence of φ_j on the value, coloured by
the column whose values explain most of what the value alone does not (the heuristic of
shap's ``approximate_interactions``: within bins of the column's sorted values, the
correlation of φ_j with each other column, summed over bins).

Everything here reads a :class:`Population` built from the rows' explanations, so a row's
number here equals its number on the Explain page.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

BINS = 10  # bins of the column's sorted values in the interaction heuristic


@dataclass(frozen=True, eq=False)
class Population:
    """The explanations of ``n`` rows: ``ids`` (n,), ``values`` (n rows × the user columns, as
    the user knows them; missing values missing), ``contributions`` (n, m) per user column to
    ``target`` (the value, or a class probability), ``base`` (n,) and ``prediction`` (n,) =
    base + Σ_j contributions."""

    ids: np.ndarray
    values: pd.DataFrame
    contributions: np.ndarray
    base: np.ndarray
    target: str

    def __post_init__(self):
        n, m = self.contributions.shape
        if self.values.shape != (n, m) or self.base.shape != (n,) or self.ids.shape != (n,):
            raise ValueError("ids, values, contributions and base must describe the same rows "
                             "and columns")

    @classmethod
    def from_outputs(cls, outputs: pd.DataFrame, values: pd.DataFrame,
                     target: str) -> Population:
        """From :func:`forestviz.batch.rows.explain_rows` with ``contributions=True`` (its
        ``contribution[<column>]`` columns) and the rows' original ``values``."""
        parts = outputs.filter(like="contribution[")
        columns = [c[len("contribution["):-1] for c in parts.columns]
        return cls(ids=outputs["id"].to_numpy(dtype=object),
                   values=values.reset_index(drop=True)[columns],
                   contributions=parts.to_numpy(dtype=float),
                   base=outputs["base_value"].to_numpy(dtype=float), target=target)

    @property
    def columns(self) -> list[str]:
        return [str(c) for c in self.values.columns]

    @property
    def prediction(self) -> np.ndarray:
        return self.base + self.contributions.sum(axis=1)

    def importance(self) -> pd.DataFrame:
        """Per column, largest first: the mean |φ_j| over the rows, its standard deviation,
        the mean signed φ_j and the share of the rows' total |φ| it takes."""
        magnitude = np.abs(self.contributions)
        total = magnitude.sum()
        frame = pd.DataFrame({
            "column": self.columns,
            "mean |contribution|": magnitude.mean(axis=0),
            "spread (SD of |contribution|)": magnitude.std(axis=0),
            "mean contribution": self.contributions.mean(axis=0),
            "share of all movement": magnitude.sum(axis=0) / total if total else 0.0})
        order = np.argsort(-frame["mean |contribution|"].to_numpy(), kind="stable")
        return frame.iloc[order].reset_index(drop=True)

    def numeric(self, column: str) -> np.ndarray | None:
        """The column's values as numbers (NaN where missing), or None for a text column."""
        values = self.values[column]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            return values.to_numpy(dtype=float, na_value=np.nan)
        return None

    def interaction(self, column: str) -> str | None:
        """The other column that most explains φ_column beyond the column's own value: rows
        sorted by the column's value in :data:`BINS` bins; in each, |corr(φ_column, other)|
        over the rows where both are known (a text column by its level codes); summed over
        the bins. None when no other column has a correlation."""
        j = self.columns.index(column)
        own = self.numeric(column)
        order = np.argsort(own if own is not None else _level_ranks(self.values[column]),
                           kind="stable")
        bins = np.array_split(order, min(BINS, max(1, len(order) // 5)))
        best, best_score = None, 0.0
        for other in self.columns:
            if other == column:
                continue
            numbers = self.numeric(other)
            if numbers is None:
                numbers = pd.factorize(self.values[other])[0].astype(float)
                numbers[numbers < 0] = np.nan
            score = sum(_abs_correlation(self.contributions[rows, j], numbers[rows])
                        for rows in bins)
            if score > best_score:
                best, best_score = other, score
        return best

    def dependence(self, column: str) -> pd.DataFrame:
        """Per row: ``id``, the column's ``value``, its ``contribution`` and the value of the
        interaction column (:meth:`interaction`) as ``colour`` (None when there is none)."""
        j = self.columns.index(column)
        other = self.interaction(column)
        return pd.DataFrame({
            "id": self.ids, "value": self.values[column].to_numpy(dtype=object),
            "contribution": self.contributions[:, j],
            "colour": (self.values[other].to_numpy(dtype=object) if other is not None
                       else np.full(len(self.ids), None))}).assign(colour_column=other)


def _level_ranks(values: pd.Series) -> np.ndarray:
    """A text column's values as the ranks of their levels in sorted order, missing values
    (NaN) last: text and missing values never meet in one comparison."""
    codes = pd.Categorical(values.astype("string")).codes.astype(float)
    codes[codes < 0] = np.nan  # argsort puts NaN last
    return codes


def _abs_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """|Pearson correlation| over the pairs where both are finite; 0 when it is undefined."""
    keep = np.isfinite(a) & np.isfinite(b)
    if keep.sum() < 3:
        return 0.0
    a, b = a[keep], b[keep]
    if a.std() == 0 or b.std() == 0:
        return 0.0
    return float(abs(np.corrcoef(a, b)[0, 1]))
