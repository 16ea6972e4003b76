"""The record's glossary, last in its technical appendix: the terms of the explanation, the
papers' symbols and the model families from the one table of :mod:`forestviz.glossary`, as the
Glossary page lists them."""

from __future__ import annotations

import html

from forestviz.glossary import RECORD_SECTIONS, entries


def glossary_section() -> str:
    """``<h2>Glossary</h2>`` and, per section, a definition list: the term and its plain
    phrase, what it means and where it comes from (every text escaped)."""
    parts = ["<h2>Glossary</h2>"]
    terms = entries(RECORD_SECTIONS)
    for section in RECORD_SECTIONS:
        parts.append(f"<h3>{html.escape(section)}</h3><dl>")
        for t in terms:
            if t.section == section:
                named = t.term if t.plain == t.term else f"{t.term} ({t.plain})"
                parts.append(f"<dt>{html.escape(named)}</dt><dd>{html.escape(t.definition)} "
                             f"<i>Source: {html.escape(t.source)}.</i></dd>")
        parts.append("</dl>")
    return "\n".join(parts)
