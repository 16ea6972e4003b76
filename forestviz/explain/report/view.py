"""The Explain view (:mod:`forestviz.explain.row.view`) printed for the record: the report's
technical appendix renders each section the page shows, in the page's order and under the page's
titles, with static pictures where the page has interactive charts. A chart is an SVG picture of its
plotly figure with the figure's text alternative (:mod:`.charts`), followed by the numbers it shows,
the table the page folds under it (:func:`~forestviz.explain.plots.chart_table .chart_table`); a
tree is its drawing (when ``tree_svgs`` holds it), its path as a table and its nearest other leaves.
Every text is escaped and bounded by :mod:`.markup`.
"""

from __future__ import annotations

from collections.abc import Mapping

from forestviz.explain.plots.alt import chart_text
from forestviz.explain.plots.chart_table import chart_table
from forestviz.explain.plots.conventions import plain_text
from forestviz.explain.report.charts import UndrawableFigure, figure_svg
from forestviz.explain.report.markup import sentence, side_by_side, svg_image, table
from forestviz.explain.row.view import Chart, ExplainView, Note, Section, Table, Tiles, Tree
from forestviz.names import DisplayNames

NUMBERS = "Numbers in this chart"
"""The heading of a chart's numbers (the page's folded table says the same)."""


def view_html(view: ExplainView, names: DisplayNames,
              tree_svgs: Mapping[int, str]) -> str:
    """Every section of ``view`` as HTML (names through ``names``; tree drawings from
    ``tree_svgs``, keyed by tree index from 0)."""
    return "".join(section_html(s, names, tree_svgs) for s in view)


def section_html(section: Section, names: DisplayNames, tree_svgs: Mapping[int, str]) -> str:
    """One section: its title, then each part in order."""
    parts = "".join(_part(p, names, tree_svgs) for p in section.parts)
    return f'<h2 class="view">{sentence(section.title)}</h2>{parts}'


def _part(part, names, tree_svgs) -> str:
    if isinstance(part, Tiles):
        return "<p>" + " · ".join(f"{sentence(t.label)}: <b>{sentence(t.value)}</b>"
                                  for t in part.tiles) + "</p>"
    if isinstance(part, Note):
        return f'<p class="note">{sentence(part.text)}</p>'
    if isinstance(part, Chart):
        return _chart(part, names)
    if isinstance(part, Table):
        return _table(part, names)
    if isinstance(part, Tree):
        return _tree(part, tree_svgs.get(part.section.tree), names)
    raise TypeError(f"not a part of an Explain view: {type(part).__name__}")


def _chart(part: Chart, names) -> str:
    """A chart's picture (or a note when it cannot be drawn) and its numbers."""
    fig = part.figure
    try:
        picture = svg_image(figure_svg(fig), chart_text(fig), "chart")
    except UndrawableFigure:
        title = plain_text(fig.layout.title.text).replace("\n", " ")
        picture = f"<p>The chart “{sentence(title)}” is on the Explain page only.</p>"
    numbers = chart_table(fig)
    if numbers.frame.empty:
        return picture
    left = "" if not numbers.left_out else f'<p class="cut">And {sentence(numbers.left_out)}.</p>'
    return (f"{picture}<p>{NUMBERS}:</p>"
            + table(numbers.frame, names, css=f"numbers-{part.name}") + left)


def _table(part: Table, names) -> str:
    title = "" if part.title is None else f"<h3>{sentence(part.title)}</h3>"
    if part.heads:
        return title + side_by_side(part.frame, names, heads=list(part.heads))
    rows = ["edited" if m else "" for m in part.marked] or None
    return title + table(part.frame, names, rows, css=part.name)


def _tree(part: Tree, svg: str | None, names) -> str:
    """One tree: the sentence that heads it, its drawing, its path and nearest other
    leaves."""
    section = part.section
    drawing = "" if svg is None else svg_image(svg, section.drawing_text, "tree")
    rows = ["fragile" if f else "" for f in section.fragile]
    body = (table(section.path, names, rows) if len(section.path)
            else "<p>This tree is a single leaf.</p>")
    nearest = "".join(f"<li>{sentence(said)}</li>" for said in section.alternatives)
    others = f"<p>Nearest other leaves (one test flipped):</p><ul>{nearest}</ul>" if nearest else ""
    return (f"<h3>{sentence(part.sentence)}</h3>{drawing}"
            f"<p>The row's path (the highlighted test is the closest call):</p>{body}{others}")
