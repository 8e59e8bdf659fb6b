"""One formatted table and its four renderings.

:class:`Table` holds a caption, display headers, string cells (formatted by
:mod:`evalstats._render.format`) and column alignments. It renders as fixed-width text
through statsmodels' ``SimpleTable``, as HTML and booktabs LaTeX through pandas'
``Styler`` (per-column alignment, ``\\caption``/``\\label``, a ``longtable`` for tall
tables; cells escaped by :mod:`evalstats._render.escape`) and as a Markdown pipe table.
Tall tables are cut to head + tail (``max_rows``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from .escape import html_escape, latex_escape, md_escape, slug
from .format import format_column, format_value, pretty_column, table_digits

__all__ = ["Table", "MAX_ROWS", "LONGTABLE_ROWS"]

#: tables with more rows are cut to head + tail (``max_rows=``, an option of ``summary()``)
MAX_ROWS = 40
#: LaTeX tables with more rows (as shown) are set as a ``longtable`` that breaks across pages
LONGTABLE_ROWS = 25
_GAP = "\u2026"  # the cell shown in the row standing for the omitted rows


def _unique(names: Sequence[str]) -> list[str]:
    """Column labels made unique (Styler needs unique labels): repeats get `` (2)``, ..."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} ({seen[n]})")
    return out


@dataclass(frozen=True)
class Table:
    """A formatted table: caption, display headers, string cells and column alignments.

    ``omitted`` rows of a tall table were cut at row ``gap`` (head + tail are kept); every
    rendering shows a row of ``…`` there and ``note`` under the table.
    """

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    aligns: tuple[str, ...]
    label: str = ""
    omitted: int = 0
    gap: int = 0
    note: str = ""

    @classmethod
    def from_frame(cls, caption: str, df: pd.DataFrame,
                   digits: int | Mapping[str, int] | None = None, label: str = "",
                   pretty: bool = True, max_rows: int | None = None,
                   source: str = "tidy()") -> Table:
        """Format ``df`` column by column; with ``max_rows``, a taller table keeps its first
        ``ceil(max_rows / 2)`` and last ``floor(max_rows / 2)`` rows (the decimals are still
        chosen from the whole column) and notes where the full table is (``source``)."""
        cols, aligns = [], []
        cells = []
        digits = table_digits(df, digits)
        for c in df.columns:
            col, al = format_column(str(c), df[c].tolist(), digits)
            cells.append(col)
            cols.append(pretty_column(c) if pretty else str(c))
            aligns.append(al)
        rows = [tuple(r) for r in zip(*cells, strict=True)] if cells else []
        omitted = gap = 0
        note = ""
        if max_rows is not None and len(rows) > max(int(max_rows), 2):
            keep = max(int(max_rows), 2)  # head and tail: at least one row each
            gap = (keep + 1) // 2
            omitted = len(rows) - keep
            rows = rows[:gap] + rows[len(rows) - (keep - gap):]
            note = (f"{_GAP} {format_value(omitted)} of {format_value(len(df))} rows omitted; "
                    f"full table in {source}")
        return cls(caption, tuple(cols), tuple(rows), tuple(aligns), label, omitted, gap,
                   note)

    def shown_rows(self, gap_cell: str = _GAP) -> list[tuple[str, ...]]:
        """The rows as displayed: a row of ``gap_cell`` stands for the omitted rows."""
        rows = list(self.rows)
        if self.omitted:
            rows.insert(self.gap, tuple(gap_cell for _ in self.columns))
        return rows

    def frame(self) -> pd.DataFrame:
        """The displayed cells (strings) with the display headers, for pandas' Styler."""
        return pd.DataFrame(self.shown_rows(), columns=_unique(list(self.columns)),
                            dtype=object)

    # text through statsmodels' SimpleTable; cells padded so alignment survives centring
    def padded(self) -> tuple[list[str], list[list[str]]]:
        shown = self.shown_rows("...")
        widths = [max([len(h)] + [len(r[j]) for r in shown])
                  for j, h in enumerate(self.columns)]
        rows = [[(c.rjust(w) if a == "r" else c.ljust(w))
                 for c, w, a in zip(r, widths, self.aligns, strict=True)] for r in shown]
        heads = [(h.rjust(w) if a == "r" else h.ljust(w))
                 for h, w, a in zip(self.columns, widths, self.aligns, strict=True)]
        return heads, rows

    def as_text(self, title: str | None = None) -> str:
        from statsmodels.iolib.table import SimpleTable

        heads, rows = self.padded()
        if not rows:
            return title or self.caption
        tab = SimpleTable(rows, headers=heads, title=self.caption if title is None else title,
                          txt_fmt=dict(data_aligns="r", header_align="r"))
        return tab.as_text() + (f"\n{self.note}" if self.note else "")

    def _styler(self):
        """pandas' Styler over the displayed cells (the index hidden)."""
        from pandas.io.formats.style import Styler

        return Styler(self.frame(), cell_ids=False).hide(axis="index")

    def as_html(self, caption: bool = True) -> str:
        """An HTML table rendered by pandas' Styler (``escape="html"``); numeric columns
        carry class ``num`` and a right alignment that works without the document's CSS."""
        st = self._styler().format(escape="html").format_index(escape="html", axis=1)
        frame = st.data
        num = [c for c, a in zip(frame.columns, self.aligns, strict=True) if a == "r"]
        cls = [["num" if c in num else "" for c in frame.columns] for _ in range(len(frame))]
        if self.omitted:
            cls[self.gap] = [f"gap {c}".strip() for c in cls[self.gap]]
        classes = pd.DataFrame(cls, index=frame.index, columns=frame.columns, dtype=object)
        right = [{"selector": "th", "props": "text-align: right"},
                 {"selector": "td", "props": "text-align: right"}]
        st = (st.set_td_classes(classes).set_table_styles({c: right for c in num}, axis=0)
              .set_table_attributes('class="evalstats-table"'))
        if self.label:
            st = st.set_uuid(slug(self.label))
        if caption and self.caption:
            st = st.set_caption(html_escape(self.caption))
        out = st.to_html(doctype_html=False)
        if self.note:
            out += f'\n<p class="table-note">{html_escape(self.note)}</p>'
        idt = f' id="{html_escape(self.label)}"' if self.label else ""
        return f'<div class="evalstats-table-wrap"{idt}>\n{out}</div>'

    @property
    def is_long(self) -> bool:
        """Set as a LaTeX ``longtable`` (more than :data:`LONGTABLE_ROWS` rows shown)."""
        return len(self.shown_rows()) > LONGTABLE_ROWS

    def as_latex(self, float_env: bool = True) -> str:
        """A booktabs LaTeX table rendered by pandas' Styler (cells through
        :func:`~evalstats._render.escape.latex_escape`): a ``table`` float with
        ``\\caption`` and ``\\label`` (``float_env=False``: the bare ``tabular``, shrunk
        to the line width if wider), or a ``longtable`` when the table is taller than
        :data:`LONGTABLE_ROWS` rows."""
        st = (self._styler().format(formatter=latex_escape)
              .format_index(formatter=latex_escape, axis=1))
        spec = "@{}" + "".join(self.aligns) + "@{}"
        lab = f"tab:{self.label}" if self.label else None
        note = (f"\n\\par\\nopagebreak{{\\footnotesize\\emph{{{latex_escape(self.note)}}}}}"
                "\\par" if self.note else "")
        if self.is_long:
            tab = st.to_latex(hrules=True, column_format=spec, environment="longtable",
                              caption=latex_escape(self.caption) if self.caption else None,
                              label=lab)
            return "\\begingroup\\small\n" + tab.rstrip() + note + "\n\\endgroup"
        tab = st.to_latex(hrules=True, column_format=spec).rstrip()
        fit = r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%" + "\n" + \
            tab + "}" + note
        if not float_env:
            return fit
        lab = f"\\label{{{lab}}}" if lab else ""
        cap = f"\\caption{{{latex_escape(self.caption)}}}{lab}\n" if self.caption else lab
        return ("\\begin{table}[htbp]\n\\centering\\small\n" + cap + fit
                + "\n\\end{table}")

    def as_latex_block(self, floats: bool = True) -> str:
        """:meth:`as_latex` as a float, or (``floats=False``) set in place with
        ``\\captionof`` inside a minipage; a ``longtable`` is no float either way."""
        if floats or self.is_long:
            return self.as_latex()
        cap = (f"\\captionof{{table}}{{{latex_escape(self.caption)}}}" if self.caption
               else "\\refstepcounter{table}")
        return ("\\begin{center}\\small\n\\begin{minipage}{\\linewidth}\\centering\n" + cap
                + f"\\label{{tab:{self.label}}}\n" + self.as_latex(float_env=False)
                + "\n\\end{minipage}\n\\end{center}")

    def as_markdown(self) -> str:
        """A Markdown pipe table (GitHub-flavoured), numbers right-aligned."""
        rule = {"l": "---", "r": "---:"}
        lines = ["| " + " | ".join(md_escape(h) for h in self.columns) + " |",
                 "|" + "|".join(rule[a] for a in self.aligns) + "|"]
        lines += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in self.shown_rows()]
        out = "\n".join(lines)
        if self.note:
            out += f"\n\n*{md_escape(self.note)}*"
        return (f"**{md_escape(self.caption)}**\n\n" + out) if self.caption else out
