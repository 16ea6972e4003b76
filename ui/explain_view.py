"""Pieces of the Explain page: picking a row, the what-if editor, the prediction card, the
simplex inputs and the tree drawings (through forestviz.explain.treeviz's locked, content-keyed
cache)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from forestviz.app.workflow import Bundle
from forestviz.explain import Explanation, explain, plots
from forestviz.explain.names import elide
from forestviz.explain.treeviz import TreeRenderError, render_tree
from ui.display import as_text

ROW = "explain_row"  # position in the data set of the explained row
TOP_K = 5


def risk(bundle: Bundle, X) -> np.ndarray:
    """What the held-out table is sorted by: P(last class) or the predicted value."""
    if bundle.task == "classification":
        return bundle.estimator.predict_proba(X)[:, -1]
    return bundle.estimator.predict(X)


def ranked_test_rows(bundle: Bundle) -> pd.DataFrame:
    """The held-out rows, highest predicted risk (or value) first."""
    label = (f"P({bundle.class_names[-1]})" if bundle.task == "classification"
             else f"predicted {bundle.target}")
    frame = pd.DataFrame({"position": bundle.test_rows, "ID": bundle.ids_test,
                          label: risk(bundle, bundle.X_test), "actual": bundle.y_test})
    return frame.sort_values(label, ascending=False, kind="stable").reset_index(drop=True)


def highest_risk_row(bundle: Bundle) -> int:
    return int(ranked_test_rows(bundle)["position"].iloc[0])


def what_if_row(bundle: Bundle, original: pd.Series, key: str) -> pd.Series:
    """Editable values of the row's original columns (numbers or the known categories)."""
    pre = bundle.preprocessor
    columns = [c for c in original.index if c not in pre.dropped_columns_]
    values = {}
    grid = st.columns(4)
    for i, column in enumerate(columns):
        cell = grid[i % 4]
        if column in pre.medians_:
            value = original[column]
            start = float(pre.medians_[column]) if pd.isna(value) else float(value)
            values[column] = cell.number_input(as_text(column), value=start, key=f"{key}@{column}",
                                               format="%g")
        else:
            levels = list(pre.categories_[column])
            current = str(original[column])
            values[column] = cell.selectbox(as_text(column), levels, key=f"{key}@{column}",
                                            index=levels.index(current) if current in levels
                                            else 0)
    return pd.Series(values)


def explain_values(bundle: Bundle, original: pd.Series, row_id: str | None) -> Explanation:
    """Encode the row's original values and explain the model's prediction for it."""
    frame = pd.DataFrame([original.to_dict()])
    for column in bundle.preprocessor.feature_names_in_:
        if column not in frame:
            frame[column] = np.nan
    x = bundle.preprocessor.transform(frame[list(bundle.preprocessor.feature_names_in_)])[0]
    return explain(bundle.estimator, x, top_k=TOP_K, summary=bundle.summary,
                   original_row=original, row_id=row_id)


def prediction_card(e: Explanation, actual) -> None:
    columns = st.columns(5)
    if e.task == "classification":
        # binary: the risk of the second class; more classes: the predicted class's probability
        shown = (-1 if e.classes.size == 2
                 else int(np.flatnonzero(e.classes == e.predicted_class)[0]))
        columns[0].metric("Predicted class", as_text(e.predicted_class))  # values are Markdown
        columns[1].metric(as_text(f"P({e.classes[shown]})"), f"{e.prediction[shown]:.2f}")
        columns[2].metric("Decision threshold",
                          "—" if e.threshold is None else f"{e.threshold:.3f}")
    else:
        columns[0].metric("Predicted value", f"{e.prediction:.4g}")
    columns[3].metric("Effective number of trees", f"{e.effective_trees:.1f}",
                      help="1 / Σ α²: how many equally weighted trees would be as concentrated.")
    columns[4].metric("Weight of the top 5 trees", f"{e.top5_share:.0%}")
    notes = [f"Model: {e.model_name}", f"{e.n_trees} trees"]
    if e.decision_rule:
        notes.append(f"Rule: {e.decision_rule}")
    if actual is not None:
        notes.append(f"Recorded outcome: {actual}")
    st.caption(as_text(" · ".join(notes)))


def simplex_inputs(bundle: Bundle, e: Explanation):
    """(D, w, ε) of ABRF Fig. 1: the model's own for attention models; for models without a
    contamination part the weights themselves at ε = 0 (the sub-simplex is a point)."""
    estimator = bundle.estimator
    if e.weight_parts is not None and hasattr(estimator, "eps_"):
        eps = float(estimator.eps_)
        D = e.weight_parts[0] / (1.0 - eps) if eps < 1.0 else e.tree_weights
        return D, np.asarray(estimator.w_), eps
    return e.tree_weights, np.full(e.n_trees, 1.0 / e.n_trees), 0.0


def draw(bundle: Bundle, tree: int, x, *, mode: str, fancy: bool | None) -> str | None:
    """An SVG of the tree (cached by content in forestviz.explain.treeviz), or None after an
    error."""
    try:
        return render_tree(bundle.estimator, tree, x, context=bundle.context, mode=mode,
                           fancy=fancy)
    except TreeRenderError as err:
        st.warning(as_text(err), icon=":material/warning:")
        return None


def tree_section(bundle: Bundle, e: Explanation, rank: int, svg: str | None) -> None:
    """One top tree: weight, its path drawing, the path in words and the nearest leaves."""
    tree = int(e.top_trees[rank])
    value = e.tree_predictions[tree]
    said = (f"{value:.4g}" if e.task == "regression" else
            ", ".join(f"P({c}) = {p:.2f}" for c, p in zip(e.classes, value, strict=True)))
    st.markdown(as_text(f"Tree {tree + 1}: weight {e.tree_weights[tree]:.3f}; this tree says "
                        f"{said}"))
    left, right = st.columns([3, 2])
    if svg is not None:
        left.image(svg, width="content", caption=f"Path of this row through tree {tree + 1}")
    steps = e.paths[rank]
    table = pd.DataFrame({"test on the path": [s.sentence(elide) for s in steps],
                          "margin": [s.margin for s in steps],
                          "most fragile": ["yes" if s.fragile else "" for s in steps]})
    right.dataframe(table, hide_index=True, key=f"path@{rank}")
    fragile = [s for s in steps if s.fragile]
    if fragile:
        right.caption(as_text(f"Most fragile test: {fragile[0].sentence(elide)} (the smallest "
                              "margin relative to the feature's spread)."))
    alternatives = bundle.summary.machine.alternatives(e.row, tree, max_flips=1)[:3]
    for alternative in alternatives:
        right.caption(as_text("Nearest other leaf: " + alternative.sentence(elide)))
    with st.expander(f"Full drawing of tree {tree + 1}"):
        if st.toggle("Draw the whole tree (may take a few seconds the first time)",
                     key=f"full@{rank}"):
            full = draw(bundle, tree, e.row, mode="full", fancy=None)
            if full is not None:
                st.image(full, width="content")


def figures(bundle: Bundle, e: Explanation) -> dict:
    """The row's plotly figures: weights, ERF scores, KDE (Fig. 3) and simplex (Fig. 1)."""
    out = e.figures()
    D, w, eps = simplex_inputs(bundle, e)
    out["simplex"] = plots.simplex_figure(D, w, eps, alpha=e.tree_weights)
    out.pop("features", None)
    return out
