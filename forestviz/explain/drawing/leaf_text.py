"""What a tree drawing's leaves say in words: the tree's own output, where it comes from, and what
the training rows drawn beside it are.

dtreeviz draws each leaf from the training rows that reach it (a pie of their classes, or a
strip of their targets, with ``n``), while the model predicts with each tree's own output f_k
(:mod:`.tree_outputs`): a random forest's tree votes from its bootstrap sample,
AGBoost adds V_k = T·ν·h_k. So every leaf drawn also says, in the page's words and numbers
("this tree says: P(No) = 0.00, P(Yes) = 1.00"), what the tree says and what the picture counts
("training rows in this leaf: 40 No / 107 Yes"); a full drawing, whose other leaves carry only
their number, explains them once in its title (:meth:`LeafWords.note`).

dtreeviz has no parameter or shadow-tree method for a leaf's text (its leaf label is
``f"n={n}\\n{class}"`` inside the leaf's image), so the words are added to graphviz's source as
new statements at its end, which re-declare each drawn leaf's ``label`` (graphviz merges a
node's attributes; the later ``label`` wins): the leaf's image, by the path dtreeviz writes it
to (or, for a regression leaf, a readable strip of its rows, :mod:`.leaf_plot`), and lines of
text under it (:func:`add_leaf_labels`). Nothing dtreeviz wrote is matched or
edited.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass

import numpy as np

from forestviz.explain.drawing.drawn_numbers import short
from forestviz.explain.drawing.dtreeviz_conventions import colours, leaf_image, leaf_node
from forestviz.explain.drawing.tree_outputs import BOOTSTRAP, MODEL, OWN, ROWS, SCALED, TreeOutputs
from forestviz.names import elide
from forestviz.numbers import plain_number

CLASSES_LISTED = 4
"""Leaves list every class up to this many; beyond, the most probable ones and "…"."""
LINE_CHARS = 60
"""Lines of words under a leaf break after a ", " or " / " beyond this many characters."""
SHORT_NAME = 16
"""Characters of a class name under a leaf off the row's path (the pie names the class)."""

_ORIGIN = {  # (class shares, value): where the tree's output comes from
    ROWS: ("(shares of the {n} training rows in this leaf)",
           "(mean of the {n} training rows in this leaf)"),
    BOOTSTRAP: ("(from its bootstrap sample)", "(mean of its bootstrap sample)"),
    OWN: ("(the tree's own leaf value)", "(the tree's own leaf value)"),
}
_NOTE_ORIGIN = {  # (class shares, value), for a full drawing's title
    ROWS: ("the shares of the training rows in the leaf", "the mean of the training rows in it"),
    BOOTSTRAP: ("from its bootstrap sample", "the mean of its bootstrap sample"),
    OWN: ("as the tree stores it", "as the tree stores it"),
    MODEL: ("as the prediction uses it", "as the prediction uses it"),
}


@dataclass(frozen=True)
class LeafWords:
    """The words of one tree's leaves. ``outputs``/``source``: what the tree says and where it
    comes from; ``y``: training class codes (classifier) or None; ``class_names``: drawable
    names of the codes; ``target_name``: the drawable target name."""

    outputs: TreeOutputs
    source: str
    rows_by_node: dict
    y: np.ndarray | None
    class_names: tuple[str, ...] | None
    target_name: str

    def says(self, leaf) -> str:
        """The tree's output at ``leaf`` as the page writes it."""
        value = self.outputs.values[leaf]
        if self.class_names is None:
            return f"V_k = {short(value)}" if self.source == SCALED else short(value)
        order = np.arange(value.size)
        if value.size > CLASSES_LISTED:
            order = np.argsort(-value, kind="stable")[:CLASSES_LISTED - 1]
        shares = ", ".join(f"P({self.class_names[c]}) = {value[c]:.2f}" for c in order)
        return shares + (", …" if order.size < value.size else "")

    def lines(self, leaf, *, on_path: bool) -> list[str]:
        """The row's leaf: what the tree says, where from, and the training rows; another
        leaf: its class share (a pie's label names only the class)."""
        rows = len(self.rows_by_node[leaf])
        if not on_path:
            if self.class_names is not None:
                top = int(np.argmax(self.outputs.values[leaf]))
                name = elide(self.class_names[top], SHORT_NAME)
                said = [f"P({name}) = {self.outputs.values[leaf][top]:.2f}"]
            else:
                said = [self.says(leaf)] if rows == 0 else []
            return said + (["no training rows"] if rows == 0 else [])
        lines = [f"this tree says: {self.says(leaf)}"]
        if self.source == SCALED:
            T, nu = self.outputs.n_trees, f"{plain_number(self.outputs.learning_rate, 4)}"
            return [*lines, f"(= {T} trees × ν {nu} × leaf value {short(self.outputs.own[leaf])})",
                    f"dots: residuals of the {rows} training rows",  # two short lines: graphviz
                    f"in this leaf, × {T} × {nu}"]  # sizes the box narrower than browsers draw
        source = self.source
        if source == ROWS and rows == 0:  # no row to average: the tree's own value, if so
            own = np.allclose(self.outputs.values[leaf], self.outputs.own[leaf])
            source = OWN if own else MODEL
        if source in _ORIGIN:
            lines.append(_ORIGIN[source][self.class_names is None].format(n=rows))
        return [*lines, f"training rows in this leaf: {self._rows_text(leaf, rows)}"]

    def _rows_text(self, leaf, rows) -> str:
        if rows == 0:
            return "none"
        if self.class_names is None:
            return f"{rows} (the dots)"
        if len(self.class_names) > CLASSES_LISTED:
            return f"{rows} (the pie)"
        counts = np.bincount(self.y[self.rows_by_node[leaf]], minlength=len(self.class_names))
        return " / ".join(f"{count} {name}"
                          for count, name in zip(counts, self.class_names, strict=True))

    def note(self) -> str:
        """What every leaf of a full drawing shows, in two lines."""
        if self.source == SCALED:
            T, nu = self.outputs.n_trees, f"{plain_number(self.outputs.learning_rate, 4)}"
            return (f"Leaves: V_k = {T} trees × ν {nu} × the tree's leaf value, this tree's "
                    f"contribution to the prediction;\ndots: the training rows' residuals × {T} "
                    f"× {nu}; n: the training rows in the leaf")
        origin = _NOTE_ORIGIN[self.source][self.class_names is None]
        if self.class_names is not None:
            return (f"Leaves: the class and P(class) under each pie are this tree's own vote "
                    f"({origin});\nthe pie and n count the training rows in the leaf")
        return (f"Leaves: {self.target_name} = this tree's own value ({origin});\nthe dots "
                "and n are the training rows in the leaf")


def dot_string(text: str) -> str:
    """``text`` inside a graphviz double-quoted string (lines joined by graphviz's ``\\n``)."""
    return "\\n".join(line.replace("\\", "\\\\").replace('"', '\\"')
                      for line in text.split("\n"))


def wrap(line: str, width: int = LINE_CHARS) -> list[str]:
    """``line`` in pieces of at most ``width`` characters where it can break: after the ", "
    between class shares and the " / " between class counts (a longer piece stays whole)."""
    pieces, current = [], ""
    for part in re.split(r"(?<=, )|(?<= / )", line):
        if current and len(current) + len(part) > width:
            pieces.append(current.rstrip())
            current = ""
        current += part
    return [*pieces, current]


def add_leaf_labels(dot: str, leaves: dict[int, list[str]], *, path_leaf: int,
                    fontname: str, images=None) -> str:
    """``dot`` with statements at its end giving each of ``leaves`` {leaf id: lines} its image
    and its lines. The image is ``images[leaf]`` when given (a
    :class:`~.leaf_plot.LeafImage`: a readable strip of a regression leaf's
    rows, drawn at its own size), else dtreeviz's, if it drew one (``leaf<id>_<pid>.svg`` in
    the temporary directory).

    A leaf no training row reaches has no image, and graphviz would draw a bare ``leaf<id>``
    ellipse for dtreeviz's edge to it: it becomes a box of text, dashed if it is the row's.
    """
    colors = colours()
    images = images or {}
    statements = []
    for leaf, lines in leaves.items():
        image = leaf_image(leaf)
        drawn = leaf in images or os.path.exists(image)
        if leaf in images:  # its own size, in points: graphviz would shrink an SVG's by 3/4
            own = images[leaf]
            cell = (f'<td fixedsize="true" width="{own.width:.0f}" height="{own.height:.0f}">'
                    f'<img src="{html.escape(own.path)}" scale="true"/></td>')
        elif lines or not drawn:
            cell = f'<td><img src="{html.escape(image)}"/></td>'
        else:
            continue  # dtreeviz's own label says it all
        rows = [f"<tr>{cell}</tr>"] if drawn else []
        size = 10 if leaf == path_leaf else 9
        rows += [f'<tr><td><font face="{fontname}" color="{colors["text"]}" point-size="{size}">'
                 f'{html.escape(piece, quote=False)}</font></td></tr>'
                 for line in lines for piece in wrap(line)]
        style = ""
        if not drawn:
            style = (f'shape=box margin="0" penwidth=".5" color="{colors["highlight"]}" '
                     'style="dashed" ' if leaf == path_leaf else 'shape=box margin="0" '
                     'penwidth="0" ')
        statements.append(f'{leaf_node(leaf)} [{style}label=<<table border="0" cellborder="0" '
                          f'cellspacing="0" cellpadding="1">{"".join(rows)}</table>>]')
    if not statements:
        return dot
    end = dot.rstrip().rfind("}")
    return dot[:end] + "\n".join(statements) + "\n" + dot[end:]
