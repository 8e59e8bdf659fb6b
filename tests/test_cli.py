"""The command line: --help everywhere, the demo end to end."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evalstats.cli import build_parser, main


def _subcommands():
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return sorted(action.choices)


def test_top_level_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "demo" in capsys.readouterr().out


@pytest.mark.parametrize("cmd", _subcommands())
def test_every_subcommand_has_help(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        main([cmd, "--help"])
    assert exc.value.code == 0
    assert "usage: evalstats " + cmd in capsys.readouterr().out


def test_demo_writes_html_with_tables_and_plot(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["demo", "--fast", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Error rate on a fixed test set" in printed
    html = out.read_text()
    assert "<table" in html and "data:image/png;base64," in html


def test_python_dash_m_runs():
    proc = subprocess.run([sys.executable, "-m", "evalstats", "--version"], capture_output=True,
                          text=True, check=True)
    assert proc.stdout.startswith("evalstats ")


def test_demo_section_without_optional_dependency():
    from evalstats.cli.demo import _section

    class _Mod:
        __name__ = "evalstats.cli.cv"

        @staticmethod
        def demo_results(fast, seed):
            raise ModuleNotFoundError("No module named 'sklearn'", name="sklearn")

    (rep,) = _section(_Mod, True, 0)
    assert "skipped" in rep.title and "evalstats[ml]" in rep.as_text()
