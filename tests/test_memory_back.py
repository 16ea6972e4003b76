"""The server gives back the memory of released uploads (issue 36, item 9: 865 → 2,021 MB
after five 100 MB uploads, every session closed). In a fresh process, the allocation pattern
of uploads: one upload's buffer freed (glibc then raises its mmap threshold to that size),
twenty more of 8 MB with small objects living on between them (what a server allocates
meanwhile), all freed. Without ``ui.memory`` (what the server did: a garbage collection) the
freed 160 MB stay with the process; with the server's start (``at_server_start``) and the
release after a closed session (``give_back``) they go back. The whole server's figures:
``bench/server_memory.py``, ``docs/performance.md``."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MB = 2**20
CHILD = """
import gc, re, sys
from pathlib import Path
import numpy as np

def rss():
    return int(re.search(r"VmRSS:\\s+(\\d+)", Path("/proc/self/status").read_text())[1]) << 10

server = sys.argv[1] == "server"
if server:
    from ui import memory
    assert memory.at_server_start()
base = rss()
first = np.ones(24 << 20, np.uint8)
del first
kept, buffers = [], []
for _ in range(20):
    buffers.append(np.ones(8 << 20, np.uint8))
    kept.append(np.ones(4096, np.uint8))
del buffers
memory.give_back() if server else gc.collect()
print(rss() - base)
"""


def growth(mode: str) -> int:
    run = subprocess.run([sys.executable, "-c", CHILD, mode], cwd=REPO, capture_output=True,
                         text=True, timeout=120, check=True)
    return int(run.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and /proc")
def test_freed_upload_buffers_go_back_to_the_system():
    assert growth("server") <= 8 * MB
    assert growth("gc only") >= 100 * MB  # the control: the pattern keeps them otherwise
