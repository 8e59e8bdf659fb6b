"""Rendering: everything a reader sees of a result, in one place.

Results hold numbers; this package holds the words and the layout. It depends on no
result class: a result hands over its title, header entries, tables, notes and finding,
and :mod:`.report` and :mod:`.document` turn them into text, HTML, LaTeX and Markdown.

* :mod:`.format` — numbers: one value, one column, one table's decimals.
* :mod:`.escape` — text made safe in LaTeX, HTML and Markdown.
* :mod:`.words` — finding sentences, test conclusions, term labels, notes, the call.
* :mod:`.table` — one formatted table and its four renderings.
* :mod:`.report` — :class:`Report`, one result's section.
* :mod:`.document` — :class:`Document` and :func:`report`, several results in one file.
* :mod:`.view` — the reader's view and the diagnostics view of a result's summary.
* ``templates/`` — the jinja2 skeletons of sections and documents.
"""

from __future__ import annotations

from .document import Document, report
from .escape import html_escape, latex_escape, md_escape, slug
from .format import format_column, format_frame, format_value, is_empty_value, pretty_column
from .plots import get_ax
from .report import LATEX_PREAMBLE, MAX_COLUMNS, MAX_ROWS, Layout, Report
from .table import Table
from .words import call_text, finding_sentence, term_label, terms_sentence, test_sentence

__all__ = ["Document", "report", "Report", "Layout", "Table", "LATEX_PREAMBLE", "MAX_ROWS",
           "MAX_COLUMNS", "format_value", "format_column", "format_frame", "is_empty_value",
           "pretty_column", "html_escape", "latex_escape", "md_escape", "slug", "get_ax",
           "call_text", "finding_sentence", "term_label", "terms_sentence", "test_sentence"]
