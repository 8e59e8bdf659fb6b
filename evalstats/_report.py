"""Reports: one content, four renderings (text, HTML, LaTeX, Markdown).

A :class:`Report` holds a title, a one-sentence finding, a header block (method, data,
n, confidence level, call), tables, appendix tables and numbered notes/warnings. Before
rendering, the tables are cleaned the way a statistician would (:meth:`Report.layout`):
columns with nothing in them are dropped, columns constant down the table
(``confidence_level``, ``method``, ...) move to the header, tables wider than
:data:`MAX_COLUMNS` are split into a headline table and an appendix table, and every
numeric column gets fixed decimals (``digits=``) and right alignment
(:mod:`evalstats._tables`). Text goes through statsmodels' ``SimpleTable``; HTML and
Markdown are escaped; LaTeX uses booktabs, ``\\label``\\ s and maps Unicode to math.

:class:`Document` (built by :func:`report`) composes several reports into a document
with a title block (package version, date, seeds, data), a contents list, numbered
sections with their plots, and an appendix.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._tables import (
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

__all__ = ["Report", "Document", "report", "format_value", "format_frame", "MAX_COLUMNS"]

#: tables with more columns are split into a headline table and an appendix table
MAX_COLUMNS = 8
#: columns that describe the whole table; when constant they move to the header
_META_COLUMNS = ("confidence_level", "method")
_KEY_COLUMNS = ("estimate", "std_error", "conf_low", "conf_high", "statistic", "p_value")

LATEX_PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[utf8]{inputenc}
\usepackage[margin=2.2cm]{geometry}
\usepackage{booktabs}
\usepackage{graphicx}
\makeatletter
\providecommand\captionof[1]{\def\@captype{#1}\caption}
\makeatother
"""


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
    """

    title: str
    header: Mapping[str, Any] = field(default_factory=dict)
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    notes: tuple[str, ...] = ()
    digits: int | Mapping[str, int] = 4
    finding: str = ""
    appendix: tuple[tuple[str, pd.DataFrame], ...] = ()
    label: str = ""

    # -- layout ---------------------------------------------------------------------------
    @property
    def anchor(self) -> str:
        return self.label or slug(self.title)

    def layout(self) -> Layout:
        """Header strings, headline tables and appendix tables, cleaned and formatted."""
        hdr = _header_strings(self.header, self.digits)
        tables, appendix = [], []
        for i, (caption, df) in enumerate(self.tables):
            df = _clean(pd.DataFrame(df).reset_index(drop=True), hdr, move_constant=True)
            head, rest = _split_wide(df)
            cap = caption if i > 0 or len(self.tables) > 1 else caption
            tables.append(Table.from_frame(cap, head, self.digits, f"{self.anchor}-{i + 1}"))
            if rest is not None:
                appendix.append(Table.from_frame(f"{self.title}: {caption} (further columns)",
                                                 rest, self.digits,
                                                 f"{self.anchor}-{i + 1}-more"))
        for j, (caption, df) in enumerate(self.appendix):
            df = _clean(pd.DataFrame(df).reset_index(drop=True), {}, move_constant=False)
            appendix.append(Table.from_frame(f"{self.title}: {caption}", df, self.digits,
                                             f"{self.anchor}-app-{j + 1}"))
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
        if long:
            s.add_dict(long, ncols=1)
        parts = []
        if lay.tables and lay.tables[0].rows:
            t0 = lay.tables[0]
            s.add_df(pd.DataFrame(list(t0.rows), columns=list(t0.columns)), index=False,
                     align="".join(t0.aligns))
        if short or long or lay.tables:
            parts.append(s.as_text())
        else:
            parts.append(f"{self.title}\n{'=' * len(self.title)}")
        if self.finding:
            parts.insert(1, _wrap(self.finding))
        parts += [t.as_text() for t in lay.tables[1:]]
        if self.notes:
            parts.append("Notes:\n" + "\n".join(f"[{i}] {n}" for i, n in
                                                 enumerate(self.notes, 1)))
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
            parts.append(latex_escape(self.finding))
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
                f"  \\item {latex_escape(n)}" for n in self.notes) + "\n\\end{enumerate}")
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
            text = self.as_latex() if path.suffix == ".tex" else self.as_text()
            path.write_text(text, encoding="utf-8")
            return path
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


def _wrap(text: str, width: int = 88) -> str:
    import textwrap

    return textwrap.fill(text, width)


def _latex_table(t: Table, floats: bool) -> str:
    if floats:
        return t.as_latex()
    cap = (f"\\captionof{{table}}{{{latex_escape(t.caption)}}}" if t.caption
           else "\\refstepcounter{table}")
    return ("\\begin{center}\\small\n\\begin{minipage}{\\linewidth}\\centering\n" + cap
            + f"\\label{{tab:{t.label}}}\n" + t.as_latex(float_env=False)
            + "\n\\end{minipage}\n\\end{center}")


_CSS = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 58em; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.45; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #bbb; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.88em;
        font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; }
table.evalstats-table { border-top: 2px solid #333; border-bottom: 2px solid #333; }
table.evalstats-table thead th { border-bottom: 1px solid #333; }
table.evalstats-table th, table.evalstats-table td { padding: 2px 10px; text-align: left;
       white-space: nowrap; }
table.evalstats-table .num { text-align: right; font-variant-numeric: tabular-nums; }
table.evalstats-table caption { caption-side: top; text-align: left; font-style: italic;
       padding-bottom: 3px; white-space: nowrap; }
table.evalstats-header th { text-align: left; font-weight: normal; color: #555;
       padding: 1px 14px 1px 0; vertical-align: top; white-space: nowrap; }
table.evalstats-header td { padding: 1px 2.5em 1px 0; }
table.evalstats-header code { font-size: 1.05em; }
p.finding { font-size: 1.08em; background: #f4f6f8; border-left: 4px solid #4a7ab5;
       padding: 0.4em 0.8em; }
.notes-title { margin-bottom: 0.2em; font-weight: bold; } ol.notes { font-size: 0.9em; }
.scroll { overflow-x: auto; } figure { margin: 0.8em 0; } img { max-width: 100%; }
nav ol { columns: 2; } .meta th { text-align: left; padding-right: 1em; font-weight: normal;
       color: #555; }
"""


@dataclass(frozen=True)
class Document:
    """Several reports (with the figures of their results) in one document.

    Attributes
    ----------
    title : str
    reports : tuple of Report
    figures : tuple of matplotlib Figure or None (one per report)
    meta : mapping
        Title-block entries (package version, date, seeds, data, ...).
    """

    title: str
    reports: tuple[Report, ...]
    figures: tuple[Any, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def _png(self, fig) -> bytes:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
        return buf.getvalue()

    def _figure(self, i: int):
        return self.figures[i] if i < len(self.figures) else None

    def _meta(self) -> dict[str, str]:
        return {str(k): format_value(v) for k, v in self.meta.items() if not is_empty_value(v)}

    def _appendix(self) -> list[tuple[Report, Table]]:
        return [(r, t) for r in self.reports for t in r.layout().appendix]

    # -- HTML -----------------------------------------------------------------------------
    def as_html(self) -> str:
        body = [f"<h1>{html_escape(self.title)}</h1>"]
        meta = self._meta()
        if meta:
            body.append('<table class="meta">' + "".join(
                f"<tr><th>{html_escape(k)}</th><td>{html_escape(v)}</td></tr>"
                for k, v in meta.items()) + "</table>")
        apx = self._appendix()
        toc = [f'<li><a href="#{html_escape(r.anchor)}">{html_escape(r.title)}</a></li>'
               for r in self.reports]
        if apx:
            toc.append('<li><a href="#appendix">Appendix</a></li>')
        body.append("<nav><h2>Contents</h2><ol>" + "".join(toc) + "</ol></nav>")
        for i, rep in enumerate(self.reports):
            fig = self._figure(i)
            fig_html = ""
            if fig is not None:
                b64 = base64.b64encode(self._png(fig)).decode("ascii")
                fig_html = (f'<figure><img alt="{html_escape(rep.title)}" '
                            f'src="data:image/png;base64,{b64}"/></figure>')
            body.append(rep.as_html(level=2, figure=fig_html, appendix=False,
                                    number=f"{i + 1}. "))
        if apx:
            body.append('<section id="appendix"><h2>Appendix</h2>')
            body += [f'<div class="scroll">{t.as_html()}</div>' for _, t in apx]
            body.append("</section>")
        return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
                f"<title>{html_escape(self.title)}</title><style>{_CSS}</style></head>"
                "<body>\n" + "\n".join(body) + "\n</body></html>\n")

    # -- Markdown -------------------------------------------------------------------------
    def as_markdown(self, figure_dir: Path | None = None, rel: str = "") -> str:
        parts = [f"# {md_escape(self.title)}", ""]
        meta = self._meta()
        if meta:
            parts += ["| | |", "|---|---|"] + [f"| {md_escape(k)} | {md_escape(v)} |"
                                               for k, v in meta.items()] + [""]
        apx = self._appendix()
        parts += ["**Contents**", ""] + [f"{i}. [{md_escape(r.title)}](#{r.anchor})"
                                         for i, r in enumerate(self.reports, 1)]
        if apx:
            parts.append(f"{len(self.reports) + 1}. [Appendix](#appendix)")
        parts.append("")
        for i, rep in enumerate(self.reports):
            fig = self._figure(i)
            fig_md = ""
            if fig is not None and figure_dir is not None:
                figure_dir.mkdir(parents=True, exist_ok=True)
                name = f"figure_{i + 1}.png"
                (figure_dir / name).write_bytes(self._png(fig))
                fig_md = f"![{md_escape(rep.title)}]({rel}{name})"
            parts.append(rep.as_markdown(level=2, figure=fig_md, appendix=False,
                                         number=f"{i + 1}. "))
        if apx:
            parts += ['<a id="appendix"></a>', "", "## Appendix", ""]
            for _, t in apx:
                parts += [f'<a id="{t.label}"></a>', "", t.as_markdown(), ""]
        return "\n".join(parts)

    # -- LaTeX ----------------------------------------------------------------------------
    def as_latex(self, figure_dir: Path | None = None, rel: str = "") -> str:
        """A complete LaTeX document (pdflatex; run twice for the contents list)."""
        out = [LATEX_PREAMBLE, "\\begin{document}",
               f"\\section*{{{latex_escape(self.title)}}}"]
        meta = self._meta()
        if meta:
            out.append("\\begin{tabular}{@{}ll@{}}\n" + "\n".join(
                f"{latex_escape(k)} & {latex_escape(v)} \\\\" for k, v in meta.items())
                + "\n\\end{tabular}")
        out.append("\\tableofcontents")
        for i, rep in enumerate(self.reports):
            fig = self._figure(i)
            fig_tex = ""
            if fig is not None and figure_dir is not None:
                figure_dir.mkdir(parents=True, exist_ok=True)
                name = f"figure_{i + 1}.png"
                (figure_dir / name).write_bytes(self._png(fig))
                fig_tex = ("\\begin{center}\n\\includegraphics[width=0.72\\linewidth]"
                           f"{{{rel}{name}}}\n\\captionof{{figure}}"
                           f"{{{latex_escape(rep.title)}}}\n\\end{{center}}")
            out.append(rep.as_latex(floats=False, level="section", figure=fig_tex,
                                    appendix=False))
        apx = self._appendix()
        if apx:
            out.append("\\appendix\n\\section{Appendix}")
            out += [_latex_table(t, False) for _, t in apx]
        out.append("\\end{document}\n")
        return "\n\n".join(out)

    # -- text -----------------------------------------------------------------------------
    def as_text(self) -> str:
        bar = "=" * max(len(self.title), 20)
        head = [f"{self.title}\n{bar}"]
        meta = self._meta()
        if meta:
            w = max(len(k) for k in meta)
            head.append("\n".join(f"{k.ljust(w)}  {v}" for k, v in meta.items()))
        return "\n\n".join(head + [r.as_text() for r in self.reports])

    def __str__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def render(self, fmt: str = "text") -> str:
        """The document as ``'text'``, ``'html'``, ``'latex'`` or ``'markdown'`` (no figures
        for LaTeX/Markdown; use :meth:`save` to write them)."""
        from ._validation import check_option

        fmt = check_option(fmt, "fmt", ("text", "html", "latex", "markdown"))
        return {"text": self.as_text, "html": self.as_html, "latex": self.as_latex,
                "markdown": self.as_markdown}[fmt]()

    def save(self, path: str | Path) -> Path:
        """Write ``.html`` (figures embedded), ``.md`` or ``.tex`` (figures in
        ``<stem>_files/``) or ``.txt``."""
        path = Path(path)
        fdir = path.parent / f"{path.stem}_files"
        if path.suffix in (".html", ".htm"):
            path.write_text(self.as_html(), encoding="utf-8")
        elif path.suffix == ".md":
            path.write_text(self.as_markdown(fdir, f"{fdir.name}/"), encoding="utf-8")
        elif path.suffix == ".tex":
            path.write_text(self.as_latex(fdir, f"{fdir.name}/"), encoding="utf-8")
        elif path.suffix == ".txt":
            path.write_text(self.as_text(), encoding="utf-8")
        else:
            raise ValueError(f"`path` must end in .html, .md, .tex or .txt; got {str(path)!r}.")
        return path


def _seeds(results: Sequence[Any]) -> list[str]:
    seeds = []
    for r in results:
        for src in (getattr(r, "call", {}) or {}, getattr(r, "diagnostics", {}) or {}):
            for key in ("seed", "rng", "random_state"):
                v = src.get(key) if isinstance(src, Mapping) else None
                if isinstance(v, int) and not isinstance(v, bool) and str(v) not in seeds:
                    seeds.append(str(v))
    return seeds


def _meta_block(results: Sequence[Any], meta: Mapping[str, Any] | None) -> dict[str, Any]:
    import datetime
    import platform

    from . import __version__

    out: dict[str, Any] = {"Package": f"evalstats {__version__}",
                           "Date": datetime.datetime.now(datetime.UTC).strftime(
                               "%Y-%m-%d %H:%M UTC"),
                           "Python": platform.python_version()}
    seeds = _seeds(results)
    if seeds:
        out["Seeds"] = ", ".join(seeds)
    data = []
    for r in results:
        d = getattr(r, "data", "")
        if isinstance(d, str) and d and d not in data:
            data.append(d)
    if data:
        out["Data"] = "; ".join(data)
    out.update(meta or {})
    return out


def _plain(v: Any) -> str:
    from ._result import _short

    return v if isinstance(v, str) else _short(v)


def _distinguish(reports: list[Report], objs: list[Any] | None) -> list[Report]:
    """Results sharing a title get the call arguments that tell them apart appended."""
    if objs is None:
        return reports
    from ._result import _short

    out = list(reports)
    by_title: dict[str, list[int]] = {}
    for i, rep in enumerate(reports):
        by_title.setdefault(rep.title, []).append(i)
    for title, idx in by_title.items():
        if len(idx) < 2:
            continue
        calls = [dict(getattr(objs[i], "call", {}) or {}) for i in idx]
        keys = [k for k in calls[0] if k != "function"
                and len({_short(c.get(k)) for c in calls}) == len(idx)]
        keys = keys or [k for k in calls[0] if k != "function"
                        and len({_short(c.get(k)) for c in calls}) > 1]
        if not keys:
            continue
        for i, c in zip(idx, calls, strict=True):
            extra = ", ".join(f"{k} {_plain(c.get(k))}" for k in keys[:2])
            out[i] = dataclasses.replace(reports[i], title=f"{title} ({extra})", label="")
    return out


def _unique_titles(reports: list[Report]) -> list[Report]:
    seen: dict[str, int] = {}
    out = []
    for rep in reports:
        k = seen.get(rep.title, 0) + 1
        seen[rep.title] = k
        if k > 1:
            rep = dataclasses.replace(rep, title=f"{rep.title} ({k})", label="")
        out.append(rep)
    anchors: dict[str, int] = {}
    final = []
    for rep in out:
        k = anchors.get(rep.anchor, 0) + 1
        anchors[rep.anchor] = k
        final.append(rep if k == 1 else dataclasses.replace(rep, label=f"{rep.anchor}-{k}"))
    return final


def report(results: Sequence[Any] | Mapping[str, Any] | Any, title: str = "evalstats report",
           *, path: str | Path | None = None, plots: bool = True,
           meta: Mapping[str, Any] | None = None,
           digits: int | Mapping[str, int] | None = None) -> Document:
    """Compose several results (or reports) into one document with their plots.

    Parameters
    ----------
    results : result, sequence of results / Reports, or mapping name -> result
        Anything with ``summary()`` (and ``plot(ax=...)`` for a figure) or a
        :class:`Report`. Section titles are the results' ``name`` (a mapping's keys name
        them), else their default title; repeated titles are numbered.
    title : str
        Document title.
    path : str or Path, optional
        If given, the document is written there (``.html``, ``.md``, ``.tex`` or ``.txt``).
    plots : bool
        Draw each result's ``plot()`` into its section.
    meta : mapping, optional
        Extra title-block entries (the package version, date, seeds found in the results'
        calls and their data descriptions are always listed).
    digits : int or mapping, optional
        Passed to every result's ``summary(digits=...)``.

    Returns
    -------
    Document
        With ``as_html()``, ``as_markdown()``, ``as_latex()``, ``as_text()`` and ``save(path)``.

    Examples
    --------
    >>> import evalstats as es
    >>> res = es.error_ci(y_true=[0, 1, 1, 0, 1], y_pred=[0, 1, 0, 0, 1])
    >>> doc = es.report({"Hold-out error": res}, title="Evaluation")
    >>> "Hold-out error" in doc.as_html()
    True
    """
    if isinstance(results, Mapping):
        items = [(str(k), v) for k, v in results.items()]
    else:
        if not isinstance(results, Iterable) or isinstance(results, Report):
            results = [results]
        items = [("", r) for r in results]
    reports, figures, objs = [], [], []
    for name, r in items:
        if isinstance(r, Report):
            reports.append(dataclasses.replace(r, title=name) if name else r)
            figures.append(None)
            continue
        if not hasattr(r, "summary"):
            raise TypeError(f"`results` must contain evalstats results or Reports; got an "
                            f"object of type {type(r).__name__}.")
        if name and hasattr(r, "with_name"):
            r = r.with_name(name)
        objs.append(r)
        rep = r.summary(digits=digits) if digits is not None else r.summary()
        reports.append(dataclasses.replace(rep, title=name) if name and rep.title != name
                       else rep)
        fig = None
        if plots and hasattr(r, "plot"):
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(figsize=(6.4, 3.8))
            try:
                r.plot(ax=ax)
                fig.tight_layout()
            except NotImplementedError:
                fig = None
            plt.close(fig)
        figures.append(fig)
    reports = _distinguish(reports, [o for _, o in items if not isinstance(o, Report)]
                           if len(objs) == len(reports) else None)
    doc = Document(title, tuple(_unique_titles(reports)), tuple(figures),
                   _meta_block(objs, meta))
    if path is not None:
        doc.save(path)
    return doc
