"""The report's first page: the Explain page's summary (a
:class:`~forestviz.explain.row.glance.Glance`) for the record, on one A4 page.

Who, what and when (:func:`~.record.record_section`: the row ID or
"new patient", the data set, the model, the date, forestviz's version, the missing and edited
values), the prediction with its calibrated risk or value and interval (the Glance's headline
and interval sentence) and, when the row is unlike the training rows, the Glance's line saying
so, the reasons both ways (its argument and the compact waterfall the page
shows, as an SVG picture), the alarm or the quiet note of each missing value, what the most
similar training rows turned out to have and, when it was asked for, what would change the
answer (the page's sentence and before/after table,
:mod:`forestviz.explain.counterfactual.wording`). Every sentence is the Glance's own, so the
page and the record say the same thing in the same words; the technical appendix
(:mod:`.document`) follows only when asked for.

The page stays one page because what it holds is bounded: the waterfall draws at most
:data:`~forestviz.explain.row.reasons.SHOWN` columns each way and one bar for the rest, the
sentences are cut at :data:`~.markup.SENTENCE_LIMIT` and the checks of
missing values beyond :data:`CHECKS_SHOWN` are counted, not listed.
"""

from __future__ import annotations

from forestviz.explain.counterfactual.wording import before_after
from forestviz.explain.counterfactual.wording import summary as counterfactual_summary
from forestviz.explain.plots.alt import chart_text
from forestviz.explain.plots.reasons import reasons_waterfall
from forestviz.explain.report.charts import UndrawableFigure, figure_svg
from forestviz.explain.report.markup import sentence, svg_image, table
from forestviz.explain.row.imputed import WARNING
from forestviz.names import DisplayNames

WATERFALL_INCHES = 6.0  # the waterfall's width on the page (of its 7.5 inches of text)
CHECKS_SHOWN = 4  # missing-value checks written out on the first page (alarms first)


def waterfall_picture(glance) -> str:
    """The Glance's two-sided waterfall as an SVG picture with its text alternative ("" without
    contributions)."""
    if glance.reasons is None:
        return ""
    fig = reasons_waterfall(glance.reasons)
    return svg_image(figure_svg(fig, width=WATERFALL_INCHES), chart_text(fig), "reasons")


def _checks(glance) -> str:
    """Each missing value's check, the alarms first (warnings boxed, notes plain), at most
    :data:`CHECKS_SHOWN` of them, then how many more."""
    ordered = sorted(glance.checks, key=lambda c: c.level != WARNING)
    parts = [f'<p class="{"warning" if c.level == WARNING else "note"}">'
             f'{"Alarm: " if c.level == WARNING else "Missing value: "}'
             f"{sentence(c.sentence)}</p>" for c in ordered[:CHECKS_SHOWN]]
    left = len(ordered) - CHECKS_SHOWN
    if left > 0:
        parts.append(f'<p class="note">{left} more missing values were checked; the '
                     "technical appendix lists the row's values.</p>")
    return "".join(parts)


def counterfactual_section(glance, names: DisplayNames) -> str:
    """What would change the answer, as the Explain page says it: the sentence (or the line
    saying no confirmed change was found) and the before/after table; "" when it was not
    asked for."""
    found = glance.counterfactual
    if found is None:
        return ""
    changes = before_after(found)
    shown = "" if changes.empty else table(changes, names, css="changes")
    return (f"<h2>What would change the answer</h2>"
            f"<p>{sentence(counterfactual_summary(found))}</p>{shown}")


def summary_section(glance, record: str, *, appendix: bool,
                    names: DisplayNames | None = None) -> str:
    """The first page: ``record`` (the who/what/when table), then the Glance's prediction,
    interval, reasons both ways with the waterfall, missing-value checks, similar rows,
    warnings and what would change the answer (names shown through ``names``); last, whether
    the technical appendix follows."""
    interval = "" if glance.interval is None else f"<p>{sentence(glance.interval)}</p>"
    if glance.guess_note is not None:
        interval += f'<p class="warning">{sentence(glance.guess_note)}</p>'
    if glance.unfamiliar is not None:
        interval += f'<p class="warning">{sentence(glance.unfamiliar)}.</p>'
    try:
        picture = waterfall_picture(glance)
    except UndrawableFigure:
        picture = ""
    similar = "" if glance.similar is None else f"<p>{sentence(glance.similar)}.</p>"
    warnings = "".join(f'<p class="warning">{sentence(w)}</p>' for w in glance.warnings)
    closing = ("The technical appendix follows: the model's settings and held-out metrics, "
               "the contributions of every column, the weights, the trees and their paths, "
               "the row beside the training data and the similar rows in full."
               if appendix else "The technical appendix (the model's settings and metrics, "
               "the weights, the trees and their paths) was left out of this report; ask for "
               "it with “With appendix” (forestviz report --appendix).")
    return (f'<div class="summary">{record}<p class="card">{sentence(glance.headline)}</p>'
            f"{interval}<h2>Reasons both ways</h2><p>{sentence(glance.argument)}</p>{picture}"
            f"{_checks(glance)}{similar}{warnings}"
            f"{counterfactual_section(glance, DisplayNames() if names is None else names)}"
            f'<p class="cut">{closing}</p></div>')
