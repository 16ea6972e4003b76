"""Streamlit pieces of the Explain page: the what-if editor, the prediction card, a top tree's
section and the tree drawings (through forestviz.explain.treeviz's locked, content-keyed
cache). What they show comes from :class:`~forestviz.app.workbench.Workbench`."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from forestviz.app.workbench import Workbench
from forestviz.explain import Explanation
from forestviz.explain.columns import NOT_APPLICABLE, text_table_note
from forestviz.explain.narrative import (
    interval_note,
    interval_text,
    spread_text,
    why,
)
from forestviz.explain.treeviz import TreeRenderError, render_tree
from forestviz.names import elide
from ui.display import as_label, as_text

MISSING = "(missing: no level)"


def what_if_row(bench: Workbench, original: pd.Series, key: str) -> pd.Series:
    """Editable values of the row's original columns (numbers or the known categories)."""
    values = {}
    grid = st.columns(4)
    for i, (column, median, levels) in enumerate(bench.editable_columns()):
        cell = grid[i % 4]
        value = original[column]
        if levels is None:  # an empty field stays missing: the model then uses the median
            values[column] = cell.number_input(
                as_label(column), value=None if pd.isna(value) else float(value),
                key=f"{key}@{column}", format="%g", placeholder=f"missing → {median:.4g}",
                help=f"Leave empty for a missing value: the model then uses the training "
                     f"median, {median:.4g}.")
        else:
            options = (MISSING, *levels)
            current = MISSING if pd.isna(value) else str(value)
            chosen = cell.selectbox(as_label(column), options, key=f"{key}@{column}",
                                    index=options.index(current) if current in options else 0)
            values[column] = None if chosen == MISSING else chosen
    return pd.Series(values, dtype=object)


def prediction_card(e: Explanation, actual) -> None:
    # each tile as wide as its label or value, side by side while they fit, else on a new line:
    # five equal columns cut the longer labels with "…" in a narrow window
    tiles = st.container(horizontal=True, gap="medium", key="explain_tiles")
    tile = partial(tiles.metric, width="content")
    if e.task == "classification":
        # binary: the risk of the second class; more classes: the predicted class's probability
        shown = (-1 if e.classes.size == 2
                 else int(np.flatnonzero(e.classes == e.predicted_class)[0]))
        name = str(e.classes[shown])
        tile("Predicted class", as_text(elide(e.predicted_class)))  # values are Markdown
        tile(as_label(f"P({elide(name)})"), f"{e.prediction[shown]:.2f}",
             help=as_text(f"The model's probability of {name}."))
        tile("Decision threshold", "—" if e.threshold is None else f"{e.threshold:.3f}",
             help=None if e.decision_rule is None else as_text(f"Rule: {e.decision_rule}."))
    else:
        tile("Predicted value", e.value_texts(e.prediction)[0])
    tile("Effective number of trees", f"{e.effective_trees:.1f}",
         help="1 / Σ α²: how many equally weighted trees would be as concentrated.")
    tile("Weight of the top 5 trees", f"{e.top5_share:.0%}",
         help="The share of the row's tree weights that its 5 heaviest trees carry.")
    spread = spread_text(e, elide)
    if spread is not None:
        st.caption(as_text(spread[0].upper() + spread[1:] + "."))
    if e.interval is not None:
        text = interval_text(e)
        st.caption(as_text(f"{text[0].upper()}{text[1:]}: {interval_note(e)}."))
    notes = [f"Model: {e.model_name}", f"{e.n_trees} trees"]
    if e.decision_rule:
        notes.append(f"Rule: {e.decision_rule}")
    if actual is not None:
        notes.append(f"Recorded outcome: {actual}")
    st.caption(as_text(" · ".join(notes)))


def why_and_warnings(e: Explanation) -> None:
    """The one-sentence reason, then plain warnings about how far to trust this prediction."""
    st.info(as_text(why(e, elide)), icon=":material/lightbulb:")
    for warning in e.warnings:
        st.warning(as_text(warning), icon=":material/warning:")


def missing_note(e: Explanation) -> None:
    """Which of the row's values were missing and what the model used instead."""
    if not e.missing:
        return
    table = e.features.set_index("feature")
    said = [f"{elide(c)} (imputed as {table.loc[c, 'used as'].replace(' (', ', ')[:-1]})"
            if table.loc[c, "kind"] == "numeric" else f"{elide(c)} (no level set)"
            for c in table.index if c in e.missing]
    st.warning(as_text("Missing in this row: " + "; ".join(said) + ". The explanation shows "
                       "what the model used."), icon=":material/help:")


def feature_table(e: Explanation) -> None:
    """The row per column beside the training rows, every cell text (numbers to their
    feature's digits, "—" where a measure does not apply), and what its columns mean."""
    table = e.feature_texts()
    st.caption(text_table_note(table))
    # the percentile and the share as numbers, so that a click on their header sorts them by
    # size (as text, "100.0" sorts before "9.9"), shown as text with "—" where they do not
    # apply, as the note says (a bare number column shows "None" there)
    formats = {"percentile": "{:.1f}"}
    table["percentile"] = e.features["percentile"].round(1)
    if "share with this level" in table:
        table["share with this level"] = (100 * e.features["share"]).round(1)
        formats["share with this level"] = "{:.1f} %"
    styled = table.style
    for column, shown in formats.items():
        styled = styled.format(shown, subset=[column], na_rep=NOT_APPLICABLE)
    st.dataframe(styled, hide_index=True, key="explain_features")


def draw(bench: Workbench, tree: int, x, *, mode: str, fancy: bool | None) -> str | None:
    """An SVG of the tree (cached by content in forestviz.explain.treeviz), or None after an
    error."""
    try:
        return render_tree(bench.model.estimator, tree, x, context=bench.model.context,
                           mode=mode, fancy=fancy)
    except TreeRenderError as err:
        st.warning(as_text(err), icon=":material/warning:")
        return None


def tree_section(bench: Workbench, e: Explanation, rank: int, svg: str | None) -> None:
    """One top tree: weight, its path drawing, the path in words and the nearest leaves."""
    tree = int(e.top_trees[rank])
    value = e.tree_predictions[tree]
    said = (e.tree_value_text(value) if e.task == "regression" else
            ", ".join(f"P({c}) = {p:.2f}" for c, p in zip(e.classes, value, strict=True)))
    says = "its term V is" if e.offset else "this tree says"  # tree_value_note: what V is
    st.markdown(as_text(f"Tree {tree + 1}: weight {e.tree_weights[tree]:.3f}; {says} {said}"))
    left, right = st.columns([3, 2])
    if svg is not None:
        left.image(svg, width="content", caption=f"Path of this row through tree {tree + 1}")
    steps = e.paths[rank]
    # the tests as a numbered list, which wraps in the narrow column (a table cut them); the
    # margin is the printed value − the printed threshold
    right.markdown("**The path's tests** (margin: value − threshold)\n\n" + "\n".join(
        f"{i}. " + as_text(f"{e.step_sentence(s, elide)} (margin {s.texts()[2]}"
                           + ("; the most fragile" if s.fragile else "") + ")")
        for i, s in enumerate(steps, start=1)))
    fragile = [s for s in steps if s.fragile]
    if fragile:
        right.caption(as_text(f"Most fragile test: {e.step_sentence(fragile[0], elide)} (the "
                              "smallest "
                              "margin relative to the feature's spread)."))
    for alternative in e.alternatives[rank]:
        right.caption(as_text("Nearest other leaf: " + e.alternative_sentence(alternative, elide)))
    with st.expander(f"Full drawing of tree {tree + 1}"):
        if st.toggle("Draw the whole tree (may take a few seconds the first time)",
                     key=f"full@{rank}"):
            full = draw(bench, tree, e.row, mode="full", fancy=None)
            if full is not None:
                st.image(full, width="content")
