"""The app's command, ``python -m ui.launch``: Streamlit's own command line, which with ``run``
also starts the server's default training at once, before any page is opened."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import streamlit

from bench.appserver import AppServer, descendants
from tests.conftest import SERVER_START_TIMEOUT

REPO = Path(__file__).resolve().parents[1]


def test_other_commands_go_to_streamlit_unchanged():
    run = subprocess.run([sys.executable, "-m", "ui.launch", "version"], cwd=REPO, check=True,
                         capture_output=True, text=True)
    assert run.stdout.strip() == f"Streamlit, version {streamlit.__version__}"


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:  # gone meanwhile
        return ""


@pytest.mark.slow
def test_the_default_model_loads_before_any_page_is_opened(tmp_path):
    """No browser connects: the training workers' forkserver, which the server starts only once
    its default training has finished (ui.server), still appears."""
    with AppServer(tmp_path, start_timeout=SERVER_START_TIMEOUT) as server:
        deadline = time.monotonic() + 90
        while not any("multiprocessing.forkserver" in command_line(pid)
                      for pid in descendants(server.pid)):
            assert time.monotonic() < deadline, (tmp_path / "streamlit.log").read_text()
            time.sleep(0.25)


FROZEN = """
import gc, json, sys, weakref
from ui import launch
launch.freeze_imports()
frozen, tracked = gc.get_freeze_count(), len(gc.get_objects())
class Node:
    pass
node = Node(); node.itself = node; ref = weakref.ref(node); del node
gc.collect()
print(json.dumps({"frozen": frozen, "tracked": tracked, "cycle freed": ref() is None,
                  "missing": [name for name in launch.page_modules() if name not in sys.modules]}))
"""


def test_the_servers_imports_are_frozen_and_later_garbage_is_still_collected():
    """What Streamlit's collection after every run still scans: the objects made after the
    imports, a small part of all; a cycle made afterwards is still freed."""
    run = subprocess.run([sys.executable, "-c", FROZEN], cwd=REPO, check=True,
                         capture_output=True, text=True)
    found = json.loads(run.stdout.splitlines()[-1])
    assert found["missing"] == [] and found["cycle freed"]
    assert found["frozen"] > 100_000 and found["tracked"] < found["frozen"] / 50, found
