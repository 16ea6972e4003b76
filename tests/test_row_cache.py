"""What the Explain page builds for a row, once per model and row (issue 38,
forestviz.app.row_cache): its figures, the summary's waterfall and the stability line; what the
cache gives equals a fresh build, two models or two rows never share an entry, and figures the
page does not show are not built."""

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from forestviz.app.whole_model import stability_of
from forestviz.app.workbench import Workbench
from forestviz.app.workflow import Settings
from forestviz.explain.plots.conventions import WIDTH
from forestviz.explain.plots.reasons import fitted_waterfall
from forestviz.explain.row.figures import WEIGHT_FIGURES, figures
from forestviz.io.bundled import load_dataset

pytestmark = pytest.mark.slow  # three models trained


@pytest.fixture(scope="module")
def pima():
    return load_dataset("pima_diabetes")


def trained(dataset, family: str, seed: int, **options) -> Workbench:
    bench = Workbench(dataset)
    bench.train(Settings(family=family, n_estimators=20, random_state=seed, **options))
    return bench


@pytest.fixture(scope="module")
def benches(pima):
    """Two models of one kind on one data set, differing by their seed, and an attention
    forest (unequal tree weights: the weight figures are shown)."""
    return {"plain 0": trained(pima, "vanilla", 0), "plain 1": trained(pima, "vanilla", 1),
            "attention": trained(load_dataset("friedman1", n_samples=300), "abrf1_qp", 0,
                                 auto_tune=False, eps=0.5)}


def fresh(bench: Workbench, position: int) -> tuple[dict[str, str], object, object]:
    """The page's figures of the row as JSON, built by the library with no cache (every
    figure, less the weights' when they are equal), its explanation and tree choice."""
    e = bench.explain(position)
    choice = bench.tree_choice(e)
    built = figures(e, width=WIDTH, trees=choice.trees)
    return ({name: fig.to_json() for name, fig in built.items()
             if not (choice.equal_weights and name in WEIGHT_FIGURES)}, e, choice)


def fresh_summary(bench: Workbench, position: int) -> tuple[str, str]:
    """The summary's waterfall (JSON) and stability line of the row, built with no cache."""
    e = bench.explain(position)
    reasons = fitted_waterfall(bench.glance(e).reasons, width=290, height=400)
    return reasons.to_json(), stability_of(bench.model, e).sentence()


def shown(bench: Workbench, position: int) -> dict[str, str]:
    e = bench.explain(position)  # a new explanation object each time, as each page run has
    glance = bench.glance(e)
    charts = {name: fig.to_json()
              for name, fig in bench.explain_view(e, glance, width=WIDTH).charts().items()}
    reasons = bench.reasons_figure(glance, e, width=290, height=400)
    return {**charts, "reasons": reasons.to_json(),
            "stability": bench.whole().stability(e).sentence()}


def expected(bench: Workbench, position: int) -> dict[str, str]:
    reasons, stability = fresh_summary(bench, position)
    return {**fresh(bench, position)[0], "reasons": reasons, "stability": stability}


@pytest.mark.parametrize("name", ["plain 0", "attention"])
def test_a_cache_hit_is_the_fresh_build_and_the_weights_figures_only_when_they_differ(
        benches, name):
    bench = benches[name]
    expected, e, choice = fresh(bench, 3)
    first = bench.explain_view(e, bench.glance(e), width=WIDTH).charts()
    assert {k: fig.to_json() for k, fig in first.items()} == expected
    assert choice.equal_weights == (name == "plain 0")
    assert WEIGHT_FIGURES.isdisjoint(first) == choice.equal_weights  # not built when hidden
    again = bench.explain(3)
    hit = bench.explain_view(again, bench.glance(again), width=WIDTH).charts()
    assert all(hit[k] is first[k] for k in first) and hit.keys() == first.keys()
    # the summary's waterfall and stability line: the fresh build's, then the same objects
    reasons = bench.reasons_figure(bench.glance(e), e, width=290, height=400)
    stability = bench.whole().stability(e)
    assert (reasons.to_json(), stability.sentence()) == fresh_summary(bench, 3)
    assert bench.reasons_figure(bench.glance(again), again, width=290, height=400) is reasons
    assert bench.whole().stability(again) is stability
    other = bench.reasons_figure(bench.glance(e), e, width=300, height=400)  # other options
    assert other is not reasons and other.layout.width == 300


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.integers(0, 40), min_size=2, max_size=4))
@example(rows=[5, 6, 5])
def test_two_models_or_two_rows_never_share_an_entry(benches, rows):
    """Rows asked of two models in turn, repeats included: each answer is that model's own
    fresh build of that row."""
    for position in rows:
        for name in ("plain 0", "plain 1"):
            assert shown(benches[name], position) == expected(benches[name], position)
    first, second = (shown(benches[name], rows[0]) for name in ("plain 0", "plain 1"))
    for name in ("contributions", "reasons"):
        assert first[name] != second[name]  # two models, two answers
