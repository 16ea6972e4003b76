"""Explaining many rows: a saved model made ready for bulk work (``model``), rows streamed from
CSV or Parquet in chunks (``source``), the vectorised explanation of a chunk (``rows``), the
output written chunk by chunk (``sink``) and the run over joblib, here or on a Dask cluster
(``run``). The command line (:mod:`forestviz.cli`) drives it; nothing here imports Streamlit.
"""

from forestviz._lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "BatchModel": "forestviz.batch.model",
    "read_model": "forestviz.batch.model",
    "training_dataset": "forestviz.batch.model",
    "RowSource": "forestviz.batch.source",
    "explain_rows": "forestviz.batch.rows",
    "top_trees": "forestviz.batch.rows",
    "RowSink": "forestviz.batch.sink",
    "backend": "forestviz.batch.run",
    "explain_file": "forestviz.batch.run",
})
