"""One row's explanation and everything that shows it.

``explanation`` (:func:`explain`, :class:`Explanation`) reads a fitted model of any family
through the weighted-ensemble protocol (:mod:`forestviz.trees.ensemble`); ``summary``
(:class:`TrainingSummary`) holds what it needs from the training data; ``view``
(:class:`ExplainView`) is what the Explain page shows below a row's summary, as sections that
the page and ``report`` (the self-contained HTML page) both render; ``plots`` draws the
figures, ``treeviz`` one tree with the row's path (over
``shadow``, the fitted tree as dtreeviz reads it). ``glance`` (:class:`Glance`) sums one
explanation up for a clinician: the reasons both ways (``reasons``), the alarm when a guessed
value decides the case (``imputed``) and the similar rows' outcomes; ``tree_choice`` and
``tree_section`` say which trees to show and how; ``selection_note`` says in words what the fit
chose (attention or its plain base model). Long names are shortened by :mod:`forestviz.names`.
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
