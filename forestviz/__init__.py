"""forestviz: explain tree-ensemble predictions one sample at a time.

The estimators and helpers are imported lazily, so ``import forestviz`` stays cheap for the app.
"""

from importlib import import_module

_EXPORTS = {
    "DataError": "forestviz.csv_input",
    "Dataset": "forestviz.data",
    "load_csv": "forestviz.csv_input",
    "TablePreprocessor": "forestviz.preprocessing",
    "list_datasets": "forestviz.datasets",
    "load_dataset": "forestviz.datasets",
    "LeafStats": "forestviz.forest",
    "AttentionForestRegressor": "forestviz.attention",
    "AttentionForestClassifier": "forestviz.attention",
    "EnhancedForestClassifier": "forestviz.enhanced",
    "AttentionBoostingRegressor": "forestviz.boosting",
}

__all__ = sorted(_EXPORTS)
__version__ = "0.1.0"


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'forestviz' has no attribute {name!r}")


def __dir__():
    return __all__
