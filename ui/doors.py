"""Who may reach the server (issue 36): local mode is for this computer only, and a page
that rebinds its own name to this machine (DNS rebinding) is refused.

Local mode (no ``[auth]`` section: :func:`ui.identity.auth_settings`) makes whoever reaches
the port the admin. So the server starts in local mode only on a loopback address
(``.streamlit/config.toml`` sets ``server.address = "127.0.0.1"``); any other address given on
the command line is refused in one line (:func:`refuse_unsafe_address`) unless sign-in is
configured or the operator sets :data:`UNSAFE_SWITCH` to ``1``.

A browser on this computer is an attacker too: a page the local user merely visits can make
its own name resolve to 127.0.0.1 and then talk to the server as a page of the same origin
(its requests carry ``Host: its-name``). :class:`HostAllowList`, an ASGI middleware in front
of every HTTP route and the WebSocket, answers any other Host than :func:`allowed_hosts`
with 403 (an HTTP refusal of the WebSocket's handshake too). A loopback name (127.0.0.1,
localhost, [::1]) is always allowed: a rebinding page cannot send it.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

import streamlit as st

from ui.identity import SignInSettingsError, auth_settings

UNSAFE_SWITCH = "FORESTVIZ_UNSAFE_LOCAL_MODE_ON_NETWORK"  # "1": local mode on any address
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
REFUSED = b"This server does not answer to that host name.\n"


def signin_configured() -> bool:
    """Whether the server has sign-in (an ``[auth]`` section); a secrets file that cannot be
    read counts as sign-in (it shows no page, never local mode's admin)."""
    try:
        return auth_settings() is not None
    except SignInSettingsError:
        return True


def is_loopback(address: str) -> bool:
    """Whether ``address`` (an IP address or a name, as ``server.address`` takes it) only
    reaches this computer."""
    if address.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:  # a name other than localhost, or "" (every interface)
        return False


def unsafe_address(address: str | None, *, signin: bool, environ: Mapping) -> str | None:
    """The one line refusing to serve local mode on ``address`` (None: every interface), or
    None when the server may start."""
    if signin or environ.get(UNSAFE_SWITCH) == "1" or is_loopback(address or ""):
        return None
    shown = address or "every network interface"
    return (f"forestviz refuses to start in local mode (no sign-in) on {shown}: anyone who "
            f"reaches it would be the admin. Listen on 127.0.0.1, configure [auth] in "
            f"secrets.toml, or set {UNSAFE_SWITCH}=1 to accept that risk.")


def refuse_unsafe_address() -> None:
    """Exit with :func:`unsafe_address`'s line unless this server may start (called where the
    server imports ``app.py``, before any request is served)."""
    line = unsafe_address(st.get_option("server.address"), signin=signin_configured(),
                          environ=os.environ)
    if line is not None:
        raise SystemExit(line)


def host_name(header: str | None) -> str | None:
    """The lower-case name of a Host header (``name``, ``name:port``, ``[::1]:port``), or None
    for a header that is not one (user info, a path, a bad port)."""
    if not header:
        return None
    try:
        parts = urlsplit(f"//{header}")
        parts.port  # noqa: B018  (raises ValueError for a port that is not one)
    except ValueError:
        return None
    if parts.hostname is None or parts.username is not None or parts.password is not None \
            or parts.path or parts.query or parts.fragment:
        return None
    return parts.hostname.rstrip(".")


def allowed_hosts(settings: Mapping | None, configured: Iterable[str]) -> frozenset[str]:
    """The loopback names, the names the operator lists in ``server.allowedHosts`` (exact
    names) and, with sign-in, the host of ``[auth]``'s ``redirect_uri`` (the public name)."""
    names = set(LOOPBACK_NAMES) | {name.strip().lower().rstrip(".") for name in configured}
    redirect = (settings or {}).get("redirect_uri")
    if isinstance(redirect, str) and (public := urlsplit(redirect).hostname):
        names.add(public.rstrip("."))
    return frozenset(names)


def server_hosts() -> frozenset[str]:
    """:func:`allowed_hosts` of this server's settings."""
    try:
        settings = auth_settings()
    except SignInSettingsError:
        settings = None
    return allowed_hosts(settings, st.get_option("server.allowedHosts") or ())


class HostAllowList:
    """ASGI middleware: HTTP requests and WebSocket handshakes whose Host header is not one of
    ``hosts`` are refused (HTTP 403; the handshake is closed before it is accepted, which
    the ASGI server answers with 403) before any route sees them."""

    def __init__(self, app, hosts: Iterable[str]):
        self.app, self.hosts = app, frozenset(hosts)

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket") and not self.admits(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(REFUSED)).encode())]})
            await send({"type": "http.response.body", "body": REFUSED})
            return
        await self.app(scope, receive, send)

    def admits(self, scope) -> bool:
        headers = [value for name, value in scope["headers"] if name == b"host"]
        return len(headers) == 1 and host_name(headers[0].decode("latin-1")) in self.hosts
