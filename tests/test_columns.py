"""Explanations in the user's columns (forestviz.explain.row.columns): one-hot indicators folded
back into their category, missing values said as missing, percentiles only for numbers and
training shares for levels, paths and flips in the column's words."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from scipy.stats import percentileofscore
from sklearn.ensemble import RandomForestRegressor

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain import explain
from forestviz.explain.row.columns import NOT_APPLICABLE, ColumnMap, text_table_note
from forestviz.io.dataset import Dataset
from forestviz.io.preprocessing import TablePreprocessor


def _clinic(n=240, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    site = rng.choice(["north", "south", "east", "west", "rare1", "rare2"], n,
                      p=[0.3, 0.3, 0.2, 0.16, 0.02, 0.02])
    radius = rng.normal(14, 3, n)
    risk = (radius > 14) ^ (sex == "F")
    frame = pd.DataFrame({"patient": [f"P{i}" for i in range(n)], "sex": sex, "site": site,
                          "mean radius": radius,
                          "outcome": np.where(risk ^ (rng.random(n) < 0.1), "sick", "well")})
    frame.loc[[3, 7], "sex"] = np.nan
    frame.loc[[3, 11], "mean radius"] = np.nan
    return frame


@pytest.fixture(scope="module")
def bench():
    dataset = Dataset.from_frame(_clinic(), "outcome", id_column="patient")
    bench = Workbench(dataset)
    bench.train(Settings(family="vanilla", n_estimators=20))
    return bench


def test_the_feature_table_speaks_in_the_users_columns(bench):
    frame = bench.dataset.X
    e = bench.explain(3)  # sex and mean radius missing
    table = e.features.set_index("feature")
    assert list(table.index) == ["sex", "site", "mean radius"]
    assert e.missing == frozenset({"sex", "mean radius"})
    train = frame.iloc[bench.model.train_rows]
    radius = table.loc["mean radius"]
    median = float(np.nanmedian(train["mean radius"]))
    assert radius["value"] == "missing" and radius["missing"]
    assert radius["used as"] == f"{median:.4g} (the training median)"
    assert np.isnan(radius["percentile"])
    sex = table.loc["sex"]
    assert sex["value"] == "missing" and sex["used as"] == "no level" and np.isnan(sex["share"])
    site = table.loc["site"]
    level = frame.iloc[3]["site"]
    assert not site["missing"] and site["value"] == level and np.isnan(site["percentile"])
    assert site["share"] == pytest.approx((train["site"] == level).sum() / len(train))
    assert site["most common"] == train["site"].value_counts().idxmax()

    present = bench.explain(0)
    row = present.features.set_index("feature").loc["mean radius"]
    x = frame.iloc[0]["mean radius"]
    assert row["value"] == f"{x:.4g}" and not row["missing"]
    X_train = bench.model.X_train[:, list(bench.model.feature_names).index("mean radius")]
    assert row["percentile"] == pytest.approx(percentileofscore(X_train, x, kind="mean"))
    assert present.features.set_index("feature").loc["sex", "value"] == frame.iloc[0]["sex"]


def spread_digits(value, spread) -> str:
    """``value`` to the place of the third significant digit of ``spread``, trailing zeros
    dropped, thousands grouped, a true minus: worked out here from the spread's scientific
    notation, not by forestviz.numbers."""
    places = max(0, 2 - int(f"{spread:.2e}".split("e")[1]))
    text = f"{value:,.{places}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text == "-0" else text.replace("-", "−")


def all_text(table: pd.DataFrame) -> bool:
    """Every cell a string, and the table a table of strings to Arrow (Streamlit's format)."""
    cells = table.map(lambda cell: isinstance(cell, str)).all(axis=None)
    schema = pa.Table.from_pandas(table, preserve_index=False).schema
    return bool(cells) and all(pa.types.is_string(t) for t in schema.types)


def test_the_shown_feature_table_is_text_with_each_columns_digits(bench):
    e = bench.explain(3)  # sex and mean radius missing
    shown = e.feature_texts()
    assert all_text(shown) and "None" not in shown.to_numpy()
    assert list(shown.columns) == ["feature", "value", "used as", "training median",
                                   "percentile", "most common level", "share with this level"]
    rows = shown.set_index("feature")
    raw = e.features.set_index("feature")
    radius = rows.loc["mean radius"]
    j = list(bench.model.feature_names).index("mean radius")
    column = bench.model.X_train[:, j]
    assert radius["training median"] == spread_digits(np.median(column), column.std())
    assert radius["used as"] == raw.loc["mean radius", "used as"]
    # a missing number has no percentile; a number has no level
    assert (radius["percentile"], radius["most common level"],
            radius["share with this level"]) == (NOT_APPLICABLE,) * 3
    train = bench.dataset.X.iloc[bench.model.train_rows]
    site, level = rows.loc["site"], bench.dataset.X.iloc[3]["site"]
    assert (site["training median"], site["percentile"]) == (NOT_APPLICABLE,) * 2
    assert site["most common level"] == train["site"].value_counts().idxmax()
    share = (train["site"] == level).sum() / len(train)
    assert site["share with this level"].endswith("%")
    assert float(site["share with this level"][:-1]) == pytest.approx(100 * share, abs=0.05)
    sex = rows.loc["sex"]  # missing: no level, so no share
    assert (sex["value"], sex["used as"], sex["share with this level"]) == (
        "missing", "no level", NOT_APPLICABLE)
    note = text_table_note(shown)
    assert "Most common level" in note and "Used as" in note and NOT_APPLICABLE in note

    present = bench.explain(0).feature_texts().set_index("feature").loc["mean radius"]
    x = bench.dataset.X.iloc[0]["mean radius"]
    percentile = percentileofscore(column, x, kind="mean")
    assert present["percentile"] == f"{percentile:.1f}"


def test_a_table_of_present_numbers_shows_only_what_applies():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.normal(120, 30, 300).round(), rng.normal(0, 0.004, 300),
                         rng.normal(5000, 900, 300)])
    y = X[:, 0] + 1000 * X[:, 1] + rng.normal(size=300)
    model = RandomForestRegressor(10, max_depth=4, random_state=0).fit(X, y)
    e = explain(model, X[7], X_train=X, y_train=y)
    shown = e.feature_texts()
    assert all_text(shown)
    assert list(shown.columns) == ["feature", "value", "training median", "percentile"]
    for j, median in enumerate(shown["training median"]):
        assert median == spread_digits(np.median(X[:, j]), X[:, j].std())
        assert shown["percentile"][j] == f"{percentileofscore(X[:, j], X[7, j], kind='mean'):.1f}"
    assert shown["training median"][1] != f"{np.median(X[:, 1]):.4g}"  # not 4 digits blindly
    assert NOT_APPLICABLE not in shown.to_numpy()
    assert NOT_APPLICABLE not in text_table_note(shown) and "Used as" not in text_table_note(shown)


def test_paths_and_flips_say_levels_not_indicators(bench):
    frame = bench.dataset.X
    seen = {"level": 0, "not level": 0, "missing": 0}
    for position in range(12):
        e = bench.explain(position, top_k=20)
        sex = frame.iloc[position]["sex"]
        for steps in e.paths:
            for step in steps:
                said = e.step_sentence(step)
                assert "=0" not in said.replace(" ", "") and "0.5" not in said
                if not step.feature_name.startswith("sex="):
                    continue
                level = step.feature_name.split("=", 1)[1]
                if pd.isna(sex):
                    assert said == f"sex is not {level} (missing)"
                    seen["missing"] += 1
                elif step.direction == ">":
                    assert said == f"sex = {level}" and sex == level
                    seen["level"] += 1
                else:
                    assert said == f"sex is not {level}" and sex != level
                    seen["not level"] += 1
        for others in e.alternatives:
            for other in others:
                said = e.alternative_sentence(other)
                tests = said.split(", this tree would say ")[0]
                assert tests.startswith("if ") and "0.5" not in tests
    assert all(seen.values()), seen


def test_the_preprocessor_map_folds_indicators_into_columns(bench):
    columns = bench.model.summary.columns
    names = bench.model.feature_names
    per_feature = np.arange(len(names), dtype=float) + 1
    folded = columns.fold(per_feature)
    assert folded.sum() == pytest.approx(per_feature.sum())
    for value, column in zip(folded, columns.columns, strict=True):
        expected = sum(per_feature[j] for j, name in enumerate(names)
                       if name == column.name or name.startswith(f"{column.name}="))
        assert value == pytest.approx(expected)


def test_grouped_levels_are_one_level_with_their_training_share():
    frame = _clinic()
    pre = TablePreprocessor(max_levels=4).fit(frame[["sex", "site", "mean radius"]])
    columns = ColumnMap.from_preprocessor(pre, frame)
    site = columns.columns[columns.names.index("site")]
    assert site.levels[-1] == "(other)" and len(site.levels) == 5
    grouped = frame["site"].isin(pre.other_levels_["site"])
    assert site.shares["(other)"] == pytest.approx(grouped.sum() / len(frame))
    features = frame[["sex", "site", "mean radius"]]
    x = pre.transform(features.iloc[[frame.index[grouped][0]]])[0]
    assert columns.level(site, x) == "(other)"
    # the preprocessor imputes a number itself; a row given to explain() may hold NaN
    radius = list(pre.feature_names_out_).index("mean radius")
    x = pre.transform(features.iloc[[3]])[0]
    x[radius] = np.nan
    x, missing = columns.fill_missing(x)
    assert missing == frozenset({"sex", "mean radius"})
    assert x[radius] == pre.medians_["mean radius"]


def test_feature_importance_is_per_user_column(bench):
    bars = bench.global_views().importance.data[0]
    model = bench.model
    importance = model.estimator.feature_importances_
    names = list(model.feature_names)
    expected = {column: sum(importance[j] for j, name in enumerate(names)
                            if name == column or name.startswith(f"{column}="))
                for column in ("sex", "site", "mean radius")}
    assert sorted(bars.y) == sorted(expected)
    for label, value in zip(bars.y, bars.x, strict=True):
        assert value == pytest.approx(expected[label])
