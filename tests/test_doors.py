"""Local mode is for this computer only, and DNS rebinding is refused (issue 36, items 1-2):
the server's own bind refusal and Host allow-list (``ui/doors.py``), against a real server
with raw HTTP requests and real WebSocket handshakes whose Host and Origin are forged."""

import ipaddress
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bench.appserver import LAUNCHER, STREAMLIT, AppServer, free_port, healthy
from tests.conftest import SERVER_START_TIMEOUT, running
from ui import doors

REPO = Path(__file__).resolve().parents[1]
LOCAL = {}  # no UNSAFE_SWITCH in the environment
REFUSAL_START = "forestviz refuses to start in local mode (no sign-in) on"


@given(st.ip_addresses(v=4))
@example(ipaddress.ip_address("127.255.255.254"))
@example(ipaddress.ip_address("0.0.0.0"))
def test_local_mode_may_start_only_on_a_loopback_ipv4_address(address):
    refusal = doors.unsafe_address(str(address), signin=False, environ=LOCAL)
    assert (refusal is None) == (str(address).split(".")[0] == "127")


@pytest.mark.parametrize("address", ["", None, "0.0.0.0", "::", "192.168.1.20", "10.0.0.5",
                                     "fe80::1", "forestviz.example.org", "::ffff:10.0.0.1"])
def test_local_mode_on_a_network_address_is_refused_in_one_line(address):
    refusal = doors.unsafe_address(address, signin=False, environ=LOCAL)
    assert refusal is not None and "\n" not in refusal
    assert refusal.startswith(REFUSAL_START) and doors.UNSAFE_SWITCH in refusal
    # sign-in, or the operator's explicit switch (exactly "1"), lets it start
    assert doors.unsafe_address(address, signin=True, environ=LOCAL) is None
    assert doors.unsafe_address(address, signin=False, environ={doors.UNSAFE_SWITCH: "1"}) is None
    for vague in ("0", "true", "yes", ""):
        assert doors.unsafe_address(address, signin=False,
                                    environ={doors.UNSAFE_SWITCH: vague}) is not None


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "::1", "localhost", "LOCALHOST"])
def test_local_mode_starts_on_a_loopback_address(address):
    assert doors.unsafe_address(address, signin=False, environ=LOCAL) is None


@pytest.mark.parametrize(("header", "name"), [
    ("127.0.0.1:8501", "127.0.0.1"), ("localhost", "localhost"), ("LocalHost.:80", "localhost"),
    ("[::1]:8501", "::1"), ("Evil.Example:8501", "evil.example"),
    ("", None), (None, None), ("user@localhost", None), ("localhost:http", None),
    ("localhost/x", None), ("localhost:99999", None), ("localhost?x", None),
])
def test_a_host_header_is_read_as_its_name(header, name):
    assert doors.host_name(header) == name


def test_the_allowed_hosts_are_loopback_the_listed_and_the_public_name_with_signin():
    local = doors.allowed_hosts(None, ())
    assert local == {"127.0.0.1", "localhost", "::1"}
    listed = doors.allowed_hosts(None, ["Lab-PC.clinic.test."])
    assert listed == local | {"lab-pc.clinic.test"}
    signin = doors.allowed_hosts({"redirect_uri": "https://ForestViz.Clinic.test/oauth2callback"},
                                 ())
    assert signin == local | {"forestviz.clinic.test"}


# ---- the real server ------------------------------------------------------------------------

def answer(port: int, request: str) -> str:
    """The status line and headers a raw ``request`` gets from the server on ``port``."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request.encode("latin-1"))
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = sock.recv(4096)
            if not chunk:
                break
            received += chunk
    return received.split(b"\r\n\r\n")[0].decode("latin-1")


def status(head: str) -> int:
    return int(head.split(" ", 2)[1])


def get(port: int, path: str, host: str) -> int:
    return status(answer(port, f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"))


def handshake(port: int, host: str, origin: str) -> int:
    """The status of a WebSocket handshake on Streamlit's stream, as a browser sends it."""
    return status(answer(port, (
        f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: streamlit\r\n"
        "\r\n")))


@pytest.fixture(scope="module")
def local_server(tmp_path_factory):
    with running(AppServer(tmp_path_factory.mktemp("doors"),
                           start_timeout=SERVER_START_TIMEOUT)) as server:
        yield int(server.url.rsplit(":", 1)[1])


@pytest.mark.slow
@pytest.mark.parametrize("path", ["/", "/_stcore/health", "/_stcore/host-config", "/audit"])
def test_a_rebinding_page_gets_403_on_every_http_route(local_server, path):
    port = local_server
    for host in (f"attacker.example:{port}", "attacker.example", f"127.0.0.1.nip.io:{port}",
                 f"localhost.attacker.example:{port}", "", f"127.0.0.1:{port}@evil"):
        assert get(port, path, host) == 403, host
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
        assert get(port, path, host) == 200, host


@pytest.mark.slow
def test_a_rebinding_page_cannot_open_the_websocket(local_server):
    port = local_server
    # DNS rebinding: the page's own name in Host and in Origin (same origin for the browser)
    assert handshake(port, f"attacker.example:{port}", f"http://attacker.example:{port}") == 403
    # another site's page on this computer's real address: Streamlit's origin check
    assert handshake(port, f"127.0.0.1:{port}", f"http://attacker.example:{port}") == 403
    # the app's own page
    assert handshake(port, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}") == 101
    assert handshake(port, f"localhost:{port}", f"http://localhost:{port}") == 101


def start(command: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=REPO, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=SERVER_START_TIMEOUT)


@pytest.mark.slow
@pytest.mark.parametrize("head", [LAUNCHER, STREAMLIT], ids=["ui.launch", "streamlit"])
def test_local_mode_on_every_interface_is_refused_in_one_line(head, tmp_path):
    port = free_port()
    run = start([*head, "run", "app.py", "--server.address", "0.0.0.0", "--server.port",
                 str(port), "--server.headless", "true"], {"FORESTVIZ_DATA_DIR": str(tmp_path)})
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert lines[-1].startswith(REFUSAL_START + " 0.0.0.0"), run.stderr
    assert "Traceback" not in run.stderr
    assert not healthy(f"http://127.0.0.1:{port}")


def listening(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (from /proc/net/tcp{,6})."""
    found = set()
    for table, size in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # LISTEN
                raw = bytes.fromhex(address)
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, size, 4))
                found.add(str(ipaddress.ip_address(words)))
    return found


@pytest.mark.slow
def test_a_plain_streamlit_run_listens_on_loopback_only(tmp_path):
    """No ``--server.address``, as the issue started it: before, every interface."""
    port = free_port()
    command = [*STREAMLIT, "run", "app.py", "--server.port", str(port),
               "--server.headless", "true", "--server.fileWatcherType", "none"]
    env = {**os.environ, "FORESTVIZ_DATA_DIR": str(tmp_path)}
    with subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True) as process:
        try:
            deadline = time.monotonic() + SERVER_START_TIMEOUT
            while not healthy(f"http://127.0.0.1:{port}"):
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.25)
            assert listening(port) == {"127.0.0.1"}
        finally:
            os.killpg(process.pid, 15)
            process.wait(timeout=30)


@pytest.mark.slow
def test_the_unsafe_switch_lets_local_mode_listen_on_every_interface(tmp_path):
    server = AppServer(tmp_path, options=["--server.address", "0.0.0.0"],
                       env={doors.UNSAFE_SWITCH: "1"}, start_timeout=SERVER_START_TIMEOUT)
    with running(server):
        assert listening(int(server.url.rsplit(":", 1)[1])) == {"0.0.0.0"}


@pytest.mark.slow
def test_the_dockerfile_command_refuses_local_mode(tmp_path):
    """The image's own command (its port moved to a free one) in local mode: one line, no
    server; with sign-in or the switch it would start (above)."""
    import json

    line = next(line for line in (REPO / "Dockerfile").read_text().splitlines()
                if line.startswith("CMD "))
    command = json.loads(line.removeprefix("CMD "))
    command[command.index("--server.port") + 1] = str(free_port())
    assert command[:3] == ["python", "-m", "ui.launch"]
    run = start([sys.executable, *command[1:]], {"FORESTVIZ_DATA_DIR": str(tmp_path)})
    assert run.returncode != 0
    assert run.stderr.strip().splitlines()[-1].startswith(REFUSAL_START), run.stderr


def test_compose_keeps_the_library_in_a_named_volume_and_the_app_signs_in():
    """``docker compose up --build`` lost the models, the audit trail and the signing key (the
    container's writable layer); the app ran local mode on the container's address."""
    import yaml

    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    dockerfile = (REPO / "Dockerfile").read_text()
    (data_dir,) = [line.split("=", 1)[1] for line in dockerfile.splitlines()
                   if line.startswith("ENV FORESTVIZ_DATA_DIR=")]
    app = compose["services"]["app"]
    named = {mount.split(":")[1]: mount.split(":")[0] for mount in app["volumes"]}
    assert named[data_dir] in compose["volumes"]  # a named volume, not a host folder or layer
    assert f"VOLUME {data_dir}" in dockerfile  # plain `docker run` keeps it out of the layer too
    (secret,) = app["secrets"]
    assert secret["target"] == "/home/forestviz/.streamlit/secrets.toml"  # ~/.streamlit of USER
    assert "USER forestviz" in dockerfile and "--create-home --uid 1000 forestviz" in dockerfile
    ignored = (REPO / ".dockerignore").read_text().splitlines()
    assert {"secrets.toml", ".streamlit/secrets.toml"} <= set(ignored)  # never in the image


@pytest.mark.slow
def test_with_signin_the_server_listens_on_the_network_and_answers_its_public_name(tmp_path):
    """Sign-in configured: any address starts; the host of ``redirect_uri`` is answered
    besides the loopback names, any other name still gets 403."""
    secrets_file = tmp_path / "secrets.toml"
    server = AppServer(tmp_path, options=["--server.address", "0.0.0.0",
                                          "--secrets.files", str(secrets_file)],
                       start_timeout=SERVER_START_TIMEOUT)
    port = int(server.url.rsplit(":", 1)[1])
    secrets_file.write_text(f"""
[auth]
redirect_uri = "http://forestviz.clinic.test:{port}/oauth2callback"
cookie_secret = "{"c" * 64}"
client_id = "forestviz"
client_secret = "not-used-here"
server_metadata_url = "http://127.0.0.1:9/.well-known/openid-configuration"
""")
    with running(server):
        assert listening(port) == {"0.0.0.0"}
        assert get(port, "/_stcore/health", f"forestviz.clinic.test:{port}") == 200
        assert get(port, "/_stcore/health", f"127.0.0.1:{port}") == 200
        assert get(port, "/_stcore/health", f"attacker.example:{port}") == 403
        assert handshake(port, f"attacker.example:{port}", f"http://attacker.example:{port}") \
            == 403


@pytest.mark.slow
def test_the_real_servers_cookies_are_secure_over_https_only(local_server):
    """Issue 36, item 3: Streamlit sets its cookies (here the XSRF cookie of the health route)
    without Secure; behind an HTTPS proxy (X-Forwarded-Proto) every one is Secure
    (ui/secure_cookies.py), over plain HTTP on this computer none is changed."""
    port = local_server

    def cookies(extra: str) -> list[str]:
        head = answer(port, f"GET /_stcore/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                            f"{extra}Connection: close\r\n\r\n")
        return [line.split(":", 1)[1] for line in head.split("\r\n")
                if line.lower().startswith("set-cookie:")]

    def secure(cookie: str) -> bool:
        return "secure" in [part.strip().lower() for part in cookie.split(";")[1:]]

    over_https = cookies("X-Forwarded-Proto: https\r\n")
    assert over_https and all(secure(c) for c in over_https)
    plain = cookies("")
    assert plain and not any(secure(c) for c in plain)
