"""Turn a table's feature columns into a numeric matrix whose columns keep readable names.

The encoding is scikit-learn's: a :class:`~sklearn.compose.ColumnTransformer` of a
:class:`~sklearn.impute.SimpleImputer` (median) for the numeric columns and a
:class:`~sklearn.preprocessing.OneHotEncoder` (``max_categories``,
``handle_unknown="infrequent_if_exist"``, readable names through ``feature_name_combiner``) for
the categorical ones. This module decides which column is which (numbers written as text are
numbers; free text, identifiers and empty columns are left out) and keeps the readable names.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils.validation import check_is_fitted, validate_data

from forestviz.io.dataset import (
    MAX_LEVELS,
    MAX_TEXT_LEVELS,
    DataError,
    as_numbers,
    numbers_from_text,
    unique_names,
)
from forestviz.io.values import MAX_MAGNITUDE, check_numbers

OTHER = "(other)"
INFREQUENT = "infrequent_sklearn"  # the name OneHotEncoder gives its group of infrequent levels
# A saved state is refused when fitting it again would take more columns or encode more cells
# (rows x output columns; 40 MB of float64). The app's widest table (2,000 columns, its CSV cap,
# of 20 kept + 30 grouped levels) needs 2.9 million cells and is rebuilt in 3.1 s; 10,000 text
# columns of one level each take 9.5 s (measured on this project's 2-CPU machine).
MAX_REBUILD_COLUMNS = 10_000
MAX_REBUILD_CELLS = 5_000_000
_OUTPUT = "_sklearn_output_config"  # where set_output keeps its choice
_PARAMS = ("max_levels", "max_text_levels")
_FITTED = ("feature_names_in_", "n_features_in_", "medians_", "categories_", "other_levels_",
           "dropped_columns_")


class TablePreprocessor(TransformerMixin, BaseEstimator):
    """Features of a DataFrame → float64 matrix with readable column names.

    * numeric columns (also booleans and numbers written as text, e.g. ``"265,000"``) pass
      through as they are; missing values become the training median
      (``SimpleImputer(strategy="median")``); an infinite or absurdly large value is refused
      (:mod:`forestviz.io.values`, DataError naming the column);
    * a text column with at most ``max_text_levels`` distinct values is one-hot encoded as
      ``column=level`` (``OneHotEncoder``); when it has more than ``max_levels`` levels, the
      ``max_levels`` most frequent are kept and the rest share ``column=(other)``
      (``max_categories=max_levels + 1``, as scikit-learn counts the group as a category; of
      levels tied at the cut, it keeps the alphabetically later ones). An unseen level sets
      ``(other)`` (no indicator when the column has no such group); a missing value sets no
      indicator (the encoder's ``(other)`` is cleared for it);
    * a text column with more than ``max_text_levels`` values (free text, identifiers) and a
      column without any value are dropped, with the reason in ``dropped_columns_`` / ``notes_``.

    Fitted attributes: ``column_transformer_`` (the fitted scikit-learn encoder, output in the
    table's column order after ``feature_names_out_``), ``feature_names_out_`` and
    ``source_columns_`` (output column j comes from original column ``source_columns_[j]``),
    ``medians_`` (numeric column → median), ``categories_`` (encoded column → kept levels),
    ``other_levels_`` (column → levels grouped as ``(other)``), ``dropped_columns_`` (column →
    reason) and ``notes_``. Map an encoded row back with :meth:`inverse_transform`.

    Pickled or saved (:mod:`forestviz.persistence`), a fitted preprocessor is plain data: the
    parameters, column names, medians and levels (:meth:`__getstate__`). Loading checks that data
    and fits the same scikit-learn encoder again on a small table with those medians and levels
    (:meth:`__setstate__`), so no scikit-learn internals are ever read from a file.
    """

    def __init__(self, max_levels=MAX_LEVELS, max_text_levels=MAX_TEXT_LEVELS):
        self.max_levels = max_levels
        self.max_text_levels = max_text_levels

    # ------------------------------------------------------------------ fit and transform
    def fit(self, X, y=None):
        X = self._validate_frame(X, reset=True)
        numeric, levels, self.dropped_columns_ = [], {}, {}
        for column in X.columns:
            kind, found = self._kind(X[column])
            if kind == "numeric":
                numeric.append(column)
            elif kind == "levels":
                levels[column] = found
            else:
                self.dropped_columns_[column] = found
        if not numeric and not levels:
            notes = " ".join(f"'{c}' was left out because {why}."
                             for c, why in self.dropped_columns_.items())
            raise DataError(f"None of the feature columns can be used: {notes} "
                            "Include other columns.")
        self._fit_encoder(self._table(X, numeric, levels), numeric, levels)
        return self

    def _kind(self, values: pd.Series) -> tuple[str, object]:
        """("numeric", None), ("levels", the sorted levels) or ("dropped", the reason)."""
        numeric = is_numeric_dtype(values) or is_bool_dtype(values)
        if numeric or numbers_from_text(values) is not None:
            if np.isfinite(as_numbers(values)).any():
                return "numeric", None
            return "dropped", "it has no values"
        counts = values.dropna().astype(str).value_counts()
        if counts.empty:
            return "dropped", "it has no values"
        if len(counts) > self.max_text_levels:
            return "dropped", (f"it looks like free text or an identifier ({len(counts)} "
                               "different values)")
        return "levels", sorted(counts.index)

    def _fit_encoder(self, table: pd.DataFrame, numeric: list, levels: dict) -> None:
        """Fit the ColumnTransformer on ``table`` (the ``numeric`` columns, then the ``levels``
        ones, taken by position) and read the medians and levels it learnt."""
        parts, n = [], len(numeric)
        if numeric:
            parts.append(("numbers", SimpleImputer(strategy="median"), list(range(n))))
        if levels:
            encoder = OneHotEncoder(categories=list(levels.values()), dtype=np.float64,
                                    handle_unknown="infrequent_if_exist",
                                    max_categories=self.max_levels + 1, sparse_output=False,
                                    feature_name_combiner=level_name)
            parts.append(("levels", encoder, list(range(n, n + len(levels)))))
        self.column_transformer_ = ColumnTransformer(
            parts, sparse_threshold=0.0, verbose_feature_names_out="{feature_name}",
        ).set_output(transform="default").fit(table)
        fitted = self.column_transformer_.named_transformers_
        self.medians_ = ({c: float(m) for c, m in zip(numeric, fitted["numbers"].statistics_,
                                                       strict=True)} if numeric else {})
        self.categories_, self.other_levels_ = {}, {}
        if levels:
            encoder = fitted["levels"]
            for column, known, grouped in zip(levels, encoder.categories_,
                                              encoder.infrequent_categories_, strict=True):
                grouped = () if grouped is None else tuple(grouped.tolist())
                self.categories_[column] = tuple(v for v in known.tolist() if v not in grouped)
                if grouped:
                    self.other_levels_[column] = grouped
        self._name_outputs()

    def _name_outputs(self) -> None:
        """Output names and sources in the table's column order (the ColumnTransformer puts
        the numeric block first), and ``_order``: the ColumnTransformer's column for each."""
        widths = {c: len(v) + (c in self.other_levels_) for c, v in self.categories_.items()}
        sources = list(self.medians_) + [c for c, width in widths.items() for _ in range(width)]
        position = {column: j for j, column in enumerate(self.feature_names_in_)}
        self._order = np.argsort([position[c] for c in sources], kind="stable")
        names = self.column_transformer_.get_feature_names_out()[self._order]
        self.feature_names_out_ = np.asarray(unique_names(names), dtype=object)
        self.source_columns_ = np.asarray(sources, dtype=object)[self._order]

    def transform(self, X):
        """The encoded float64 matrix, one column per name in ``feature_names_out_``."""
        check_is_fitted(self)
        X = self._validate_frame(X, reset=False)
        table = self._table(X, self.medians_, self.categories_)
        Z = np.asarray(self.column_transformer_.transform(table), dtype=np.float64)[:, self._order]
        for column in self.other_levels_:  # a missing value is no level, not an unseen one
            missing = table[column].isna().to_numpy()
            Z[np.ix_(missing, self.source_columns_ == column)] = 0.0
        return Z

    @staticmethod
    def _table(X: pd.DataFrame, numeric, categorical) -> pd.DataFrame:
        """The columns the encoder reads: numbers as float64 (missing ones NaN; an infinite
        or absurd one raises DataError, :func:`~forestviz.io.values.check_numbers`), levels as
        text (missing ones NaN)."""
        table = {}
        for column in numeric:
            numbers = as_numbers(X[column]).to_numpy(dtype=np.float64)
            check_numbers(column, numbers)
            table[column] = numbers
        for column in categorical:
            present = X[column].notna().to_numpy()
            text = np.full(len(X), np.nan, dtype=object)
            text[present] = X[column][present].astype(str).to_numpy(dtype=object)
            table[column] = text
        return pd.DataFrame(table, index=pd.RangeIndex(len(X)))

    def inverse_transform(self, X):
        """The original columns' values behind encoded rows (a DataFrame over the kept columns).

        Numeric columns come back as numbers (imputed values stay imputed); an encoded column
        gives the level whose indicator is set (``(other)`` for the grouped levels), or NaN when
        none is set (the value was missing). ``OneHotEncoder.inverse_transform`` refuses that
        last case once a column has a group of infrequent levels, hence the loop here.
        """
        check_is_fitted(self)
        X = np.asarray(X, dtype=np.float64).reshape(-1, len(self.feature_names_out_))
        columns = {}
        for column in self._kept_columns():
            block = X[:, self.source_columns_ == column]
            if column in self.medians_:
                columns[column] = block[:, 0]
                continue
            levels = self.categories_[column] + ((OTHER,) if column in self.other_levels_ else ())
            chosen = np.asarray(levels, dtype=object)[block.argmax(axis=1)]
            columns[column] = np.where(block.max(axis=1) > 0.5, chosen, np.nan)
        return pd.DataFrame(columns)

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self)
        return self.feature_names_out_.copy()

    @property
    def notes_(self) -> tuple[str, ...]:
        """Plain-words notes on the grouped levels and the dropped columns."""
        check_is_fitted(self)
        return tuple(
            [f"'{c}' has {len(self.categories_[c]) + len(other)} different values: the "
             f"{len(self.categories_[c])} most frequent are kept and the other {len(other)} "
             f"are grouped as '{OTHER}'." for c, other in self.other_levels_.items()]
            + [f"'{c}' was left out because {why}." for c, why in self.dropped_columns_.items()])

    def _validate_frame(self, X, *, reset):
        if not isinstance(X, pd.DataFrame):
            raise TypeError("TablePreprocessor needs a pandas DataFrame with named columns.")
        if not all(isinstance(name, str) for name in X.columns):
            raise TypeError("TablePreprocessor needs column names that are text.")
        validate_data(self, X, reset=reset, skip_check_array=True)
        return X

    def _kept_columns(self):
        return [c for c in self.feature_names_in_ if c not in self.dropped_columns_]

    # ------------------------------------------------------------------ plain saved state
    def __getstate__(self) -> dict:
        """The parameters, ``set_output``'s choice and, once fitted, the learnt values as plain
        data: str, int, float, and tuples and dicts of them (no scikit-learn object)."""
        state = {name: getattr(self, name) for name in _PARAMS}
        if hasattr(self, _OUTPUT):
            state[_OUTPUT] = dict(getattr(self, _OUTPUT))
        if hasattr(self, "column_transformer_"):
            state.update({name: getattr(self, name) for name in _FITTED},
                         feature_names_in_=tuple(self.feature_names_in_.tolist()))
        return state

    def __setstate__(self, state: dict) -> None:
        """Check a state of :meth:`__getstate__`, then fit the encoder again on a small table
        of its medians (one row each) and levels (kept ones twice, grouped ones once), which
        gives the same medians, levels and groups. ValueError when the state is not one that
        :meth:`fit` makes."""
        _check_state(state)
        vars(self).update({name: state[name] for name in (*_PARAMS, _OUTPUT) if name in state})
        if "medians_" not in state:
            return
        columns = list(state["feature_names_in_"])
        self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.n_features_in_ = len(columns)
        self.dropped_columns_ = dict(state["dropped_columns_"])
        medians, kept, grouped = state["medians_"], state["categories_"], state["other_levels_"]
        numeric = [c for c in columns if c in medians]
        levels = {c: sorted(kept[c] + grouped.get(c, ())) for c in columns if c in kept}
        rows = max([1] + [2 * len(kept[c]) + len(grouped.get(c, ())) for c in levels])
        width = len(numeric) + sum(len(kept[c]) + (c in grouped) for c in levels)
        if rows * width > MAX_REBUILD_CELLS:  # fit encodes its table: rows x width floats
            raise ValueError("the preprocessor's saved levels are more than forestviz reads")
        table = {c: [medians[c]] + [np.nan] * (rows - 1) for c in numeric}
        for c in levels:
            values = [v for v in kept[c] for _ in range(2)] + list(grouped.get(c, ()))
            table[c] = np.array(values + [np.nan] * (rows - len(values)), dtype=object)
        self._fit_encoder(pd.DataFrame(table), numeric, levels)
        if (self.medians_, self.categories_, self.other_levels_) != (medians, kept, grouped):
            raise ValueError("the preprocessor's saved medians or levels are not ones fit makes")


def level_name(column: str, level: str) -> str:
    """``OneHotEncoder``'s ``feature_name_combiner``: ``column=level``; its group of infrequent
    levels (which it names ``infrequent_sklearn``, as it would a level of that name) is
    ``column=(other)``."""
    return f"{column}={OTHER if level == INFREQUENT else level}"


def _check_state(state) -> None:
    """ValueError unless ``state`` has the keys and plain types :meth:`__getstate__` writes,
    with the columns split between medians, levels and dropped ones as :meth:`fit` does."""
    def texts(value, most=math.inf):
        return (isinstance(value, tuple) and 0 < len(value) <= most
                and all(isinstance(v, str) for v in value) and len(set(value)) == len(value))

    def table(value, check):
        return isinstance(value, dict) and all(isinstance(k, str) and check(v)
                                               for k, v in value.items())

    keys = set(state) - {_OUTPUT} if isinstance(state, dict) else None
    if keys not in (set(_PARAMS), {*_PARAMS, *_FITTED}) or not table(
            state.get(_OUTPUT, {}), lambda v: v in ("default", "pandas", "polars")):
        raise ValueError("the preprocessor's saved state has other fields than it writes")
    if not all(type(state[p]) is int and state[p] >= 1 for p in _PARAMS):
        raise ValueError("the preprocessor's parameters are not positive integers")
    if keys == set(_PARAMS):
        return
    columns, medians = state["feature_names_in_"], state["medians_"]
    kept, grouped, dropped = state["categories_"], state["other_levels_"], state["dropped_columns_"]
    if not (texts(columns) and len(columns) == state["n_features_in_"] <= MAX_REBUILD_COLUMNS
            and table(medians, lambda m: type(m) is float and abs(m) <= MAX_MAGNITUDE)
            and table(kept, lambda v: texts(v, state["max_levels"]))
            and table(grouped, texts) and table(dropped, lambda v: isinstance(v, str))
            and sorted([*medians, *kept, *dropped]) == sorted(columns) and (medians or kept)
            and set(grouped) <= set(kept)
            and all(texts(kept[c] + v, state["max_text_levels"]) for c, v in grouped.items())):
        raise ValueError("the preprocessor's saved columns, medians or levels are damaged")
