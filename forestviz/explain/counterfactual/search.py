"""What would change the answer: the nearest change the model itself confirms.

First a sweep over the threshold grid's cells (:mod:`.sweep`) finds a change the model's own
``predict`` confirms, in a fraction of a second. For a plain forest (a scikit-learn forest)
the program of :mod:`.milp` is exact: its answer is the nearest row (:mod:`.space`) that the
forest answers otherwise, and the sweep's distance bounds the box it searches. The attention
forests, the Enhanced RF and AGBoost weigh their trees by the row itself, so their answer is
not a linear program's; the sweep puts its candidates to the model itself, and the program
gives the exact answer of the plain forest they keep, in the box of the sweep's distance and
within the same time (issue 37 asks for it; on the bundled table it has not yet found a nearer
confirmed row than the sweep's, docs/performance.md). Around the program's answer these
candidates are checked on the model:

* the program's answer with growing margins past the goal (:data:`MARGINS`: the plain
  forest's probability beyond its threshold, or its value beyond the requested one), each
  pushing the changed columns further past the thresholds they cross;
* points along the segment from the row to each answer, and a little beyond it
  (:data:`STEPS`).

Every candidate keeps the space's rules (:meth:`Space.allows`) and is then put to the model's
own ``predict`` (:meth:`Goal.reached`); only those it confirms are kept, the nearest shown.
A change is ``optimal`` only when the program proved it the nearest; when the time runs out
first, the sweep's is shown, not ``optimal`` (never a row where a program happened to stop).
Alternatives fix the columns earlier answers changed, so each changes other columns; they
are the sweep's. When no candidate is confirmed, none is returned, and the count of those
tried says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from forestviz.explain.counterfactual.cells import feature_cells
from forestviz.explain.counterfactual.goal import Goal, goal_for
from forestviz.explain.counterfactual.milp import nearest
from forestviz.explain.counterfactual.plain import PlainForest
from forestviz.explain.counterfactual.space import Space
from forestviz.explain.counterfactual.sweep import sweep
from forestviz.explain.row.columns import CATEGORICAL
from forestviz.numbers import decimals

MARGINS = (0.0, 1e-5, 0.02, 0.05, 0.1, 0.2)
"""Margins past the goal the plain forest is asked for, in turn, until a candidate is
confirmed (probability points; shares of the requested change for a value)."""
STEPS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
"""Points x0 + s·(x* − x0) tried around each program answer x*."""
TIME_LIMIT = 0.8
"""Seconds one call may take by default before its programs stop, the sweeps included
(issue 37: 2 s at the 95th percentile for a 100-tree model on the bundled table; measured in
docs/performance.md)."""
PROOF_SHARE = 0.6
"""The share of the time the nearest change's proof may take when alternatives follow."""

Progress = Callable[[str, float], None]


@dataclass(frozen=True, eq=False)
class Change:
    """One confirmed counterfactual: ``row`` (encoded), its ``distance`` from the row
    (:meth:`Space.distance`), the positions of the ``columns`` it changes, the model's own
    ``answer`` for it, and whether it is ``optimal`` (the proven nearest, for a plain
    forest)."""

    row: np.ndarray
    distance: float
    columns: tuple[int, ...]
    answer: object
    optimal: bool


@dataclass(frozen=True, eq=False)
class WhatWouldChange:
    """The answer for one row ``x0``: ``goal`` (:mod:`.goal`), the nearest confirmed ``best``
    (None when none was), ``alternatives`` changing other columns, and how many candidates
    were ``tried`` on the model and ``rejected`` by it."""

    x0: np.ndarray
    goal: Goal
    space: Space
    best: Change | None
    alternatives: tuple[Change, ...]
    tried: int
    rejected: int
    exact: bool

    @property
    def changes(self) -> tuple[Change, ...]:
        return () if self.best is None else (self.best, *self.alternatives)


def what_would_change(model, x0, space: Space, *, target=None, change=None,
                      alternatives: int = 2, time_limit: float = TIME_LIMIT,
                      progress: Progress | None = None) -> WhatWouldChange:
    """The nearest confirmed change of ``x0`` (encoded, missing values filled) in ``space``
    that makes ``model`` answer ``target`` (a class) or move its prediction by ``change``
    (:func:`~.goal.goal_for`), and up to ``alternatives`` more changing other columns.

    ``time_limit`` (seconds, from the call) bounds the program: the nearest change of a plain
    forest is the program's only when it proves it in time (:data:`PROOF_SHARE` of the time
    when alternatives follow), else the sweep's, not ``optimal``; for other models the
    plain forest's proven answer and the rows around it are put to the model, and the
    nearest it confirms is shown, never ``optimal``. Alternatives are the sweep's (they
    show other columns, and need no proof). So the answer never depends on where a program
    stopped: the page, the record and the command line show the same change whenever each
    proof ends in time, and the sweep's, the same every time, where none does.
    ``progress(stage, fraction)`` hears each step."""
    x0 = np.asarray(x0, dtype=np.float64)
    forest = PlainForest.of(model)
    goal = goal_for(model, x0, target=target, change=change)
    counts = [0, 0]
    found: list[Change] = []
    fixed = space
    proof = time.monotonic() + time_limit * (PROOF_SHARE if alternatives else 1.0)
    say = progress or (lambda *_: None)
    for k in range(alternatives + 1):
        say("trying other columns" if found else "looking for the nearest change",
            k / (alternatives + 1))
        confirmed = _confirmed(model, forest, fixed, x0, goal, counts, proof, prove=not found)
        if confirmed is None:
            break
        found.append(confirmed)
        fixed = fixed.with_fixed(space.columns.names[i] for i in confirmed.columns)
    say("done", 1.0)
    best = found[0] if found else None
    return WhatWouldChange(x0, goal, space, best, tuple(found[1:]), counts[0], counts[1],
                           forest.exact)


def _confirmed(model, forest: PlainForest, space: Space, x0, goal: Goal, counts,
               stop: float, prove: bool) -> Change | None:
    """The nearest candidate the model confirms: the sweep's (:mod:`.sweep`), then (when
    ``prove``: not for an alternative) the rows around the program's proven answers in the box
    the sweep's distance bounds, trying :data:`MARGINS` in turn until ``stop``."""
    swept = sweep(model, space, x0, goal, feature_cells(forest, space, x0))
    counts[0] += swept.tried
    counts[1] += swept.rejected
    best, distance, optimal = swept.row, swept.distance, False
    for margin in MARGINS if prove else ():
        left = stop - time.monotonic()
        if left <= 0:
            break
        solution = nearest(forest, space, x0, goal.tightened(margin), time_limit=left,
                           bound=None if best is None else distance)
        if solution is None or not solution.optimal:
            # none nearer than the sweep's, or the time ran out first: a program stopped by
            # its time holds whichever row it had reached, which would make the page, the
            # record and the command line disagree; the sweep's answer is the same every time
            break
        rows = _around(space, x0, solution.x)
        rows = rows[[space.allows(x0, row) for row in rows]]
        rows = rows[space.distance(x0, rows) < distance]
        reached = goal.reached(model, rows) if rows.size else np.zeros(0, dtype=bool)
        counts[0] += len(rows)
        counts[1] += int(np.count_nonzero(~reached))
        if reached.any():
            nearer = space.distance(x0, rows)
            pick = np.flatnonzero(reached)[np.argmin(nearer[reached])]
            best, distance = rows[pick], float(nearer[pick])
        if forest.exact and solution.optimal and margin <= MARGINS[1]:
            optimal = distance <= float(space.distance(x0, solution.x)) + 1e-9
        if reached.any() or optimal or solution.objective >= distance:
            break
    if best is None:
        return None
    return Change(best, distance, space.changed(x0, best), goal.answers(model, best[None])[0],
                  optimal)


def _around(space: Space, x0, x) -> np.ndarray:
    """x itself and the points x0 + s·(x − x0) of :data:`STEPS` (levels as in x, whole
    numbers rounded away from x0, other numbers to their readable decimals), clipped to the
    space's range; duplicates dropped."""
    low, high = space.bounds(x0)
    whole = space.is_whole(x0)
    level = np.zeros(x0.size, dtype=bool)
    for column in space.columns.columns:
        if column.kind == CATEGORICAL:
            level[list(column.features)] = True
    rows = [x]
    for s in STEPS:
        point = np.clip(x0 + s * (x - x0), low, high)
        rising = point > x0
        for j in np.flatnonzero(~level & (point != x0)):
            places = 0 if whole[j] else decimals(space.spread[j])
            unit = 10.0 ** places
            shifted = (np.ceil if rising[j] else np.floor)(point[j] * unit) / unit
            point[j] = min(max(round(shifted, places), low[j]), high[j])
        point[level] = x[level]
        rows.append(point)
    return np.unique(np.asarray(rows), axis=0)
