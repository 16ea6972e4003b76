"""The server's cache of opened published models, keyed by their blob's SHA-256
(:meth:`forestviz.store.ModelLibrary.open_model`): at most :data:`CACHE_MODELS` models and
:data:`CACHE_BYTES` of their unpacked arrays, least recently used out first."""

from __future__ import annotations

import contextlib
import io
import threading
import zipfile

import cachetools

from forestviz.app.workbench import Workbench

CACHE_MODELS = 4  # opened models kept per server (a 500-tree model takes about 130 MiB)
CACHE_BYTES = 1024 * 2**20  # and at most this many bytes of their unpacked arrays


class OpenedCache:
    """Opened models by blob SHA-256, least recently used out first once over ``models``
    entries or ``max_bytes`` (each entry weighs its blob's unpacked size, about what its
    arrays take in memory); safe to share between threads, and one load per blob at a time
    (:meth:`loading`: a second opener waits for the first and takes its model)."""

    def __init__(self, models: int = CACHE_MODELS, max_bytes: int = CACHE_BYTES):
        self.models = models
        self._lock = threading.Lock()
        self._kept = cachetools.LRUCache(max_bytes, getsizeof=lambda entry: entry[0])
        self._loads: dict[str, threading.Lock] = {}

    @contextlib.contextmanager
    def loading(self, sha: str):
        """Hold the load of blob ``sha`` (one thread at a time per blob)."""
        with self._lock:
            lock = self._loads.setdefault(sha, threading.Lock())
        with lock:
            yield

    def get(self, sha: str) -> Workbench | None:
        with self._lock:
            entry = self._kept.get(sha)
        return None if entry is None else entry[1]

    def put(self, sha: str, data: bytes, bench: Workbench) -> None:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            weight = sum(info.file_size for info in archive.infolist())
        with self._lock, contextlib.suppress(ValueError):  # larger than the whole cache
            self._kept[sha] = (weight, bench)
            while len(self._kept) > self.models:
                self._kept.popitem()

    def __len__(self) -> int:
        return len(self._kept)
