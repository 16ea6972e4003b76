"""The ``forestviz`` command line (``python -m forestviz``): ``train``, ``explain`` and
``report``, the app's workflow as commands a scheduled job can run. ``main`` parses the
arguments and turns a problem with the user's files into exit code 2 and one plain line;
``commands`` runs them; ``progress`` draws the bars and tables with ``rich``.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "main": "forestviz.cli.main",
    "parser": "forestviz.cli.main",
})
