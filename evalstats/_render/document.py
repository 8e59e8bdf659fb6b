"""Documents: several reports with a title block, contents, plots and an appendix.

:func:`report` composes results (or :class:`~evalstats._render.report.Report` objects) into a
:class:`Document`: a title block (package version, date, Python, seeds found in the
results' calls, data descriptions, anything passed as ``meta=``), a contents list,
one numbered section per result (title from the result's ``name``; repeated titles are
told apart by the call arguments that differ, else numbered), its finding, tables and
plot, and an appendix with the detail tables. It renders to HTML (figures embedded),
Markdown and LaTeX (figures written next to the file) through the jinja2 templates of
``templates/``, and to text.
"""

from __future__ import annotations

import base64
import dataclasses
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .format import format_value, is_empty_value
from .report import LATEX_PREAMBLE, MAX_ROWS, Report
from .table import Table
from .templates import render_template
from .words import short_value

__all__ = ["Document", "report"]

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

    def _write_figure(self, i: int, figure_dir: Path | None) -> str | None:
        """Write section ``i``'s figure as ``figure_<i+1>.png`` into ``figure_dir``; its name."""
        fig = self._figure(i)
        if fig is None or figure_dir is None:
            return None
        figure_dir.mkdir(parents=True, exist_ok=True)
        name = f"figure_{i + 1}.png"
        (figure_dir / name).write_bytes(self._png(fig))
        return name

    def _meta(self) -> dict[str, str]:
        return {str(k): format_value(v) for k, v in self.meta.items() if not is_empty_value(v)}

    def _appendix(self) -> list[tuple[Report, Table]]:
        return [(r, t) for r in self.reports for t in r.layout().appendix]

    def _sections(self, fmt: str, figure_dir: Path | None = None, rel: str = "") -> list[str]:
        out = []
        for i, rep in enumerate(self.reports):
            fig = self._figure(i)
            snippet = ""
            if fig is not None and fmt == "html":
                png = base64.b64encode(self._png(fig)).decode("ascii")
                snippet = render_template("figure.html.j2", caption=rep.title, png=png)
            elif fig is not None:
                name = self._write_figure(i, figure_dir)
                if name:
                    snippet = render_template(f"figure.{fmt}.j2", caption=rep.title,
                                              path=f"{rel}{name}").strip()
            if fmt == "tex":
                out.append(rep.as_latex(floats=False, level="section", figure=snippet,
                                        appendix=False))
            else:
                render = rep.as_html if fmt == "html" else rep.as_markdown
                out.append(render(level=2, figure=snippet, appendix=False,
                                  number=f"{i + 1}. "))
        return out

    def _context(self, fmt: str, figure_dir: Path | None = None, rel: str = "") -> dict:
        return dict(title=self.title, meta=self._meta(), reports=self.reports,
                    sections=self._sections(fmt, figure_dir, rel),
                    appendix=[t for _, t in self._appendix()])

    def as_html(self) -> str:
        """A standalone HTML page (figures embedded as PNG)."""
        return render_template("document.html.j2", **self._context("html"))

    def as_markdown(self, figure_dir: Path | None = None, rel: str = "") -> str:
        """GitHub-flavoured Markdown (figures written to ``figure_dir`` when given)."""
        return render_template("document.md.j2", **self._context("md", figure_dir, rel))

    def as_latex(self, figure_dir: Path | None = None, rel: str = "") -> str:
        """A complete LaTeX document (pdflatex; run twice for the contents list)."""
        return render_template("document.tex.j2", preamble=LATEX_PREAMBLE,
                               **self._context("tex", figure_dir, rel))

    # -- text -----------------------------------------------------------------------------
    def as_text(self) -> str:
        bar = "=" * max(len(self.title), 20)
        head = [f"{self.title}\n{bar}"]
        meta = self._meta()
        if meta:
            w = max(len(k) for k in meta)
            head.append("\n".join(f"{k.ljust(w)}  {v}" for k, v in meta.items()))
        if len(self.reports) > 1:
            head.append("Contents\n" + "\n".join(f"{i:>3}. {r.title}"
                                                  for i, r in enumerate(self.reports, 1)))
        return "\n\n".join(head + [r.as_text() for r in self.reports])

    def __str__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def render(self, fmt: str = "text") -> str:
        """The document as ``'text'``, ``'html'``, ``'latex'`` or ``'markdown'`` (no figures
        for LaTeX/Markdown; use :meth:`save` to write them)."""
        from .._validation import check_option

        fmt = check_option(fmt, "fmt", ("text", "html", "latex", "markdown"))
        return {"text": self.as_text, "html": self.as_html, "latex": self.as_latex,
                "markdown": self.as_markdown}[fmt]()

    def save(self, path: str | Path) -> Path:
        """Write ``.html`` (figures embedded), ``.md`` or ``.tex`` (figures in
        ``<stem>_files/``) or ``.txt``."""
        from .._io import write_text

        path = Path(path)
        fdir = path.parent / f"{path.stem}_files"
        suffix = path.suffix.lower()
        if suffix in (".html", ".htm"):
            write_text(path, self.as_html())
        elif suffix == ".md":
            write_text(path, self.as_markdown(fdir, f"{fdir.name}/"))
        elif suffix == ".tex":
            write_text(path, self.as_latex(fdir, f"{fdir.name}/"))
        elif suffix == ".txt":
            write_text(path, self.as_text())
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

    from .. import __version__

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
    return v if isinstance(v, str) else short_value(v)


def _distinguish(reports: list[Report], objs: list[Any] | None) -> list[Report]:
    """Results sharing a title get the call arguments that tell them apart appended."""
    if objs is None:
        return reports

    out = list(reports)
    by_title: dict[str, list[int]] = {}
    for i, rep in enumerate(reports):
        by_title.setdefault(rep.title, []).append(i)
    for title, idx in by_title.items():
        if len(idx) < 2:
            continue
        calls = [dict(getattr(objs[i], "call", {}) or {}) for i in idx]
        keys = [k for k in calls[0] if k != "function"
                and len({short_value(c.get(k)) for c in calls}) == len(idx)]
        keys = keys or [k for k in calls[0] if k != "function"
                        and len({short_value(c.get(k)) for c in calls}) > 1]
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
           digits: int | Mapping[str, int] | None = None,
           max_rows: int | None = MAX_ROWS) -> Document:
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
    max_rows : int or None
        Tables taller than this show their first and last rows and a note saying where the
        full table is (default 40); ``None`` shows every row. LaTeX sets tables of more than
        25 rows as a ``longtable``, which breaks across pages.

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
    if not isinstance(title, str):
        raise TypeError(f"`title` must be a string; got {title!r} of type "
                        f"{type(title).__name__}.")
    if isinstance(results, Mapping):
        items = [(str(k), v) for k, v in results.items()]
    else:
        if not isinstance(results, Iterable) or isinstance(results, Report):
            results = [results]
        items = [("", r) for r in results]
    if not items:
        raise ValueError("`results` must hold at least one result or Report; got none.")
    reports, figures, objs = [], [], []
    for name, r in items:
        if isinstance(r, Report):
            r = dataclasses.replace(r, max_rows=max_rows)
            reports.append(dataclasses.replace(r, title=name) if name else r)
            figures.append(None)
            continue
        if not hasattr(r, "summary"):
            raise TypeError(f"`results` must contain evalstats results or Reports; got an "
                            f"object of type {type(r).__name__}.")
        if name and hasattr(r, "with_name"):
            r = r.with_name(name)
        objs.append(r)
        rep = dataclasses.replace(r.summary(digits=digits) if digits is not None
                                  else r.summary(), max_rows=max_rows)
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
