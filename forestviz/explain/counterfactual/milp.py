"""The exact counterfactual of a plain forest: a mixed-integer program (Parmentier & Vidal,
"Optimal counterfactual explanations in tree ensembles", ICML 2021, Section 4), solved by
HiGHS through :func:`scipy.optimize.milp`.

The forest predicts offset + (1/T) Σ_t v_t(leaf_t(x)) (every family here keeps such a forest:
a scikit-learn forest is one; attention and Enhanced RF models weigh the same trees by the row,
and equal weights give their plain forest back, :mod:`forestviz.trees.ensemble`). Variables:

* μ_{j,k} ∈ {0, 1} for the k-th smallest threshold θ_{j,k} that the trees test feature j
  against: μ_{j,k} = 1 ⟺ x_j > θ_{j,k}, ordered μ_{j,k+1} ≤ μ_{j,k} (the paper's Eq. (6));
  an indicator of a categorical level is its own binary, one level set per column (Eq. (10));
* z_{t,l} ∈ [0, 1] for leaf l of tree t, Σ_l z_{t,l} = 1, and at every split v on θ_{j,k}:
  Σ_{l left of v} z_{t,l} ≤ 1 − μ_{j,k} and Σ_{l right of v} z_{t,l} ≤ μ_{j,k} (Eqs. (3)–(5)):
  binary μ leave one leaf per tree, so z needs no integrality (their Proposition 1);
* the goal: lo ≤ offset + (1/T) Σ_{t,l} (a · v_{t,l}) z_{t,l} ≤ hi, for the class
  probabilities' combinations ``a`` the decision needs (:mod:`.goal`);
* the objective, Σ_j c_j(x_j) with c_j the weighted L1 step of :mod:`.space`, is exact as a
  linear function of μ (Eq. (7)): the nearest value of x_j's k-th cell costs c_{j,k}, and
  c_j = c_{j,0} + Σ_k (c_{j,k} − c_{j,k−1}) μ_{j,k} on every ordered μ.

Values follow scikit-learn's test float32(x_j) ≤ θ (a cell's nearest value is the float32
just past a threshold it crosses); a whole-number feature tests x_j > ⌊θ⌋, and the thresholds
outside the feature's range are constants.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

from forestviz.explain.counterfactual.cells import Cells, feature_cells
from forestviz.explain.counterfactual.plain import PlainForest
from forestviz.explain.counterfactual.space import Space


@dataclass(frozen=True)
class Solution:
    """The program's answer: ``x`` the counterfactual row (encoded), ``objective`` its
    distance (at the exact nearest values, before :meth:`~.cells.Cells.row` prints them
    readably), ``optimal`` whether HiGHS proved it the smallest (not stopped by its time
    limit)."""

    x: np.ndarray
    objective: float
    optimal: bool = True


def nearest(forest: PlainForest, space: Space, x0, rows, *, radius: float = 0.25,
            bound: float | None = None, time_limit: float = 60.0) -> Solution | None:
    """:func:`solve` over growing boxes around ``x0``: every row nearer than r lies in the box
    |x_j − x0_j| ≤ r·scale_j (and changes no level when r < 1), so the box's nearest row is the
    nearest of all whenever its distance is at most r. A small box leaves most thresholds
    outside, and the program small. A box without an answer doubles r; one whose answer lies
    beyond r is solved once more with r that distance.

    With ``bound``, the distance of a row known to answer (:mod:`.sweep`), the first box is
    that of r = ``bound``: it holds every nearer row, so it needs no growing, and a box
    without an answer means that none is nearer (None). ``time_limit`` (seconds) bounds the
    whole search: when it runs out, the nearest row found is returned, not ``optimal``. None
    when the whole space has no answer (or none was found in time)."""
    widest = max(space.widest(x0), 1.0)
    if bound is not None:
        radius = min(bound * (1 + 1e-6), widest)
    stop = time.monotonic() + time_limit
    best = None
    while True:
        left = max(stop - time.monotonic(), 0.01)
        found = solve(forest, space, x0, rows, radius=radius, time_limit=left)
        if found is not None and (best is None or found.objective < best.objective):
            best = found
        proved = found is not None and found.optimal
        if proved and (found.objective <= radius or radius >= widest):
            return found
        if found is None and bound is not None:
            return None if best is None else replace(best, optimal=False)
        if (found is None and radius >= widest) or (not proved and time.monotonic() >= stop):
            return None if best is None else replace(best, optimal=False)
        radius = min(widest, 2 * radius if best is None else best.objective * (1 + 1e-6))


@dataclass(frozen=True, eq=False)
class Program:
    """The program of one row in one box: minimise ``cost`` · v over v ∈ [0, 1]ⁿ, the first
    :attr:`Cells.n_variables` entries binary (μ), ``lows`` ≤ ``matrix`` v ≤ ``highs``;
    ``cells`` say what μ means. ``matrix`` is None when nothing can change the trees'
    answers: the row's own cells then meet the goal or nothing does (``met``)."""

    cells: Cells
    cost: np.ndarray
    matrix: csr_array | None
    lows: np.ndarray
    highs: np.ndarray

    @property
    def met(self) -> bool:
        return bool(np.all((self.lows <= 0.0) & (self.highs >= 0.0)))

    def integrality(self) -> np.ndarray:
        n_mu = self.cells.n_variables
        return np.concatenate([np.ones(n_mu), np.zeros(self.cost.size - n_mu)])


def solve(forest: PlainForest, space: Space, x0, rows, *, radius: float = np.inf,
          time_limit: float = 60.0) -> Solution | None:
    """The nearest row to ``x0`` in ``space`` (in the box of :meth:`Space.bounds` of
    ``radius``) whose plain-forest prediction p satisfies every goal row (a, lo, hi):
    lo ≤ a · p ≤ hi; None when there is none (or none found in ``time_limit`` seconds, which
    count from the call: building the program takes its share). HiGHS's presolve is off: it
    does not watch the clock (5 s spent on a 0.5 s limit, docs/performance.md), and
    :func:`program` already leaves out what it would."""
    stop = time.monotonic() + time_limit
    built = program(forest, space, x0, rows, radius)
    cells = built.cells
    if built.matrix is None:
        return Solution(cells.row(np.zeros(0, dtype=bool)), cells.base_cost) if built.met \
            else None
    result = milp(built.cost, integrality=built.integrality(), bounds=Bounds(0.0, 1.0),
                  constraints=LinearConstraint(built.matrix, built.lows, built.highs),
                  options={"time_limit": max(stop - time.monotonic(), 0.01),
                           "mip_rel_gap": 1e-9, "presolve": False})
    if result.x is None:
        return None
    mu = result.x[:cells.n_variables] > 0.5
    return Solution(cells.row(mu), float(cells.base_cost + cells.costs @ mu),
                    result.status == 0)


def program(forest: PlainForest, space: Space, x0, rows, radius: float = np.inf) -> Program:
    """The program of the row ``x0`` and the goal ``rows`` in the box of ``radius``.

    Only what a row in the box can reach enters it: a leaf below a test every row of the box
    fails is dropped, and a tree whose remaining leaves all score alike on every goal row is a
    constant (:func:`_reachable`)."""
    x0 = np.asarray(x0, dtype=np.float64)
    cells = feature_cells(forest, space, x0, radius)
    a = np.array([np.atleast_1d(np.asarray(g[0], dtype=np.float64)) for g in rows])
    scores = forest.leaf_values() @ a.T / forest.n_trees  # (L, goal rows)
    kept, constant = _reachable(forest, cells, scores)
    n_mu, n_z = cells.n_variables, int(np.count_nonzero(kept))
    z = np.full(forest.n_leaves, -1, dtype=np.intp)
    z[kept] = n_mu + np.arange(n_z)
    entries, lows, highs = [], [], []

    def row(cols, vals, lo, hi):
        entries.append((np.full(len(cols), len(lows)), np.asarray(cols), np.asarray(vals)))
        lows.append(lo)
        highs.append(hi)

    for chain in cells.chains():  # μ_{j,k+1} − μ_{j,k} ≤ 0
        row(chain, (1.0, -1.0), -np.inf, 0.0)
    for group, total in cells.level_groups():  # one level per categorical column
        row(group, np.ones(len(group)), total, total)
    for start, stop in forest.tree_leaves():  # one leaf per tree
        cols = z[start:stop][z[start:stop] >= 0]
        if cols.size:
            row(cols, np.ones(cols.size), 1.0, 1.0)
    for node_var, _, left, right in cells.splits():
        if node_var < 0:  # a constant test: its other side's leaves are gone
            continue
        for (start, stop), sign in ((left, -1.0), (right, 1.0)):
            cols = z[start:stop][z[start:stop] >= 0]
            if cols.size:  # Σ left + μ ≤ 1, Σ right − μ ≤ 0
                row(np.append(cols, node_var), np.append(np.ones(cols.size), -sign),
                    -np.inf, 0.0 if sign > 0 else 1.0)
    for k, (weights, lo, hi) in enumerate(rows):
        shift = forest.offset * float(np.sum(weights)) + constant[k]
        row(z[kept], scores[kept, k], lo - shift, hi - shift)
    lows, highs = np.asarray(lows, dtype=np.float64), np.asarray(highs, dtype=np.float64)
    cost = np.concatenate([cells.costs, np.zeros(n_z)])
    if cost.size == 0:
        return Program(cells, cost, None, lows, highs)
    r, c, v = (np.concatenate(part) for part in zip(*entries, strict=True))
    return Program(cells, cost, csr_array((v, (r, c)), shape=(lows.size, cost.size)), lows,
                   highs)


def _reachable(forest: PlainForest, cells, scores) -> tuple[np.ndarray, np.ndarray]:
    """Which leaves keep a variable (those a row of the box can reach, in trees whose
    reachable leaves do not all score alike), and the constant trees' sum of scores per goal
    row."""
    n = forest.n_leaves
    constant = cells.split_var < 0
    gone = np.where(cells.split_constant[constant] > 0.5, cells.left[constant, 0],
                    cells.right[constant, 0]), np.where(
        cells.split_constant[constant] > 0.5, cells.left[constant, 1], cells.right[constant, 1])
    depth = np.zeros(n + 1, dtype=np.intp)
    np.add.at(depth, gone[0], 1)
    np.add.at(depth, gone[1], -1)
    reachable = np.cumsum(depth)[:n] == 0
    kept = reachable.copy()
    fixed = np.zeros(scores.shape[1])
    for start, stop in forest.tree_leaves():
        mine = scores[start:stop][reachable[start:stop]]
        if np.all(mine == mine[0]):
            kept[start:stop] = False
            fixed += mine[0]
    return kept, fixed
