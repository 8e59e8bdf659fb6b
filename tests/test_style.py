"""The code base is ruff-clean (skipped when ruff is not installed)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def test_ruff_clean():
    beside = Path(sys.executable).parent / "ruff"
    ruff = str(beside) if beside.exists() else shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff not installed (pip install -e '.[test]')")
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([ruff, "check", str(root)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- prose that does not rot ----------------------------------------------------------------
_ROOT = Path(__file__).resolve().parents[1] / "evalstats"
#: what a docstring must not hold: a date, a benchmark file, a before -> after figure
_ROT = (r"\b20\d\d-\d\d-\d\d\b", r"benchmarks/", r"\d\s*(?:→|->)\s*\d")
#: every package of evalstats ("" is the top level)
_PACKAGES = ["", *sorted(p.parent.name for p in _ROOT.glob("*/__init__.py"))]


def _docstrings(path: Path):
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if doc:
                yield getattr(node, "name", path.stem), doc


@pytest.mark.parametrize("package", _PACKAGES)
def test_docstrings_hold_no_dates_benchmark_files_or_history(package):
    import re

    folder = _ROOT / package
    files = sorted(folder.glob("*.py")) if package else sorted(_ROOT.glob("*.py"))
    found = [f"{f.relative_to(_ROOT)}:{name}: {m.group(0)!r}"
             for f in files for name, doc in _docstrings(f)
             for pattern in _ROT for m in re.finditer(pattern, doc)]
    assert not found, "\n".join(found)
