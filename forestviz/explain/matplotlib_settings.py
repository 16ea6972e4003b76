"""Matplotlib's settings while a picture is drawn, one thread at a time.

Matplotlib keeps its settings (``rcParams``) once per process. ``matplotlib.rc_context`` saves
all of them on entry and puts all of them back on exit, so two threads whose contexts overlap
can leave one thread's setting in place for good: the tree drawing enters (``text.parse_math``
off), a report picture enters and saves that, the drawing leaves and restores, the picture
leaves and restores the drawing's setting. A picture that overlaps the other's context is drawn
with the other's settings too: a tree drawing's node images made while a report picture set
``svg.fonttype`` to ``"none"`` keep their text as text, and the drawing came out wider
(``tests/test_matplotlib_settings.py``). Every drawing in forestviz that changes a setting does
it through :func:`drawing_with`, under one process-wide lock, and changes nothing outside it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_LOCK = threading.RLock()


@contextlib.contextmanager
def drawing_with(settings: dict[str, object]) -> Iterator[None]:
    """Matplotlib's ``settings`` for the block, no other thread's settings meanwhile, and the
    process' settings as they were afterwards."""
    import matplotlib  # the drawing modules import it on first use, not with forestviz

    with _LOCK, matplotlib.rc_context(settings):
        yield
