"""The README's Python tour runs as written, and its test command matches .ci/run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_tour_runs(tmp_path, monkeypatch):
    pytest.importorskip("sklearn")
    code = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert (tmp_path / "evaluation.html").exists()


def test_readme_has_two_setup_commands_and_ci_runs_the_test_one():
    setup = README[README.index("## Set up"):README.index("## A short tour")]
    commands = re.findall(r"```bash\n(.*?)\n```", setup, re.S)
    assert len(commands) == 2
    assert "evalstats demo" in commands[0]
    test_part = commands[1].split("&& ", 2)[-1]       # after venv creation and activation
    assert test_part in (ROOT / ".ci" / "run").read_text()
