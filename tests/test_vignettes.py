"""Every vignette runs end to end in fast mode (EVALSTATS_VIGNETTE_FAST=1)."""

from __future__ import annotations

import os
import runpy
from pathlib import Path

import pytest

VIGNETTES = sorted((Path(__file__).resolve().parents[1] / "vignettes").glob("[0-9]*.py"))


@pytest.mark.parametrize("path", VIGNETTES, ids=lambda p: p.name)
def test_vignette_runs(path, monkeypatch, tmp_path):
    monkeypatch.setenv("EVALSTATS_VIGNETTE_FAST", "1")
    monkeypatch.setenv("EVALSTATS_VIGNETTE_OUT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert os.environ["EVALSTATS_VIGNETTE_FAST"] == "1"
    runpy.run_path(str(path), run_name="__main__")
