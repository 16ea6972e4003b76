"""The forests the ABRF search scores, with their rows (Utkin & Konstantinov,
"Attention-based Random Forest and Contamination Model"; algorithms.md §1).

A :class:`Context` is one forest with its leaf statistics, the rows fitting the contamination
weights w with their Gram reduction G = Σ_s ω_s·V_sᵀV_s (one O(nT²) product serves the whole
(ε, τ) grid, algorithms.md §1), and the rows scoring it (:class:`Part`):

* ``cv`` given: K-fold, a forest per fold;
* else, with a bootstrap base forest (``base="random"``): the out-of-bag rows of the one
  forest — each row is scored only by the trees that did not see it, with its own
  contribution removed from the leaf means (leave-one-out leaf statistics, :func:`oob_part`),
  so fitting costs one forest; w is then cross-fitted over two halves of the rows
  (:func:`make_context`);
* else (``base="extra"``, no bootstrap): a random ``validation_fraction`` split, a forest on
  the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from sklearn.model_selection import ShuffleSplit, check_cv

from forestviz.attention.simplex import LP_ROW_CAP, SimplexLP
from forestviz.attention.weights import distances, median_distance, stack
from forestviz.trees.leaf_stats import LeafStats
from forestviz.trees.leaf_values import estimator_leaf_values, spread_columns


@dataclass(frozen=True)
class Part:
    """Leaf quantities of a set of rows under one forest.

    ``V`` (n, T, C) leaf values, ``d`` (n, T) distances, ``Y`` (n, C) targets, ``weight``
    (n,) row weights, ``rows`` indices into the fit data, ``leaves`` global leaf ids (n, T);
    for out-of-bag rows ``mask`` (n, T) marks the trees that did not see the row and
    ``scale`` (n, T) = (c/(c − 1))² turns a squared difference to the leaf mean into the one
    to the leave-one-out leaf mean (c = rows in the leaf).
    """

    V: np.ndarray
    d: np.ndarray
    Y: np.ndarray
    weight: np.ndarray
    rows: np.ndarray
    leaves: np.ndarray
    mask: np.ndarray | None = None
    scale: np.ndarray | None = None


@dataclass(frozen=True)
class Context:
    """One forest, its leaf statistics, the rows fitting w (``train``) with their Gram
    reduction, and the rows scoring it (``val``, may be None)."""

    forest: object
    stats: LeafStats
    values: np.ndarray  # (N, C) leaf values aligned with the estimator's classes
    own_values: np.ndarray  # (N, C) the trees' own leaf values (their bootstrap), aligned too
    train: Part
    val: Part | None
    gram: np.ndarray  # G = Σ_s ω_s V_sᵀV_s (T, T)
    Vty: np.ndarray  # Σ_s ω_s V_sᵀY_s (T,)
    lipschitz: float  # λ_max(G)
    lp: tuple | None = None  # (rows, SimplexLP) for loss="l1", built once per forest
    halves: tuple = ()  # out of bag: ((val rows in half h, context fitting w without half h), …)

    @property
    def median_distance(self) -> float:
        """median d over training rows and trees, the unit of τ (:func:`median_distance`)."""
        return median_distance(self.train.d)


def held_out_folds(model, X, y, rng):
    """The (fitting rows, held-out rows) pairs of the validation forests of ``model``'s
    ``cv`` or ``validation_fraction`` split (shuffled with ``rng``), or None when the one
    forest's out-of-bag rows score the grid (a bootstrap ``base="random"`` without ``cv``)."""
    if model.cv is not None:
        return check_cv(model.cv, y, classifier=model.task == "classification").split(X, y)
    if model.base == "random":
        return None
    return ShuffleSplit(1, test_size=model.validation_fraction,
                        random_state=rng.randint(2**31 - 1)).split(X)


def leaf_part(stats, values, X, Y, weight, rows) -> Part:
    """The leaf quantities of ``rows`` under the forest of ``stats``."""
    leaves = stats.global_leaf_ids(X[rows])
    d = distances(stats, leaves, X[rows], stats.leaf_sq_norms, 1.0)
    return Part(values[leaves], d, Y[rows], weight[rows], rows, leaves)


def oob_part(forest, stats, train) -> Part:
    """Out-of-bag view of the training rows with leave-one-out leaf statistics: in a
    leaf of c rows, B⁽⁻ˢ⁾ = (c·B − y_s)/(c − 1) and x̃_s − A⁽⁻ˢ⁾ = c/(c − 1)·(x̃_s − A)."""
    n, T = train.leaves.shape
    samples = forest.estimators_samples_
    mask = np.ones((n, T), dtype=bool)
    mask[np.concatenate(samples), np.repeat(np.arange(T), [s.size for s in samples])] = False
    c = stats.counts[train.leaves]
    mask &= c > 1
    keep = mask.any(axis=1)
    mask, c = mask[keep], c[keep]
    ratio = np.where(mask, c / np.maximum(c - 1, 1), 1.0)
    V = (c[:, :, None] * train.V[keep] - train.Y[keep][:, None, :]) / np.maximum(
        c - 1, 1)[:, :, None]
    V = np.where(mask[:, :, None], V, 0.0)
    return Part(V, ratio**2 * train.d[keep], train.Y[keep], train.weight[keep],
                train.rows[keep], train.leaves[keep], mask, ratio**2)


def subset(part: Part, index) -> Part:
    """The rows ``index`` of ``part``."""
    return Part(*(None if value is None else value[index] for value in vars(part).values()))


def fitting_terms(train: Part, rng, loss) -> dict:
    """What fitting w needs from the training rows: the Gram reduction G, Vᵀy, λ_max(G)
    and, for ``loss="l1"``, the LP on at most LP_ROW_CAP of them."""
    weighted = stack(train.V * train.weight[:, None, None])
    gram = stack(train.V * np.sqrt(train.weight)[:, None, None])
    gram = gram.T @ gram
    lp = None
    if loss == "l1":
        n, C = train.Y.shape
        cap = max(LP_ROW_CAP // C, 1)
        rows = np.sort(rng.choice(n, cap, replace=False)) if n > cap else np.arange(n)
        lp = (rows, SimplexLP(stack(train.V[rows] * train.weight[rows, None, None])))
    return {"train": train, "gram": gram, "Vty": weighted.T @ train.Y.reshape(-1),
            "lipschitz": float(np.linalg.eigvalsh(gram)[-1]), "lp": lp}


def leaf_value_tables(forest, stats: LeafStats, classes) -> tuple[np.ndarray, np.ndarray]:
    """The two (N, C) tables of leaf values a model may combine, columns aligned with
    ``classes`` (None for regression, C = 1): the leaf means of all training rows
    (``stats``) and the trees' own values (their bootstrap samples)."""
    values = stats.leaf_values.reshape(stats.leaf_values.shape[0], -1)
    forest_classes, own = estimator_leaf_values(forest, forest.estimators_)
    own = own.reshape(own.shape[0], -1)
    if classes is not None:
        values = spread_columns(values, np.searchsorted(classes, stats.classes), classes.size)
        own = spread_columns(own, np.searchsorted(classes, forest_classes), classes.size)
    return values, own


def make_context(forest, stats: LeafStats, classes, X, Y, weight, fit_rows, val_rows, rng, *,
                 oob, loss) -> Context:
    """A forest fitted on ``fit_rows`` with its leaf statistics (``classes``: the estimator's,
    None for regression), the Gram reduction of those rows, and the validation part:
    ``val_rows``, the out-of-bag rows (``oob``) or none.

    Out of bag, w fitted on all training rows has seen every scored row's target, which
    flatters the contaminated candidates (on pure noise they beat the forest). So w is
    cross-fitted: the training rows are split at random in two halves, and the rows of each
    half are scored with w fitted on the other half (``halves``)."""
    values, own = leaf_value_tables(forest, stats, classes)
    train = leaf_part(stats, values, X, Y, weight, fit_rows)
    val = (oob_part(forest, stats, train) if oob else
           None if val_rows is None else leaf_part(stats, values, X, Y, weight, val_rows))
    context = Context(forest, stats, values, own, val=val, **fitting_terms(train, rng, loss))
    if not oob:
        return context
    half = np.zeros(X.shape[0], dtype=np.intp)
    half[fit_rows] = rng.permutation(fit_rows.size) % 2
    halves = tuple((np.flatnonzero(half[val.rows] == h),
                    replace(context, val=None, **fitting_terms(
                        subset(train, np.flatnonzero(half[fit_rows] != h)), rng, loss)))
                   for h in (0, 1))
    return replace(context, halves=halves)


def fit_context(model, X, y, Y, weight, fit_rows, val_rows, rng, *, oob) -> Context:
    """The attention forest ``model``'s base forest fitted on ``fit_rows`` (seeded from
    ``rng``), its leaf statistics and Gram reduction, and the validation part: ``val_rows``,
    the out-of-bag rows (``oob``) or none (:func:`make_context`)."""
    forest = model.make_forest(rng.randint(2**31 - 1))
    forest.fit(X[fit_rows], y[fit_rows], sample_weight=weight[fit_rows])
    stats = LeafStats.from_forest(forest, X[fit_rows], y[fit_rows], task=model.task,
                                  standardize=model.distance == "standardized",
                                  n_jobs=model.n_jobs)
    classes = model.classes_ if model.task == "classification" else None
    return make_context(forest, stats, classes, X, Y, weight, fit_rows, val_rows, rng,
                        oob=oob, loss=model.loss)
