"""A self-contained HTML report of an :class:`~forestviz.explain.Explanation`, fit for a
record. Its first page is the Explain page's summary, read off the same
:class:`~forestviz.explain.row.glance.Glance` (:mod:`.summary`): who, what and when
(:mod:`.record`), the prediction with its interval, the reasons both ways, the alarm of
a missing value that could change it, the most similar training rows. The technical appendix
follows only when asked for: the model's settings and held-out metrics next to the baselines,
then every section the Explain page shows below its summary, from the same
:class:`~forestviz.explain.row.view.ExplainView` (:mod:`.view`): how the forest reached the
prediction and its charts, the trees with their paths, the row (values marked missing or
edited) and the most similar training rows in full.
:mod:`.pdf` prints the same document to PDF.

The report works offline and holds no script: the charts are SVG pictures of the plotly
figures (:mod:`.charts`) and the tree drawings are SVG too, each embedded as a ``data:``
URI; nothing refers to a network address. Every user-provided text is escaped
(:mod:`.markup`).

The page fits the width of A4 (190 mm of text) whatever the names and values: names are cut to
``NAME_LIMIT`` characters (:mod:`forestviz.names`) with the whole name in a ``title``
(shown on hover) and in a closing table of full names; tables have a fixed layout and cells
wrap long words; the similar rows are laid side by side (one column per row, however many
columns the data has); images shrink to the page.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from forestviz.explain.report.glossary import glossary_section
from forestviz.explain.report.markup import full_names, sentence
from forestviz.explain.report.markup import name as _name
from forestviz.explain.report.names import typed_identifier
from forestviz.explain.report.record import ReportContext, model_section, record_section
from forestviz.explain.report.summary import summary_section
from forestviz.explain.report.view import view_html
from forestviz.explain.row.glance import glance as glance_of
from forestviz.explain.row.view import explain_view
from forestviz.names import NAME_LIMIT, DisplayNames

_STYLE = """
@page{size:A4;margin:12mm 10mm;@bottom-right{content:"page " counter(page) " of "
counter(pages);font:8pt "DejaVu Sans",sans-serif;color:#666}}
body{font-family:"DejaVu Sans",system-ui,sans-serif;margin:2em auto;padding:0 .5em;
max-width:190mm;color:#222;overflow-wrap:anywhere;font-size:10pt}
@media print{body{margin:0;padding:0;max-width:none}}
h2,h3,dt{break-after:avoid}dt{font-weight:bold}tr,img{break-inside:avoid}
table{border-collapse:collapse;margin:.5em 0 1.5em;table-layout:fixed;width:100%}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;overflow-wrap:anywhere}
th{background:#f2f4f7;overflow-wrap:break-word;font-size:.85em;padding:.25em .3em}
.card{font-size:1.3em;background:#f2f6fb;padding:.8em 1em}
.fragile,.edited{background:#fff3cd}img{max-width:100%}
.warning{background:#fff3cd;padding:.4em .8em}p.cut{font-size:.9em;color:#555}
img.tree,img.chart{border:1px solid #ddd;display:block;margin:.5em 0}
table.names th:first-child{width:30%}table.names td{word-break:break-all}
table.record th{width:28%}table.metrics th:first-child,table.side th:first-child,
table.features th:first-child{width:24%}
.summary .card{font-size:1.15em;margin:.4em 0}.summary h2{font-size:1.1em;margin:.6em 0 .2em}
.summary p{margin:.3em 0}.summary table{margin:.3em 0 .6em;font-size:.9em}
.summary td,.summary th{padding:.1em .4em}p.note{font-size:.9em;color:#333}
img.reasons{width:100mm;display:block;margin:.2em 0}.summary{font-size:.95em}
h2.appendix{break-before:page}
"""


def _origin(context: ReportContext) -> str:
    """The model's origin warning, under the title, or nothing."""
    if context.origin_warning is None:
        return ""
    return f'<p class="warning" role="alert">{sentence(context.origin_warning)}</p>\n'


def _appendix(e, view, context, names, tree_svgs) -> str:
    """The technical appendix, from a new page: the model and its held-out metrics, then the
    Explain view's sections as the page shows them (:mod:`.view`); last the glossary of
    the terms it uses (:mod:`.glossary`)."""
    return (f'<h2 class="appendix">Technical appendix</h2>{model_section(e, context, names)}'
            f"{view_html(view, names, tree_svgs)}{glossary_section()}")


def _names_cut(names) -> str:
    """The one-page record's line on the names it cut (their table, which could push it onto a
    second page, is in the technical appendix)."""
    if not names.shortened():
        return ""
    return (f'<p class="cut">Names longer than {NAME_LIMIT} characters are cut here, ending in '
            "“…”; the technical appendix gives them in full.</p>")


def to_html(explanation, *, glance=None, appendix: bool = False, view=None, names=None,
            tree_svgs: Mapping[int, str] | None = None, context: ReportContext | None = None,
            edited: Mapping[str, object] | None = None) -> str:
    """The report: on its first page the summary (:mod:`.summary`) of ``glance`` (the
    :class:`~forestviz.explain.row.glance.Glance` the Explain page shows; by default one built
    here, without the checks of missing values, which need the model) with the record (row,
    data set, model, date, version, missing and edited values, from ``context``; without one,
    the date and version); then, when ``appendix``, the technical appendix: the model's
    settings and held-out metrics next to the baselines, then ``view``, the sections the
    Explain page shows below the summary (:func:`~forestviz.explain.row.view.explain_view`, built
    with ``names``, the :class:`~forestviz.names.DisplayNames` that cut its names; by default
    built here, with the explanation's top trees), each tree drawn when ``tree_svgs`` has it
    (keyed by tree index from 0, e.g. from
    :func:`~forestviz.explain.drawing.tree_drawings.tree_drawings`); last the full names of the
    names it shows cut (without the appendix, a line saying that names are cut: their table could
    push the record onto a second page). ``edited``: the columns a what-if changed, each with its
    value before the edit (:func:`~.record.edited_values`)."""
    e = explanation
    tree_svgs = dict(tree_svgs or {})
    context = ReportContext() if context is None else context
    edited = dict(edited or {})
    names = DisplayNames() if names is None else names
    glance = glance_of(None, e, None, name=names) if glance is None else glance
    if appendix and view is None:
        view = explain_view(e, glance, edited=edited, name=names)
    unknown = set(tree_svgs) - set(view.trees if appendix else ())
    if unknown:
        raise ValueError(f"tree_svgs has trees that are not shown: {sorted(unknown)}")
    subject = heading = "this row"
    typed = typed_identifier(e.row_id)
    if typed == "":
        subject = heading = "a new patient"
    elif typed:
        subject, heading = (f"new patient {html.escape(names(typed))}",
                            f"new patient {_name(names, typed)}")
    elif e.row_id is not None:  # <title> holds text only: no title attribute there
        subject, heading = f"row {html.escape(names(e.row_id))}", f"row {_name(names, e.row_id)}"
    summary = summary_section(glance, record_section(e, context, names, edited),
                              appendix=appendix, names=names)
    rest = _appendix(e, view, context, names, tree_svgs) if appendix else ""
    created = html.escape(context.created.isoformat(timespec="seconds"))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="forestviz {html.escape(context.version)}">
<meta name="dcterms.created" content="{created}">
<title>forestviz explanation of {subject}</title><style>{_STYLE}</style></head><body>
<h1>Explanation of {heading}</h1>
{_origin(context)}{summary}
{rest}
{full_names(names) if appendix else _names_cut(names)}
</body></html>
"""
