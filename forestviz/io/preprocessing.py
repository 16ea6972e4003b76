"""Turn a table's feature columns into a numeric matrix whose columns keep readable names."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from forestviz.io.dataset import (
    MAX_LEVELS,
    MAX_TEXT_LEVELS,
    DataError,
    as_numbers,
    numbers_from_text,
    unique_names,
)

OTHER = "(other)"


class TablePreprocessor(TransformerMixin, BaseEstimator):
    """Features of a DataFrame → float64 matrix with readable column names.

    * numeric columns (also booleans and numbers written as text, e.g. ``"265,000"``) pass
      through as they are; missing or non-finite values become the training median;
    * a text column with at most ``max_levels`` distinct values is one-hot encoded as
      ``column=level``; with up to ``max_text_levels`` values, its ``max_levels`` most frequent
      levels are kept and the rest share ``column=(other)``; a missing value sets no indicator;
    * a text column with more than ``max_text_levels`` values (free text, identifiers) and a
      column without any value are dropped, with the reason in ``dropped_columns_`` / ``notes_``.

    Fitted attributes: ``feature_names_out_`` and ``source_columns_`` (output column j comes
    from original column ``source_columns_[j]``), ``medians_`` (numeric column → median),
    ``categories_`` (encoded column → kept levels), ``other_levels_`` (column → levels grouped
    as ``(other)``), ``dropped_columns_`` (column → reason) and ``notes_``. Map an encoded row
    back to the original columns' values with :meth:`inverse_transform`.
    """

    def __init__(self, max_levels=MAX_LEVELS, max_text_levels=MAX_TEXT_LEVELS):
        self.max_levels = max_levels
        self.max_text_levels = max_text_levels

    def fit(self, X, y=None):
        X = self._validate_frame(X, reset=True)
        self.medians_, self.categories_, self.other_levels_ = {}, {}, {}
        self.dropped_columns_ = {}
        for column in X.columns:
            self._fit_column(column, X[column])
        self.notes_ = tuple(
            [
                f"'{c}' has {len(self.categories_[c]) + len(other)} different values: the "
                f"{len(self.categories_[c])} most frequent are kept and the other {len(other)} "
                f"are grouped as '{OTHER}'."
                for c, other in self.other_levels_.items()
            ]
            + [f"'{c}' was left out because {why}." for c, why in self.dropped_columns_.items()]
        )
        names, sources = [], []
        for column in self._kept_columns():
            levels = self._levels(column)
            names += [column] if levels is None else [f"{column}={level}" for level in levels]
            sources += [column] * (1 if levels is None else len(levels))
        if not names:
            raise DataError(
                f"None of the feature columns can be used: {' '.join(self.notes_)} "
                "Include other columns."
            )
        self.feature_names_out_ = np.asarray(unique_names(names), dtype=object)
        self.source_columns_ = np.asarray(sources, dtype=object)
        return self

    def _fit_column(self, column, values):
        """Learn a median (numeric), the kept levels (categorical) or why the column is dropped."""
        if _is_numeric(values):
            numbers = as_numbers(values)
            numbers = numbers[np.isfinite(numbers)]
            if numbers.empty:
                self.dropped_columns_[column] = "it has no values"
            else:
                self.medians_[column] = float(numbers.median())
            return
        counts = values.dropna().astype(str).value_counts()
        if counts.empty:
            self.dropped_columns_[column] = "it has no values"
        elif len(counts) > self.max_text_levels:
            self.dropped_columns_[column] = (
                f"it looks like free text or an identifier ({len(counts)} different values)"
            )
        else:
            ranked = sorted(counts.index, key=lambda level: (-counts[level], level))
            self.categories_[column] = tuple(sorted(ranked[: self.max_levels]))
            if len(ranked) > self.max_levels:
                self.other_levels_[column] = tuple(sorted(ranked[self.max_levels :]))

    def transform(self, X):
        """The encoded float64 matrix, one column per name in ``feature_names_out_``."""
        check_is_fitted(self)
        X = self._validate_frame(X, reset=False)
        blocks = []
        for column in self._kept_columns():
            levels = self._levels(column)
            if levels is None:
                numbers = as_numbers(X[column]).to_numpy()
                blocks.append(np.where(np.isfinite(numbers), numbers, self.medians_[column]))
                continue
            present = X[column].notna().to_numpy()
            text = X[column].astype(str).to_numpy(dtype=object)
            onehot = (text[:, None] == np.asarray(self.categories_[column], dtype=object)) & (
                present[:, None]
            )
            if column in self.other_levels_:
                onehot = np.column_stack([onehot, present & ~onehot.any(axis=1)])
            blocks.append(onehot)
        return np.column_stack(blocks).astype(np.float64)

    def inverse_transform(self, X):
        """The original columns' values behind encoded rows (a DataFrame over the kept columns).

        Numeric columns come back as numbers (imputed values stay imputed); an encoded column
        gives the level whose indicator is set (``(other)`` for the grouped levels), or NaN when
        none is set (the value was missing).
        """
        check_is_fitted(self)
        X = np.asarray(X, dtype=np.float64).reshape(-1, len(self.feature_names_out_))
        columns = {}
        for column in self._kept_columns():
            block = X[:, self.source_columns_ == column]
            levels = self._levels(column)
            if levels is None:
                columns[column] = block[:, 0]
                continue
            chosen = np.asarray(levels, dtype=object)[block.argmax(axis=1)]
            columns[column] = np.where(block.max(axis=1) > 0.5, chosen, np.nan)
        return pd.DataFrame(columns)

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self)
        return self.feature_names_out_.copy()

    def _validate_frame(self, X, *, reset):
        if not isinstance(X, pd.DataFrame):
            raise TypeError("TablePreprocessor needs a pandas DataFrame with named columns.")
        if not all(isinstance(name, str) for name in X.columns):
            raise TypeError("TablePreprocessor needs column names that are text.")
        validate_data(self, X, reset=reset, skip_check_array=True)
        return X

    def _kept_columns(self):
        return [c for c in self.feature_names_in_ if c not in self.dropped_columns_]

    def _levels(self, column):
        """None for a numeric column, else the encoded levels in output order."""
        if column in self.medians_:
            return None
        return self.categories_[column] + ((OTHER,) if column in self.other_levels_ else ())


def _is_numeric(column: pd.Series) -> bool:
    numeric = is_numeric_dtype(column) or is_bool_dtype(column)
    return numeric or numbers_from_text(column) is not None
