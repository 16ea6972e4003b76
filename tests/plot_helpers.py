"""What several figure tests share: random weight vectors and reading a figure's strings, axis
titles and ternary points."""

import json

import numpy as np


def dirichlet(T, n=None, concentration=0.5, seed=0):
    return np.random.default_rng(seed).dirichlet(np.full(T, concentration), size=n)


def strings(fig):
    """Every string in the figure's JSON (what the browser receives), decoded."""
    found = []

    def walk(node):
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(fig.to_json()))
    return found


def axis_titles(fig):
    layout = fig.layout
    if layout.ternary.aaxis.title.text is not None:
        return [layout.ternary[a].title.text for a in ("aaxis", "baxis", "caxis")]
    return [layout[name].title.text for name in layout if name.startswith(("xaxis", "yaxis"))
            if layout[name].title.text is not None]


def ternary_points(trace):
    return np.column_stack([trace.a, trace.b, trace.c])
