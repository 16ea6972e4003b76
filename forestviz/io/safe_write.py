"""Writing an output file so that it is never written through a link and never left half-written.

Every file forestviz writes (a model file, an explanation, a report, the app's stored models)
goes through :class:`SafeOutput`, one way:

1. the target is checked first: a symbolic link, a folder or another file that is not a
   regular file (a FIFO, a device) is refused unless ``force`` is given (then the link itself
   is replaced, never the file it points to; a folder is always refused);
2. the bytes go to a new file in the target's folder whose name nobody can predict, created
   with ``O_CREAT | O_EXCL`` (:func:`tempfile.mkstemp`): a name planted in advance, as a link
   or otherwise, is never opened (the classic temporary-file race, CWE-377/CWE-59);
3. the file is flushed and ``fsync``-ed, then renamed onto the target with :func:`os.replace`
   (an atomic rename, which replaces a link planted meanwhile instead of following it);
4. any error on the way (a full disk, a quota, a removed folder) removes the temporary file
   and raises :class:`OutputError`, one line saying what had been written and that the output
   is incomplete: nothing appears under the target's name.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from forestviz.io.csv_input import DataError

_TEMP_NAME_CHARS = 50  # of the target's name in the temporary name (<= 255 bytes in all)
_PIECE = 1 << 20  # write_file's step: an error names the bytes written before it


class OutputError(DataError):
    """An output that cannot be written, or was not written whole; the message is one line."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_FILE_MODE = 0o666 & ~_umask()  # what open() would have given a new file


def check_target(path, *, force: bool = False) -> Path:
    """``path`` as a Path when it may be written: absent, or a regular file (with ``force``,
    also a symbolic link or another non-folder entry, which is replaced, not followed).
    OutputError otherwise, and when its folder does not exist."""
    path = Path(path)
    if not path.parent.is_dir():
        raise OutputError(f"The folder of the output '{path}' does not exist.")
    try:
        found = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    if stat.S_ISDIR(found):
        raise OutputError(f"The output '{path}' is a folder; give a file name.")
    if stat.S_ISLNK(found) and not force:
        raise OutputError(f"The output '{path}' is a symbolic link; forestviz does not write "
                          "through links. Remove it or choose another name (--force replaces "
                          "the link itself).")
    if not (stat.S_ISREG(found) or stat.S_ISLNK(found) or force):
        raise OutputError(f"The output '{path}' is not a regular file; choose another name "
                          "(--force replaces it).")
    return path


def incomplete(path, written: str, error: OSError) -> OutputError:
    """The one-line error of a write that failed after ``written`` (e.g. "1,000 rows")."""
    reason = error.strerror or str(error) or type(error).__name__
    return OutputError(f"Writing '{Path(path).name}' failed after {written} ({reason}); the "
                       "output is incomplete and was not kept.")


class SafeOutput:
    """A file for ``path`` written under a temporary name and put in place whole.

    ``open()`` returns the binary file to write; ``commit()`` flushes, ``fsync``-s and renames it
    onto ``path``; ``discard()`` removes it (call it on any failure; a no-op after commit).
    Errors while writing are the caller's to turn into :func:`incomplete`; those of
    ``commit`` are OSError as well."""

    def __init__(self, path, *, force: bool = False):
        self.path = check_target(path, force=force)
        try:  # a file replaced keeps its permissions; a new one gets what open() gives
            found = os.lstat(self.path).st_mode
            self._mode = stat.S_IMODE(found) if stat.S_ISREG(found) else _FILE_MODE
        except FileNotFoundError:
            self._mode = _FILE_MODE
        self.handle: BinaryIO | None = None
        self._temp: str | None = None

    def open(self) -> BinaryIO:
        """The temporary file, open for writing; OutputError when the folder refuses it."""
        try:
            fd, self._temp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp",
                                              prefix=f".{self.path.name[:_TEMP_NAME_CHARS]}.")
        except OSError as err:
            raise OutputError(f"The output '{self.path}' cannot be created in its folder "
                              f"({err.strerror or err}).") from err
        self.handle = os.fdopen(fd, "wb")
        return self.handle

    def commit(self) -> None:
        handle = self.handle
        handle.flush()
        os.fchmod(handle.fileno(), self._mode)
        os.fsync(handle.fileno())
        handle.close()
        os.replace(self._temp, self.path)
        self._temp = None
        _sync_folder(self.path.parent)

    def discard(self) -> None:
        if self.handle is not None:
            with contextlib.suppress(OSError):
                self.handle.close()
        if self._temp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._temp)
            self._temp = None


def write_file(path, data: bytes, *, force: bool = False) -> int:
    """Write ``data`` to ``path`` through :class:`SafeOutput`; the number of bytes.
    OutputError when ``path`` may not be written or the write fails (nothing is left)."""
    view = memoryview(data)
    return write_pieces(path, (view[start : start + _PIECE]
                               for start in range(0, len(data), _PIECE)),
                        force=force, size=len(data))


def write_pieces(path, pieces: Iterable[bytes], *, force: bool = False,
                 size: int | None = None) -> int:
    """Write ``pieces`` one after the other to ``path`` through :class:`SafeOutput` (an
    output made a piece at a time, never held whole); the number of bytes. OutputError as
    :func:`write_file` (``size``, when known, is said beside the bytes written)."""
    output, done = SafeOutput(path, force=force), 0
    try:
        handle = output.open()
        for piece in pieces:
            handle.write(piece)
            done += len(piece)
        output.commit()
    except OSError as err:
        written = f"{done:,} bytes" if size is None else f"{done:,} of {size:,} bytes"
        raise incomplete(path, written, err) from err
    finally:
        output.discard()
    return done


def _sync_folder(folder: Path) -> None:
    """``fsync`` the folder so the rename itself is on disk (skipped where a file system
    cannot sync a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
