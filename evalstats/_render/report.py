r"""Reports: one content, four renderings (text, HTML, LaTeX, Markdown).

A :class:`Report` holds a title, a one-sentence finding, a header block (method, data,
n, confidence level, call), tables, appendix tables and numbered notes. Before rendering,
:meth:`Report.layout` prepares the tables the way a statistician would: columns with
nothing in them are dropped, columns constant down the table (``confidence_level``,
``method``, ...) move to the header, tables wider than :data:`MAX_COLUMNS` are split into a
headline table and an appendix table, every numeric column gets fixed decimals and right
alignment (:mod:`evalstats._render.format`), and tables taller than ``max_rows`` are cut to
head + tail with a note saying where the full table is. Header entries that repeat one
number are said once, under their keys joined.

The :class:`Layout` is the context of the jinja2 templates in ``templates/`` that write
the HTML, LaTeX and Markdown; the text rendering goes through statsmodels'
``summary2.Summary``.
"""

from __future__ import annotations

import numbers
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .escape import slug
from .format import format_p, format_value, is_empty_value, pretty_column
from .table import MAX_ROWS, Table
from .templates import render_template
from .words import split_note

__all__ = ["Report", "Layout", "MAX_COLUMNS", "MAX_ROWS", "LATEX_PREAMBLE", "TEXT_WIDTH"]

#: tables with more columns are split into a headline table and an appendix table
MAX_COLUMNS = 8
#: width of wrapped text: the finding, the notes and the long header values (call, data)
TEXT_WIDTH = 88
#: columns that describe the whole table; when constant they move to the header
_META_COLUMNS = ("confidence_level", "method")
_KEY_COLUMNS = ("estimate", "std_error", "conf_low", "conf_high", "statistic", "p_value")
_NUMBER = re.compile(r"^-?[\d,]+(\.\d+)?$")

LATEX_PREAMBLE = render_template("preamble.tex.j2")


def _header_strings(header: Mapping[str, Any], digits) -> dict[str, str]:
    """Header values as text; a key starting with "p-value" gets a p-value's format."""
    sig = digits if isinstance(digits, int) else 4
    return {str(k): (format_p(v) if str(k).lower().startswith("p-value") and
                     isinstance(v, numbers.Real) else format_value(v, sig))
            for k, v in header.items() if not is_empty_value(v)}


def _merge_repeats(hdr: dict[str, str]) -> dict[str, str]:
    """Entries that show the same number are said once, their keys joined by `` = ``."""
    out: dict[str, str] = {}
    for key, value in hdr.items():
        twin = next((k for k, v in out.items() if v == value), None) \
            if _NUMBER.match(value) else None
        if twin is None:
            out[key] = value
        else:
            out = {(f"{k} = {key}" if k == twin else k): v for k, v in out.items()}
    return out


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
        constant = len({repr(v) for v in vals}) == 1
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
class Note:
    """A numbered note: ``kind`` is a warning category in words (empty for a plain note)."""

    kind: str
    text: str


@dataclass(frozen=True)
class Layout:
    """A report ready to render (the templates' context): formatted header strings, the
    headline and appendix tables, and the notes split into kind and text."""

    title: str
    anchor: str
    finding: str
    header: dict[str, str]
    tables: list[Table]
    appendix: list[Table]
    notes: list[Note]

    @property
    def short_header(self) -> dict[str, str]:
        """Header entries short enough to sit two to a row (not the call)."""
        return {k: v for k, v in self.header.items() if len(v) <= 36 and k != "Call"}

    @property
    def long_header(self) -> dict[str, str]:
        """Header entries that get a row of their own (the call, long data descriptions)."""
        short = self.short_header
        return {k: v for k, v in self.header.items() if k not in short}


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
        Numbered notes and warnings gathered during the computation (a warning starts with
        its category in brackets, ``[ConvergenceWarning] …``).
    digits : int, mapping or None
        ``None``: the estimate, interval and standard error share the decimals that show
        the standard error to two significant digits, other columns four significant
        digits. An int: significant digits from which each numeric column's fixed
        decimals are chosen. A mapping: ``{column: decimals}`` (key ``"*"``: significant
        digits of the other columns).
    finding : str
        One plain-language sentence stating the result.
    appendix : tuple of (caption, DataFrame)
        Detail tables printed after the main text (a document's appendix).
    label : str
        Anchor / LaTeX label (default: derived from the title).
    max_rows : int or None
        Tables with more rows show their first and last rows (``max_rows`` in all) and a
        note "… N of M rows omitted; full table in tidy()"; ``None`` shows every row.
    """

    title: str
    header: Mapping[str, Any] = field(default_factory=dict)
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    notes: tuple[str, ...] = ()
    digits: int | Mapping[str, int] | None = None
    finding: str = ""
    appendix: tuple[tuple[str, pd.DataFrame], ...] = ()
    label: str = ""
    max_rows: int | None = MAX_ROWS

    def __post_init__(self) -> None:
        from .._validation import check_int, fail

        if self.max_rows is not None:
            object.__setattr__(self, "max_rows", check_int(self.max_rows, "max_rows", low=2))
        if isinstance(self.digits, Mapping):
            for key, value in self.digits.items():
                if not isinstance(key, str):
                    raise fail("digits", "an int or a mapping of column names to ints",
                               value=self.digits)
                check_int(value, f"digits[{key!r}]", low=0, high=15)
        elif self.digits is not None:
            object.__setattr__(self, "digits", check_int(self.digits, "digits", low=1,
                                                         high=15))

    # -- layout ---------------------------------------------------------------------------
    @property
    def anchor(self) -> str:
        return self.label or slug(self.title)

    def _table(self, caption: str, df: pd.DataFrame, label: str, source: str) -> Table:
        return Table.from_frame(caption, df, self.digits, label, max_rows=self.max_rows,
                                source=source)

    def layout(self) -> Layout:
        """Header strings, headline tables, appendix tables and notes, ready to render."""
        hdr = _header_strings(self.header, self.digits)
        tables, appendix = [], []
        for i, (caption, df) in enumerate(self.tables):
            df = _clean(pd.DataFrame(df).reset_index(drop=True), hdr, move_constant=True)
            head, rest = _split_wide(df)
            src = "tidy()" if i == 0 else f"summary().tables[{i}]"
            tables.append(self._table(caption, head, f"{self.anchor}-{i + 1}", src))
            if rest is not None:
                appendix.append(self._table(f"{self.title}: {caption} (further columns)",
                                            rest, f"{self.anchor}-{i + 1}-more", src))
        for j, (caption, df) in enumerate(self.appendix):
            df = _clean(pd.DataFrame(df).reset_index(drop=True), {}, move_constant=False)
            appendix.append(self._table(f"{self.title}: {caption}", df,
                                        f"{self.anchor}-app-{j + 1}",
                                        f"summary().appendix[{j}]"))
        notes = [Note(*split_note(n)) for n in self.notes]
        hdr = _merge_repeats(hdr)
        if "Call" in hdr:                        # the call closes the header block
            hdr["Call"] = hdr.pop("Call")
        return Layout(self.title, self.anchor, self.finding, hdr, tables, appendix, notes)

    # -- renderings -----------------------------------------------------------------------
    def as_text(self, appendix: bool = True) -> str:
        """Fixed-width text in the style of statsmodels' summary."""
        return _text(self.layout(), appendix)

    def as_html(self, level: int = 3, figure: str = "", appendix: bool = True,
                number: str = "") -> str:
        """An HTML ``<section>``: heading, finding, header block, tables, figure, notes."""
        return render_template("section.html.j2", s=self.layout(), level=level,
                               figure=figure, appendix=appendix, number=number).strip()

    def as_latex(self, label: str = "", *, floats: bool = True, level: str = "subsection",
                 figure: str = "", appendix: bool = True) -> str:
        """LaTeX: a section with the finding, header block, booktabs tables and notes.

        Needs the packages of :data:`LATEX_PREAMBLE`; with ``floats=False`` tables are set
        in place with ``\\captionof`` (defined there).
        """
        lay = self.layout()
        return render_template("section.tex.j2", s=lay, floats=floats, level=level,
                               figure=figure, appendix=appendix,
                               anchor=slug(label) if label else lay.anchor).strip()

    def as_markdown(self, level: int = 3, figure: str = "", appendix: bool = True,
                    number: str = "") -> str:
        """GitHub-flavoured Markdown (escaped; numbers right-aligned)."""
        return render_template("section.md.j2", s=self.layout(), level=level, figure=figure,
                               appendix=appendix, number=number).strip() + "\n"

    def render(self, fmt: str = "text") -> str:
        """Render as ``'text'``, ``'html'``, ``'latex'`` or ``'markdown'``."""
        from .._validation import check_option

        fmt = check_option(fmt, "fmt", ("text", "html", "latex", "markdown"))
        return {"text": self.as_text, "html": self.as_html, "latex": self.as_latex,
                "markdown": self.as_markdown}[fmt]()

    def to_frame(self) -> pd.DataFrame:
        """The first (tidy) table as a DataFrame."""
        return self.tables[0][1].copy() if self.tables else pd.DataFrame()

    def save(self, path: str | Path) -> Path:
        """Write ``.html`` or ``.md`` (a one-section document) or ``.tex``/``.txt`` (this
        report alone, for ``\\input``; use :func:`evalstats.report` for a complete LaTeX
        document)."""
        path = Path(path)
        if path.suffix in (".tex", ".txt"):
            from .._io import write_text

            write_text(path, self.as_latex() if path.suffix == ".tex" else self.as_text())
            return path
        from .document import Document

        return Document(self.title, (self,)).save(path)

    def __str__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def __repr__(self) -> str:
        return f"<Report {self.title!r}: {len(self.tables)} table(s), {len(self.notes)} note(s)>"


# -- text -------------------------------------------------------------------------------------
def _wrap(text: str, width: int = TEXT_WIDTH, subsequent_indent: str = "") -> str:
    return textwrap.fill(text, width, subsequent_indent=subsequent_indent,
                         break_long_words=False, break_on_hyphens=False)


def _wrapped_rows(header: Mapping[str, str]) -> np.ndarray:
    """Key/value rows of the long header entries, each value wrapped to the text width
    (continuation lines under an empty key, indented by two)."""
    width = TEXT_WIDTH - 2 - max(len(k) for k in header)
    rows = []
    for key, value in header.items():
        # a described argument (``<300 values>``) is never split across lines
        kept = re.sub(r"<[^<>]*>", lambda m: m.group(0).replace(" ", "\0"), value)
        lines = textwrap.wrap(kept, width, subsequent_indent="  ", break_long_words=False,
                              break_on_hyphens=False) or [""]
        lines = [line.replace("\0", " ") for line in lines]
        rows += [[key, lines[0]]] + [["", line] for line in lines[1:]]
    return np.array(rows, dtype=object)


def _note_text(i: int, note: Note) -> str:
    text = f"[{i}] {note.kind}: {note.text}" if note.kind else f"[{i}] {note.text}"
    return _wrap(text, subsequent_indent=" " * (len(str(i)) + 3))


def _text(lay: Layout, appendix: bool) -> str:
    from statsmodels.iolib import summary2

    s = summary2.Summary()
    s.add_title(lay.title)
    short = {k: v for k, v in lay.header.items() if len(v) <= 32}
    long = {k: v for k, v in lay.header.items() if len(v) > 32}
    if short:
        s.add_dict(short, ncols=2)
    if long:  # the call, the data: wrapped so that no block is wider than a terminal
        s.add_array(_wrapped_rows(long), align="l")
    first = bool(lay.tables and lay.tables[0].rows)
    if first:
        t0 = lay.tables[0]
        s.add_df(pd.DataFrame(t0.shown_rows("..."), columns=list(t0.columns)),
                 index=False, align="".join(t0.aligns))
    parts = [s.as_text() if (short or long or first) else f"{lay.title}\n{'=' * len(lay.title)}"]
    if lay.tables and lay.tables[0].note:
        parts.append(lay.tables[0].note)
    if lay.finding:
        parts.append(_wrap(lay.finding))
    parts += [t.as_text() for t in lay.tables[0 if lay.tables and not first else 1:]]
    if lay.notes:
        parts.append("Notes:\n" + "\n".join(_note_text(i, n)
                                            for i, n in enumerate(lay.notes, 1)))
    if appendix and lay.appendix:
        parts += ["Appendix:"] + [t.as_text() for t in lay.appendix]
    return "\n\n".join(parts)
