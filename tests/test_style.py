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
