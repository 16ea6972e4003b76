"""Secure cookies (issue 36, item 3): every cookie the server sets over HTTPS is marked
``Secure``, so a browser never sends the sign-in cookie over plain HTTP.

Streamlit 1.67 sets its sign-in cookies without ``Secure`` on purpose (its source cites Safari's
refusal of Secure cookies on ``http://localhost``), and ``st.login`` has no option for it. This
ASGI middleware, in front of every route (``app.py``), adds the attribute to each
``Set-Cookie`` header of a response to a request that came over HTTPS: the server's own TLS
(the scope's scheme) or a proxy's (``X-Forwarded-Proto: https``, which a client can only use to
make its own cookies stricter). Over plain HTTP (local mode on this computer) nothing changes.
"""

from __future__ import annotations

SECURE = b"secure"


def over_https(scope) -> bool:
    """Whether the request of ``scope`` came over HTTPS, to this server or to its proxy."""
    if scope.get("scheme") in ("https", "wss"):
        return True
    forwarded = [value for name, value in scope.get("headers", ())
                 if name == b"x-forwarded-proto"]
    return bool(forwarded) and forwarded[-1].split(b",")[0].strip().lower() == b"https"


def secured(header: bytes) -> bytes:
    """A ``Set-Cookie`` value with ``; Secure`` added unless it has the attribute already."""
    attributes = [part.strip().lower() for part in header.split(b";")[1:]]
    return header if SECURE in attributes else header + b"; Secure"


class SecureCookies:
    """ASGI middleware: ``Secure`` on every cookie set in answer to an HTTPS request."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not over_https(scope):
            await self.app(scope, receive, send)
            return

        async def send_secured(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [
                    (name, secured(value) if name.lower() == b"set-cookie" else value)
                    for name, value in message.get("headers", ())]}
            await send(message)

        await self.app(scope, receive, send_secured)
