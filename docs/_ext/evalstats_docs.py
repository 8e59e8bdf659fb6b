"""Helpers of the documentation build (kept out of ``conf.py`` so myst-nb can import them).

* :func:`read_vignette` reads a vignette (jupytext percent format) as a notebook with a
  Python kernel and lexer, so that its cells are executed and highlighted.
* :func:`api_names` lists every public name by the module that documents it, and
  :func:`write_api_page` writes the API reference from it (autosummary pages).
* :func:`copy_vignettes` copies the vignettes into the documentation's source folder.
* :func:`plain_bars` is an ``autodoc-process-docstring`` hook: docstrings write a set's
  size or an absolute value as ``|S|``, which reST would take for a substitution; outside
  code, math and tables the bars are escaped so that they print as written.
"""

from __future__ import annotations

import importlib
import re
import shutil
from pathlib import Path


def copy_vignettes(source: Path, target: Path) -> None:
    """The vignettes as documents of the site (the copies are not tracked by git)."""
    target.mkdir(exist_ok=True)
    for old in target.glob("[0-9]*.py"):
        old.unlink()
    for src in sorted(source.glob("[0-9]*.py")):
        shutil.copyfile(src, target / src.name)


# -- API reference ------------------------------------------------------------------------
CAPABILITIES = ("holdout", "budget", "cv_variance", "active", "extrapolate", "datasets")


def api_names() -> dict[str, list[str]]:
    """Public names by the module that documents them: each capability module's
    ``__all__``, then the names of ``evalstats.__all__`` that no capability lists."""
    import evalstats

    out: dict[str, list[str]] = {}
    listed: set[str] = set()
    for cap in CAPABILITIES:
        mod = importlib.import_module(f"evalstats.{cap}")
        out[f"evalstats.{cap}"] = list(mod.__all__)
        listed |= set(mod.__all__)
    out["evalstats"] = [n for n in evalstats.__all__
                        if n not in listed and n not in CAPABILITIES]
    return out


def write_api_page(path: Path) -> None:
    """The API reference: one autosummary table per module, a page per name."""
    lines = ["API reference", "=============", "",
             "Every public name, by the module that holds it. The names of the capability",
             "modules are also importable from ``evalstats`` itself (``es.error_ci``).", ""]
    titles = {"evalstats": "Reports, results, warnings and generics (``evalstats``)"}
    names_by_module = api_names()
    order = ["evalstats"] + [m for m in names_by_module if m != "evalstats"]
    for module in order:
        names = names_by_module[module]
        title = titles.get(module, f"``{module}``")
        lines += [title, "-" * len(title), "", f".. currentmodule:: {module}", "",
                  ".. autosummary::", "   :toctree: generated", ""]
        lines += [f"   {name}" for name in sorted(names, key=str.lower)] + [""]
    path.write_text("\n".join(lines), encoding="utf-8")


_KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
_LANGUAGE = {"name": "python", "pygments_lexer": "ipython3"}


def read_vignette(text: str):
    """A vignette as a notebook (jupytext's ``py:percent``) with a Python kernelspec."""
    import jupytext

    nb = jupytext.reads(text, fmt="py:percent")
    nb.metadata["kernelspec"] = dict(_KERNEL)
    nb.metadata["language_info"] = dict(_LANGUAGE)
    return nb


_CODE = re.compile(r"(``.*?``|:\w+:`[^`]*`|`[^`]*`)")
_BARS = re.compile(r"(?<![\\|])\|(?=[^\s|])([^|]*?[^\s|\\])\|(?!\|)")


def _escape_bars(line: str) -> str:
    parts = _CODE.split(line)
    return "".join(p if i % 2 else _BARS.sub(r"\\|\1\\|", p) for i, p in enumerate(parts))


def plain_bars(app, what, name, obj, options, lines: list[str]) -> None:
    in_block, indent = False, 0
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if in_block and stripped and depth <= indent:
            in_block = False
        if stripped.startswith((".. math::", ".. code", "::")) or line.rstrip().endswith("::"):
            in_block, indent = True, depth
            continue
        if in_block or stripped.startswith(("| ", "+-", "+=")):    # line blocks, tables
            continue
        lines[i] = _escape_bars(line)
