"""The files and the program behind a tree drawing: dtreeviz's node images in a private temporary
directory, and graphviz's ``dot``, with their failures as :class:`TreeRenderError`."""

from __future__ import annotations

import logging
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from forestviz.explain.drawing.dtreeviz_conventions import drawing_files

_log = logging.getLogger(__name__)


class TreeRenderError(RuntimeError):
    """A tree could not be drawn; the message says why and what to do."""


@contextmanager
def private_tempdir() -> Iterator[str]:
    """A new directory (mode 0700) as ``tempfile.tempdir`` for one render; call under
    the render lock (``.treeviz``).

    dtreeviz writes its node pictures (``node<k>_<pid>.svg``, …: named in
    :mod:`~.dtreeviz_conventions`) into ``tempfile.gettempdir()`` on every
    render, with no parameter for the directory, and never
    removes them (and :mod:`~.leaf_plot` writes ``leafstrip<k>_<pid>.svg``
    beside them): in a shared ``/tmp`` they pile up on a long-running server and their fixed,
    predictable names invite symlink attacks. ``tempfile.tempdir`` is the documented hook
    ``gettempdir()`` reads; it is restored on leaving, success or failure, and the directory
    is removed then.

    ``tempfile.tempdir`` is process-wide, so another thread may create a temporary file of its
    own in this directory during the render. Only files named as dtreeviz names them for this
    process are deleted; a directory still holding anything else is left in place (with a
    warning in the log) rather than lose a file that is not ours.
    """
    previous = tempfile.tempdir
    path = tempfile.mkdtemp(prefix="forestviz-tree-")
    tempfile.tempdir = path
    try:
        yield path
    finally:
        tempfile.tempdir = previous
        _remove_drawing_files(path)


def _remove_drawing_files(path: str) -> None:
    """Delete the drawing's files for this process in ``path``, then ``path`` if it is empty."""
    ours = drawing_files(os.getpid(), own=("leafstrip",))  # leaf_plot.FILE's too
    with suppress(FileNotFoundError), os.scandir(path) as entries:
        for entry in entries:
            if ours.fullmatch(entry.name) and not entry.is_dir(follow_symlinks=False):
                with suppress(FileNotFoundError):
                    os.unlink(entry.path)
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        _log.warning("left the temporary directory %s (%s): it holds files that are not "
                     "dtreeviz's", path, exc.strerror)


def run_dot(source, timeout) -> str:
    """SVG of graphviz source ``source`` (``dot -Tsvg``, at most ``timeout`` seconds)."""
    try:
        done = subprocess.run(["dot", "-Tsvg"], input=source.encode("utf-8"),
                              capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise TreeRenderError(f"Drawing the tree took longer than {timeout:g} s; draw only the "
                              "path or choose a smaller depth.") from exc
    except OSError as exc:
        raise TreeRenderError(f"Graphviz's `dot` could not be started: {exc}") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()[-500:]
        raise TreeRenderError(f"Graphviz's `dot` failed (exit {done.returncode}): {message}")
    return done.stdout.decode("utf-8")
