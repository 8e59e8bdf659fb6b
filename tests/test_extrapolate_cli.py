"""The ``evalstats extrapolate`` subcommand and its demo contribution."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from evalstats import datasets
from evalstats._io import TableError
from evalstats.cli import main
from evalstats.cli.extrapolate import demo_results, read_inputs
from evalstats.extrapolate import AccuracyExtrapolation


@pytest.fixture
def csv_files(tmp_path):
    b = datasets.load("sim_multiclass")
    names = [f"c{j}" for j in range(b.scores.shape[1])]
    pd.DataFrame(b.scores, columns=names).to_csv(tmp_path / "scores.csv", index=False)
    pd.DataFrame({"label": np.array(names)[b.labels]}).to_csv(tmp_path / "labels.csv",
                                                               index=False)
    pd.Series(b.labels, name="label").to_csv(tmp_path / "idx.csv", index=False)
    pd.DataFrame(b.scores).to_csv(tmp_path / "scores_nh.csv", index=False, header=False)
    pd.Series(b.labels).to_csv(tmp_path / "idx_nh.csv", index=False, header=False)
    return tmp_path, b


def test_read_inputs_names_and_indices(csv_files):
    d, b = csv_files
    s, y = read_inputs(d / "scores.csv", d / "labels.csv")
    np.testing.assert_array_equal(y, b.labels)
    np.testing.assert_allclose(s, b.scores)
    _, y2 = read_inputs(d / "scores.csv", d / "idx.csv", label_indices=True)
    np.testing.assert_array_equal(y2, b.labels)
    s3, y3 = read_inputs(d / "scores_nh.csv", d / "idx_nh.csv", header=False)
    np.testing.assert_array_equal(y3, b.labels)
    np.testing.assert_allclose(s3, b.scores)


def test_indices_without_flag_are_refused_not_guessed(csv_files):
    d, _ = csv_files
    with pytest.raises(TableError, match="idx.csv, row 2, column 'label'.*--label-indices"):
        read_inputs(d / "scores.csv", d / "idx.csv")


def test_labels_without_header_are_refused_not_shifted(csv_files, tmp_path):
    # issue 15: one extra row without a header used to shift every label by one
    d, b = csv_files
    names = np.array([f"c{j}" for j in range(b.scores.shape[1])])
    pd.Series(names[b.labels]).to_csv(tmp_path / "nh.csv", index=False, header=False)
    with pytest.raises(TableError, match="lacks column"):
        read_inputs(d / "scores.csv", tmp_path / "nh.csv")
    pd.Series(np.r_[b.labels, 0]).to_csv(tmp_path / "long.csv", index=False, header=False)
    with pytest.raises(TableError, match="301 label rows but scores_nh.csv has 300"):
        read_inputs(d / "scores_nh.csv", tmp_path / "long.csv", header=False)


def test_bad_cells_are_named(csv_files, tmp_path):
    d, b = csv_files
    df = pd.read_csv(d / "scores.csv").astype(object)
    df.iloc[4, 2] = "oops"
    df.to_csv(tmp_path / "s.csv", index=False)
    with pytest.raises(TableError, match="s.csv, row 6, column 'c2': expected a number"):
        read_inputs(tmp_path / "s.csv", d / "labels.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(TableError, match="empty"):
        read_inputs(tmp_path / "empty.csv", d / "labels.csv")
    (tmp_path / "hdr.csv").write_text("label\n")
    with pytest.raises(TableError, match="no rows"):
        read_inputs(d / "scores.csv", tmp_path / "hdr.csv")


def test_cli_prints_summary(csv_files, capsys):
    d, _ = csv_files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["extrapolate", "--scores", str(d / "scores.csv"), "--labels",
                   str(d / "labels.csv"), "--k-target", "1000", "2000", "--n-subsamples",
                   "5", "--seed", "3", "--plot", str(d / "fit.png"), "--out",
                   str(d / "r.md")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "accuracy(k=1000)" in out and "accuracy(k=2000)" in out and "Back-test" in out
    assert (d / "fit.png").stat().st_size > 0 and (d / "r.md").stat().st_size > 0


def test_cli_old_flag_alias(csv_files, capsys):
    d, _ = csv_files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = main(["extrapolate", "--scores", str(d / "scores_nh.csv"), "--labels",
                   str(d / "idx_nh.csv"), "--no-header", "--to", "1000", "--n-subsamples",
                   "3", "--seed", "1", "--method", "hd", "--format", "markdown"])
    cap = capsys.readouterr()
    assert rc == 0 and "accuracy(k=1000)" in cap.out and "--k-target" in cap.err


def test_cli_bad_labels(csv_files, capsys):
    d, _ = csv_files
    pd.DataFrame({"label": ["nope"] * 300}).to_csv(d / "bad.csv", index=False)
    rc = main(["extrapolate", "--scores", str(d / "scores.csv"), "--labels",
               str(d / "bad.csv"), "--k-target", "200"])
    assert rc == 2 and "bad.csv, row 2, column 'label'" in capsys.readouterr().err


def test_demo_results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = demo_results(fast=True)
    assert len(res) == 1 and isinstance(res[0], AccuracyExtrapolation)
    assert 0 < res[0].estimate < 1
