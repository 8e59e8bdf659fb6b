"""The command line reaches active estimation through public names only, and those names
(:func:`check_labels`, :func:`design_columns`) do what the CLI needs of them."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalstats as es
from evalstats.active import (
    active_design,
    check_labels,
    design_columns,
    estimate_from_labels,
    read_design,
)
from evalstats.cli import main

CLI = Path(es.__file__).parent / "cli"
CAPABILITIES = ("active", "budget", "cv_variance", "extrapolate", "holdout")


@pytest.fixture(scope="module")
def pool():
    return es.datasets.load("sim_pool")


@pytest.fixture(scope="module")
def design(pool):
    return active_design(pool["prob"], 60, "f1", rng=5, predictions=pool["pred"])


def _private_capability_imports(path: Path) -> list[str]:
    """``from ..<capability>._private import ...`` (or ``evalstats.<cap>._x``) in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] == "evalstats":
                parts = parts[1:]
            if len(parts) >= 2 and parts[0] in CAPABILITIES and parts[1].startswith("_"):
                found.append(f"{path.name}:{node.lineno}: {node.module}")
    return found


def test_the_cli_imports_no_private_module_of_a_capability():
    found = [hit for f in sorted(CLI.glob("*.py")) for hit in _private_capability_imports(f)]
    assert not found, "\n".join(found)


def test_the_import_check_finds_a_private_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from ..active._labels_io import design_and_labels\n"
                   "from ..active import read_design\n")
    assert _private_capability_imports(bad) == ["bad.py:1: active._labels_io"]


def test_check_labels_matches_labels_to_the_design_rows(pool, design):
    truth = pool["label"].to_numpy()
    shuffled = design.sample(frac=1.0, random_state=0)           # rows re-sorted by hand
    ids = shuffled["id"].to_numpy()[:40]
    labels = pd.DataFrame({"id": ids, "label": truth[ids]})
    table = check_labels(shuffled, labels)
    # written order restored, each row's label is the true label of its id, others NaN
    assert list(table["id"]) == list(design["id"])
    got = table["label"].to_numpy(float)
    expect = np.where(np.isin(design["id"], ids), truth[design["id"]], np.nan)
    np.testing.assert_array_equal(got, expect)
    assert any("re-sorted" in n for n in table.attrs["notes"])
    assert "label" not in design.columns                          # the input is not changed


def test_check_labels_drops_added_columns_and_reads_a_path(pool, design, tmp_path):
    truth = pool["label"].to_numpy()
    filled = design.assign(label=truth[design["id"]], reviewer="ann")
    path = tmp_path / "d.csv"
    filled.to_csv(path, index=False)
    table = check_labels(path, read_design(path)[["id", "label"]], require_seal=True)
    assert "reviewer" not in table.columns
    assert set(table.columns) - {"label"} <= design_columns(design)
    np.testing.assert_array_equal(table["label"], truth[design["id"]].astype(float))


def test_check_labels_refuses_what_estimate_from_labels_refuses(pool, design):
    y = pool["label"].to_numpy()[design["id"]].astype(float)
    y[3] = 2.0
    with pytest.raises(ValueError, match=r"row 5 \(id \d+\): expected 0 or 1.*got 2"):
        check_labels(design, y)
    with pytest.raises(ValueError, match=r"row 5 \(id \d+\): expected 0 or 1.*got 2"):
        estimate_from_labels(design, y)
    edited = design.copy()
    edited.loc[5, "score"] = 0.5
    with pytest.raises(ValueError, match="row 7, column 'score'"):
        check_labels(edited, pool["label"].to_numpy()[design["id"]])
    with pytest.raises(ValueError, match="integrity"):
        check_labels(design.drop(columns="design_check"), y, require_seal=True)


def test_design_columns_reads_the_seal(design):
    own = design_columns(design.head(1))
    assert own == set(design.columns)
    assert {"id", "score", "pred", "design_check", "sealed_columns"} <= own
    assert design_columns(design.assign(label=1).head(1)) == own   # added: not its own
    assert design_columns(pd.DataFrame({"id": [1], "label": [0]})) is None
    assert design_columns(design.head(0)) is None


def sampled_design(pool: pd.DataFrame, folder: Path, seed: int) -> tuple[Path, pd.DataFrame]:
    """`evalstats sample` of 80 items from ``pool`` into ``folder``: the file and its table."""
    pool_path, out = folder / "pool.csv", folder / "d.csv"
    pool[["id", "prob", "pred"]].to_csv(pool_path, index=False)
    assert main(["sample", "--pool", str(pool_path), "--score-col", "prob", "--pred-col",
                 "pred", "--n-labels", "80", "--seed", str(seed), "--out", str(out)]) == 0
    return out, read_design(out)


def test_cli_still_refuses_predictions_given_as_labels(pool, tmp_path, capsys):
    out, d = sampled_design(pool, tmp_path, seed=2)
    d.assign(label=d["pred"]).to_csv(out, index=False)
    capsys.readouterr()
    assert main(["estimate", "--design", str(out)]) == 2
    assert "copy of the predictions" in capsys.readouterr().err
    assert main(["estimate", "--design", str(out), "--allow-identical-labels"]) == 0
