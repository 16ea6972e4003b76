"""The report as a PDF: the HTML report (:func:`.document.to_html`) printed on A4
by WeasyPrint, an HTML-and-CSS-to-PDF library in Python over Pango (a Debian package): no
browser, no network.

The PDF is the same document as the HTML file: the same tables, the charts as the same SVG
pictures (vector graphics with their texts, so the PDF's text holds them too), the tree
drawings, page numbers in the footer. WeasyPrint may only read the ``data:`` URIs the report
embeds: any other address (a file on the server, a network address) is refused.

This module imports only WeasyPrint (when printing), so a worker process that prints
(:func:`forestviz.app.printing.print_pdf`, the app's and the command line's way, with a time
limit) starts without the report's own imports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


def html_to_pdf(document: str, *, progress: Callable[[str, float], None] | None = None
                ) -> bytes:
    """A self-contained HTML document printed to PDF bytes (only ``data:`` URIs are read).
    ``progress``: a job's progress callback (:mod:`forestviz.app.jobs`), told when the layout
    starts."""
    from weasyprint import HTML, URLFetcher  # about a second to import: only when printing

    if progress is not None:
        progress("laying out the PDF", 0.0)
    fetcher = URLFetcher(allowed_protocols={"data"})
    return HTML(string=document, url_fetcher=fetcher).write_pdf()


def to_pdf(explanation, **options) -> bytes:
    """The report of ``explanation`` as PDF bytes, printed in this process (no time limit);
    ``options`` are :func:`~.document.to_html`'s."""
    from forestviz.explain.report.document import to_html

    return html_to_pdf(to_html(explanation, **options))
