"""A quick counterfactual confirmed by the model: a sweep over the cells of the threshold grid.

Between two thresholds of a feature the trees cannot tell values apart, so each column's moves
are its cells' nearest values (:mod:`.cells`; a text column's levels). From the row, every move
of every column is put to the model at once, and the ``width`` moves that buy the most room
inside the goal per unit of distance (:meth:`~.goal.Goal.slack`) are kept; from each of them
every move again, and so on (a beam search, Wachter-style moves on the grid). The rows the
model's own ``predict`` confirms are answers; the nearest is then pulled back toward the row,
one column at a time, while the model still confirms it. A row every tree agrees on is a
plateau where no single move gains anything and the beam stalls; the sweep then starts from
the training rows the model answers as the goal, nearest first, the row's fixed columns and
gaps kept (the nearest unlike neighbour of Wexler et al., "The What-If Tool", IEEE TVCG 2020),
and pulls the nearest back.

Its distance is an upper bound on the nearest answer: the program (:mod:`.milp`) needs to
search only the box of that radius around the row, and when its proof runs out of time the
sweep's answer is still a confirmed one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from forestviz.explain.counterfactual.cells import Cells
from forestviz.explain.counterfactual.goal import Goal
from forestviz.explain.counterfactual.space import Space

WIDTH = 4
"""How many partial moves are carried from one step to the next."""
HOPEFUL = -1e-6
"""Rows whose slack is at least this are put to the model's ``predict``."""
NEAREST_ROWS = 2_000
"""Training rows put to the model's ``predict``, nearest first, when the beam finds none."""


@dataclass(frozen=True, eq=False)
class Swept:
    """The sweep's nearest confirmed ``row`` (None when none was) and its ``distance``;
    ``tried`` and ``rejected``: rows put to the model's ``predict``, and those it did not
    confirm."""

    row: np.ndarray | None
    distance: float
    tried: int
    rejected: int


def column_moves(cells: Cells) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per changeable column, its features and the values it may take (one row each): a
    numeric feature's cell values, a text column's levels."""
    moves = [(np.array([j]), points[:, None]) for j, points in cells.readable.items()]
    for group, total in cells.level_groups():
        if total == 1:  # one level set: any of its levels
            features = np.array([cells.variables[i][0] for i in group])
            moves.append((features, np.eye(features.size)))
    return moves


def sweep(model, space: Space, x0, goal: Goal, cells: Cells, *,
          width: int = WIDTH) -> Swept:
    """The nearest row the beam search of the module finds and ``model`` confirms."""
    x0 = np.asarray(x0, dtype=np.float64)
    moves = column_moves(cells)
    counts = [0, 0]
    best, best_distance = None, np.inf
    beam = x0[None]
    beam_slack, beam_distance = goal.slack(model, beam), np.zeros(1)
    for _ in range(len(moves)):
        rows, parent = _neighbours(beam, moves)
        distance = space.distance(x0, rows)
        near = distance < best_distance
        rows, parent, distance = rows[near], parent[near], distance[near]
        if rows.size == 0:
            break
        slack = goal.slack(model, rows)
        confirmed = _confirmed(model, goal, rows, slack, counts)
        if confirmed.any():
            pick = np.flatnonzero(confirmed)[np.argmin(distance[confirmed])]
            best, best_distance = rows[pick], float(distance[pick])
        gain = slack - beam_slack[parent]
        cost = np.maximum(distance - beam_distance[parent], 1e-12)
        hopeful = ~confirmed & (gain > 0) & (distance < best_distance)
        if not hopeful.any():
            break
        order = np.flatnonzero(hopeful)[np.argsort(-(gain / cost)[hopeful], kind="stable")]
        keep = order[:width]
        beam, beam_slack, beam_distance = rows[keep], slack[keep], distance[keep]
    if best is None and space.rows is not None:
        best, best_distance = _from_training(model, space, x0, goal, counts)
    if best is not None:
        best, best_distance = _pulled_back(model, space, x0, goal, moves, best, counts)
    return Swept(best, best_distance, counts[0], counts[1])


def _from_training(model, space: Space, x0, goal: Goal,
                   counts) -> tuple[np.ndarray | None, float]:
    """The nearest training row (its fixed columns and gaps as in ``x0``) that the space
    allows and the model confirms; (None, inf) when none does."""
    rows = np.asarray(space.rows, dtype=np.float64)
    rows = np.where(np.isnan(rows) | space.fixed_features(), x0, rows)
    rows = rows[[space.allows(x0, row) for row in rows]]
    if rows.size == 0:
        return None, np.inf
    distance = space.distance(x0, rows)
    order = np.argsort(distance, kind="stable")[:NEAREST_ROWS]
    reached = goal.reached(model, rows[order])
    counts[0] += order.size
    counts[1] += int(np.count_nonzero(~reached))
    if not reached.any():
        return None, np.inf
    pick = order[np.flatnonzero(reached)[0]]
    return rows[pick], float(distance[pick])


def _pulled_back(model, space, x0, goal, moves, row, counts) -> tuple[np.ndarray, float]:
    """``row`` moved one column at a time to nearer values while the model confirms it."""
    distance = float(space.distance(x0, row))
    while True:
        rows, _ = _neighbours(row[None], moves)
        nearer = space.distance(x0, rows)
        keep = nearer < distance
        rows, nearer = rows[keep], nearer[keep]
        if rows.size == 0:
            return row, distance
        confirmed = _confirmed(model, goal, rows, goal.slack(model, rows), counts)
        if not confirmed.any():
            return row, distance
        pick = np.flatnonzero(confirmed)[np.argmin(nearer[confirmed])]
        row, distance = rows[pick], float(nearer[pick])


def _confirmed(model, goal: Goal, rows, slack, counts) -> np.ndarray:
    """Whether the model's ``predict`` confirms each row (only hopeful rows are put to it)."""
    confirmed = np.zeros(len(rows), dtype=bool)
    hopeful = np.flatnonzero(slack >= HOPEFUL)
    if hopeful.size:
        confirmed[hopeful] = goal.reached(model, rows[hopeful])
        counts[0] += hopeful.size
        counts[1] += int(np.count_nonzero(~confirmed[hopeful]))
    return confirmed


def _neighbours(beam, moves) -> tuple[np.ndarray, np.ndarray]:
    """Every row one column's move away from a row of ``beam``, and the row it came from."""
    blocks, parents = [], []
    for features, values in moves:
        block = np.repeat(beam, len(values), axis=0)
        block[:, features] = np.tile(values, (len(beam), 1))
        blocks.append(block)
        parents.append(np.repeat(np.arange(len(beam)), len(values)))
    return np.concatenate(blocks), np.concatenate(parents)
