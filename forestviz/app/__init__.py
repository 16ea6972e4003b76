"""The application layer: what the dashboard runs, without a user interface.

``workbench`` (the workflow as one object, over ``train_views`` and ``forest_views``, the Train
and Forest pages' views); ``families`` (the Train page's settings, checked against
:mod:`forestviz.registry` and :mod:`forestviz.parameters`, importing no model); ``workflow``
(the chosen family's estimator, the split, held-out metrics, the
:class:`~forestviz.app.workflow.Bundle` every page reads); ``model_file`` (a bundle's model
file written and read back); ``jobs`` (the
worker processes that run it: bounded, cancellable, lower priority); ``warm`` (imported once by
the workers' forkserver); ``limits`` (the server's caps) and ``uploads`` (the memory budget of
uploaded tables shared by all sessions). ``ui/`` and ``pages/`` call these; nothing in
:mod:`forestviz` below this package imports it.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "Bundle": "forestviz.app.workflow",
    "Settings": "forestviz.app.families",
    "train_bundle": "forestviz.app.workflow",
    "JobPool": "forestviz.app.jobs",
    "Limits": "forestviz.app.limits",
    "TableBudget": "forestviz.app.uploads",
})
