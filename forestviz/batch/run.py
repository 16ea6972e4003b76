"""Explaining a whole file: chunks of rows as joblib tasks, on this process or a Dask cluster.

:func:`explain_file` streams the rows (:class:`~forestviz.batch.source.RowSource`), sends each
chunk through :func:`explain_chunk` with ``joblib.Parallel`` and writes the results in the
file's order (:class:`~forestviz.batch.sink.RowSink`); at most two chunks per worker are in
flight, so memory does not grow with the file. :func:`backend` chooses where the tasks run:
here, one chunk after the other (or on ``jobs`` threads), or on the workers of a Dask
distributed cluster through joblib's ``"dask"`` backend (``--scheduler tcp://…``, or
``--local-cluster N`` started on this machine), with the model scattered once to every worker.
The same chunks meet the same code everywhere, so the output does not depend on where it ran.

The Dask workers receive the model and the rows pickled: run them only where the scheduler is
reachable by the people allowed to run code there (Dask's own security model).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import pandas as pd
from joblib import Parallel, delayed, parallel_config
from threadpoolctl import threadpool_limits

from forestviz.batch.model import BatchModel
from forestviz.batch.rows import encode, explain_rows, output_columns, require_columns
from forestviz.batch.sink import RowSink
from forestviz.batch.source import Chunk, RowSource
from forestviz.io.csv_input import DataError
from forestviz.trees.fitted import estimator_trees

CHUNK_ROWS = 5_000
CONNECT_SECONDS = 20


def explain_chunk(model: BatchModel, chunk: Chunk, id_column: str | None, top_k: int,
                  contributions: bool) -> pd.DataFrame:
    """The explained rows of one chunk (:func:`forestviz.batch.rows.explain_rows`)."""
    X, ids = encode(model, chunk, id_column)
    return explain_rows(model, X, ids, top_k=top_k, contributions=contributions)


def id_column_of(model: BatchModel, source: RowSource, id_column: str | None) -> str | None:
    """The column that names the rows: ``id_column`` when given (DataError when the file
    lacks it), else the model's ID column when the file has it, else None (positions)."""
    if id_column is not None:
        if id_column not in source.columns:
            raise DataError(f"The file has no column '{id_column}' (given as the ID column).")
        return id_column
    column = model.file.choice.id_column
    return column if column in source.columns else None


def check_columns(model: BatchModel, source: RowSource) -> None:
    """DataError naming the first column the model encodes that the file lacks."""
    require_columns(model.used, source.columns)


@contextlib.contextmanager
def backend(*, scheduler: str | None = None, local_cluster: int | None = None,
            jobs: int = 1, scatter=()) -> Iterator[int]:
    """joblib's backend for the ``with`` block, yielding its ``n_jobs``: a Dask cluster at
    ``scheduler`` (an address such as ``tcp://10.0.0.5:8786``), or a local cluster of
    ``local_cluster`` worker processes (one thread each, loopback only), or ``jobs`` threads
    here (1: one chunk after the other). ``scatter``: objects sent once to every worker.
    BLAS keeps one thread per task, as Dask's workers have it."""
    if scheduler is None and local_cluster is None:
        with threadpool_limits(1, user_api="blas"), parallel_config(
                backend="threading" if jobs > 1 else "sequential", n_jobs=jobs):
            yield jobs
        return
    from distributed import Client, LocalCluster  # the Dask runs only

    with contextlib.ExitStack() as stack:
        try:
            if scheduler is not None:
                client = stack.enter_context(Client(scheduler, timeout=CONNECT_SECONDS))
            else:
                cluster = stack.enter_context(LocalCluster(
                    n_workers=local_cluster, threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address=None))
                client = stack.enter_context(Client(cluster))
        except (OSError, TimeoutError) as err:
            where = scheduler or "a local cluster"
            raise DataError(f"Could not reach the Dask scheduler at {where}: {err}") from err
        stack.enter_context(parallel_config(backend="dask", client=client, n_jobs=-1,
                                            scatter=list(scatter)))
        yield sum(client.nthreads().values())


def explain_file(model: BatchModel, source: RowSource, sink: RowSink, *, top_k: int = 5,
                 contributions: bool = False, chunk_rows: int = CHUNK_ROWS,
                 id_column: str | None = None,
                 progress: Callable[[int], None] | None = None,
                 read: Callable[[Chunk], None] | None = None,
                 written: Callable[[pd.DataFrame], None] | None = None) -> int:
    """Explain every row of ``source`` into ``sink`` with joblib's active backend (see
    :func:`backend`, whose ``scatter`` should hold ``model``, with its contributions built
    first when they are asked for: :meth:`BatchModel.with_contributions`); returns the number
    of rows.
    ``progress(rows)`` is called after each chunk is written, ``read(chunk)`` on each chunk
    as it is read, in the file's order (the audit trail's digest of the rows), ``written(frame)``
    on each chunk's explanations once written (the trail's count of unfamiliar rows)."""
    check_columns(model, source)
    id_column = id_column_of(model, source, id_column)
    if contributions:
        model = model.with_contributions()
    columns = [*model.used, *([id_column] if id_column else [])]
    chunks = source.chunks(columns, chunk_rows)
    if read is not None:
        chunks = _told(chunks, read)
    tasks = (delayed(explain_chunk)(model, chunk, id_column, top_k, contributions)
             for chunk in chunks)
    parallel = Parallel(batch_size=1, pre_dispatch="2*n_jobs", return_as="generator")
    expected = output_columns(model, min(top_k, len(estimator_trees(model.estimator))),
                              contributions)
    for frame in parallel(tasks):
        if list(frame.columns) != expected:  # a worker with another forestviz
            raise RuntimeError("a worker returned other columns than this forestviz writes")
        sink.write(frame)
        if written is not None:
            written(frame)
        if progress is not None:
            progress(len(frame))
    if sink.rows == 0:
        raise DataError("The file has no rows to explain.")
    return sink.rows


def _told(chunks: Iterator[Chunk], read: Callable[[Chunk], None]) -> Iterator[Chunk]:
    for chunk in chunks:
        read(chunk)
        yield chunk
