"""Checks of fitted state read back from a model file, made before anything is built from it.

A model file (:mod:`forestviz.persistence`) keeps only what cannot be recomputed: the
scikit-learn trees and each family's learned parameters (ε, τ, w, v, z, tree rankings, leaf
statistics of the training rows…). Every structure derived from them (flat node tables, leaf
bit masks, leaf value tables, neighbour indexes) is rebuilt when the file is read, by the
models' ``__setstate__``, from state checked here first: compiled code (scikit-learn's and
forestviz's numba kernels) follows node and leaf indices without bounds checks, so one index
out of range reads outside an array and one cycle never ends. ``docs/security.md`` lists each
stored array with its check.

:class:`DamagedState` says in one line what does not fit; the loader refuses the file with it.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.tree import BaseDecisionTree, DecisionTreeRegressor

from forestviz.numbers import bound_text

MAGNITUDE = 1e100
"""Saved keys, values, centres, scales and temperatures lie within [−this, this] (scales and τ
at least 1/this): their squares summed over features and trees stay finite."""
_TREE_LEAF, _NO_FEATURE = -1, -2  # scikit-learn's markers at leaves
# scikit-learn's compiled tree class, reached through public API rather than its private module
Tree = type(DecisionTreeRegressor().fit([[0.0]], [0.0]).tree_)


class DamagedState(ValueError):
    """Saved state that does not fit together; the message names what, as a clause ("its
    tree weights w are not 5 finite numbers of at least 0")."""


def state_of(state, names, what: str) -> dict:
    """``state`` when it is a dict of exactly the keys ``names``."""
    if not isinstance(state, dict) or set(state) != set(names):
        raise DamagedState(f"its {what} do not have the parts forestviz saves")
    return state


def checked_array(value, what: str, shape: tuple, kind: str = "f", *, low=None, high=None,
                  above=None) -> np.ndarray:
    """``value`` when it is an ndarray of ``shape`` (None: any length) whose dtype is float64
    (``kind`` "f", every value finite), an integer type ("i") or bool ("b"), with every value
    at least ``low``, above ``above`` and at most ``high`` where given."""
    words = _array_words(shape, kind, low, high, above)
    if not (isinstance(value, np.ndarray) and value.ndim == len(shape)
            and all(want in (None, got) for want, got in zip(shape, value.shape, strict=True))):
        raise DamagedState(f"its {what} are not {words}")
    fits = {"f": value.dtype == np.float64, "i": value.dtype.kind in "iu",
            "b": value.dtype == np.bool_}[kind]
    if not fits or (kind == "f" and not np.isfinite(value).all()):
        raise DamagedState(f"its {what} are not {words}")
    if value.size and ((low is not None and value.min() < low)
                       or (above is not None and value.min() <= above)
                       or (high is not None and value.max() > high)):
        raise DamagedState(f"its {what} are not {words}")
    return value


def _array_words(shape, kind, low, high, above) -> str:
    size = " × ".join("n" if n is None else f"{n:,}" for n in shape)
    kinds = {"f": "finite numbers", "i": "whole numbers", "b": "true/false values"}[kind]
    return f"{size} {kinds}{_bounds(low, high, above)}"


def _bounds(low, high, above) -> str:
    if low is not None and high is not None and low == -high:
        return f" within ±{bound_text(high)}"
    return "".join([f" of at least {bound_text(low)}" if low is not None else "",
                    f" above {bound_text(above)}" if above is not None else "",
                    f" of at most {bound_text(high)}" if high is not None else ""])


def checked_number(value, what: str, *, low=None, high=None, above=None) -> float:
    """``value`` as a float when it is a finite real number (not a bool) within the bounds."""
    if (isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value)
            or (low is not None and value < low) or (high is not None and value > high)
            or (above is not None and value <= above)):
        raise DamagedState(f"its {what} is not a finite number{_bounds(low, high, above)}")
    return float(value)


def checked_count(value, what: str, low: int = 0, high: int | None = None) -> int:
    """``value`` when it is an int (not a bool) in [low, high]."""
    if (isinstance(value, bool) or not isinstance(value, Integral) or value < low
            or (high is not None and value > high)):
        limit = "" if high is None else f" and at most {high:,}"
        raise DamagedState(f"its {what} is not a whole number of at least {low}{limit}")
    return int(value)


def checked_flag(value, what: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise DamagedState(f"its {what} is not true or false")
    return bool(value)


def checked_weights(value, what: str, n: int) -> np.ndarray:
    """n finite weights of at least 0 that sum to 1 (a point of the simplex Δ_n)."""
    checked_array(value, what, (n,), low=0.0)
    if abs(value.sum() - 1.0) > 1e-6:
        raise DamagedState(f"its {what} do not sum to 1")
    return value


def checked_trees(trees, what: str = "trees") -> list:
    """``trees`` when it is a non-empty list of fitted scikit-learn trees that are all sound
    (:func:`tree_is_sound`) and of one width."""
    if not (isinstance(trees, list) and trees
            and all(isinstance(t, BaseDecisionTree) and isinstance(getattr(t, "tree_", None),
                                                                   Tree) for t in trees)):
        raise DamagedState(f"its {what} are not a list of fitted decision trees")
    if not all(tree_is_sound(t.tree_) for t in trees):
        raise DamagedState("one of its decision trees is damaged")
    if len({t.tree_.n_features for t in trees}
            | {getattr(t, "n_features_in_", None) for t in trees}) != 1:
        raise DamagedState("its trees disagree on the number of features")
    return trees


def same_trees(first, second) -> bool:
    """The two lists hold the very same tree objects, in order (a file names shared objects
    once: a model's trees and its leaf statistics' trees must be one list)."""
    return len(first) == len(second) and all(a is b for a, b in zip(first, second, strict=True))


def tree_is_sound(tree: Tree) -> bool:
    """Node 0 is the root, every other node has exactly one parent, which comes before it,
    split features are below ``n_features``, ``max_depth`` is the depth of the deepest leaf
    (scikit-learn's builder stores exactly that; loops over depths rely on it), thresholds,
    values and impurities are finite and the weighted row counts finite and non-negative."""
    n = tree.node_count
    left, right, feature = tree.children_left, tree.children_right, tree.feature
    nodes = np.arange(n)
    leaf = left == _TREE_LEAF
    inner = nodes[~leaf]
    children = np.concatenate([left[inner], right[inner]])
    weights = tree.weighted_n_node_samples
    if not (n >= 1 and np.isfinite(tree.value).all() and np.isfinite(tree.impurity).all()
            and np.isfinite(tree.threshold[inner]).all() and np.isfinite(weights).all()
            and weights.min() >= 0
            and np.all(right[leaf] == _TREE_LEAF) and np.all(feature[leaf] == _NO_FEATURE)
            and np.all((feature[inner] >= 0) & (feature[inner] < tree.n_features))
            and np.all(children < n) and np.all(children > np.concatenate([inner, inner]))
            and np.array_equal(np.bincount(children, minlength=n), nodes > 0)):
        return False
    parent = np.zeros(n, dtype=np.intp)
    parent[left[inner]] = parent[right[inner]] = inner
    depth = (nodes > 0).astype(np.intp)
    while np.any(parent > 0):  # pointer jumping: log2(depth) rounds
        depth, parent = depth + depth[parent], parent[parent]
    return int(depth.max()) == tree.max_depth
