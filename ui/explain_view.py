"""Streamlit pieces of the Explain page: the what-if editor, the Explain view's sections (a
top tree's among them) and the tree drawings (through forestviz.explain.drawing.treeviz's locked,
content-keyed cache). What they show comes from :class:`~forestviz.app.workbench.Workbench`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from forestviz.app.printing import PDF_SECONDS, PdfRefused
from forestviz.app.workbench import Workbench
from forestviz.explain import Explanation, plots
from forestviz.explain.drawing.files import TreeRenderError
from forestviz.explain.drawing.tree_drawings import draw_tree
from forestviz.explain.row.columns import NOT_APPLICABLE
from forestviz.explain.row.tree_section import MARGIN
from forestviz.explain.row.view import Chart, ExplainView, Note, Section, Tiles, Tree
from forestviz.glossary import help_text, used_in
from forestviz.io.errors import DataError
from forestviz.io.values import check_numbers
from forestviz.names import elide, elide_cells
from forestviz.numbers import input_format, plain_number
from ui.charts import chart
from ui.display import as_label, as_text

MISSING = "(missing: no level)"


def what_if_row(bench: Workbench, original: pd.Series, key: str) -> pd.Series:
    """Editable values of the row's original columns (numbers or the known categories); a
    number the value check refuses (infinite or absurd, :mod:`forestviz.io.values`) is said
    in one line and the row's own value kept."""
    values = {}
    grid = st.columns(4)
    for i, (column, median, levels) in enumerate(bench.editable_columns()):
        cell = grid[i % 4]
        value = original[column]
        if levels is None:  # an empty field stays missing: the model then uses the median
            typical = plain_number(median, 4)
            values[column] = edited = cell.number_input(
                as_label(column), value=None if pd.isna(value) else float(value),
                key=f"{key}@{column}", format=input_format(median),
                placeholder=f"missing → {typical}",
                help=f"Leave empty for a missing value: the model then uses the training "
                     f"median, {typical}.")
            try:
                check_numbers(column, [np.nan if edited is None else edited])
            except DataError as refused:
                cell.error(as_text(refused), icon=":material/error:")
                values[column] = value
        else:
            options = (MISSING, *levels)
            current = MISSING if pd.isna(value) else str(value)
            chosen = cell.selectbox(as_label(column), options, key=f"{key}@{column}",
                                    index=options.index(current) if current in options else 0)
            values[column] = None if chosen == MISSING else chosen
    return pd.Series(values, dtype=object)


def sections(bench: Workbench, e: Explanation, view: ExplainView,
             extras: Callable[[Section], None]) -> None:
    """The Explain view (:class:`~forestviz.explain.row.view.ExplainView`, the sections the report's
    appendix prints too), laid out: each section's title and parts in order, the half-width
    charts side by side on a wide window (one a line on a narrow one), long tables folded,
    then ``extras(section)``, the page's own interactive additions to it."""
    for section in view:
        st.header(as_text(section.title), anchor=False)
        halves = None  # the current row of half-width charts
        for part in section.parts:
            if isinstance(part, Tree):  # keyed by its rank, as another row's tree takes its place
                tree_section(bench, e, part, view.trees.index(part.section.tree))
                continue
            if isinstance(part, Chart) and part.half:
                halves = halves or st.container(horizontal=True)
                chart(place=halves, fig=part.figure, width=plots.HALF,
                      key=f"explain_chart_{part.name}")
                continue
            halves = None
            _part(bench, e, part)
        extras(section)


def _part(bench: Workbench, e: Explanation, part) -> None:
    if isinstance(part, Tiles):
        tiles = st.container(horizontal=True, gap="medium", key="explain_forest_tiles")
        for tile in part.tiles:
            tiles.metric(tile.label, tile.value, width="content",
                         help=as_text(help_text(tile.term)))
    elif isinstance(part, Note):
        st.caption(as_text(part.text),
                   help=as_text(" ".join(t.help for t in used_in(part.text))) or None)
    elif isinstance(part, Chart):
        chart(part.figure, key=f"explain_chart_{part.name}")
    elif part.name == "features":
        feature_table(e, part.frame)
    elif part.folded:
        with st.expander(as_label(part.title)):
            st.dataframe(elide_cells(part.frame), hide_index=True, key=f"explain_{part.name}")
    else:
        if part.title is not None:
            st.subheader(as_text(part.title), anchor=False)
        frame = part.frame.set_axis(list(part.heads)) if part.heads else part.frame
        st.dataframe(elide_cells(frame), hide_index=not part.heads, key=f"explain_{part.name}")


def feature_table(e: Explanation, table: pd.DataFrame) -> None:
    """The row per column beside the training rows (the view's text ``table``, numbers to
    their feature's digits, "—" where a measure does not apply), its percentile and share as
    numbers, so that a click on their header sorts them by size (as text, "100.0" sorts
    before "9.9"), shown as text with "—" where they do not apply (a bare number column shows
    "None" there)."""
    table = table.copy()
    formats = {"percentile": "{:.1f}"}
    table["percentile"] = e.features["percentile"].round(1).to_numpy()
    if "share with this level" in table:
        table["share with this level"] = (100 * e.features["share"]).round(1).to_numpy()
        formats["share with this level"] = "{:.1f} %"
    styled = table.style
    for column, shown in formats.items():
        styled = styled.format(shown, subset=[column], na_rep=NOT_APPLICABLE)
    st.dataframe(styled, hide_index=True, key="explain_features")


def draw(bench: Workbench, e: Explanation, tree: int, *, mode: str = "path",
         fancy: bool | None = False) -> str | None:
    """An SVG of the tree with the row's path
    (:func:`~forestviz.explain.drawing.tree_drawings.draw_tree`, cached by content), or None after
    an error, said in a warning."""
    try:
        return draw_tree(bench.model.estimator, e, tree, bench.model.context, mode=mode,
                         fancy=fancy)
    except TreeRenderError as err:
        st.warning(as_text(err), icon=":material/warning:")
        return None


def tree_section(bench: Workbench, e: Explanation, part: Tree, rank: int) -> None:
    """One chosen tree (a :class:`~forestviz.explain.row.view.Tree`): the sentence heading it, its
    path drawing, the path's tests as a numbered list (it wraps in the narrow column, where a
    table cut them), the nearest leaves and, on request, the whole tree."""
    section = part.section
    tree = section.tree
    svg = draw(bench, e, tree)
    st.markdown(as_text(part.sentence))
    left, right = st.columns([3, 2])
    if svg is not None:
        left.image(svg, width="content", caption=f"Path of this row through tree {tree + 1}",
                   alt=section.drawing_text)
    tests = zip(section.path["test"], section.path[MARGIN], section.fragile, strict=True)
    right.markdown("**The path's tests** (margin: value − threshold)\n\n" + "\n".join(
        f"{i}. " + as_text(f"{test} (margin {margin}" + ("; the most fragile" if fragile
                                                          else "") + ")")
        for i, (test, margin, fragile) in enumerate(tests, start=1)))
    if section.fragile_test is not None:
        right.caption(as_text(f"Most fragile test: {section.fragile_test} (the smallest margin "
                              "relative to the feature's spread)."))
    for alternative in section.alternatives:
        right.caption(as_text(f"Nearest other leaf: {alternative}"))
    with st.expander(f"Full drawing of tree {tree + 1}"):
        if st.toggle("Draw the whole tree (may take a few seconds the first time)",
                     key=f"full@{rank}"):
            full = draw(bench, e, tree, mode="full", fancy=None)
            if full is not None:
                st.image(full, width="content", alt=f"The whole of tree {tree + 1}, every "
                         f"node; {section.drawing_text}")


def attention_lens(bench: Workbench, e: Explanation) -> None:
    """When the model kept its plain forest: what the best attention setting would say for
    this row, on demand, labelled as not used for the prediction."""
    if not bench.has_attention_lens():
        return
    with st.expander("Attention lens (not used for the prediction)", icon=":material/visibility:"):
        if not st.toggle("Show what attention would have said for this row",
                         key="explain_lens"):
            return
        lens = bench.attention_lens()
        weights, predicted = lens.row(e.row)
        st.caption(lens.sentence())
        tiles = st.container(horizontal=True, gap="medium")
        if e.task == "classification":
            shown = -1 if e.classes.size == 2 else int(np.argmax(e.prediction))
            name = as_text(elide(e.classes[shown]))
            tiles.metric(f"Lens P({name})", f"{predicted[shown]:.2f}", width="content",
                         help="Not used for the prediction.")
            tiles.metric(f"Model P({name})", f"{e.prediction[shown]:.2f}", width="content")
        else:
            tiles.metric("Lens value", e.value_texts(float(predicted))[0], width="content",
                         help="Not used for the prediction.")
            tiles.metric("Model value", e.value_texts(e.prediction)[0], width="content")
        tiles.metric("Lens effective number of trees", f"{1 / np.sum(weights**2):.1f}",
                     width="content")
        chart(plots.tree_weight_bars(
            weights, label="lens weight", width=plots.WIDTH,
            title="Attention lens (not used for the prediction): weight of each tree"),
            key="explain_lens_weights")


@st.fragment
def pdf_report(make, file_name: str) -> None:
    """The PDF report on request: a button makes it (``make()``: printed in a worker process
    within :data:`~forestviz.app.printing.PDF_SECONDS` of CPU, this fragment alone waiting), then a
    button downloads it; a PDF not made is said in one line (the HTML report is there)."""
    if not st.button("Make PDF report", key="explain_report_pdf_make",
                     icon=":material/picture_as_pdf:"):
        return
    with st.spinner(f"Laying out the PDF (at most {PDF_SECONDS} s of computing)…"):
        try:
            pdf = make()
        except PdfRefused as refused:
            st.warning(as_text(str(refused)), icon=":material/timer_off:")
            return
    st.download_button("PDF report", pdf, file_name=file_name,
                       mime="application/pdf", key="explain_report_pdf", on_click="ignore",
                       icon=":material/download:")
