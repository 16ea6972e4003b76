"""The tree section of an explanation, written once: for each tree shown, its title, what it
says, the row's path as a table, its most fragile test and the nearest other leaves, as plain
text and frames that the Explain page, the HTML/PDF report and the command line each render
(escaping, cutting and laying out as they need).

The trees are the explanation's top trees, or those of a
:class:`~.tree_choice.TreeChoice` (chosen by what the row gives them when the
weights are equal). The path's tests are in the user's columns (a missing value's test says it
was imputed, :meth:`~.explanation.Explanation.step_sentence`); a margin is the
difference of the printed value and threshold (:meth:`~forestviz.trees.paths.PathStep.texts`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

MARGIN = "margin (value − threshold)"


@dataclass(frozen=True, eq=False)
class TreeSection:
    """One tree shown: ``tree`` its index from 0; ``title`` ("Tree 12: weight 0.010, score S
    0.310"); ``says`` what the tree says for the row; ``path`` the row's tests (``depth``,
    ``test``, :data:`MARGIN`, ``most fragile``), one row each, with ``fragile`` marking the
    closest call; ``fragile_test`` that test in words (None for a single leaf);
    ``alternatives`` the nearest other leaves, "if …, this tree would say …"."""

    tree: int
    title: str
    says: str
    path: pd.DataFrame
    fragile: tuple[bool, ...]
    fragile_test: str | None
    alternatives: tuple[str, ...]

    @property
    def drawing_text(self) -> str:
        """The drawing's text alternative (the page's image and the record's picture): the
        path it highlights, test by test, and what the tree says."""
        tests = "; ".join(str(test) for test in self.path["test"])
        path = f"the row's path: {tests}" if tests else "a single leaf"
        return f"Tree {self.tree + 1} drawn with {path}; it says {self.says}."


def tree_value_text(e, value, name=str) -> str:
    """What a tree says for a row of the explanation ``e``: a value (to the decimals of the
    prediction, :meth:`~.explanation.Explanation.tree_value_text`) or its
    class probabilities ("P(benign) = 0.20, P(malignant) = 0.80")."""
    if e.task == "regression":
        return e.tree_value_text(value)
    return ", ".join(f"P({name(c)}) = {p:.2f}"
                     for c, p in zip(e.classes, np.asarray(value), strict=True))


def tree_title(e, tree: int) -> str:
    """"Tree 12: weight 0.010", with ERF's ", score S 0.310"; trees numbered from 1."""
    title = f"Tree {tree + 1}: weight {e.tree_weights[tree]:.3f}"
    if e.tree_scores is not None:
        title += f", score S {e.tree_scores.S[tree]:.3f}"
    return title


def tree_sections(e, choice=None, name=str) -> tuple[TreeSection, ...]:
    """The sections of the trees of ``choice`` (a
    :class:`~.tree_choice.TreeChoice`), or of the explanation's top trees;
    ``name`` shows user-given names and levels (e.g. :func:`forestviz.names.elide`)."""
    trees = e.top_trees if choice is None else choice.trees
    return tuple(tree_section(e, i, choice, name) for i in range(len(trees)))


def tree_section(e, rank: int, choice=None, name=str) -> TreeSection:
    """The section of the ``rank``-th tree shown (from 0), as in :func:`tree_sections`."""
    if choice is None:
        trees, paths, alternatives = e.top_trees, e.paths, e.alternatives
    else:
        trees, paths, alternatives = choice.trees, choice.paths, choice.alternatives
    tree, steps = int(trees[rank]), paths[rank]
    fragile = tuple(bool(s.fragile) for s in steps)
    path = pd.DataFrame({"depth": [s.depth for s in steps],
                         "test": [e.step_sentence(s, name) for s in steps],
                         MARGIN: [s.texts()[2] for s in steps],
                         "most fragile": ["yes" if f else "" for f in fragile]})
    closest = next((s for s in steps if s.fragile), None)
    others = tuple(f"if {e.flips_sentence(other, name)}, this tree would say "
                   f"{tree_value_text(e, other.prediction, name)}"
                   for other in (alternatives[rank] if alternatives else ()))
    return TreeSection(tree=tree, title=tree_title(e, tree),
                       says=tree_value_text(e, e.tree_predictions[tree], name), path=path,
                       fragile=fragile,
                       fragile_test=None if closest is None else e.step_sentence(closest, name),
                       alternatives=others)
