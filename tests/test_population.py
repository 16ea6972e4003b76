"""The whole model from its explanations (forestviz.explain.whole.population) and partial
dependence through the model's own prediction (forestviz.explain.whole.partial_dependence), on real
trainings: against each row's own explanation and against scikit-learn."""

import numpy as np
import pandas as pd
import pytest
from sklearn.inspection import partial_dependence as sklearn_partial_dependence

from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.plots import population as population_plots
from forestviz.explain.whole.partial_dependence import grid_of, partial_dependence
from forestviz.explain.whole.population import Population
from forestviz.io.bundled import load_dataset
from forestviz.io.dataset import Dataset


@pytest.fixture(scope="module")
def bench():
    frame = load_dataset("pima_diabetes").frame.drop(columns="Patient ID", errors="ignore")
    frame["Clinic"] = np.where(np.arange(len(frame)) % 3 == 0, "north", "south")
    bench = Workbench(Dataset.from_frame(frame, target="Diabetes", name="pima with a clinic"))
    bench.train(Settings(family="abrf1_qp", n_estimators=20, random_state=0))
    return bench


@pytest.mark.slow
def test_importance_is_the_mean_of_the_rows_own_contributions(bench):
    population = bench.whole().population()
    model = bench.model
    assert population.contributions.shape == (len(model.test_rows), bench.dataset.X.shape[1])
    own = []
    for position in model.test_rows:
        e = bench.explain(int(position))
        totals = e.contributions.total[:, 1]  # to P(Yes), as the page's waterfall
        own.append(pd.Series(totals, index=e.contributions.feature_names))
        np.testing.assert_allclose(population.prediction[len(own) - 1], e.prediction[1],
                                   rtol=0, atol=1e-12)
    own = pd.DataFrame(own)[population.columns].to_numpy()
    np.testing.assert_allclose(population.contributions, own, rtol=0, atol=1e-12)
    table = population.importance().set_index("column")
    for j, column in enumerate(population.columns):
        assert table.loc[column, "mean |contribution|"] == pytest.approx(
            np.abs(own[:, j]).mean(), abs=1e-12)
    assert table["share of all movement"].sum() == pytest.approx(1.0)
    assert table["mean |contribution|"].is_monotonic_decreasing


def test_interaction_finds_the_column_a_contribution_follows():
    rng = np.random.default_rng(0)
    n = 400
    values = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                           "c": rng.normal(size=n)})
    # φ_a depends on a, and on c's sign within each value of a; b is noise
    contributions = np.column_stack([values["a"] * (1 + np.sign(values["c"])),
                                     rng.normal(size=n) * 0.01, rng.normal(size=n) * 0.01])
    population = Population(ids=np.arange(n).astype(object), values=values,
                            contributions=contributions, base=np.zeros(n), target="y")
    assert population.interaction("a") == "c"
    found = population.dependence("a")
    assert (found["colour_column"] == "c").all()
    np.testing.assert_array_equal(found["contribution"], contributions[:, 0])


@pytest.mark.slow
def test_partial_dependence_equals_scikit_learns_brute_force(bench):
    model = bench.model
    rows = bench.dataset.X.iloc[model.test_rows]
    encoded = model.preprocessor.transform(rows)
    column = "Glucose (mg/dL)"
    j = list(model.preprocessor.source_columns_).index(column)
    grid = grid_of(rows[column], numeric=True)

    def risk(frame):
        return model.estimator.predict_proba(model.preprocessor.transform(frame))[:, 1]

    ours = partial_dependence(risk, rows, column, grid, max_rows=len(rows))
    theirs = sklearn_partial_dependence(model.estimator, encoded, [j],
                                        custom_values={j: grid}, method="brute", kind="both")
    np.testing.assert_allclose(ours.average, theirs["average"][0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.ice, theirs["individual"][0], rtol=0, atol=1e-9)


def test_a_text_columns_levels_are_set_whole(bench):
    model = bench.model
    rows = bench.dataset.X.iloc[model.test_rows[:40]]

    def risk(frame):
        return model.estimator.predict_proba(model.preprocessor.transform(frame))[:, 1]

    grid = grid_of(rows["Clinic"], numeric=False)
    assert set(grid) == {"north", "south"}
    found = partial_dependence(risk, rows, "Clinic", grid, max_rows=25, random_state=0)
    assert found.ice.shape == (25, 2) and len(set(found.rows)) == 25
    for i, position in enumerate(found.rows):
        for g, level in enumerate(grid):
            one = rows.iloc[[position]].copy()
            one["Clinic"] = level
            assert found.ice[i, g] == pytest.approx(risk(one)[0], abs=1e-12)


def test_the_figures_draw_the_populations_numbers(bench):
    population = bench.whole().population()
    table = population.importance()
    fig = population_plots.contribution_importance(table, population.target)
    (bars,) = fig.data
    np.testing.assert_array_equal(bars.x, table["mean |contribution|"].to_numpy()[::-1])
    np.testing.assert_array_equal(bars.error_x.array,
                                  table["spread (SD of |contribution|)"].to_numpy()[::-1])
    assert list(fig.layout.yaxis.ticktext) == list(bars.y)  # every bar named
    assert list(bars.y)[-1] == table["column"].iloc[0]  # the largest on top

    swarm = population_plots.beeswarm(population)
    ticks = list(swarm.layout.yaxis.ticktext)
    assert ticks[::-1] == list(table["column"])  # every column named, largest on top
    for j, column in enumerate(population.columns):
        line = ticks.index(column)
        drawn = np.concatenate([t.x for t in swarm.data if abs(np.mean(t.y) - line) < 0.5])
        np.testing.assert_array_equal(np.sort(drawn), np.sort(population.contributions[:, j]))

    frame = population.dependence("Glucose (mg/dL)")
    dep = population_plots.dependence_figure(frame, "Glucose (mg/dL)", population.target)
    np.testing.assert_array_equal(np.sort(np.concatenate([t.y for t in dep.data])),
                                  np.sort(frame["contribution"].to_numpy()))
    assert frame["colour_column"].iloc[0] in dep.layout.title.subtitle.text

    model = bench.model
    rows = bench.dataset.X.iloc[model.test_rows]

    def risk(f):
        return model.estimator.predict_proba(model.preprocessor.transform(f))[:, 1]

    found = partial_dependence(risk, rows, "Age (years)", grid_of(rows["Age (years)"], True),
                               random_state=0)
    pdp = population_plots.partial_dependence_figure(found, population.target)
    np.testing.assert_array_equal(pdp.data[-1].y, found.average)
    assert len(pdp.data) == 1 + min(population_plots.ICE_SHOWN, found.ice.shape[0])


def test_cohorts_compare_the_groups_own_means(bench):
    from forestviz.app import whole_model
    from forestviz.explain.whole.cohorts import TREES_SHOWN

    model = bench.model
    population = bench.whole().population()
    found = bench.whole().cohorts("column", "Glucose (mg/dL)")
    values = bench.dataset.X.iloc[model.test_rows]["Glucose (mg/dL)"].to_numpy(dtype=float)
    cut = np.nanmedian(values)
    a, b = values <= cut, values > cut
    assert found.sizes == (a.sum(), b.sum())
    table = found.columns.set_index("column")
    for j, column in enumerate(population.columns):
        mean_a, mean_b = (population.contributions[m, j].mean() for m in (a, b))
        assert table.loc[column, "difference"] == pytest.approx(mean_b - mean_a, abs=1e-12)
        se = np.sqrt(population.contributions[a, j].var(ddof=1) / a.sum()
                     + population.contributions[b, j].var(ddof=1) / b.sum())
        assert table.loc[column, "standard error"] == pytest.approx(se, abs=1e-12)
    assert found.columns["difference"].abs().is_monotonic_decreasing
    effective = 1 / (model.test_weights**2).sum(axis=1)
    assert found.effective == pytest.approx((effective[a].mean(), effective[b].mean()))
    assert len(found.trees) == min(TREES_SHOWN, model.n_trees)
    right = model.estimator.predict(model.X_test) == model.y_test
    masks = whole_model.cohort_masks(model, bench.dataset.X, "outcome")
    np.testing.assert_array_equal(masks[0], right)
    level = whole_model.cohort_masks(model, bench.dataset.X, "column", "Clinic", "north")
    np.testing.assert_array_equal(
        level[0], bench.dataset.X.iloc[model.test_rows]["Clinic"].to_numpy() == "north")
    fig = population_plots.cohort_figure(found, population.target)
    assert list(fig.data[0].y)[-1] == found.columns["column"].iloc[0]
    np.testing.assert_array_equal(fig.data[1].x, found.columns[f"mean in {found.names[1]}"]
                                  .to_numpy()[::-1])
