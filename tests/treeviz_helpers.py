"""What the tree-drawing tests share: hostile column names and readers of the drawn SVG (their
fixtures, an emptied SVG cache and a small forest, are in conftest.py)."""

import xml.etree.ElementTree as ET

import numpy as np

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ["<script>alert(1)</script>", "a&b", '"quoted"', "O'Brien", "BMI (kg/m²)",
           "tab\there $x_1$ \\n"]

def drawn_nodes(svg):
    """{graphviz node title: highlighted?} for the tree's nodes (node<k> / leaf<k>)."""
    root = ET.fromstring(svg)
    nodes = {}
    for group in root.iter(f"{SVG}g"):
        title = group.find(f"{SVG}title")
        if group.get("class") == "node" and title.text.startswith(("node", "leaf")):
            nodes[title.text] = any("stroke-dasharray" in shape.attrib
                                    for shape in group.findall(f"{SVG}polygon"))
    return nodes


def path_names(tree, x):
    nodes = tree.decision_path(np.asarray(x, dtype=np.float32)[None, :]).indices
    return {f"leaf{n}" if tree.tree_.children_left[n] < 0 else f"node{n}" for n in nodes}


def texts(svg):
    return [el.text for el in ET.fromstring(svg).iter(f"{SVG}text") if el.text]
