"""What the Explain page builds for a row, kept per model and row (issue 38): its figures, the
summary's waterfall and the stability line. A session that comes back to a row, or another
session explaining the same row with the same model, is given what was built before (plotly's
figure objects cost most of a page run after the tree drawings, which
:mod:`forestviz.explain.drawing.treeviz` caches the same way).

Kept per model object (weakly: a model no session holds any more takes its entries with it),
at most :data:`ROWS` entries each, least recently used out first, keyed by what is built and
by what it is made of besides the model (:func:`row_key`): the row as the model reads it (its
encoded values), the values as shown, its missing columns and ID, and the build's options
(e.g. the figures asked for, the page's width, the trees drawn). What is kept is shared and
never changed once built (Streamlit serialises a copy of each figure it sends).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

import cachetools

from forestviz.explain.row.explanation import Explanation
from forestviz.explain.row.figures import figures

ROWS = 64  # entries kept per model (a row's figures take about 100 KB)

_LOCK = threading.Lock()  # cachetools caches are not thread-safe
_BY_MODEL: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def row_key(explanation: Explanation, **options) -> tuple:
    """What a row's views are made of besides the model, as a dict key."""
    e = explanation
    return (e.row.tobytes(), tuple(map(str, e.features["value"])), tuple(sorted(e.missing)),
            e.row_id, tuple(sorted(options.items())))


def kept(model, key: tuple, build: Callable[[], object]):
    """``build()``'s result for ``model`` and ``key``: built the first time, then kept (the
    first one built is kept when two sessions build it at once)."""
    with _LOCK:
        cache = _BY_MODEL.setdefault(model, cachetools.LRUCache(ROWS))
        found = cache.get(key)
    if found is None:
        built = build()
        with _LOCK:
            found = cache.setdefault(key, built)
    return found


def row_figures(model, explanation: Explanation, **options) -> dict:
    """``figures(explanation, **options)`` of ``model``'s row
    (:func:`~forestviz.explain.row.figures.figures`), kept; ``options`` hashable (``trees`` a tuple,
    ``names`` a frozenset). Each call returns a new dict of the kept figures."""
    return dict(kept(model, ("figures", *row_key(explanation, **options)),
                     lambda: figures(explanation, **options)))
