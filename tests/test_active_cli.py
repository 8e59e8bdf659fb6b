"""`evalstats sample` / `evalstats estimate` end to end on a CSV pool."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evalstats as es
from evalstats.active import active_design, estimate_from_labels
from evalstats.cli import main


def test_sample_then_estimate(tmp_path, capsys):
    pool = es.datasets.load("sim_pool")
    pool_path = tmp_path / "pool.csv"
    pool[["id", "prob", "pred"]].to_csv(pool_path, index=False)
    out = tmp_path / "to_label.csv"
    assert main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--pred-col",
                 "pred", "--id-col", "id", "--measure", "f1", "--budget", "120", "--seed", "4",
                 "--out", str(out)]) == 0
    design = pd.read_csv(out)
    assert len(design) == 120
    ref = active_design(pool["prob"].to_numpy(), 120, "f1", rng=4,
                        predictions=pool[["pred"]], ids=pool["id"].to_numpy())
    np.testing.assert_array_equal(design["id"], ref["id"])
    truth = pool.set_index("id")["label"]
    labeled = tmp_path / "labeled.csv"
    pd.DataFrame({"id": design["id"], "label": truth.loc[design["id"]].to_numpy()}).to_csv(
        labeled, index=False)
    capsys.readouterr()
    assert main(["estimate", "--design", str(out), "--labels", str(labeled), "--out",
                 str(tmp_path / "r.html")]) == 0
    printed = capsys.readouterr().out
    assert "Active estimate of f1" in printed and "precision" in printed
    want = estimate_from_labels(ref, truth.loc[ref["id"]].to_numpy())
    assert f"{want.estimate:.4g}" in printed
    assert (tmp_path / "r.html").exists()


def test_cli_errors(tmp_path, capsys):
    pool_path = tmp_path / "pool.csv"
    pd.DataFrame({"p": [0.1, 0.5]}).to_csv(pool_path, index=False)
    assert main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--budget", "1",
                 "--out", str(tmp_path / "o.csv")]) == 2
    assert "`--pool` must have the column(s) prob" in capsys.readouterr().err
    assert main(["sample", "--pool", str(pool_path), "--score-col", "p", "--budget", "0",
                 "--out", str(tmp_path / "o.csv")]) == 2
    assert "`budget` must be an integer >= 1" in capsys.readouterr().err


@pytest.mark.parametrize("cmd", ["sample", "estimate"])
def test_help(cmd, capsys):
    with pytest.raises(SystemExit):
        main([cmd, "--help"])
    assert "usage: evalstats " + cmd in capsys.readouterr().out
