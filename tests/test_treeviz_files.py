"""Tree drawings leave no temporary file behind and never name their private directory
(dtreeviz writes node images into tempfile's directory)."""

import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

from forestviz.explain.drawing import treeviz
from forestviz.explain.drawing.treeviz import (
    TreeContext,
    TreeRenderError,
    render_tree,
)
from tests.treeviz_helpers import drawn_nodes

pytestmark = pytest.mark.usefixtures("empty_cache")

# ------------------------------------------------------------------ temporary files
DTREEVIZ_FILE = re.compile(r"(?:(?:node|leaf|leafstrip)\d+|legend)_\d+\.svg")


@pytest.fixture
def shared_tmp(tmp_path, monkeypatch):
    """A fresh directory as the process's temporary directory (what ``/tmp`` is to a server),
    so no other process's files disturb the count."""
    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    return shared


@pytest.fixture
def seen_during_render(monkeypatch):
    """[(temporary directory, its files)] as ``dot`` starts, one entry per render."""
    seen = []
    run_dot = treeviz.run_dot

    def spy(source, timeout):
        seen.append((tempfile.gettempdir(), sorted(os.listdir(tempfile.gettempdir()))))
        return run_dot(source, timeout)

    monkeypatch.setattr(treeviz, "run_dot", spy)
    return seen


@pytest.mark.slow
def test_fifty_drawings_leave_no_temporary_file(require_dot, clinic, shared_tmp,
                                                seen_during_render):
    forest, context, X = clinic
    rng = np.random.default_rng(2)
    Xr = rng.normal(size=(120, 2))
    regressor = DecisionTreeRegressor(max_depth=2, random_state=0).fit(Xr, Xr[:, 0])
    regression = TreeContext.from_data(Xr, Xr[:, 0], feature_names=["a", "b"])
    jobs = [(forest, k % 4, X[k], context, mode, k % 6 == 0)
            for k in range(30) for mode in ("path", "full") if mode == "path" or k < 6]
    jobs += [(regressor, 0, Xr[k], regression, ("path", "full")[k % 2], k % 7 == 0)
             for k in range(50 - len(jobs))]
    assert len(jobs) == 50
    for model, k, row, ctx, mode, fancy in jobs:
        render_tree(model, k, row, context=ctx, mode=mode, fancy=fancy)
        assert tempfile.tempdir == str(shared_tmp)
        assert os.listdir(shared_tmp) == []
    assert len(seen_during_render) == 50  # every job rendered (distinct keys, no cache hit)
    for directory, files in seen_during_render:  # dtreeviz wrote into a private directory
        assert os.path.dirname(directory) == str(shared_tmp)
        assert files and all(DTREEVIZ_FILE.fullmatch(name) for name in files)
        assert not os.path.exists(directory)


@pytest.mark.slow
def test_failed_drawings_leave_no_temporary_file(require_dot, clinic, shared_tmp, monkeypatch):
    forest, context, X = clinic
    with pytest.raises(TreeRenderError, match="longer than"):  # dot times out
        render_tree(forest, 0, X[0], context=context, mode="full", timeout=1e-4)
    assert tempfile.tempdir == str(shared_tmp) and os.listdir(shared_tmp) == []

    def broken(svg):
        raise ValueError("cannot read the node images")

    monkeypatch.setattr(treeviz, "inline_svg_images", broken)
    with pytest.raises(TreeRenderError, match="cannot read"):
        render_tree(forest, 1, X[0], context=context)
    assert tempfile.tempdir == str(shared_tmp) and os.listdir(shared_tmp) == []
    monkeypatch.undo()  # the real inline_svg_images, and no tempdir set (None)
    assert tempfile.tempdir is None or tempfile.tempdir != str(shared_tmp)
    monkeypatch.setattr(tempfile, "tempdir", None)
    render_tree(forest, 2, X[0], context=context)
    assert tempfile.tempdir is None  # restored as it was, not to the default it computed


def test_a_foreign_file_in_the_private_directory_survives(require_dot, clinic, shared_tmp,
                                                          monkeypatch, caplog):
    """Another thread's temporary file, created in our directory during a render (tempdir is
    process-wide), is neither deleted nor lost: the directory stays with just that file."""
    forest, context, X = clinic
    run_dot, private = treeviz.run_dot, []

    def other_thread_writes(source, timeout):
        private.append(tempfile.gettempdir())
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as other:
            other.write("someone else's data")
        return run_dot(source, timeout)

    monkeypatch.setattr(treeviz, "run_dot", other_thread_writes)
    svg = render_tree(forest, 0, X[4], context=context, fancy=True)
    assert drawn_nodes(svg)
    (directory,) = private
    (left,) = os.listdir(directory)  # dtreeviz's files are gone, the other file is not
    assert left.endswith(".csv") and not DTREEVIZ_FILE.fullmatch(left)
    assert (Path(directory) / left).read_text() == "someone else's data"
    assert os.listdir(shared_tmp) == [os.path.basename(directory)]
    assert tempfile.tempdir == str(shared_tmp)
    assert "left the temporary directory" in caplog.text


def test_drawings_do_not_name_the_private_directory(require_dot, clinic, seen_during_render):
    forest, context, X = clinic
    svg = render_tree(forest, 0, X[4], context=context, mode="full", fancy=True)
    ((directory, files),) = seen_during_render
    assert files and directory not in svg and "<image" not in svg  # node images inlined
