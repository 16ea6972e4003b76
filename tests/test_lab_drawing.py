"""The Paper lab's Decision Machine drawing cut to the width its shapes span
(forestviz.app.lab.trimmed), on a real graphviz drawing."""

import re

import pytest

from forestviz.app import lab
from forestviz.explain.drawing.treeviz import render_tree

CANVAS = re.compile(r'width="([\d.]+)pt" height="([\d.]+)pt" viewBox="([-\d.]+) ([-\d.]+) '
                    r'([\d.]+) ([\d.]+)"')


def shape_xs(svg: str) -> list[float]:
    """Every x of a polygon's points and of a text's anchor, in the canvas' units."""
    xs = [float(p.split(",")[0]) + 4 for points in re.findall(r'<polygon(?![^>]*fill="white" '
                                                             r'stroke="transparent")[^>]*'
                                                             r'points="([^"]*)"', svg)
          for p in points.split()]
    return xs + [float(x) + 4 for x in re.findall(r'<text[^>]*\bx="([-\d.]+)"', svg)]


@pytest.mark.slow  # graphviz draws a tree
@pytest.mark.parametrize("depth", [1, 3])
def test_the_drawing_keeps_every_shape_and_loses_the_empty_band(require_dot, depth):
    tree, context, X, _ = lab.small_tree(depth)
    svg = render_tree(tree, 0, X[0], context=context, mode="full")
    cut = lab.trimmed(svg)
    before, after = CANVAS.search(svg).groups(), CANVAS.search(cut).groups()
    assert float(after[0]) < 0.8 * float(before[0])  # the band beside the title is gone
    # the same height and top, and the same elements
    assert (after[1], after[3], after[5]) == (before[1], before[3], before[5])
    assert cut.count("<") == svg.count("<")
    left, width = float(after[2]), float(after[4])
    assert all(left <= x <= left + width for x in shape_xs(cut))


def test_a_drawing_without_graphvizs_canvas_is_left_alone():
    svg = '<svg width="10" height="10"><text x="50">a</text></svg>'
    assert lab.trimmed(svg) == svg
