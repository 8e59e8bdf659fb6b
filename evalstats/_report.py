"""Reports: one content, four renderings (text, HTML, LaTeX, Markdown).

A :class:`Report` holds a title, a header block (method, data, n, confidence
level, call), one or more tables and numbered notes/warnings. Text, HTML and
LaTeX go through statsmodels' ``summary2.Summary`` / ``SimpleTable`` (no
jinja2); Markdown is written directly. :func:`report` composes several results
into one document with their plots and writes it to ``.html`` or ``.md``.
"""

from __future__ import annotations

import base64
import html as _html
import io
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Report", "Document", "report", "format_value", "format_frame"]


def format_value(v: Any, digits: int = 4) -> str:
    """Format one cell: ints as ints, floats with ``digits`` significant digits, NaN as 'NaN'."""
    if v is None:
        return ""
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        x = float(v)
        if np.isnan(x):
            return "NaN"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        if x != 0 and x.is_integer() and abs(x) < 1e9:
            return str(int(x))
        return f"{x:.{digits}g}"
    if isinstance(v, tuple | list) and all(isinstance(t, numbers.Real) for t in v):
        return "[" + ", ".join(format_value(t, digits) for t in v) + "]"
    return str(v)


def format_frame(df: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """A string copy of ``df`` with :func:`format_value` applied to every cell."""
    out = df.copy()
    for c in out.columns:
        out[c] = [format_value(v, digits) for v in out[c].tolist()]
    return out.astype(str)


def _md_table(df: pd.DataFrame) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Report:
    """A statistical report with the same content in text, HTML, LaTeX and Markdown.

    Attributes
    ----------
    title : str
    header : mapping of str to str
        Method, data, n, confidence level, call, ... (rendered as a two-column block).
    tables : tuple of (caption, DataFrame)
        The tidy table first; further tables follow.
    notes : tuple of str
        Numbered notes and warnings gathered during the computation.
    digits : int
        Significant digits for floats.
    """

    title: str
    header: Mapping[str, Any] = field(default_factory=dict)
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    notes: tuple[str, ...] = ()
    digits: int = 4

    # -- plumbing -------------------------------------------------------------------------
    def _header_frame(self) -> dict[str, str]:
        return {str(k): format_value(v, self.digits) for k, v in self.header.items()}

    def _add_header(self, s) -> None:
        hdr = self._header_frame()
        short = {k: v for k, v in hdr.items() if len(v) <= 32}
        long = {k: v for k, v in hdr.items() if len(v) > 32}
        if short:
            s.add_dict(short, ncols=2)
        if long:
            s.add_dict(long, ncols=1)

    def _sections(self):
        from statsmodels.iolib import summary2

        secs = []
        for i, (caption, df) in enumerate(self.tables):
            s = summary2.Summary()
            if i == 0:
                s.add_title(self.title)
                if self.header:
                    self._add_header(s)
            else:
                s.add_title(caption)
            s.add_df(format_frame(df, self.digits), index=False, align="r")
            secs.append(s)
        if not secs and self.header:
            s = summary2.Summary()
            s.add_title(self.title)
            if self.header:
                self._add_header(s)
            secs.append(s)
        return secs

    def _numbered_notes(self) -> list[str]:
        return [f"[{i}] {n}" for i, n in enumerate(self.notes, start=1)]

    # -- renderings -----------------------------------------------------------------------
    def as_text(self) -> str:
        """Fixed-width text in the style of statsmodels' summary."""
        parts = [s.as_text() for s in self._sections()] or [
            f"{self.title}\n{'=' * len(self.title)}"]
        if self.notes:
            parts.append("Notes:\n" + "\n".join(self._numbered_notes()))
        return "\n\n".join(parts)

    def as_html(self) -> str:
        """An HTML fragment (tables through statsmodels' SimpleTable)."""
        parts = [f'<div class="evalstats-report"><h3>{_html.escape(self.title)}</h3>']
        for i, s in enumerate(self._sections()):
            if i > 0:
                parts.append(f"<h4>{_html.escape(self.tables[i][0])}</h4>")
            s.title = None if i == 0 else s.title
            parts.append(s.as_html())
        if self.notes:
            items = "".join(f"<li>{_html.escape(n)}</li>" for n in self.notes)
            parts.append(f"<p><b>Notes</b></p><ol>{items}</ol>")
        parts.append("</div>")
        return "\n".join(parts)

    def as_latex(self, label: str = "") -> str:
        """LaTeX tables (statsmodels' summary2) followed by an enumerated list of notes."""
        parts = [s.as_latex(label=label) for s in self._sections()] or [
            f"\\paragraph{{{_latex_escape(self.title)}}}"]
        if self.notes:
            esc = [_latex_escape(n) for n in self.notes]
            parts.append("\\begin{enumerate}\n" + "\n".join(f"  \\item {n}" for n in esc)
                         + "\n\\end{enumerate}")
        return "\n\n".join(parts)

    def as_markdown(self) -> str:
        """GitHub-flavoured Markdown."""
        lines = [f"### {self.title}", ""]
        if self.header:
            hdr = pd.DataFrame({"": list(self._header_frame()),
                                " ": list(self._header_frame().values())})
            lines += [_md_table(hdr), ""]
        for i, (caption, df) in enumerate(self.tables):
            if i > 0:
                lines += [f"**{caption}**", ""]
            lines += [_md_table(format_frame(df, self.digits)), ""]
        if self.notes:
            lines += ["Notes:", ""] + [f"{i}. {n}" for i, n in enumerate(self.notes, 1)] + [""]
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
        """Write to ``.txt``, ``.html``, ``.tex`` or ``.md`` (by suffix)."""
        return Document(self.title, (self,)).save(path) if Path(path).suffix in (
            ".html", ".htm", ".md") else _write_plain(self, Path(path))

    def __str__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def __repr__(self) -> str:
        return f"<Report {self.title!r}: {len(self.tables)} table(s), {len(self.notes)} note(s)>"


def _write_plain(rep: Report, path: Path) -> Path:
    fmt = {".txt": "text", ".tex": "latex"}.get(path.suffix)
    if fmt is None:
        raise ValueError(f"`path` must end in .txt, .tex, .html or .md; got {str(path)!r}.")
    path.write_text(rep.render(fmt), encoding="utf-8")
    return path


def _latex_escape(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"),
                 ("#", r"\#"), ("_", r"\_"), ("{", r"\{"), ("}", r"\}")):
        s = s.replace(a, b)
    return s


_CSS = """
body { font-family: -apple-system, Segoe UI, Helvetica, Arial, sans-serif; max-width: 60em;
       margin: 2em auto; color: #222; }
table.simpletable { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
table.simpletable td, table.simpletable th { padding: 2px 8px; border-bottom: 1px solid #ddd; }
.evalstats-report { margin-bottom: 2em; }
img { max-width: 100%; }
"""


@dataclass(frozen=True)
class Document:
    """Several reports (with the figures of their results) in one document."""

    title: str
    reports: tuple[Report, ...]
    figures: tuple[Any, ...] = ()  # one matplotlib Figure or None per report

    def _png(self, fig) -> bytes:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
        return buf.getvalue()

    def as_html(self) -> str:
        body = [f"<h1>{_html.escape(self.title)}</h1>"]
        for i, rep in enumerate(self.reports):
            body.append(rep.as_html())
            fig = self.figures[i] if i < len(self.figures) else None
            if fig is not None:
                b64 = base64.b64encode(self._png(fig)).decode("ascii")
                body.append(f'<img alt="{_html.escape(rep.title)}" '
                            f'src="data:image/png;base64,{b64}"/>')
        return ("<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
                f"<title>{_html.escape(self.title)}</title><style>{_CSS}</style></head>"
                "<body>\n" + "\n".join(body) + "\n</body></html>\n")

    def as_markdown(self, figure_dir: Path | None = None, rel: str = "") -> str:
        parts = [f"# {self.title}", ""]
        for i, rep in enumerate(self.reports):
            parts.append(rep.as_markdown())
            fig = self.figures[i] if i < len(self.figures) else None
            if fig is not None and figure_dir is not None:
                figure_dir.mkdir(parents=True, exist_ok=True)
                name = f"figure_{i + 1}.png"
                (figure_dir / name).write_bytes(self._png(fig))
                parts += [f"![{rep.title}]({rel}{name})", ""]
        return "\n".join(parts)

    def as_text(self) -> str:
        bar = "=" * max(len(self.title), 20)
        return "\n\n".join([f"{self.title}\n{bar}"] + [r.as_text() for r in self.reports])

    def __str__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def save(self, path: str | Path) -> Path:
        """Write ``.html`` (figures embedded), ``.md`` (figures in ``<stem>_files``) or ``.txt``."""
        path = Path(path)
        if path.suffix in (".html", ".htm"):
            path.write_text(self.as_html(), encoding="utf-8")
        elif path.suffix == ".md":
            fdir = path.parent / f"{path.stem}_files"
            path.write_text(self.as_markdown(fdir, f"{fdir.name}/"), encoding="utf-8")
        elif path.suffix == ".txt":
            path.write_text(self.as_text(), encoding="utf-8")
        else:
            raise ValueError(f"`path` must end in .html, .md or .txt; got {str(path)!r}.")
        return path


def report(results: Sequence[Any] | Any, title: str = "evalstats report", *,
           path: str | Path | None = None, plots: bool = True) -> Document:
    """Compose several results (or reports) into one document with their plots.

    Parameters
    ----------
    results : result or sequence of results / Report
        Anything with ``summary()`` (and ``plot(ax=...)`` for a figure) or a :class:`Report`.
    title : str
        Document title.
    path : str or Path, optional
        If given, the document is written there (``.html``, ``.md`` or ``.txt``).
    plots : bool
        Draw each result's ``plot()`` into the document.

    Returns
    -------
    Document
        With ``as_html()``, ``as_markdown()``, ``as_text()`` and ``save(path)``.

    Examples
    --------
    >>> import evalstats as es
    >>> res = es.error_ci(y_true=[0, 1, 1, 0, 1], y_pred=[0, 1, 0, 0, 1])
    >>> doc = es.report([res], title="Hold-out error")
    >>> "Hold-out error" in doc.as_html()
    True
    """
    if not isinstance(results, Iterable) or isinstance(results, Report):
        results = [results]
    reports, figures = [], []
    for r in results:
        if isinstance(r, Report):
            reports.append(r)
            figures.append(None)
            continue
        if not hasattr(r, "summary"):
            raise TypeError(f"`results` must contain evalstats results or Reports; got an "
                            f"object of type {type(r).__name__}.")
        reports.append(r.summary())
        fig = None
        if plots and hasattr(r, "plot"):
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(figsize=(6.4, 4.0))
            r.plot(ax=ax)
            fig.tight_layout()
            plt.close(fig)
        figures.append(fig)
    doc = Document(title, tuple(reports), tuple(figures))
    if path is not None:
        doc.save(path)
    return doc
