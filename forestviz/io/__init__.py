"""Tables in, files out: reading an untrusted CSV, the bundled data sets, the learning task on
a table (:class:`Dataset`), the feature matrix with readable names (:class:`TablePreprocessor`)
and CSV downloads a spreadsheet cannot turn into formulas.

Nothing here knows a model family: the estimators never import this package.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "DataError": "forestviz.io.errors",
    "load_csv": "forestviz.io.csv_input",
    "DataChoice": "forestviz.io.dataset",
    "Dataset": "forestviz.io.dataset",
    "schema": "forestviz.io.dataset",
    "DatasetInfo": "forestviz.io.bundled",
    "list_datasets": "forestviz.io.bundled",
    "load_dataset": "forestviz.io.bundled",
    "TablePreprocessor": "forestviz.io.preprocessing",
    "csv_bytes": "forestviz.io.export",
})
