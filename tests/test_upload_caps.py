"""Every uploader's cap is enforced by the server before it keeps a byte (issue 36, item 6:
the Explain page's several-patients uploader takes 10 MB in the browser, but the server took a
199 MB body sent by hand and kept about 190 MB). Chromium opens the uploader, uploads a small
file as a user does (which gives the session's upload URL and XSRF token); then bodies are
sent by hand to that URL as a hostile viewer would, and Streamlit's own metrics say how many
uploaded bytes the server keeps."""

import re
import socket
import time
import uuid
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest
from playwright.sync_api import expect

from forestviz.app.new_rows import MAX_BYTES
from ui.upload_caps import MULTIPART_SLACK

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MB = 2**20
TIMEOUT = 60_000  # ms
MODEL_TIMEOUT = 600_000  # ms: a fresh server loads or trains the default model (minutes at load 20)
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


def test_a_body_over_its_uploaders_cap_is_refused_before_it_is_kept(page, own_app_server,
                                                                     tmp_path):
    url = own_app_server["url"]
    page.goto(url)
    page.get_by_role("button", name="Train the default model and explain a row").click(
        timeout=TIMEOUT)  # the Explain page, with the server's default model
    page.get_by_text("Several new patients (CSV)").click(timeout=MODEL_TIMEOUT)
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

    over = MAX_BYTES + MULTIPART_SLACK + 1  # the 10 MB cap, past the form's framing
    assert put(request.url, headers, 199 * MB, declared=199 * MB) == 413  # the body
    assert put(request.url, headers, over) == 413
    assert put(request.url, headers, over, chunked=True) == 413  # no Content-Length
    assert kept(url) == before  # nothing of them kept

    assert put(request.url, headers, MAX_BYTES) == 204  # the cap itself is accepted
    assert kept(url) == before + MAX_BYTES

    # the same session on the Data page, whose uploader takes the server's 200 MB: there the
    # same body is a file like any other
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Data", exact=True).click()
    page.get_by_text("Upload a CSV").click(timeout=TIMEOUT)
    expect(page.locator("[data-testid='stFileUploader'] input[type='file']")).to_have_count(
        1, timeout=TIMEOUT)
    assert put(request.url, headers, over) == 204
