"""The ``evalstats extrapolate`` subcommand and its demo contribution."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from evalstats import datasets
from evalstats.cli import main
from evalstats.cli.extrapolate import demo_results, read_inputs
from evalstats.extrapolate import AccuracyExtrapolation


@pytest.fixture
def csv_files(tmp_path):
    b = datasets.load("sim_multiclass")
    names = [f"c{j}" for j in range(b.scores.shape[1])]
    pd.DataFrame(b.scores, columns=names).to_csv(tmp_path / "scores.csv", index=False)
    pd.Series(np.array(names)[b.labels]).to_csv(tmp_path / "labels.csv", index=False,
                                                header=False)
    pd.Series(b.labels, name="label").to_csv(tmp_path / "idx.csv", index=False)
    return tmp_path, b


def test_read_inputs_names_and_indices(csv_files):
    d, b = csv_files
    s, y = read_inputs(d / "scores.csv", d / "labels.csv")
    np.testing.assert_array_equal(y, b.labels)
    np.testing.assert_allclose(s, b.scores)
    _, y2 = read_inputs(d / "scores.csv", d / "idx.csv")     # header row + indices
    np.testing.assert_array_equal(y2, b.labels)


def test_cli_prints_summary(csv_files, capsys):
    d, _ = csv_files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["extrapolate", "--scores", str(d / "scores.csv"), "--labels",
                   str(d / "labels.csv"), "--to", "1000", "2000", "--n-subsamples", "5",
                   "--plot", str(d / "fit.png")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "accuracy(k=1000)" in out and "accuracy(k=2000)" in out and "Back-test" in out
    assert (d / "fit.png").stat().st_size > 0


def test_cli_bad_labels(csv_files, capsys):
    d, _ = csv_files
    pd.Series(["nope"] * 300).to_csv(d / "bad.csv", index=False, header=False)
    rc = main(["extrapolate", "--scores", str(d / "scores.csv"), "--labels",
               str(d / "bad.csv"), "--to", "200"])
    assert rc == 2 and "--labels" in capsys.readouterr().err


def test_demo_results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = demo_results(fast=True)
    assert len(res) == 1 and isinstance(res[0], AccuracyExtrapolation)
    assert 0 < res[0].estimate < 1
