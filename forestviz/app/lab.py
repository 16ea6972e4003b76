"""The Paper lab's small models: the papers' pictures recomputed on bundled tables.

Each function fits a small, fixed-size model (3 to 50 trees on at most the bundled tables),
so the page can call it directly; sizes here are not user-controlled beyond the sliders'
ranges. Figures come from :mod:`forestviz.explain.plots`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from forestviz.attention.estimators import AttentionForestRegressor
from forestviz.enhanced.estimator import EnhancedForestClassifier
from forestviz.explain.drawing.treeviz import TreeContext
from forestviz.io.bundled import list_datasets, load_dataset
from forestviz.io.preprocessing import TablePreprocessor
from forestviz.trees.contamination import softmax_part_to_D
from forestviz.trees.machine import DecisionMachine

SEED = 0
SHOWING = "friedman2"  # Fig. 2 and 3 open on it: on the others the search keeps equal weights


@dataclass(frozen=True)
class Figure:
    """What a Paper lab section says: its ``title``, what it ``shows`` and what to ``try``."""

    title: str
    shows: str
    tries: str


FIGURES = {
    "simplex": Figure(
        "ABRF Fig. 1: three trees on a triangle",
        "With three trees, every weighting of the forest is a point of a triangle. The Softmax "
        "weights D come from how close the row is to each tree's leaf; training adds ε·w, so "
        "the final weights α can only lie in a small triangle around D whose size grows with ε.",
        "Set ε to 0: α sits on D. Raise it step by step and watch the small triangle grow "
        "toward the trained w; then change the row: D moves, w stays."),
    "search": Figure(
        "ABRF Fig. 2 and 3: choosing ε and τ, and where the attention goes",
        "Fig. 2 plots the held-out accuracy (R²) against the temperature τ for each ε: a small "
        "τ makes the weights pick the closest trees, a large τ spreads them evenly as in a "
        "plain forest. Fig. 3 smooths the weights along the tree number: peaks show which "
        "trees the trained attention favours for one row, compared with the untrained Softmax "
        "weights.",
        "On Friedman 2 the best curve rises above the plain forest at a small τ, and Fig. 3 "
        "has peaks; move the held-out row and watch them move. Then pick Friedman 1: the "
        "search keeps equal weights and Fig. 3 goes flat."),
    "erf": Figure(
        "ERF: sample weights over the rounds, and the top-scoring trees",
        "The Enhanced RF reweights the training rows after each forest: rows it misclassifies "
        "gain weight, so later forests look harder at them. The bands show how the weights "
        "spread out; the star marks the kept round, the earliest whose validation AUC is "
        "within one standard error of the best. For one row, each tree's score S counts how "
        "often it ranks among the best trees of the row's nearest training neighbours.",
        "Add rounds and watch the bands widen as hard rows gain weight; change the clinical "
        "row and see which trees score highest for it."),
    "machine": Figure(
        "A Decision Machine: a tree as matrices",
        "Each internal node is a test: the selection matrix S picks its feature and t holds "
        "its threshold, so h = sgn(S·x − t) answers every test at once. Each leaf is a row of "
        "the template B (+1 right, −1 left, 0 not on its path); the row's leaf is the one "
        "where B·h equals the leaf's depth.",
        "Follow the row's path in the drawing, then find the same tests in S and t and the "
        "leaf whose B·h equals its depth; change the row and see h and the leaf change."),
}


def synthetic_datasets() -> list:
    """The bundled scikit-learn generators (Friedman 1–3 and the like)."""
    return [info for info in list_datasets() if info.source.startswith("scikit-learn make_")]


def numeric(name: str):
    """A bundled data set as (encoded X, y, feature names, target, classes)."""
    dataset = load_dataset(name)
    pre = TablePreprocessor().fit(dataset.X)
    return (pre.transform(dataset.X), dataset.y.to_numpy(),
            [str(n) for n in pre.get_feature_names_out()], dataset.target, dataset.classes)


def three_tree_forest(name: str, eps: float):
    """A 3-tree ABRF-1 at contamination ``eps`` (τ chosen) on a bundled set, and the set's
    encoded rows: ABRF Fig. 1 (one fit serves every row)."""
    X, y, *_ = numeric(name)
    return AttentionForestRegressor(3, eps=eps, random_state=SEED).fit(X, y), X


def three_tree_weights(model, x):
    """(D, w, α) of row ``x`` under a forest of :func:`three_tree_forest`."""
    D, contamination = model.tree_weight_parts(np.asarray(x)[None, :])
    return softmax_part_to_D(D[0], model.eps_), model.w_, contamination[0] + D[0]


def eps_tau_search(name: str):
    """ABRF Fig. 2 and 3: the ε–τ grid of ABRF-1 (50 trees) on a synthetic set, Var(y) of its
    training rows, α and the Softmax weights D of ten held-out rows, the chosen ε and whether
    the search kept the plain forest."""
    X, y, *_ = numeric(name)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.25, random_state=SEED)
    model = AttentionForestRegressor(50, random_state=SEED).fit(X_train, y_train)
    D, contamination = model.tree_weight_parts(X_test[:10])
    return (model.search_results_, float(np.var(y_train)), D + contamination,
            softmax_part_to_D(D, model.eps_), model.eps_, bool(model.selected_base_))


def erf_rounds(rounds: int):
    """ERF's reweighting history over ``rounds`` rounds on the clinical table, the kept round
    and the tree scores S of its first 20 rows."""
    X, y, *_ = numeric("pima_diabetes")
    model = EnhancedForestClassifier(50, n_iterations=rounds, early_stopping=False,
                                     random_state=SEED).fit(X, y)
    return model.history_, model.best_iteration_, model.tree_scores(X[:20]).S


def small_tree(depth: int):
    """A depth-limited tree on the clinical table, its drawing context, X and feature names."""
    X, y, names, target, classes = numeric("pima_diabetes")
    tree = DecisionTreeClassifier(max_depth=depth, random_state=SEED).fit(X, y)
    context = TreeContext.from_data(X, y, feature_names=names, target_name=target,
                                    class_names=classes)
    return tree, context, X, names


_SHAPE = re.compile(r'<(polygon|text|ellipse|image|polyline)\b([^>]*)>')
_CANVAS = re.compile(r'width="([\d.]+)pt" height="([\d.]+)pt" viewBox="([-\d.]+) ([-\d.]+) '
                     r'([\d.]+) ([\d.]+)"')
MARGIN_PT = 8


def trimmed(svg: str) -> str:
    """A graphviz drawing's ``svg`` cut to the width its shapes span (graphviz leaves a wide
    empty band beside a long title, which at the page's width shrank the Decision Machine's
    text to 7 px): the canvas' background polygon aside, the leftmost and rightmost x of
    every polygon, ellipse, image and text anchor, ``MARGIN_PT`` either side; ``svg``
    unchanged when its canvas is not graphviz's."""
    canvas = _CANVAS.search(svg)
    if canvas is None:
        return svg
    xs = []
    for _, attributes in _SHAPE.findall(svg):
        if 'fill="white" stroke="transparent"' in attributes:  # graphviz's background
            continue
        points = re.search(r'points="([^"]*)"', attributes)
        if points:
            xs += [float(p.split(",")[0]) for p in points.group(1).split()]
        for name in ("x", "cx"):
            found = re.search(rf'\b{name}="([-\d.]+)"', attributes)
            if found:
                xs.append(float(found.group(1)))
    if not xs:
        return svg
    _, height, _, top, _, tall = canvas.groups()
    left, right = min(xs) - MARGIN_PT, max(xs) + MARGIN_PT
    # graphviz translates its drawing by 4 pt: the shapes' x are 4 pt left of the canvas'
    return _CANVAS.sub(f'width="{right - left:.2f}pt" height="{height}pt" viewBox="'
                       f'{left + 4:.2f} {top} {right - left:.2f} {tall}"', svg, count=1)


@dataclass(frozen=True)
class MachineView:
    """A tree as a Decision Machine for one row: S and t, the templates B with B·h, and h."""

    selection: pd.DataFrame  # tests × features, with the thresholds t
    templates: pd.DataFrame  # leaves × tests, with B·h, the leaf depths and the row's leaf
    outcomes: np.ndarray  # h = sgn(Sx − t), one ±1 per test


def machine_view(tree, names, x) -> MachineView:
    """The Decision Machine tables of ``tree`` for row ``x`` (ERF-independent; see
    :mod:`forestviz.trees.machine`)."""
    machine = DecisionMachine.from_estimator(tree, feature_names=names)
    h = machine.test_outcomes(np.asarray(x)[None, :])[0].astype(int)
    tests = [f"test {j + 1}" for j in range(machine.thresholds.size)]
    leaves = [f"leaf {i + 1}" for i in range(machine.leaf_nodes.size)]
    B = machine.templates.toarray().astype(int)
    selection = pd.DataFrame(machine.selection.toarray().astype(int), index=tests,
                             columns=names).assign(t=machine.thresholds)
    templates = pd.DataFrame(B, index=leaves, columns=tests).assign(
        **{"B·h": B @ h, "depth": machine.leaf_depth, "this row's leaf": B @ h ==
           machine.leaf_depth})
    return MachineView(selection, templates, h)
