"""Secure cookies (issue 36, item 3): ``ui.secure_cookies.SecureCookies`` marks every cookie set
in answer to an HTTPS request ``Secure``, through the ASGI protocol itself (a small app that
sets cookies, driven as the server drives it) and on the real server's pages."""

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ui.secure_cookies import SecureCookies, over_https, secured

COOKIES = [b"_streamlit_user=abc; Path=/; HttpOnly; SameSite=Lax", b"a=1; secure",
           b"_xsrf=2|x|y; Path=/"]


async def _cookie_app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain"),
                            *((b"Set-Cookie", cookie) for cookie in COOKIES)]})
    await send({"type": "http.response.body", "body": b"ok"})


def _answer(scheme: str, headers=()) -> list[tuple[bytes, bytes]]:
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "scheme": scheme, "method": "GET", "path": "/",
             "headers": list(headers)}
    asyncio.run(SecureCookies(_cookie_app)(scope, receive, send))
    (start,) = [m for m in sent if m["type"] == "http.response.start"]
    assert [m["body"] for m in sent if m["type"] == "http.response.body"] == [b"ok"]
    return [value for name, value in start["headers"] if name.lower() == b"set-cookie"]


def _secure(cookie: bytes) -> bool:
    return b"secure" in [part.strip().lower() for part in cookie.split(b";")[1:]]


@pytest.mark.parametrize(("scheme", "headers"), [
    ("https", []), ("http", [(b"x-forwarded-proto", b"https")]),
    ("http", [(b"x-forwarded-proto", b"HTTPS, http")])])
def test_every_cookie_set_over_https_is_secure(scheme, headers):
    cookies = _answer(scheme, headers)
    assert len(cookies) == len(COOKIES) and all(_secure(c) for c in cookies)
    assert cookies[1] == COOKIES[1]  # already Secure: left as it was


@pytest.mark.parametrize("headers", [[], [(b"x-forwarded-proto", b"http")]])
def test_over_plain_http_the_cookies_are_left_as_they_are(headers):
    assert _answer("http", headers) == COOKIES


@given(st.binary(min_size=1, max_size=60).filter(lambda b: b";" not in b))
def test_secured_adds_the_attribute_once(value):
    cookie = b"name=" + value + b"; Path=/"
    once = secured(cookie)
    assert _secure(once) and secured(once) == once and once.startswith(cookie)


def test_over_https_reads_the_scheme_and_the_proxys_header():
    assert over_https({"scheme": "https", "headers": []})
    assert not over_https({"scheme": "http", "headers": [(b"x-forwarded-proto", b"http")]})
    assert over_https({"scheme": "http", "headers": [(b"x-forwarded-proto", b" https ")]})
