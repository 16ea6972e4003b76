"""One row's explanation and everything that shows it, in sub-packages by idea (issue 40):

* ``row``: :func:`explain` reads a fitted model of any family through the weighted-ensemble
  protocol (:mod:`forestviz.trees.ensemble`) into an :class:`Explanation`, with what it needs
  from the training data (:class:`TrainingSummary`); the :class:`Glance` sums it up for a
  clinician (the reasons both ways, the alarm when a guessed value decides the case, the
  similar rows' outcomes); the :class:`ExplainView` is what the Explain page shows below the
  summary, as sections the page and the record both render, with its :func:`figures`;
* ``drawing``: one tree with the row's path, through dtreeviz (:func:`tree_drawings`);
* ``report``: the self-contained record, HTML (:func:`to_html`) and PDF;
* ``whole``: the whole model through its explanations, and what the fit chose in words;
* ``plots``: the figures, pure functions; ``counterfactual``: what would change the answer.

Long names are shortened by :mod:`forestviz.names`.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "explain": "forestviz.explain.row.explanation",
    "Explanation": "forestviz.explain.row.explanation",
    "Glance": "forestviz.explain.row.glance",
    "TrainingSummary": "forestviz.explain.row.summary",
    "figures": "forestviz.explain.row.figures",
    "ExplainView": "forestviz.explain.row.view",
    "explain_view": "forestviz.explain.row.view",
    "to_html": "forestviz.explain.report.document",
    "tree_drawings": "forestviz.explain.drawing.tree_drawings",
})
