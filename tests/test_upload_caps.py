"""Every uploader's cap is enforced by the server before it keeps a byte (issue 36, item 6:
the Explain page's several-patients uploader takes 10 MB in the browser, but the server took a
199 MB body sent by hand and kept about 190 MB). Chromium opens an uploader, uploads a small
file as a user does (which gives the session's upload URL and XSRF token); then bodies are
sent by hand to that URL as a hostile viewer would, and Streamlit's own metrics say how many
uploaded bytes the server keeps. The app is ``tests/upload_caps_app.py`` (pages with a 1 MB
uploader, a 200 MB one and none), served as the real app is: the Explain page's uploader
needs a trained model, minutes away on a busy machine."""

import re
import socket
import time
import uuid
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest
from playwright.sync_api import expect

from tests.conftest import serve_script
from tests.upload_caps_app import SMALL_MB
from ui.upload_caps import MULTIPART_SLACK

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MB = 2**20
TIMEOUT = 60_000  # ms
METRICS_TTL = 5.5  # s: Streamlit caches its memory metrics for 5 s
SMALL = b"Pregnancies,Glucose\n1,100\n"


def kept(url: str) -> int:
    """Bytes in Streamlit's uploaded-file manager (its ``/_stcore/metrics``)."""
    time.sleep(METRICS_TTL)
    with urlopen(f"{url}/_stcore/metrics", timeout=30) as answer:
        text = answer.read().decode()
    found = re.search(r'cache_memory_bytes\{[^}]*UploadedFileManager[^}]*\} (\d+)', text)
    return int(found.group(1)) if found else 0


def form(size: int, boundary: str = "forestviz-test") -> tuple[bytes, bytes]:
    """A multipart form's head and tail around a file of ``size`` bytes."""
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"patients.csv\"\r\nContent-Type: text/csv\r\n\r\n").encode()
    return head, f"\r\n--{boundary}--\r\n".encode()


def put(upload_url: str, headers: dict, size: int, *, chunked: bool = False,
        declared: int | None = None) -> int:
    """PUT a form holding ``size`` bytes to ``upload_url`` over a raw socket (a new file id);
    returns the status. ``chunked``: no Content-Length; ``declared``: Content-Length and only
    the head sent."""
    parts = urlsplit(upload_url)
    path = parts.path.rsplit("/", 1)[0] + f"/{uuid.uuid4()}"
    head, tail = form(size)
    length = len(head) + size + len(tail)
    lines = [f"PUT {path} HTTP/1.1", f"Host: {parts.netloc}",
             "Content-Type: multipart/form-data; boundary=forestviz-test",
             *(f"{name}: {value}" for name, value in headers.items()),
             "Transfer-Encoding: chunked" if chunked
             else f"Content-Length: {declared or length}"]
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        body = [head, *[b"x" * MB] * (size // MB), b"x" * (size % MB), tail]
        try:
            for piece in body if declared is None else [head]:
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except OSError:  # refused and closed while we were still sending
            pass
        answer = sock.makefile("rb").readline()
    return int(answer.split()[1])


@pytest.fixture(scope="module")
def caps_app(tmp_path_factory):
    """``tests/upload_caps_app.py`` on a real server of its own."""
    with serve_script(tmp_path_factory, "tests/upload_caps_app.py") as url:
        yield url


def go_to(page, name: str) -> None:
    """Another page of the same session (a new URL would be a new session)."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click()


def test_a_body_over_its_uploaders_cap_is_refused_before_it_is_kept(page, caps_app, tmp_path):
    url = caps_app
    page.goto(url)
    chooser = page.locator("[data-testid='stFileUploader'] input[type='file']")
    expect(chooser).to_have_count(1, timeout=TIMEOUT)
    (tmp_path / "few.csv").write_bytes(SMALL)
    with page.expect_request(lambda r: r.method == "PUT" and "/upload_file/" in r.url,
                             timeout=TIMEOUT) as sent:
        chooser.set_input_files(tmp_path / "few.csv")
    request = sent.value
    assert request.response().status == 204
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies(url))
    headers = {"X-Xsrftoken": request.headers["x-xsrftoken"], "Cookie": cookies}
    before = kept(url)
    assert before == len(SMALL)

    cap = SMALL_MB * MB
    over = cap + MULTIPART_SLACK + 1  # past the cap and the form's framing
    assert put(request.url, headers, 199 * MB, declared=199 * MB) == 413  # the body
    assert put(request.url, headers, over) == 413
    assert put(request.url, headers, over, chunked=True) == 413  # no Content-Length
    assert kept(url) == before  # nothing of them kept
    assert put(request.url, headers, cap) == 204  # the cap itself is accepted
    assert kept(url) == before + cap

    go_to(page, "many")  # the server's 200 MB: there the same body is a file like any other
    expect(page.get_by_text("A large CSV")).to_be_visible(timeout=TIMEOUT)
    assert put(request.url, headers, over) == 204
    go_to(page, "none")  # no uploader: no file at all
    expect(page.get_by_text("No uploader here.")).to_be_visible(timeout=TIMEOUT)
    assert put(request.url, headers, 1) == 413
    assert kept(url) == before + cap + over

    # XSRF protection stays on: the same upload without its token is refused
    go_to(page, "many")
    expect(page.get_by_text("A large CSV")).to_be_visible(timeout=TIMEOUT)
    assert put(request.url, {"Cookie": cookies}, 1) == 403
