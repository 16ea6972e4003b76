"""The record of one explanation, HTML or PDF: the document (``document``: :func:`to_html`),
its first page (``summary``) and record fields (``record``), the Explain view printed
(``view``), static charts (``charts``), escaping and bounds (``markup``), the glossary
(``glossary``), the file name (``names``) and the PDF (``pdf``)."""
