"""Golden text summaries (broom's ``expect_snapshot``): one seeded result per capability.

A change to what a user reads must be deliberate: review the diff, then refresh with
``pytest tests/test_golden.py --update-golden``.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from _models import MeanReg

import evalstats as es

GOLDEN = Path(__file__).parent / "golden"


def _holdout():
    pool = es.datasets.load("digits_pool")
    return es.error_ci(pool["label"], pool["pred"])


def _budget():
    return es.plan_labels(n_pool=20_000, prevalence=0.03, rule_rate=0.05, half_width=0.02)


def _active():
    sim = es.datasets.load("sim_pool")
    truth = sim["label"].to_numpy()
    return es.active_evaluate(sim["prob"], lambda i: truth[i], n_labels=300, measure="f1",
                              predictions=sim["pred"], rng=1)


def _cv():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 1))
    y = rng.normal(size=40)
    return es.cv_error_ci(MeanReg(), X, y, train_size=10, loss="squared", rng=0,
                          progress=False)


def _extrapolate():
    b = es.datasets.load("sim_multiclass")
    # the NNLS regression: the default (cvxpy) fit's digits depend on the BLAS threads the
    # earlier tests left running (≈ 5e-8), enough to flip a printed digit in some runs
    return es.extrapolate_accuracy(b.scores, b.labels, method="regression",
                                   k_target=[200, 1000], rng=0)


CASES = {"holdout_error_ci": _holdout, "budget_plan_labels": _budget,
         "active_evaluate": _active, "cv_error_ci": _cv,
         "extrapolate_accuracy": _extrapolate}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_summary(name, update_golden):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = str(CASES[name]().summary()).rstrip() + "\n"
    path = GOLDEN / f"{name}.txt"
    if update_golden or not path.exists():
        path.write_text(text)
        if not update_golden:
            pytest.fail(f"{path.name} did not exist; written now — review it and commit it")
    assert _same_up_to_last_digit(text, path.read_text()), (
        f"summary of {name} changed; review `git diff` after `pytest {__file__} "
        "--update-golden`")


_NUMBER = re.compile(r"-?\d+\.(\d+)")


def _same_up_to_last_digit(new: str, old: str) -> bool:
    """Equal text, except that a printed decimal may differ by one unit in its last place.

    A value within 1e-9 of a rounding boundary (a cvxpy fit's back-test bias printed as
    0.003355 or 0.003354 depending on the BLAS threads the earlier tests left) would
    otherwise fail the snapshot; the layout, every word and every other digit must match.
    """
    if new == old:
        return True
    if _NUMBER.sub("#", new) != _NUMBER.sub("#", old):
        return False
    pairs = zip(_NUMBER.finditer(new), _NUMBER.finditer(old), strict=True)
    return all(len(a.group(1)) == len(b.group(1)) and
               abs(float(a.group(0)) - float(b.group(0))) <= 1.01 * 10.0 ** -len(a.group(1))
               for a, b in pairs)


def test_same_up_to_last_digit():
    assert _same_up_to_last_digit("bias 0.003355 w", "bias 0.003354 w")
    assert not _same_up_to_last_digit("bias 0.003356 w", "bias 0.003354 w")
    assert not _same_up_to_last_digit("bias 0.003355 x", "bias 0.003354 w")
    assert not _same_up_to_last_digit("0.10 and 2", "0.10 and 3")
    assert not _same_up_to_last_digit("0.11", "0.10 ")
