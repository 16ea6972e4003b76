"""The drawings of the trees an explanation shows, one way for every caller: the Explain page,
the report's technical appendix and the command line all draw a shown tree through
:func:`draw_tree` (the explained row's path, its imputed values marked as imputed), so that a
tree looks the same wherever it is printed. dtreeviz and matplotlib are imported on the first
drawing only (:mod:`.treeviz`, whose content-keyed cache makes a second
drawing of the same tree free).
"""

from __future__ import annotations

from collections.abc import Iterable


def draw_tree(model, explanation, tree: int, context, *, mode: str = "path",
              fancy: bool | None = False) -> str:
    """SVG of tree ``tree`` of ``model`` with ``explanation``'s row (its path highlighted, its
    imputed values marked so; ``mode`` "path" or "full", ``fancy`` as
    :func:`~.treeviz.render_tree`). ``context``: the model's
    :class:`~.treeviz.TreeContext`. Raises
    :class:`~.files.TreeRenderError` when it cannot be drawn."""
    from forestviz.explain.drawing.treeviz import render_tree  # dtreeviz and matplotlib: only here

    return render_tree(model, int(tree), explanation.row, context=context, mode=mode,
                       fancy=fancy, imputed=explanation.imputed_features())


def tree_drawings(model, explanation, context, *, trees: Iterable[int] | None = None,
                  mode: str = "path", fancy: bool | None = False) -> dict[int, str]:
    """:func:`draw_tree` of each of ``trees`` (default: the explanation's top trees), keyed by
    tree index, for :func:`~forestviz.explain.report.document.to_html`; a tree that cannot be drawn
    (:class:`~.files.TreeRenderError`) is left out, its report section
    then shows the path table alone."""
    from forestviz.explain.drawing.files import TreeRenderError

    shown = explanation.top_trees if trees is None else trees
    out = {}
    for tree in shown:
        try:
            out[int(tree)] = draw_tree(model, explanation, tree, context, mode=mode, fancy=fancy)
        except TreeRenderError:
            continue
    return out
