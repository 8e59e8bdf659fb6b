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


def _csv(path, text):
    path.write_text(text)
    return str(path)


def test_cv_refuses_decimal_commas_and_notes_dropped_columns(tmp_path, capsys):
    """A feature written with decimal commas was read as text and dropped without a word
    (the fit then used the other columns); now it is an error, and any other non-numeric
    column is named on stderr."""
    import numpy as np

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=40), rng.normal(size=40)
    y = (a + rng.logistic(size=40) > 0).astype(int)
    rows = "\n".join(f'"{f"{x:.3f}".replace(".", ",")}",{z:.3f},{t}'
                     for x, z, t in zip(a, b, y, strict=True))
    data = _csv(tmp_path / "comma.csv", "a,b,y\n" + rows + "\n")
    rc = main(["cv", "--data", data, "--target", "y", "--train-size", "10", "--n-draws", "20",
               "--max-draws", "20", "--seed", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and "column 'a'" in err and "decimal commas" in err
    colors = "\n".join(f"{c},{z:.3f},{t}"
                       for c, z, t in zip(["red", "blue"] * 20, b, y, strict=True))
    data = _csv(tmp_path / "cat.csv", "color,b,y\n" + colors + "\n")
    rc = main(["cv", "--data", data, "--target", "y", "--train-size", "10", "--n-draws", "20",
               "--max-draws", "20", "--seed", "1"])
    err = capsys.readouterr().err
    assert rc == 0 and "non-numeric column(s) 'color' are not used as features" in err


def test_out_and_plot_are_checked_before_any_work(tmp_path, capsys):
    plan = ["plan", "--n-pool", "20000", "--prevalence", "0.04", "--rule-rate", "0.05",
            "--half-width", "0.02"]
    for out, msg in (("report.csv", "must be a report file ending in"),
                     (str(tmp_path / "nodir" / "r.html"), "a path in an existing folder")):
        assert main(plan + ["--out", out]) == 2
        cap = capsys.readouterr()
        assert cap.out == "" and msg in cap.err        # nothing computed, nothing printed
    assert main(plan + ["--out", str(tmp_path / "r.HTML")]) == 0   # any case
    capsys.readouterr()
    pool = _csv(tmp_path / "pool.csv", "id,prob,pred\n" + "\n".join(
        f"{i},{(i % 10) / 10 + 0.05},{int(i % 10 > 5)}" for i in range(200)) + "\n")
    before = (tmp_path / "pool.csv").read_text()
    rc = main(["sample", "--pool", pool, "--score-col", "prob", "--n-labels", "10",
               "--seed", "1", "--out", pool])
    assert rc == 2 and "a file other than --pool" in capsys.readouterr().err
    assert (tmp_path / "pool.csv").read_text() == before          # not overwritten
