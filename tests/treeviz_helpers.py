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


def texts_by_node(svg):
    """{graphviz node title: its texts}; render under ``svg.fonttype: none`` so matplotlib's
    node and leaf images keep their text (``n=…``, class names) as text, not paths."""
    root = ET.fromstring(svg)
    return {group.find(f"{SVG}title").text: ["".join(el.itertext())
                                               for el in group.iter(f"{SVG}text")]
            for group in root.iter(f"{SVG}g") if group.get("class") == "node"}


def leaf_texts(svg, leaf):
    """(graphviz's texts, texts of the image dtreeviz drew) of leaf ``leaf`` (images keep
    their texts under ``svg.fonttype: none``)."""
    root = ET.fromstring(svg)
    (group,) = [group for group in root.iter(f"{SVG}g") if group.get("class") == "node"
                and group.find(f"{SVG}title").text == f"leaf{leaf}"]
    images = [el for image in group.findall(f"{SVG}svg") for el in image.iter(f"{SVG}text")]
    own = [el for el in group.findall(f"{SVG}text")]
    return (["".join(el.itertext()) for el in own], ["".join(el.itertext()) for el in images])


def row_edge_texts(svg):
    """The texts on the edge into the row's box ("Prediction", then the leaf's class or
    value), stripped of graphviz's padding."""
    root = ET.fromstring(svg)
    (edge,) = [group for group in root.iter(f"{SVG}g") if group.get("class") == "edge"
               and group.find(f"{SVG}title").text.endswith("->X_y")]
    return ["".join(el.itertext()).strip("\xa0 ") for el in edge.iter(f"{SVG}text")]


def path_names(tree, x):
    nodes = tree.decision_path(np.asarray(x, dtype=np.float32)[None, :]).indices
    return {f"leaf{n}" if tree.tree_.children_left[n] < 0 else f"node{n}" for n in nodes}


def texts(svg):
    return [el.text for el in ET.fromstring(svg).iter(f"{SVG}text") if el.text]


def small_regression_tree():
    """A depth-2 regression tree on 150 rows of three features (y ≈ the first one), its rows,
    targets and drawing context: (tree, X, y, context)."""
    from sklearn.tree import DecisionTreeRegressor

    from forestviz.explain.drawing.treeviz import TreeContext

    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = X[:, 0] + rng.normal(scale=0.1, size=150)
    tree = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)
    return tree, X, y, TreeContext.from_data(X, y, feature_names=["a", "b", "c"],
                                             target_name="y")

