r"""Making text safe in LaTeX, HTML and Markdown, and labels for anchors.

LaTeX (:func:`latex_escape`) is written for pdflatex with the preamble of
:data:`~evalstats._render.report.LATEX_PREAMBLE` (T1 font encoding, UTF-8 input). The
escape follows rules rather than a list of characters:

* the ten characters LaTeX reserves (``\ & % $ # _ { } ~ ^``) and ``< > |`` (which the
  default OT1 encoding misprints) get their text commands;
* a letter with accents — precomposed (``é``) or built with combining marks (``V̂``,
  ``Ṽ``) — is decomposed (Unicode NFD) and set with LaTeX's text accents (``\^{V}``);
* a Greek letter is set by its Unicode name as a math symbol (``θ`` → ``$\theta$``);
* super- and subscript digits and signs become ``\textsuperscript`` / math subscripts;
* the mathematical and typographic symbols that reports print (``≤ ± × − → – …``) come
  from one short table of LaTeX's own names for them;
* anything else (a CJK or Cyrillic class name) is written as its code point,
  ``[U+732B]``, so the document still compiles and two such names stay apart.
"""

from __future__ import annotations

import html as _html
import re
import unicodedata
from typing import Any

__all__ = ["latex_escape", "latex_prose", "html_escape", "md_escape", "slug"]

_LATEX_RESERVED = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                   "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                   "|": r"\textbar{}"}

#: combining mark -> LaTeX text accent command (Lamport, *LaTeX*, table 3.1)
_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=",
            "\u0306": "u", "\u0307": ".", "\u0308": '"', "\u030a": "r", "\u030b": "H",
            "\u030c": "v", "\u0327": "c", "\u0328": "k"}
#: the same accents over a symbol set in math mode (``ρ̂`` -> ``$\hat{\rho}$``)
_MATH_ACCENTS = {"`": "grave", "'": "acute", "^": "hat", "~": "tilde", "=": "bar",
                 "u": "breve", ".": "dot", '"': "ddot", "r": "mathring", "v": "check"}

#: Greek capitals that LaTeX sets as Latin letters (no \Alpha in LaTeX)
_LATIN_CAPITALS = {"ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H",
                   "IOTA": "I", "KAPPA": "K", "MU": "M", "NU": "N", "OMICRON": "O",
                   "RHO": "P", "TAU": "T", "CHI": "X"}

#: symbols by their LaTeX names: math mode (``$...$``) or text mode
_SYMBOLS = {
    "−": "$-$", "±": r"$\pm$", "∓": r"$\mp$", "×": r"$\times$", "·": r"$\cdot$",
    "÷": r"$\div$", "≤": r"$\le$", "≥": r"$\ge$", "≠": r"$\neq$", "≈": r"$\approx$",
    "≡": r"$\equiv$", "≪": r"$\ll$", "≫": r"$\gg$", "∝": r"$\propto$", "→": r"$\to$",
    "←": r"$\leftarrow$", "∞": r"$\infty$", "√": r"$\surd$", "∑": r"$\sum$",
    "∈": r"$\in$", "∉": r"$\notin$", "∪": r"$\cup$", "∖": r"$\setminus$", "‖": r"$\|$",
    "⌊": r"$\lfloor$", "⌋": r"$\rfloor$", "⌈": r"$\lceil$", "⌉": r"$\rceil$",
    "ℓ": r"$\ell$", "°": r"$^\circ$", "½": r"$\frac12$", "¼": r"$\frac14$", "∩": r"$\cap$",
    "–": "--", "—": "---", "…": r"\ldots{}", "‘": "`", "’": "'", "“": "``", "”": "''",
    "§": r"\S{}", "\u00a0": "~", "\u2009": r"\,", "\u202f": r"\,",
}

_GREEK = re.compile(r"GREEK (SMALL|CAPITAL) LETTER ([A-Z ]+)$")


def _greek(name: str) -> str | None:
    m = _GREEK.match(name)
    if m is None:
        return None
    case, letter = m.groups()
    letter = {"LAMDA": "LAMBDA", "FINAL SIGMA": "SIGMA"}.get(letter, letter)
    if case == "CAPITAL":
        plain = _LATIN_CAPITALS.get(letter)
        return plain if plain else f"$\\{letter.capitalize()}$"
    if letter == "OMICRON":
        return "o"
    return f"$\\{'varepsilon' if letter == 'EPSILON' else letter.lower()}$"


def _script(ch: str, name: str) -> str | None:
    """Super- and subscript digits, signs and parentheses (``²`` -> ``\\textsuperscript{2}``)."""
    base = unicodedata.normalize("NFKC", ch)
    base = "-" if base == "\u2212" else base
    if name.startswith("SUPERSCRIPT") and len(base) == 1 and base in "0123456789+-()n":
        return f"\\textsuperscript{{{base}}}"
    if name.startswith("SUBSCRIPT") and len(base) == 1 and base in "0123456789+-()":
        return f"$_{{{base}}}$"
    return None


def _latex_char(ch: str) -> str:
    """One character that is not a combining mark."""
    if ch in _LATEX_RESERVED:
        return _LATEX_RESERVED[ch]
    if ord(ch) < 128:
        return ch
    if ch in _SYMBOLS:
        return _SYMBOLS[ch]
    name = unicodedata.name(ch, "")
    for rule in (_greek(name), _script(ch, name)):
        if rule is not None:
            return rule
    compat = unicodedata.normalize("NFKC", ch)           # the micro sign is mu, ...
    if compat != ch and all(ord(c) < 128 or c in _SYMBOLS for c in compat):
        return "".join(_latex_char(c) for c in compat)
    if compat != ch and len(compat) == 1:
        return _latex_char(compat)
    return f"[U+{ord(ch):04X}]"


def latex_escape(s: Any) -> str:
    """``s`` as LaTeX text for pdflatex (see the module docstring for the rules)."""
    out: list[str] = []
    for ch in unicodedata.normalize("NFD", str(s)):
        accent = _ACCENTS.get(ch)
        if accent is not None and out:
            base = out.pop()
            math = _MATH_ACCENTS.get(accent)
            if math and len(base) > 2 and base[0] == base[-1] == "$":
                out.append(f"$\\{math}{{{base[1:-1]}}}$")   # a Greek letter: math accent
                continue
            base = "\\i" if base == "i" else base         # dotless i carries the accent
            out.append(f"\\{accent}{{{base}}}")
        elif unicodedata.combining(ch):
            continue                                    # a mark LaTeX has no accent for
        else:
            out.append(_latex_char(ch))
    return re.sub(r"(?<!\\)\$\$", "", "".join(out))     # adjacent math joins up


def latex_prose(s: Any) -> str:
    """:func:`latex_escape` for running text: long identifiers (``a_b(...).c_d``) may break
    after ``_``, ``.`` and ``(`` so a note never runs past the margin."""
    text = latex_escape(s).replace("\\_", "\\_\\allowbreak{}")
    return re.sub(r"([.(])(?=[A-Za-z.\\])", r"\1\\allowbreak{}", text)


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
