"""The ``evalstats plan`` subcommand and the budget part of ``evalstats demo``."""

from __future__ import annotations

from evalstats.cli import main
from evalstats.cli.plan import demo_results


def test_plan_prints_the_plan(capsys):
    rc = main(["plan", "--pool-size", "20000", "--prevalence", "0.04", "--rule-rate", "0.05",
               "--half-width", "0.01", "--measures", "precision,sensitivity",
               "--bound", "bernstein"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "Labeling plan" in out and "Labels to buy" in out
    assert "random labels, Bernstein bound (any rule)" in out


def test_plan_bad_input_and_infeasible(capsys):
    assert main(["plan", "--n-pool", "100", "--prevalence", "1.5", "--rule-rate", "0.1",
                 "--half-width", "0.1"]) == 2
    assert "`--prevalence` must be" in capsys.readouterr().err
    rc = main(["plan", "--pool-size", "20000", "--prevalence", "0.04", "--rule-rate", "0.05",
               "--half-width", "0.001", "--budget", "10", "--measures", "precision"])
    assert rc == 1
    assert "infeasible" in capsys.readouterr().out.lower()


def test_demo_results_fast():
    res = demo_results(fast=True, seed=1)
    assert len(res) == 2
    assert res[0].n_total > 0
    assert len(res[1].tidy()) == 9


def test_plan_writes_html(tmp_path, capsys):
    out = tmp_path / "plan.html"
    rc = main(["plan", "--n-pool", "5000", "--prevalence", "0.05", "--rule-rate", "0.1",
               "--half-width", "0.02", "--measures", "precision", "--out", str(out)])
    assert rc == 0 and out.exists()
    assert "Labeling plan" in out.read_text()
    assert f"Report written to {out}" in capsys.readouterr().out


def test_old_flags_still_work(capsys):
    rc = main(["plan", "--pool-size", "20000", "--prevalence", "0.04", "--rule-rate",
               "0.05", "--half-width", "0.02", "--prevalence-unknown",
               "--measures", "precision"])
    assert rc == 0
    out = capsys.readouterr()
    assert "--pool-size is deprecated" in out.err
    # --prevalence-unknown still means unknown (notes wrap at 88 columns)
    assert "Prevalence not known" in " ".join(out.out.split())


def test_readme_example_is_nonzero_and_fast(capsys):
    import time

    rc = main(["plan", "--n-pool", "20000", "--prevalence", "0.03", "--rule-rate", "0.05",
               "--half-width", "0.02", "--format", "markdown"])
    assert rc == 0
    assert "Buy 17,486 labels at random" in capsys.readouterr().out
    t0 = time.perf_counter()
    assert main(["plan", "--n-pool", "1e12", "--prevalence", "0.03", "--rule-rate", "0.05",
                 "--half-width", "0.02", "--no-prevalence-known"]) == 0
    assert time.perf_counter() - t0 < 30  # generous: speed itself lives in benchmarks/


def test_plan_flags_for_uncertain_prevalence_scores_and_planning_values(tmp_path, capsys):
    import numpy as np

    scores = tmp_path / "scores.csv"
    np.savetxt(scores, np.r_[np.full(600, 0.99), np.zeros(19_400)])
    rc = main(["plan", "--n-pool", "20000", "--prevalence", "0.03", "--rule-rate", "0.05",
               "--half-width", "0.02", "--scores", str(scores)])
    assert rc == 0
    assert "in decreasing score until 576 positives" in " ".join(
        capsys.readouterr().out.split())
    rc = main(["plan", "--n-pool", "5000", "--prevalence", "0.024,0.026", "--rule-rate",
               "0.05", "--half-width", "0.1", "--per-measure", "--expected",
               "precision=0.8"])
    out = " ".join(capsys.readouterr().out.split())
    assert rc == 0 and "in [0.024, 0.026]" in out and "planning values" in out
    assert "jointly" not in out
    rc = main(["plan", "--n-pool", "5000", "--pilot", "400,4000", "--rule-rate", "0.05",
               "--half-width", "0.25", "--measures", "precision"])
    assert rc == 0 and "pilot (400 positives in 4,000 labels)" in capsys.readouterr().out
    assert main(["plan", "--n-pool", "5000", "--pilot", "400", "--rule-rate", "0.05",
                 "--half-width", "0.25"]) == 2
    assert "`--pilot` must be two numbers" in capsys.readouterr().err
