"""A load balancer with sticky sessions, small enough to read, for the two-replica browser test:
a TCP proxy on a free loopback port that sends each new connection to the replica chosen at
that moment (:meth:`StickyProxy.route`) and keeps it there until it closes.

A Streamlit session lives in one server process and speaks over one WebSocket
(``/_stcore/stream``): a connection that stays on its replica is a session that stays on it,
which is what a proxy's sticky cookie or ``ip_hash`` gives in production
(``deploy/nginx.conf``). Behind the proxy every replica is one origin for the browser, so
Streamlit's sign-in cookie (bound to the origin of ``redirect_uri``) set through one replica is
read by the other. Each connection's first request line is kept (:attr:`StickyProxy.requests`),
so a test can say which replica served which WebSocket.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from bench.appserver import free_port

STREAM = "/_stcore/stream"  # the path of a Streamlit session's WebSocket
CHUNK = 65536


class StickyProxy:
    """``backends``: replica name → its port on 127.0.0.1. ``with`` starts and stops it."""

    def __init__(self, backends: dict[str, int]):
        self.backends = dict(backends)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.current = next(iter(self.backends))
        self.requests: list[tuple[str, str]] = []  # (replica, first request line)
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True, name="sticky-proxy")

    def route(self, name: str) -> None:
        """Send the connections opened from now on to replica ``name``."""
        if name not in self.backends:
            raise KeyError(name)
        self.current = name

    def streams(self, name: str) -> int:
        """How many session WebSockets replica ``name`` has been given."""
        return sum(1 for replica, line in self.requests
                   if replica == name and line.startswith(f"GET {STREAM}"))

    def __enter__(self) -> StickyProxy:
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the proxy did not start")
        return self

    def __exit__(self, *_) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._connect, "127.0.0.1", self.port))
        self._started.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()
            for task in asyncio.all_tasks(self._loop):
                task.cancel()
            self._loop.run_until_complete(asyncio.sleep(0))
            self._loop.close()

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        name = self.current
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", self.backends[name])
        except OSError:
            writer.close()
            return
        first = await reader.read(CHUNK)
        self.requests.append((name, first.split(b"\r\n", 1)[0].decode("latin-1")))
        upstream_writer.write(first)
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy ``source`` to ``sink`` until either end closes, then close ``sink``."""
    with contextlib.suppress(ConnectionError, asyncio.CancelledError):
        while data := await source.read(CHUNK):
            sink.write(data)
            await sink.drain()
    with contextlib.suppress(ConnectionError, RuntimeError):
        sink.close()
