"""Cells and tables for reports: number formatting, escaping and the four table renderings.

* :func:`format_value` formats one header value; :func:`format_column` formats a whole
  column with *fixed* decimals chosen from the column's magnitude (or given per column),
  and says whether it is numeric (right-aligned) or text (left-aligned).
* :func:`latex_escape`, :func:`html_escape`, :func:`md_escape` make any string safe in
  their format; ``latex_escape`` maps the Unicode the package prints (ε θ α ≤ ± × – ...)
  to LaTeX.
* :class:`Table` is one formatted table; it renders as fixed-width text through
  statsmodels' ``SimpleTable``, as HTML and booktabs LaTeX through pandas' ``Styler`` (the
  maintained renderer: escaping, per-column alignment, ``\\caption``/``\\label``,
  ``longtable`` for tall tables) and as aligned Markdown (pandas' ``to_markdown`` when
  ``tabulate`` is installed). Tall tables are cut to head + tail (``max_rows``).
"""

from __future__ import annotations

import html as _html
import math
import numbers
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["format_value", "format_frame", "format_column", "latex_escape", "html_escape",
           "md_escape", "Table", "slug", "pretty_column", "is_empty_value", "finding_sentence"]

#: default significant digits used to choose each column's decimals
DEFAULT_DIGITS = 4
#: columns holding estimates on a probability-like scale (0/1 stay decimals)
_EST_COLUMNS = {"estimate", "std_error", "conf_low", "conf_high", "model_low", "model_high"}
_P_COLUMNS = {"p_value", "pvalue", "p-value", "p"}
_PRETTY = {"term": "Term", "estimate": "Estimate", "std_error": "Std. error",
           "conf_low": "CI low", "conf_high": "CI high", "confidence_level": "Confidence level",
           "method": "Method", "p_value": "p-value", "statistic": "Statistic"}


def pretty_column(name: Any) -> str:
    """Display name of a column (``std_error`` -> ``Std. error``; others: ``_`` -> space)."""
    name = str(name)
    return _PRETTY.get(name, name.replace("_", " "))


def is_empty_value(v: Any) -> bool:
    """``True`` for None, NaN, ``""`` and the strings ``'nan'``/``'NaN'`` (says nothing)."""
    if v is None:
        return True
    if isinstance(v, str):
        return v.strip() in ("", "nan", "NaN", "None")
    if isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_):
        return math.isnan(float(v))
    return False


def _plain_number(x: float, digits: int) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x != 0 and x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}" if abs(x) >= 10_000 else str(int(x))
    text = f"{x:.{digits}g}"
    if "e" in text and 1e-4 <= abs(x) < 1e15:
        text = f"{x:.{digits}f}".rstrip("0").rstrip(".")
    return text


def format_value(v: Any, digits: int = DEFAULT_DIGITS) -> str:
    """One header value: ints as ints (thousands separated from 10,000), floats with
    ``digits`` significant digits, numpy scalars as plain numbers, NaN as ``'NaN'``."""
    if v is None:
        return ""
    if isinstance(v, bool | np.bool_):
        return "yes" if bool(v) else "no"
    if isinstance(v, numbers.Integral):
        return f"{int(v):,}" if abs(int(v)) >= 10_000 else str(int(v))
    if isinstance(v, numbers.Real):
        return _plain_number(float(v), digits)
    if isinstance(v, tuple | list) and v and all(
            isinstance(t, numbers.Real) and not isinstance(t, bool) for t in v):
        return "[" + ", ".join(format_value(t, digits) for t in v) + "]"
    return str(v)


def _digits_for(name: str, digits: int | Mapping[str, int] | None) -> tuple[int, int | None]:
    """(significant digits, fixed decimals or None) for column ``name``."""
    if isinstance(digits, Mapping):
        if name in digits:
            return DEFAULT_DIGITS, int(digits[name])
        return int(digits.get("*", DEFAULT_DIGITS)), None
    return (DEFAULT_DIGITS if digits is None else int(digits)), None


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)


def format_column(name: str, values: Sequence[Any],
                  digits: int | Mapping[str, int] | None = None) -> tuple[list[str], str]:
    """Format one column with fixed decimals; returns ``(cells, align)``, align ``'l'|'r'``.

    Numbers get the same number of decimals down the column: ``digits`` significant
    digits of the column's median magnitude (0 decimals for whole numbers, scientific
    notation below 1e-4); ``digits`` may be a mapping ``{column: decimals}`` (key ``"*"``:
    significant digits of the other columns). p-values below ``10**-d`` print as ``<0.0…1``.
    Missing values are blank.
    """
    vals = list(values)
    sig, fixed = _digits_for(str(name), digits)
    present = [v for v in vals if not is_empty_value(v)]
    if present and all(isinstance(v, bool | np.bool_) for v in present):
        return ["" if is_empty_value(v) else ("yes" if v else "no") for v in vals], "l"
    if not present or not all(_is_number(v) for v in present):
        return ["" if is_empty_value(v) else format_value(v, sig) for v in vals], "l"
    x = np.array([float(v) for v in present])
    fin = x[np.isfinite(x)]
    nz = np.abs(fin[fin != 0])
    big = fin.size > 0 and np.max(np.abs(fin)) >= 10_000
    sci = False
    if fixed is not None:
        dec = fixed
    elif str(name) in _P_COLUMNS:
        dec = sig
    elif fin.size and np.all(fin == np.round(fin)) and (
            str(name) not in _EST_COLUMNS or np.max(np.abs(fin)) > 1):
        dec = 0
    elif nz.size == 0:
        dec = 0
    else:
        ref = float(np.median(nz))
        sci = ref < 1e-4 or ref >= 1e12
        dec = int(min(max(sig - 1 - math.floor(math.log10(ref)), 0), 8))
    out = []
    for v in vals:
        if is_empty_value(v):
            out.append("")
            continue
        f = float(v)
        if math.isinf(f):
            out.append("inf" if f > 0 else "-inf")
        elif sci:
            out.append(f"{f:.{max(sig - 1, 0)}e}")
        elif str(name) in _P_COLUMNS and 0 <= f < 10 ** (-dec):
            out.append(f"<{10 ** (-dec):.{dec}f}")
        else:
            out.append(f"{f:,.{dec}f}" if big else f"{f:.{dec}f}")
    return out, "r"


def format_frame(df: pd.DataFrame, digits: int | Mapping[str, int] | None = None
                 ) -> pd.DataFrame:
    """A string copy of ``df`` formatted column by column (:func:`format_column`)."""
    out = pd.DataFrame(index=range(len(df)))
    for c in df.columns:
        out[c] = format_column(str(c), df[c].tolist(), digits)[0]
    return out.astype(str)


def finding_sentence(term: str, estimate: float, ci: tuple[float, float], level: float,
                     n: int | None = None, n_unit: str = "", *, n_terms: int = 1) -> str:
    """One sentence: ``"<term> is <est> (<level>% CI <lo>–<hi>) from <n> <unit>."``."""
    lo, hi = (float("nan") if v is None else float(v) for v in ci)
    est = float("nan") if estimate is None else float(estimate)
    if not math.isfinite(est):
        text = f"{term} is undefined (see the notes)"
    else:
        width = hi - lo if math.isfinite(lo) and math.isfinite(hi) else 0.0
        if width > 0:
            dec = int(min(max(1 - math.floor(math.log10(width)), 0), 8))
            while 0.0 < est < 1.0 and round(est, dec) in (0.0, 1.0) and dec < 8:
                dec += 1        # 0.999 is not "1.00": a value on a bound reads as exact
            text = f"{term} is {est:.{dec}f}"
        else:
            text = f"{term} is {format_value(est, 3)}"
        if width > 0:
            sep = " to " if lo < 0 or hi < 0 else "\u2013"
            text += f" ({100 * level:g}% CI {lo:.{dec}f}{sep}{hi:.{dec}f})"
        elif not (math.isfinite(lo) and math.isfinite(hi)):
            text += " (no interval could be computed; see the notes)"
    if n is not None:
        unit = n_unit[:-1] if int(n) == 1 and n_unit.endswith("s") else n_unit
        text += f" from {format_value(int(n))} {unit}".rstrip()
    if n_terms > 1:
        more = n_terms - 1
        text += f"; {more} further term{'s' if more > 1 else ''} in the table"
    return _capitalize(text) + "."


_ACRONYMS = {"auc": "AUC", "f1": "F1", "roc": "ROC", "ap": "AP", "mse": "MSE", "rmse": "RMSE"}


def _capitalize(text: str) -> str:
    """Sentence case for plain-word terms (``error`` -> ``Error``, ``f1`` -> ``F1``);
    identifiers such as ``mean_loss`` or ``prob>0.2:precision`` are left as they are."""
    first, _, rest = text.partition(" ")
    if first.lower() in _ACRONYMS:
        return _ACRONYMS[first.lower()] + " " + rest
    if first.isalpha() and first.islower():
        return first.capitalize() + " " + rest
    return text


# -- escaping ---------------------------------------------------------------------------------
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}"}
_LATEX_UNICODE = {
    "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$", "δ": r"$\delta$", "Δ": r"$\Delta$",
    "ε": r"$\varepsilon$", "ϵ": r"$\epsilon$", "θ": r"$\theta$", "λ": r"$\lambda$",
    "μ": r"$\mu$", "µ": r"$\mu$", "π": r"$\pi$", "ρ": r"$\rho$", "σ": r"$\sigma$",
    "Σ": r"$\Sigma$", "τ": r"$\tau$", "φ": r"$\phi$", "χ": r"$\chi$", "ψ": r"$\psi$",
    "ω": r"$\omega$", "η": r"$\eta$", "κ": r"$\kappa$", "ν": r"$\nu$", "ξ": r"$\xi$",
    "≤": r"$\le$", "≥": r"$\ge$", "≠": r"$\neq$", "≈": r"$\approx$", "±": r"$\pm$",
    "×": r"$\times$", "·": r"$\cdot$", "−": r"$-$", "→": r"$\to$", "←": r"$\leftarrow$",
    "∞": r"$\infty$", "√": r"$\surd$", "∑": r"$\sum$", "∈": r"$\in$", "≪": r"$\ll$",
    "≫": r"$\gg$", "‖": r"$\|$", "²": r"$^2$", "³": r"$^3$", "½": r"$\frac12$",
    "–": "--", "—": "---", "…": r"\ldots{}", "‘": "`", "’": "'", "“": "``", "”": "''",
    "°": r"$^\circ$", "§": r"\S{}", "\u00a0": "~", "\u2009": r"\,", "\u202f": r"\,",
}


def latex_escape(s: Any) -> str:
    """``s`` as LaTeX text: special characters escaped, Unicode symbols mapped to math.

    Characters with no mapping are reduced to their ASCII decomposition (``é`` -> ``e``);
    one without any (``猫``, ``Ж``) is written as its code point, ``[U+732B]``, so the
    output always compiles with pdflatex and two such names stay apart (dropping them made
    the class names ``猫`` and ``犬`` both empty).
    """
    out = []
    for ch in str(s):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch)
        elif ch in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[ch])
        else:
            plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
            out.append(plain if plain else f"[U+{ord(ch):04X}]")
    return re.sub(r"(?<!\\)\$\$", "", "".join(out))


def html_escape(s: Any) -> str:
    """``s`` as HTML text (``<``, ``>``, ``&`` and quotes escaped)."""
    return _html.escape(str(s), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*<>|]|(?<!\w)_|_(?!\w))")


def md_escape(s: Any) -> str:
    """``s`` as Markdown text: backslash-escapes ``\\ ` * < > |`` and any ``_`` that could
    start or end emphasis (``mean_loss`` stays as it is)."""
    return _MD_SPECIAL.sub(r"\\\1", str(s))


def slug(text: str) -> str:
    """A label/anchor made of ``[a-z0-9-]`` only."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def _shared_decimals(df: pd.DataFrame, digits: int | Mapping[str, int] | None
                     ) -> int | Mapping[str, int] | None:
    """Estimate and interval columns share the estimate's decimals; std_error gets one more."""
    if "estimate" not in df.columns:
        return digits
    given = dict(digits) if isinstance(digits, Mapping) else {"*": digits or DEFAULT_DIGITS}
    if "estimate" in given:
        dec = int(given["estimate"])
    else:
        cells, align = format_column("estimate", df["estimate"].tolist(), given)
        if align != "r" or any("e" in c for c in cells):
            return digits
        dec = max((len(c.split(".")[1]) if "." in c else 0) for c in cells)
    out = {c: dec for c in ("estimate", "conf_low", "conf_high", "model_low", "model_high")}
    if dec > 0:
        out["std_error"] = dec + 1
    out.update({k: v for k, v in given.items() if k != "estimate"})
    return out


# -- one table ----------------------------------------------------------------------------------
#: tables with more rows are cut to head + tail (``max_rows=``, an option of ``summary()``)
MAX_ROWS = 40
#: LaTeX tables with more rows (as shown) are set as a ``longtable`` that breaks across pages
LONGTABLE_ROWS = 25
_GAP = "\u2026"  # the cell shown in the row standing for the omitted rows


def _latex_rest(s: Any) -> str:
    """What :func:`latex_escape` does beyond pandas' ``escape="latex"`` (which covers
    ``\\ & % $ # _ { } ~ ^``): ``< > |`` and the Unicode symbols; runs on escaped text."""
    out = []
    for ch in str(s):
        if ch in "<>|":
            out.append(_LATEX_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append(latex_escape(ch))
    return re.sub(r"(?<!\\)\$\$", "", "".join(out))


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
        digits = _shared_decimals(df, digits)
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
        """A booktabs LaTeX table rendered by pandas' Styler (``escape="latex"``, then
        Unicode mapped to math): a ``table`` float with ``\\caption`` and ``\\label``
        (``float_env=False``: the bare ``tabular``, shrunk to the line width if wider), or
        a ``longtable`` when the table is taller than :data:`LONGTABLE_ROWS` rows."""
        st = (self._styler().format(escape="latex", formatter=_latex_rest)
              .format_index(escape="latex", formatter=_latex_rest, axis=1))
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

    def as_markdown(self) -> str:
        """A Markdown pipe table: pandas' ``to_markdown`` when ``tabulate`` is installed,
        else the same table written here (``tabulate`` is not a dependency of pandas, and a
        pipe table is simple enough not to need a new hard dependency)."""
        rows = [[md_escape(c) for c in r] for r in self.shown_rows()]
        heads = [md_escape(h) for h in self.columns]
        try:
            import tabulate  # noqa: F401
        except ImportError:
            rule = {"l": "---", "r": "---:"}
            lines = ["| " + " | ".join(heads) + " |",
                     "|" + "|".join(rule[a] for a in self.aligns) + "|"]
            lines += ["| " + " | ".join(r) + " |" for r in rows]
            out = "\n".join(lines)
        else:
            align = {"l": "left", "r": "right"}
            out = pd.DataFrame(rows, columns=_unique(heads)).to_markdown(
                index=False, tablefmt="pipe", disable_numparse=True,
                colalign=[align[a] for a in self.aligns])
        if self.note:
            out += f"\n\n*{md_escape(self.note)}*"
        return (f"**{md_escape(self.caption)}**\n\n" + out) if self.caption else out
