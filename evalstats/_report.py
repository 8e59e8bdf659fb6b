"""Reports: one content, four renderings (text, HTML, LaTeX, Markdown).

A :class:`Report` holds a title, a one-sentence finding, a header block (method, data,
n, confidence level, call), tables, appendix tables and numbered notes/warnings. Before
rendering, the tables are cleaned the way a statistician would (:meth:`Report.layout`):
columns with nothing in them are dropped, columns constant down the table
(``confidence_level``, ``method``, ...) move to the header, tables wider than
:data:`MAX_COLUMNS` are split into a headline table and an appendix table, and every
numeric column gets fixed decimals (``digits=``) and right alignment, and tables taller
than ``max_rows`` (default :data:`MAX_ROWS`) are cut to head + tail with a note saying
where the full table is (:mod:`evalstats._tables`). Text goes through statsmodels'
``SimpleTable``; HTML and LaTeX through pandas' ``Styler`` (escaped; LaTeX with booktabs,
``\\label``\\ s, Unicode mapped to math, and a ``longtable`` for tall tables); Markdown is
escaped and aligned.

:class:`~evalstats._document.Document` (built by :func:`~evalstats._document.report`,
both also importable from here) composes several reports into a document with a title
block, a contents list, numbered sections with their plots, and an appendix.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._tables import (
    MAX_ROWS,
    Table,
    format_frame,
    format_value,
    html_escape,
    is_empty_value,
    latex_escape,
    md_escape,
    pretty_column,
    slug,
)

__all__ = ["Report", "format_value", "format_frame", "MAX_COLUMNS", "MAX_ROWS",
           "LATEX_PREAMBLE"]

#: tables with more columns are split into a headline table and an appendix table
MAX_COLUMNS = 8
#: columns that describe the whole table; when constant they move to the header
_META_COLUMNS = ("confidence_level", "method")
_KEY_COLUMNS = ("estimate", "std_error", "conf_low", "conf_high", "statistic", "p_value")

LATEX_PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[utf8]{inputenc}
\usepackage[margin=2.2cm]{geometry}
\usepackage{booktabs}
\usepackage{longtable}
\usepackage{graphicx}
\makeatletter
\providecommand\captionof[1]{\def\@captype{#1}\caption}
\makeatother
"""



def latex_prose(s: object) -> str:
    """:func:`latex_escape` for running text: long identifiers (``a_b(...).c_d``) may break
    after ``_``, ``.`` and ``(`` so a note never runs past the margin."""
    text = latex_escape(s)
    text = text.replace("\\_", "\\_\\allowbreak{}")
    return re.sub(r"([.(])(?=[A-Za-z.\\])", r"\1\\allowbreak{}", text)

def _header_strings(header: Mapping[str, Any], digits) -> dict[str, str]:
    sig = digits if isinstance(digits, int) else 4
    return {str(k): format_value(v, sig) for k, v in header.items() if not is_empty_value(v)}


def _has_key(hdr: Mapping[str, str], key: str) -> bool:
    return key.lower() in {k.lower() for k in hdr}


def _meta_text(col: str, value: Any) -> str:
    if col == "confidence_level" and isinstance(value, float):
        return f"{100 * value:g}%"
    return format_value(value)


def _clean(df: pd.DataFrame, hdr: dict[str, str], move_constant: bool) -> pd.DataFrame:
    """Drop empty columns; move constant meta columns (and, if asked, constant text columns
    of tables with three rows or more) to the header."""
    keep = []
    for j, c in enumerate(df.columns):
        vals = df[c].tolist()
        if all(is_empty_value(v) for v in vals):
            continue
        distinct = {repr(v) for v in vals}
        constant = len(distinct) == 1
        meta = str(c) in _META_COLUMNS
        numeric = isinstance(vals[0], numbers.Real) and not isinstance(vals[0], bool | np.bool_)
        if j > 0 and constant and (meta or (move_constant and len(df) >= 3 and not numeric)):
            key = pretty_column(c)
            text = _meta_text(str(c), vals[0])
            if not _has_key(hdr, key):
                hdr[key] = text
                continue
            if hdr[next(k for k in hdr if k.lower() == key.lower())] == text or meta:
                continue
        keep.append(c)
    return df[keep]


def _split_wide(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Headline columns (first + estimates) and the rest (with the first column repeated)."""
    if df.shape[1] <= MAX_COLUMNS:
        return df, None
    cols = list(df.columns)
    head = [cols[0]] + [c for c in cols[1:] if str(c) in _KEY_COLUMNS]
    if len(head) < 3:
        head = cols[:MAX_COLUMNS]
    else:
        head += [c for c in cols[1:] if c not in head][: max(MAX_COLUMNS - len(head), 0)]
    head = [c for c in cols if c in head]
    rest = [cols[0]] + [c for c in cols if c not in head]
    return df[head], df[rest]


@dataclass(frozen=True)
class Layout:
    """A report ready to render: formatted header strings, tables and appendix tables."""

    header: dict[str, str]
    tables: list[Table]
    appendix: list[Table]


@dataclass(frozen=True)
class Report:
    """A statistical report with the same content in text, HTML, LaTeX and Markdown.

    Attributes
    ----------
    title : str
    header : mapping of str to value
        Method, data, n, confidence level, call, ... (rendered as a two-column block;
        entries that say nothing — None, NaN, empty — are dropped).
    tables : tuple of (caption, DataFrame)
        The tidy table first; further tables follow.
    notes : tuple of str
        Numbered notes and warnings gathered during the computation.
    digits : int or mapping
        Significant digits from which each numeric column's fixed decimals are chosen,
        or ``{column: decimals}`` (key ``"*"`` for the other columns).
    finding : str
        One plain-language sentence stating the result.
    appendix : tuple of (caption, DataFrame)
        Detail tables printed after the main text (a document's appendix).
    label : str
        Anchor / LaTeX label (default: derived from the title).
    max_rows : int or None
        Tables with more rows show their first and last rows (``max_rows`` in all) and a
        note "… N of M rows omitted; full table in tidy()"; ``None`` shows every row.
        In LaTeX, tables of more than :data:`~evalstats._tables.LONGTABLE_ROWS` rows are
        set as a ``longtable``, which breaks across pages.
    """

    title: str
    header: Mapping[str, Any] = field(default_factory=dict)
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    notes: tuple[str, ...] = ()
    digits: int | Mapping[str, int] = 4
    finding: str = ""
    appendix: tuple[tuple[str, pd.DataFrame], ...] = ()
    label: str = ""
    max_rows: int | None = MAX_ROWS

    def __post_init__(self) -> None:
        from ._validation import check_int, fail

        if self.max_rows is not None:
            object.__setattr__(self, "max_rows", check_int(self.max_rows, "max_rows", low=2))
        if isinstance(self.digits, Mapping):
            for key, value in self.digits.items():
                if not isinstance(key, str):
                    raise fail("digits", "an int or a mapping of column names to ints",
                               value=self.digits)
                check_int(value, f"digits[{key!r}]", low=0, high=15)
        else:
            object.__setattr__(self, "digits", check_int(self.digits, "digits", low=1,
                                                         high=15))

    # -- layout ---------------------------------------------------------------------------
    @property
    def anchor(self) -> str:
        return self.label or slug(self.title)

    def layout(self) -> Layout:
        """Header strings, headline tables and appendix tables, cleaned and formatted."""
        hdr = _header_strings(self.header, self.digits)
        tables, appendix = [], []
        rows = self.max_rows
        for i, (caption, df) in enumerate(self.tables):
            df = _clean(pd.DataFrame(df).reset_index(drop=True), hdr, move_constant=True)
            head, rest = _split_wide(df)
            src = "tidy()" if i == 0 else f"summary().tables[{i}]"
            tables.append(Table.from_frame(caption, head, self.digits, f"{self.anchor}-{i + 1}",
                                           max_rows=rows, source=src))
            if rest is not None:
                appendix.append(Table.from_frame(f"{self.title}: {caption} (further columns)",
                                                 rest, self.digits,
                                                 f"{self.anchor}-{i + 1}-more", max_rows=rows,
                                                 source=src))
        for j, (caption, df) in enumerate(self.appendix):
            df = _clean(pd.DataFrame(df).reset_index(drop=True), {}, move_constant=False)
            appendix.append(Table.from_frame(f"{self.title}: {caption}", df, self.digits,
                                             f"{self.anchor}-app-{j + 1}", max_rows=rows,
                                             source=f"summary().appendix[{j}]"))
        return Layout(hdr, tables, appendix)

    # -- renderings -----------------------------------------------------------------------
    def as_text(self, appendix: bool = True) -> str:
        """Fixed-width text in the style of statsmodels' summary."""
        from statsmodels.iolib import summary2

        lay = self.layout()
        s = summary2.Summary()
        s.add_title(self.title)
        short = {k: v for k, v in lay.header.items() if len(v) <= 32}
        long = {k: v for k, v in lay.header.items() if len(v) > 32}
        if short:
            s.add_dict(short, ncols=2)
        if long:  # the call, the data: wrapped so that no block is wider than a terminal
            s.add_array(_wrapped_rows(long), align="l")
        parts = []
        first = bool(lay.tables and lay.tables[0].rows)
        if first:
            t0 = lay.tables[0]
            s.add_df(pd.DataFrame(t0.shown_rows("..."), columns=list(t0.columns)),
                     index=False, align="".join(t0.aligns))
        if short or long or first:
            parts.append(s.as_text())
        else:
            parts.append(f"{self.title}\n{'=' * len(self.title)}")
        if self.finding:
            parts.insert(1, _wrap(self.finding))
        if lay.tables and lay.tables[0].note:
            parts.insert(1, lay.tables[0].note)
        parts += [t.as_text() for t in lay.tables[0 if lay.tables and not first else 1:]]
        if self.notes:
            parts.append("Notes:\n" + "\n".join(
                _wrap(f"[{i}] {n}", subsequent_indent=" " * (len(str(i)) + 3))
                for i, n in enumerate(self.notes, 1)))
        if appendix and lay.appendix:
            parts += ["Appendix:"] + [t.as_text() for t in lay.appendix]
        return "\n\n".join(parts)

    def as_html(self, level: int = 3, figure: str = "", appendix: bool = True,
                number: str = "") -> str:
        """An HTML ``<section>``: heading, finding, header block, tables, figure, notes."""
        lay = self.layout()
        h = f"h{level}"
        parts = [f'<section class="evalstats-report" id="{html_escape(self.anchor)}">',
                 f"<{h}>{html_escape(number + self.title)}</{h}>"]
        if self.finding:
            parts.append(f'<p class="finding">{html_escape(self.finding)}</p>')
        if lay.header:
            parts.append(_html_header(lay.header))
        parts += [t.as_html() for t in lay.tables]
        if lay.appendix and not appendix:
            links = ", ".join(f'<a href="#{html_escape(t.label)}">{html_escape(t.caption)}</a>'
                              for t in lay.appendix)
            parts.append(f'<p class="more">More in the appendix: {links}.</p>')
        if figure:
            parts.append(figure)
        if self.notes:
            items = "".join(f"<li>{html_escape(n)}</li>" for n in self.notes)
            parts.append(f'<p class="notes-title">Notes</p><ol class="notes">{items}</ol>')
        if appendix and lay.appendix:
            parts += ["<p><b>Appendix</b></p>"] + [t.as_html() for t in lay.appendix]
        parts.append("</section>")
        return "\n".join(parts)

    def as_latex(self, label: str = "", *, floats: bool = True, level: str = "subsection",
                 figure: str = "", appendix: bool = True) -> str:
        """LaTeX: a section with the finding, header block, booktabs tables and notes.

        Needs ``booktabs`` and ``graphicx`` (see :data:`LATEX_PREAMBLE`); with
        ``floats=False`` tables are set in place with ``\\captionof`` (defined there).
        """
        lay = self.layout()
        anchor = slug(label) if label else self.anchor
        parts = [f"\\{level}{{{latex_escape(self.title)}}}\\label{{sec:{anchor}}}"]
        if self.finding:
            parts.append(latex_prose(self.finding))
        if lay.header:
            rows = "\n".join(
                f"{latex_escape(k)} & \\parbox[t]{{0.62\\linewidth}}{{\\raggedright "
                f"{latex_escape(v)}}} \\\\" for k, v in lay.header.items())
            parts.append("\\begin{center}\\small\n\\begin{tabular}{@{}ll@{}}\n\\toprule\n"
                         + rows + "\n\\bottomrule\n\\end{tabular}\n\\end{center}")
        parts += [_latex_table(t, floats) for t in lay.tables]
        if lay.appendix and not appendix:
            refs = ", ".join(f"Table~\\ref{{tab:{t.label}}}" for t in lay.appendix)
            parts.append(f"Further columns: {refs} in the appendix.")
        if figure:
            parts.append(figure)
        if self.notes:
            parts.append("\\begin{enumerate}\\small\n" + "\n".join(
                f"  \\item {latex_prose(n)}" for n in self.notes) + "\n\\end{enumerate}")
        if appendix and lay.appendix:
            parts += [_latex_table(t, floats) for t in lay.appendix]
        return "\n\n".join(parts)

    def as_markdown(self, level: int = 3, figure: str = "", appendix: bool = True,
                    number: str = "") -> str:
        """GitHub-flavoured Markdown (escaped; numbers right-aligned)."""
        lay = self.layout()
        lines = [f'<a id="{self.anchor}"></a>', "",
                 f"{'#' * level} {md_escape(number + self.title)}", ""]
        if self.finding:
            lines += [md_escape(self.finding), ""]
        if lay.header:
            lines += ["| | |", "|---|---|"]
            lines += [f"| {md_escape(k)} | "
                      + (f"`{v.replace('|', chr(92) + '|')}`" if k == "Call" else md_escape(v))
                      + " |" for k, v in lay.header.items()]
            lines += [""]
        for t in lay.tables:
            lines += [t.as_markdown(), ""]
        if lay.appendix and not appendix:
            lines += ["More in the appendix: " + ", ".join(
                f"[{md_escape(t.caption)}](#{t.label})" for t in lay.appendix) + ".", ""]
        if figure:
            lines += [figure, ""]
        if self.notes:
            lines += ["Notes:", ""] + [f"{i}. {md_escape(n)}"
                                       for i, n in enumerate(self.notes, 1)] + [""]
        if appendix and lay.appendix:
            lines += ["**Appendix**", ""]
            for t in lay.appendix:
                lines += [f'<a id="{t.label}"></a>', "", t.as_markdown(), ""]
        return "\n".join(lines)

    def render(self, fmt: str = "text") -> str:
        """Render as ``'text'``, ``'html'``, ``'latex'`` or ``'markdown'``."""
        from ._validation import check_option

        fmt = check_option(fmt, "fmt", ("text", "html", "latex", "markdown"))
        return {"text": self.as_text, "html": self.as_html, "latex": self.as_latex,
                "markdown": self.as_markdown}[fmt]()

    def to_frame(self) -> pd.DataFrame:
        """The first (tidy) table as a DataFrame."""
        return self.tables[0][1].copy() if self.tables else pd.DataFrame()

    def save(self, path: str | Path) -> Path:
        """Write ``.html`` or ``.md`` (a one-section document) or ``.tex``/``.txt`` (this
        report alone, for ``\\input``; use :func:`report` for a complete LaTeX document)."""
        path = Path(path)
        if path.suffix in (".tex", ".txt"):
            from ._io import write_text

            write_text(path, self.as_latex() if path.suffix == ".tex" else self.as_text())
            return path
        from ._document import Document

        return Document(self.title, (self,)).save(path)

    def __str__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def __repr__(self) -> str:
        return f"<Report {self.title!r}: {len(self.tables)} table(s), {len(self.notes)} note(s)>"


def _html_header(header: Mapping[str, str]) -> str:
    """Key/value pairs two to a row; long values (the call, the data) get a whole row."""
    def cell(k, v, span=""):
        val = f"<code>{html_escape(v)}</code>" if k == "Call" else html_escape(v)
        return f"<th>{html_escape(k)}</th><td{span}>{val}</td>"

    short = [(k, v) for k, v in header.items() if len(v) <= 36 and k != "Call"]
    long = [(k, v) for k, v in header.items() if (k, v) not in short]
    rows = ["<tr>" + "".join(cell(k, v) for k, v in short[i:i + 2]) + "</tr>"
            for i in range(0, len(short), 2)]
    wide = ' colspan="3"'
    rows += [f"<tr>{cell(k, v, wide)}</tr>" for k, v in long]
    return '<table class="evalstats-header">\n' + "\n".join(rows) + "\n</table>"


#: width of wrapped text: the finding, the notes and the long header values (call, data)
TEXT_WIDTH = 88


def _wrap(text: str, width: int = TEXT_WIDTH, subsequent_indent: str = "") -> str:
    import textwrap

    return textwrap.fill(text, width, subsequent_indent=subsequent_indent,
                         break_long_words=False, break_on_hyphens=False)


def _wrapped_rows(header: Mapping[str, str]) -> np.ndarray:
    """Key/value rows of the long header entries, each value wrapped to the text width
    (continuation lines under an empty key, indented by two)."""
    import textwrap

    width = TEXT_WIDTH - 2 - max(len(k) for k in header)
    rows = []
    for key, value in header.items():
        lines = textwrap.wrap(value, width, subsequent_indent="  ", break_long_words=False,
                              break_on_hyphens=False) or [""]
        rows += [[key, lines[0]]] + [["", line] for line in lines[1:]]
    return np.array(rows, dtype=object)


def _latex_table(t: Table, floats: bool) -> str:
    if floats or t.is_long:  # a longtable is no float and sets its own caption
        return t.as_latex()
    cap = (f"\\captionof{{table}}{{{latex_escape(t.caption)}}}" if t.caption
           else "\\refstepcounter{table}")
    return ("\\begin{center}\\small\n\\begin{minipage}{\\linewidth}\\centering\n" + cap
            + f"\\label{{tab:{t.label}}}\n" + t.as_latex(float_env=False)
            + "\n\\end{minipage}\n\\end{center}")


def __getattr__(name: str):
    """``Document`` and ``report`` live in :mod:`evalstats._document` (imported lazily)."""
    if name in ("Document", "report"):
        from . import _document

        return getattr(_document, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
