"""The user's columns behind the model's encoded features, so an explanation speaks in them.

A model sees numbers: a numeric column passes through (a missing value replaced by the
training median), a categorical column becomes one indicator per level ``column=level``
(:class:`~forestviz.io.preprocessing.TablePreprocessor`). A :class:`ColumnMap` folds those
features back: the row's value per column (the level, not its indicators; "missing", not the
median that stood in for it), percentiles for numeric columns only and the training share of
the row's level for categorical ones, decision-path tests in the column's own words
("sex = F", "sex is not M", "mean radius is missing (imputed as 13.3, the training median),
so = 13.3 ≤ 14.1") and the per-feature contributions summed per column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from forestviz.numbers import apart_note, distinct_texts, number_text
from forestviz.trees.paths import Flip, PathStep

NUMERIC = "numeric"
CATEGORICAL = "categorical"
OTHER = "(other)"  # forestviz.io.preprocessing's group of infrequent levels
NOT_APPLICABLE = "—"  # a text table's cell where a measure does not apply


@dataclass(frozen=True, eq=False)
class Column:
    """One user column: ``features`` are its encoded feature indices; a numeric column has one
    and ``fill`` (the value a missing entry is replaced by); a categorical column has one
    indicator per entry of ``levels`` and ``shares`` (level → share of the training rows with
    it, over all training rows, so a missing entry counts in none)."""

    name: str
    kind: str
    features: tuple[int, ...]
    levels: tuple[str, ...] = ()
    fill: float | None = None
    shares: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class ColumnMap:
    """The columns behind m encoded features; ``owner[j]`` is the column of feature j."""

    columns: tuple[Column, ...]
    owner: np.ndarray

    @classmethod
    def identity(cls, feature_names, fills) -> ColumnMap:
        """Every feature its own numeric column, a missing value filled with ``fills[j]``."""
        columns = tuple(Column(str(name), NUMERIC, (j,), fill=float(fill))
                        for j, (name, fill) in enumerate(zip(feature_names, fills, strict=True)))
        return cls(columns, np.arange(len(columns)))

    @classmethod
    def from_preprocessor(cls, preprocessor, original: pd.DataFrame) -> ColumnMap:
        """The columns of a fitted :class:`~forestviz.io.preprocessing.TablePreprocessor`;
        ``original``: the training rows' columns as the user gave them (level shares)."""
        source = np.asarray(preprocessor.source_columns_, dtype=object)
        columns, owner = [], np.empty(source.size, dtype=np.intp)
        for column in preprocessor.feature_names_in_:
            features = np.flatnonzero(source == column)
            if features.size == 0:  # dropped by the preprocessor
                continue
            owner[features] = len(columns)
            if column in preprocessor.medians_:
                columns.append(Column(str(column), NUMERIC, (int(features[0]),),
                                      fill=float(preprocessor.medians_[column])))
                continue
            grouped = preprocessor.other_levels_.get(column, ())
            levels = tuple(map(str, preprocessor.categories_[column])) + (
                (OTHER,) if grouped else ())
            text = original[column].dropna().astype(str)
            counts = text.where(~text.isin(set(map(str, grouped))), OTHER).value_counts()
            n = max(len(original), 1)
            columns.append(Column(str(column), CATEGORICAL, tuple(int(j) for j in features),
                                  levels=levels,
                                  shares={lv: float(counts.get(lv, 0)) / n for lv in levels}))
        return cls(tuple(columns), owner)

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def fill_missing(self, x) -> tuple[np.ndarray, frozenset[str]]:
        """``x`` with NaN numeric features replaced by their fill value, and the names of the
        columns that were missing (a categorical column with no indicator set counts too)."""
        x = np.array(x, dtype=np.float64)
        missing = set()
        for column in self.columns:
            values = x[list(column.features)]
            if column.kind == NUMERIC and np.isnan(values[0]):
                x[column.features[0]] = column.fill
                missing.add(column.name)
            elif column.kind == CATEGORICAL and not (np.nan_to_num(values) > 0.5).any():
                x[list(column.features)] = 0.0
                missing.add(column.name)
        return x, frozenset(missing)

    def level(self, column: Column, x) -> str | None:
        """The level whose indicator is set in ``x``, None when none is (missing)."""
        values = np.asarray(x, dtype=np.float64)[list(column.features)]
        return column.levels[int(np.argmax(values))] if (values > 0.5).any() else None

    def row_table(self, x, missing, original=None, *, medians, percentiles,
                  spreads=None) -> pd.DataFrame:
        """The row per user column (ERF Tables 6-7 in the user's terms).

        ``feature``: the column's name; ``value``: the value as the user knows it
        (``original[column]`` when given), or "missing"; ``missing``: whether it was; ``used
        as``: what the model saw (the fill value of a missing number, the level, or "no level"
        for a missing category); ``median``: the
        training median (numeric) and ``percentile`` of the value among the training rows
        (numeric and present only); ``most common``: the most frequent training level and
        ``share``: the training share of the row's level (categorical only). ``medians`` and
        ``percentiles`` (and ``spreads``, which set the decimals of a column's numbers,
        :mod:`forestviz.numbers`) are per encoded feature.
        """
        keys = ("feature", "kind", "value", "missing", "used as", "median", "percentile",
                "most common", "share")
        rows = []  # tuples in the order of ``keys``: one frame built column-wise at the end
        for column in self.columns:
            absent = column.name in missing
            given = None if original is None else original.get(column.name)
            if column.kind == NUMERIC:
                j = column.features[0]
                used = float(x[j])
                spread = None if spreads is None else spreads[j]
                used_text = number_text(used, spread)
                rows.append((column.name, NUMERIC,
                             "missing" if absent else _given(given, used, spread), absent,
                             f"{used_text} (the training median)" if absent else used_text,
                             float(medians[j]), np.nan if absent else float(percentiles[j]),
                             None, np.nan))
                continue
            level = self.level(column, x)
            common = max(column.shares, key=column.shares.get) if column.shares else None
            rows.append((column.name, CATEGORICAL,
                         "missing" if absent else _given(given, level, None), absent,
                         "no level" if level is None else level, np.nan, np.nan, common,
                         np.nan if level is None else column.shares.get(level, 0.0)))
        values = list(zip(*rows, strict=True)) if rows else [()] * len(keys)
        return pd.DataFrame({key: list(v) for key, v in zip(keys, values, strict=True)})

    def text_table(self, table: pd.DataFrame, spreads=None) -> pd.DataFrame:
        """:meth:`row_table`'s ``table`` as a person reads it, every cell a string (so each
        column is text, as Arrow and Streamlit's tables need): ``feature``, ``value``,
        ``used as`` (only when a value is missing), ``training median`` (to the column's
        spread's digits, :mod:`forestviz.numbers`, as the value prints; four significant
        digits without ``spreads``), ``percentile`` (one decimal), and, when there is a
        categorical column, ``most common level`` and ``share with this level`` (a per cent).
        ``NOT_APPLICABLE`` ("—") where a measure does not apply: the median and percentile
        of a category, the level and share of a number, the percentile of a missing value
        (:func:`text_table_note` says so in words). ``spreads`` are per encoded feature."""
        numeric = [column.kind == NUMERIC for column in self.columns]
        spread = [None if spreads is None or not is_number else spreads[column.features[0]]
                  for column, is_number in zip(self.columns, numeric, strict=True)]
        shown = {"feature": table["feature"].astype(str), "value": table["value"].astype(str)}
        if table["missing"].any():
            shown["used as"] = table["used as"].astype(str)
        shown["training median"] = [number_text(m, s) if n else NOT_APPLICABLE for m, s, n
                                    in zip(table["median"], spread, numeric, strict=True)]
        shown["percentile"] = [NOT_APPLICABLE if np.isnan(p) else f"{p:.1f}"
                               for p in table["percentile"]]
        if not all(numeric):
            shown["most common level"] = [NOT_APPLICABLE if pd.isna(c) else str(c)
                                          for c in table["most common"]]
            shown["share with this level"] = [NOT_APPLICABLE if np.isnan(v) else f"{v:.1%}"
                                              for v in table["share"]]
        return pd.DataFrame(shown, dtype=object)

    def test_sentence(self, step: PathStep, missing, name=str) -> str:
        """A path test (:class:`~forestviz.trees.paths.PathStep`) in the column's words."""
        feature, direction = step.feature, step.direction
        column = self.columns[self.owner[feature]]
        shown = name(column.name)
        if column.kind == CATEGORICAL:
            level = column.levels[column.features.index(feature)]
            said = (f"{shown} is not {_level(level, name)}" if direction == "<="
                    else f"{shown} = {_level(level, name)}")
            return said + (" (missing)" if column.name in missing else "")
        value_text, threshold_text = distinct_texts(step.value, step.threshold,
                                                    spread=step.spread)
        sign = "≤" if direction == "<=" else ">"
        test = f"= {value_text} {sign} {threshold_text}" + apart_note(
            (value_text, threshold_text), (step.value, step.threshold))
        if column.name in missing:
            return (f"{shown} is missing (imputed as {value_text}, the training median), so "
                    + test)
        return f"{shown} {test}"

    def flip_sentence(self, flip: Flip, missing, name=str) -> str:
        """A test flipped (:class:`~forestviz.trees.paths.Flip`, read after "if") in the
        column's words: "sex were F", "age were above 40"."""
        feature, direction = flip.feature, flip.direction
        column = self.columns[self.owner[feature]]
        shown = name(column.name)
        if column.kind == CATEGORICAL:
            level = column.levels[column.features.index(feature)]
            return f"{shown} were {'not ' if direction == '<=' else ''}{_level(level, name)}"
        where = "at most" if direction == "<=" else "above"
        note = " (it is missing)" if column.name in missing else ""
        (threshold,) = distinct_texts(flip.threshold, spread=flip.spread)
        return f"{shown} were {where} {threshold}{note}"

    def fold(self, per_feature) -> np.ndarray:
        """Per-feature quantities (m, …) summed per column (n_columns, …): e.g. contributions
        of a category's indicators become the contribution of its column."""
        per_feature = np.asarray(per_feature, dtype=np.float64)
        out = np.zeros((len(self.columns), *per_feature.shape[1:]))
        np.add.at(out, self.owner, per_feature)
        return out


def text_table_note(table: pd.DataFrame) -> str:
    """What the columns of a :meth:`ColumnMap.text_table` mean, in words."""
    said = ["Training median: the middle value of the training rows; percentile: the share of "
            "training rows with a lower value, those with the same value counting half "
            "(numeric columns)."]
    if "most common level" in table:
        said.append("Most common level, and the share of training rows with this row's level "
                    "(categorical columns).")
    if "used as" in table:
        said.append("Used as: what the model used for a missing value.")
    if (table == NOT_APPLICABLE).any(axis=None):
        said.append(f"{NOT_APPLICABLE} : does not apply to this kind of column, or the value is "
                    "missing.")
    return " ".join(said)


def _given(given, fallback, spread) -> str:
    """The user's value as text (numbers as :func:`forestviz.numbers.number_text` prints them
    with the column's ``spread``)."""
    value = fallback if given is None or (np.isscalar(given) and pd.isna(given)) else given
    if isinstance(value, float | np.floating):
        return number_text(value, spread)
    return str(value)


def _level(level: str, name=str) -> str:
    """A level as a test says it: a user-given name (shown through ``name``, e.g. cut), or the
    rare levels' group in words."""
    return "one of the rare levels grouped as (other)" if level == OTHER else name(level)
