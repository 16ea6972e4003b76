"""forestviz: explain tree-ensemble predictions one sample at a time.

The estimators and helpers are imported lazily, so ``import forestviz`` stays cheap for the app.
"""

from forestviz._lazy import lazy_exports

_EXPORTS = {
    "DataError": "forestviz.io.errors",
    "Dataset": "forestviz.io.dataset",
    "load_csv": "forestviz.io.csv_input",
    "TablePreprocessor": "forestviz.io.preprocessing",
    "list_datasets": "forestviz.io.bundled",
    "load_dataset": "forestviz.io.bundled",
    "LeafStats": "forestviz.trees.leaf_stats",
    "AttentionForestRegressor": "forestviz.attention.estimators",
    "AttentionForestClassifier": "forestviz.attention.estimators",
    "EnhancedForestClassifier": "forestviz.enhanced.estimator",
    "AttentionBoostingRegressor": "forestviz.boosting.estimator",
    "DecidedRandomForestClassifier": "forestviz.trees.plain",
    "DecidedExtraTreesClassifier": "forestviz.trees.plain",
    "DecidedGradientBoostingClassifier": "forestviz.trees.plain",
}

__version__ = "0.1.0"
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
