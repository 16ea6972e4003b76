"""The Explain page's figures of a row, built once per model and row (issue 38): a session that
comes back to a row, or another session explaining the same row with the same model, is given
the figures already built (plotly's figure objects cost most of a page run after the tree
drawings, which :mod:`forestviz.explain.treeviz` caches the same way).

Kept per model object (weakly: a model no session holds any more takes its figures with it),
at most :data:`ROWS` rows each, least recently used out first, keyed by what the figures are
made of besides the model: the row as the model reads it (its encoded values), the values as
shown, its missing columns and ID, and the options of
:func:`~forestviz.explain.report.figures` (the figures asked for, the page's width, the trees
drawn). The figures are shared and never changed once built (Streamlit serialises a copy of
each figure it sends); each call returns a new dict of them.
"""

from __future__ import annotations

import threading
import weakref

import cachetools

from forestviz.explain.explanation import Explanation
from forestviz.explain.report import figures

ROWS = 32  # rows kept per model (a row's figures take about 100 KB)

_LOCK = threading.Lock()  # cachetools caches are not thread-safe
_BY_MODEL: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def row_key(explanation: Explanation, **options) -> tuple:
    """What a row's figures are made of besides the model, as a dict key."""
    e = explanation
    return (e.row.tobytes(), tuple(map(str, e.features["value"])), tuple(sorted(e.missing)),
            e.row_id, tuple(sorted(options.items())))


def row_figures(model, explanation: Explanation, **options) -> dict:
    """``figures(explanation, **options)`` of ``model``'s row, from the cache when built
    before; ``options`` hashable (``trees`` a tuple, ``names`` a frozenset)."""
    key = row_key(explanation, **options)
    with _LOCK:
        kept = _BY_MODEL.setdefault(model, cachetools.LRUCache(ROWS))
        found = kept.get(key)
    if found is None:
        built = figures(explanation, **options)
        with _LOCK:
            found = kept.setdefault(key, built)
    return dict(found)

