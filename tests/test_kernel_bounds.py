"""The compiled kernels in a debug build with bounds checks: numba's ``boundscheck`` turned on
for every kernel by ``NUMBA_BOUNDSCHECK=1`` in a fresh process with its own compile cache (the
product's cached kernels keep their speed). There an index past the end raises IndexError
instead of reading outside the array (the control below), and the look-ups, every family's
round trip and the edited-array corpus run through the kernels without one."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow  # a fresh process compiles every kernel it runs: tens of seconds

CONTROL = """
import numpy as np
from sklearn.ensemble import RandomForestRegressor
from forestviz.enhanced import model_weighting
from forestviz.trees import FlatTrees, flat, masks

rng = np.random.default_rng(0)
X = rng.normal(size=(200, 4))
trees = RandomForestRegressor(3, max_depth=3, random_state=0).fit(X, X[:, 0]).estimators_
table = FlatTrees.from_trees(trees)
X32 = X.astype(np.float32)
out = np.empty((200, 3), dtype=np.intp)
past = table.left.copy()
past[table.feature >= 0] = table.feature.size + 10  # every inner node's left child: past the end
kernels = {
    "descend": lambda: flat._descend(X32, table.offsets, table.feature, table.threshold, past,
                                     table.right, table.max_depth, out),
    "exit_leaves": lambda: masks._exit_leaves(  # split features past the rows' columns
        X32, table.masks.features.astype(np.intp) + 50, *table.masks._packed,
        table.masks.all_leaves, table.masks.first.astype(np.intp),
        table.masks.leaves.astype(np.intp), masks._BIT_INDEX, out),
    "weighted_sum": lambda: model_weighting._weighted_sum(
        np.zeros((2, 1), np.intp), np.zeros((1, 1), np.intp), np.full((2, 1), 99, np.intp),
        np.ones((5, 2)), np.empty((2, 2))),
}
for name, kernel in kernels.items():
    try:
        kernel()
    except IndexError:
        print(name, "IndexError")
"""


@pytest.fixture(scope="module")
def debug_cache(tmp_path_factory) -> Path:
    """The debug build's compile cache, shared by this module's runs in one pytest process
    (the control's kernels are compiled once)."""
    return tmp_path_factory.mktemp("numba")


def debug_build(args, cache: Path) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items()  # not an xdist worker's pytest
           if not name.startswith("PYTEST_XDIST")}
    env |= {"NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=1800)


def test_the_debug_build_raises_on_an_index_past_the_end(debug_cache):
    run = debug_build(["-c", CONTROL], debug_cache)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:3] == ["descend IndexError", "exit_leaves IndexError",
                                          "weighted_sum IndexError"]


def test_the_kernels_stay_inside_their_arrays_in_the_debug_build(debug_cache):
    run = debug_build(["-m", "pytest", "-q", "-p", "no:cacheprovider",
                       "tests/test_trees_lookup.py", "tests/test_model_arrays.py",
                       "tests/test_persistence.py", "-k",
                       "not hostile_file and (many_rows or never_saved or round_trips "
                       "or index or row-too or nan)"], debug_cache)
    assert run.returncode == 0, run.stdout[-3000:]
