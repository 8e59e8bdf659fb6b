"""``evalstats cv`` end to end on a small CSV, and the demo contribution."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalstats.cli import main
from evalstats.cli.cv import demo_results


def _csv(tmp_path, rng):
    X = rng.normal(size=(50, 3))
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["cls"] = (X[:, 0] + rng.normal(size=50) > 0).astype(int)
    df["txt"] = "ignored"
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    return path


def test_cv_command_prints_summary(tmp_path, rng, capsys):
    path = _csv(tmp_path, rng)
    rc = main(["cv", "--data", str(path), "--target", "cls", "--model", "tree",
               "--train-size", "10", "--n-draws", "40", "--max-draws", "40", "--seed", "1",
               "--interval", "t", "--design", "partition", "--max-seconds", "30"])
    out = capsys.readouterr().out
    assert rc == 0 and "Expected loss of a learner" in out and "Learning-set size g" in out
    assert "design='partition'" in out or "partition" in out
    rc = main(["cv", "--data", str(path), "--target", "cls", "--model", "knn", "--compare",
               "logistic", "--train-size", "10", "--method", "corrected_t", "--seed", "1"])
    assert rc == 0 and "knn - logistic" in capsys.readouterr().out


def test_cv_command_errors(tmp_path, rng, capsys):
    path = _csv(tmp_path, rng)
    assert main(["cv", "--data", str(path), "--target", "nope", "--train-size", "5"]) == 2
    assert "`--target` must be a column" in capsys.readouterr().err
    assert main(["cv", "--data", str(path), "--target", "cls", "--model", "svm",
                 "--train-size", "5"]) == 2
    assert "`--model` must be one of" in capsys.readouterr().err
    assert main(["cv", "--data", str(path), "--target", "cls", "--train-size", "30"]) == 2
    err = capsys.readouterr().err
    assert "2g + 2" in err and "`--train-size` must be at most" in err   # the option's name


def test_cv_command_speaks_in_options(tmp_path, rng, capsys):
    """Errors name the command-line option a user can change, not the API argument: before,
    ``--train-size 0`` asked for a fitted `estimator` and ``--loss squared`` alone failed
    on the default classifier ('`model` must be one of 'linear', ...; got 'logistic'')."""
    path = _csv(tmp_path, rng)
    base = ["cv", "--data", str(path), "--target", "cls", "--seed", "1"]
    assert main(base + ["--train-size", "0"]) == 2
    assert "`--train-size` must be an integer >= 1" in capsys.readouterr().err
    assert main(base + ["--train-size", "5", "--confidence-level", "95"]) == 2
    assert "`--confidence-level` must be a number strictly between 0 and 1" in (
        capsys.readouterr().err)
    assert main(base + ["--train-size", "5", "--model", "linear"]) == 2
    assert "Regressors (linear) need --loss squared" in capsys.readouterr().err
    assert main(base[:4] + ["a", "--train-size", "5"]) == 2      # a continuous target
    err = capsys.readouterr().err
    assert "`--target` must be class labels" in err and "--loss squared" in err
    # --loss squared alone: a linear regression by default
    assert main(base[:4] + ["a", "--train-size", "10", "--loss", "squared", "--n-draws", "40",
                        "--max-draws", "40"]) == 0
    assert "Call" in capsys.readouterr().out


def test_demo_results_fast():
    res = demo_results(fast=True)
    assert len(res) == 3
    assert all(np.isfinite(r.estimate) for r in res)
    cmp = res[1]  # naive Bayes vs the majority-class guess
    # true difference -0.0936 (Monte Carlo, s.e. 0.0008: benchmarks/cv_compare_nb_check.py)
    lo, hi = cmp.conf_int()
    assert cmp.estimate < 0 and lo <= -0.0936 <= hi
    assert (cmp.p_value < 0.05) is not (lo <= 0 <= hi)  # test and interval agree
    assert cmp.diagnostics["p_value_t"] < 0.05  # the plain t test rejects on this data set


def test_cv_command_shares_format_out_and_prints_its_seed(tmp_path, rng, capsys):
    # before: --format and --out were refused although the README promised them
    path = _csv(tmp_path, rng)
    out = tmp_path / "cv.md"
    rc = main(["cv", "--data", str(path), "--target", "cls", "--train-size", "10",
               "--n-draws", "40", "--max-draws", "40", "--format", "markdown",
               "--out", str(out)])
    cap = capsys.readouterr()
    assert rc == 0 and "### Expected loss of a learner" in cap.out and out.exists()
    assert "evalstats: using --seed" in cap.err
