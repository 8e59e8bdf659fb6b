"""Replay harness: bad or unusual inputs to the public functions and subcommands outside
active estimation and cross-validation.

Each case feeds NaN, infinity, 1e308, empty or wrongly shaped input, text, negative or
huge sizes, repeated ids, ... and states what must happen:

* ``Err(type, pattern)`` — a ``ValueError``/``TypeError`` (or ``OSError`` for files)
  raised by evalstats itself (never from inside numpy, scipy, pandas or scikit-learn)
  whose message names the argument (```name``` in backticks, or file, row and column);
* ``Ok(check)`` — the right answer, checked against a value computed independently here;
* ``Flagged(warning)`` — a result that carries the warning and a visible mark (``!`` in
  its one-line repr, or notes);

and for every result: no NaN in an estimate or interval that is not flagged. A command
line case gives exit code 2 and ONE line ``evalstats <cmd>: error: ...`` (never a
traceback, never "internal error"), or exit code 0, and a check of the files it leaves
(no label lost). Cases that fail in code owned elsewhere are ``xfail(strict=True)`` with
the reason, so that they turn into failures to un-mark once fixed.
"""

from __future__ import annotations

import itertools
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pytest

import evalstats as es
from evalstats.cli import main

PKG = Path(es.__file__).resolve().parent


class Err(NamedTuple):
    exc: type | tuple[type, ...]
    match: str


class Ok(NamedTuple):
    check: Callable[[Any], bool]


class Flagged(NamedTuple):
    warning: type


def _xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


def _raised_in_evalstats(err: BaseException) -> bool:
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and Path(tb.tb_frame.f_code.co_filename).resolve().is_relative_to(PKG)


def _names_argument(msg: str) -> bool:
    return "`" in msg or re.search(r"rows? \d+.*column '", msg) is not None


def _finite_or_flagged(res: Any) -> None:
    """An estimate or interval that is NaN must come with a mark."""
    if not hasattr(res, "conf_int"):
        return
    values = [getattr(res, "estimate", 0.0), *np.ravel(res.conf_int())]
    nums = np.asarray([v for v in values if isinstance(v, int | float | np.number)], float)
    if not np.all(np.isfinite(nums)):
        assert "!" in repr(res) or getattr(res, "notes", None), f"silent NaN in {res!r}"


# -- reference values computed here, independently ----------------------------------------------

def _auc_brute(y, s) -> float:
    """P(score of a positive > score of a negative) + 0.5 P(tie), over all pairs."""
    pos = [b for a, b in zip(y, s, strict=True) if a == 1]
    neg = [b for a, b in zip(y, s, strict=True) if a == 0]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _average_accuracy_brute(scores: np.ndarray, y: np.ndarray, k: int) -> float:
    """Mean over points and over every set of k-1 wrong classes of 1{true score is the
    largest} (no ties in the scores used here)."""
    n, k1 = scores.shape
    hits = []
    for i in range(n):
        others = [c for c in range(k1) if c != y[i]]
        for sub in itertools.combinations(others, k - 1):
            hits.append(scores[i, y[i]] > scores[i, list(sub)].max())
    return float(np.mean(hits))


_RNG = np.random.default_rng(20260)
_S = _RNG.random((12, 5))           # distinct scores, 5 classes
_Y = np.arange(12) % 5


def _task(i, g):
    return i


# -- the public functions -----------------------------------------------------------------------

API_CASES = [
    # holdout: error_ci
    ("error_ci nan label", lambda: es.error_ci([0, 1, np.nan], [0, 1, 1]),
     Err(ValueError, "`y_true` must be labels without missing values")),
    ("error_ci inf label", lambda: es.error_ci([0, np.inf], [0, 1]),
     Err(ValueError, "`y_true` must be labels without missing values")),
    ("error_ci None label", lambda: es.error_ci([1, None], [1, 1]),
     Err(ValueError, "`y_true` must be labels without missing values")),
    ("error_ci empty", lambda: es.error_ci([], []), Err(ValueError, "`y_true` must be non-empty")),
    ("error_ci lengths", lambda: es.error_ci([0, 1, 1], [0, 1]),
     Err(ValueError, "`y_true` and `y_pred` must have the same length")),
    ("error_ci 2-d", lambda: es.error_ci([[0, 1], [1, 0]], [[0, 1], [1, 0]]),
     Err(ValueError, "`y_true` must be 1-dimensional")),
    ("error_ci scalar", lambda: es.error_ci(1, 1), Err(ValueError, "`y_true` must be 1-dim")),
    ("error_ci dict", lambda: es.error_ci({"a": 1}, {"a": 1}),
     Err(ValueError, "`y_true` must be 1-dim")),
    ("error_ci text vs numbers", lambda: es.error_ci(["1", "0", "1"], [1, 0, 1]),
     Err(TypeError, "`y_pred` must be labels of the same type")),
    ("error_ci scores as predictions", lambda: es.error_ci([1, 0, 1, 1], [0.83, 0.1, 0.6, 0.9]),
     Err(ValueError, "`y_pred` must be class labels, not scores")),
    ("error_ci level text", lambda: es.error_ci([0, 1], [0, 1], confidence_level="0.95"),
     Err(TypeError, "`confidence_level` must be a number")),
    ("error_ci level 95", lambda: es.error_ci([0, 1], [0, 1], confidence_level=95),
     Err(ValueError, r"use 0.95, not 95")),
    ("error_ci level nan", lambda: es.error_ci([0, 1], [0, 1], confidence_level=np.nan),
     Err(ValueError, "`confidence_level` must be a number strictly between 0 and 1")),
    ("error_ci method", lambda: es.error_ci([0, 1], [0, 1], method="foo"),
     Err(ValueError, "`method` must be one of")),
    ("error_ci null inf", lambda: es.error_ci([0, 1], [0, 1], null=np.inf),
     Err(ValueError, "`null` must be a finite number")),
    ("error_ci name int", lambda: es.error_ci([0, 1], [0, 1], name=3),
     Err(TypeError, "`name` must be a str")),
    ("error_ci 1e308 labels", lambda: es.error_ci([1e308, 0.0], [1e308, 0.0]),
     Ok(lambda r: r.estimate == 0.0 and r.n == 2)),
    ("error_ci huge int labels", lambda: es.error_ci([10**30, 0], [10**30, 1]),
     Ok(lambda r: r.estimate == 0.5 and r.n == 2)),
    ("error_ci text labels", lambda: es.error_ci(["a", "b", "a"], ["a", "a", "a"]),
     Ok(lambda r: abs(r.estimate - 1 / 3) < 1e-12)),
    # holdout: loss_ci
    ("loss_ci nan", lambda: es.loss_ci([0.1, np.nan, 0.3]),
     Err(ValueError, "`losses` must be finite")),
    ("loss_ci inf", lambda: es.loss_ci([0.1, np.inf, 0.3]),
     Err(ValueError, "`losses` must be finite")),
    ("loss_ci empty", lambda: es.loss_ci([]), Err(ValueError, "`losses` must be of length")),
    ("loss_ci one value", lambda: es.loss_ci([0.3]), Err(ValueError, "`losses` must be of length")),
    ("loss_ci 2-d", lambda: es.loss_ci([[0.1, 0.2], [0.3, 0.4]]),
     Err(ValueError, "`losses` must be 1-dimensional")),
    ("loss_ci +-1e308", lambda: es.loss_ci([1e308, -1e308, 1e308, 1e308]),
     Err(ValueError, "`losses` must be small enough in magnitude")),
    ("loss_ci huge int", lambda: es.loss_ci([10**400, 1, 2]),
     Err(ValueError, "`losses` must be finite numbers; got an integer too large")),
    ("loss_ci complex", lambda: es.loss_ci(np.array([1 + 1j, 2, 3])),
     Err(TypeError, "`losses` must be array-like of real numbers")),
    ("loss_ci text", lambda: es.loss_ci(["0.1", "0.2", "0.9"]),
     Err(TypeError, "`losses` must be array-like of numbers; got text")),
    ("loss_ci constant", lambda: es.loss_ci([0.3] * 10), Flagged(es.SmallSampleWarning)),
    ("loss_ci right mean", lambda: es.loss_ci([1.0, 2.0, 3.0, 6.0]),
     Ok(lambda r: r.estimate == 3.0)),
    # holdout: auc_ci
    ("auc_ci nan score", lambda: es.auc_ci([0, 1, 0, 1], [0.1, np.nan, 0.3, 0.4]),
     Err(ValueError, "`y_score` must be finite")),
    ("auc_ci inf score", lambda: es.auc_ci([0, 1, 0, 1], [0.1, np.inf, 0.3, 0.4]),
     Err(ValueError, "`y_score` must be finite")),
    ("auc_ci text score", lambda: es.auc_ci([0, 1, 0, 1], ["0.1", "0.2", "0.3", "0.4"]),
     Err(TypeError, "`y_score` must be array-like of numbers; got text")),
    ("auc_ci one class", lambda: es.auc_ci([1, 1, 1], [0.1, 0.2, 0.3]),
     Err(ValueError, "`y_true` must contain both classes")),
    ("auc_ci empty", lambda: es.auc_ci([], []), Err(ValueError, "`y_true` must be non-empty")),
    ("auc_ci lengths", lambda: es.auc_ci([0, 1, 0], [0.1, 0.2]),
     Err(ValueError, "`y_true` and `y_score` must have the same length")),
    ("auc_ci text labels", lambda: es.auc_ci(["a", "b", "a", "b"], [0.1, 0.2, 0.3, 0.4]),
     Err(ValueError, "`y_true` must be binary labels coded 0/1 .or give `pos_label`")),
    ("auc_ci absent pos_label", lambda: es.auc_ci([0, 1, 0, 1], [.1, .2, .3, .4], pos_label=2),
     Err(ValueError, "`pos_label` must be one of the labels")),
    ("auc_ci three classes", lambda: es.auc_ci([0, 1, 2, 1], [0.1, 0.2, 0.3, 0.4]),
     Err(ValueError, "`y_true` must be binary labels")),
    ("auc_ci +-1e308 scores", lambda: es.auc_ci([0, 1, 0, 1], [1e308, -1e308, 0.3, 0.4]),
     Ok(lambda r: r.estimate == _auc_brute([0, 1, 0, 1], [1e308, -1e308, 0.3, 0.4]))),
    ("auc_ci all tied", lambda: es.auc_ci([0, 1, 0, 1], [0.5] * 4),
     Flagged(es.SmallSampleWarning)),
    # budget
    ("plan negative pool", lambda: es.plan_labels(-5, 0.1, 0.1),
     Err(ValueError, "`n_pool` must be an integer in")),
    ("plan pool 1e308", lambda: es.plan_labels(1e308, 0.1, 0.1),
     Err(ValueError, "`n_pool` must be an integer in")),
    ("plan huge pool", lambda: es.plan_labels(10**30, 0.1, 0.1),
     Err(ValueError, "`n_pool` must be an integer in")),
    ("plan pool text", lambda: es.plan_labels("1000", 0.1, 0.1),
     Err(TypeError, "`n_pool` must be an integer")),
    ("plan pool bool", lambda: es.plan_labels(True, 0.1, 0.1),
     Err(TypeError, "`n_pool` must be an integer")),
    ("plan prevalence nan", lambda: es.plan_labels(1000, np.nan, 0.1),
     Err(ValueError, "`prevalence` must be a finite number in .0, 1.")),
    ("plan prevalence 0", lambda: es.plan_labels(1000, 0.0, 0.1),
     Err(ValueError, "`prevalence` must be a finite number in .0, 1.")),
    ("plan half_width 0", lambda: es.plan_labels(1000, 0.1, 0.1, half_width=0),
     Err(ValueError, "`half_width` must be a finite number")),
    ("plan half_width nan", lambda: es.plan_labels(1000, 0.1, 0.1, half_width=np.nan),
     Err(ValueError, "`half_width` must be a finite number")),
    ("plan unknown measure", lambda: es.plan_labels(1000, 0.1, 0.1, measures=["foo"]),
     Err(ValueError, "`measures` must be one of")),
    ("plan no measure", lambda: es.plan_labels(1000, 0.1, 0.1, measures=[]),
     Err(ValueError, "`measures` must be a non-empty subset")),
    ("plan max_labels negative", lambda: es.plan_labels(1000, 0.1, 0.1, max_labels=-1),
     Err(ValueError, "`max_labels` must be an integer >= 1")),
    ("plan n_rules 0", lambda: es.plan_labels(1000, 0.1, 0.1, n_rules=0),
     Err(ValueError, "`n_rules` must be an integer >= 1")),
    ("plan one measure as text", lambda: es.plan_labels(20000, 0.04, 0.05, measures="precision"),
     Ok(lambda r: r.n_total == es.plan_labels(20000, 0.04, 0.05,
                                              measures=["precision"]).n_total)),
    ("bound negative pool",
     lambda: es.bernstein_bound("precision", n_pool=-1, prevalence=0.1, rule_rate=0.1),
     Err(ValueError, "`n_pool` must be an integer in")),
    ("bound unknown measure",
     lambda: es.bernstein_bound("foo", n_pool=100, prevalence=0.1, rule_rate=0.1),
     Err(ValueError, "`measure` must be one of")),
    ("bound prevalence nan",
     lambda: es.bernstein_bound("precision", n_pool=100, prevalence=np.nan, rule_rate=0.1),
     Err(ValueError, "`prevalence` must be a finite number")),
    ("bound negative labels",
     lambda: es.bernstein_bound("precision", n_pool=100, prevalence=0.1, rule_rate=0.1,
                                n_labeled_positive=-3),
     Err(ValueError, "`n_labeled_positive` must be an integer in")),
    ("bound more labels than positives",
     lambda: es.bernstein_bound("precision", n_pool=100, prevalence=0.1, rule_rate=0.1,
                                n_labeled_positive=300),
     Err(ValueError, "`n_labeled_positive` must be an integer in")),
    ("bound delta 0",
     lambda: es.bernstein_bound("precision", n_pool=100, prevalence=0.1, rule_rate=0.1,
                                delta=0),
     Err(ValueError, "`delta` must be a finite number")),
    ("tradeoff prevalence nan", lambda: es.tradeoff(np.nan, 0.1),
     Err(ValueError, "`prevalence` must be a finite number")),
    ("tradeoff negative rate", lambda: es.tradeoff(0.1, -0.1),
     Err(ValueError, "`rule_rate` must be a finite number")),
    ("tradeoff pool without labels", lambda: es.tradeoff(0.1, 0.1, n_pool=1e308),
     Err(ValueError, "`n_labels` must be given together with `n_pool`")),
    ("tradeoff unknown cost", lambda: es.tradeoff(0.1, 0.1, costs={"x": 1}),
     Err(ValueError, "`costs key` must be one of")),
    # extrapolate
    ("extrapolate nan scores",
     lambda: es.extrapolate_accuracy(np.full((20, 5), np.nan), np.arange(20) % 5, k_target=10),
     Err(ValueError, "`scores` must be free of NaN")),
    ("extrapolate +inf score",
     lambda: es.extrapolate_accuracy(np.where(np.eye(20, 5) > 0, np.inf, 0.5),
                                     np.arange(20) % 5, k_target=10),
     Err(ValueError, "`scores` must be free of NaN and \\+inf")),
    ("extrapolate lengths",
     lambda: es.extrapolate_accuracy(_S, _Y[:-1], k_target=10),
     Err(ValueError, "`scores` and `y` must have the same length")),
    ("extrapolate 1-d scores",
     lambda: es.extrapolate_accuracy(_S[:, 0], _Y, k_target=10),
     Err(ValueError, "`scores` must be 2-dimensional")),
    ("extrapolate empty",
     lambda: es.extrapolate_accuracy(np.zeros((0, 5)), np.zeros(0, int), k_target=10),
     Err(ValueError, "`scores` must be of length >= 1")),
    ("extrapolate negative k", lambda: es.extrapolate_accuracy(_S, _Y, k_target=-3),
     Err(ValueError, "`k_target` must be an integer >= 2")),
    ("extrapolate huge k", lambda: es.extrapolate_accuracy(_S, _Y, k_target=10**30),
     Err(ValueError, "`k_target` must be an integer >= 2")),
    ("extrapolate labels out of range",
     lambda: es.extrapolate_accuracy(_S, np.arange(12), k_target=10),
     Err(ValueError, "`y` must be column indices in")),
    ("extrapolate text labels",
     lambda: es.extrapolate_accuracy(_S, np.array(list("abcde") * 3)[:12], k_target=10),
     Err(TypeError, "`y` must be integer column indices")),
    ("extrapolate nan labels",
     lambda: es.extrapolate_accuracy(_S, np.where(_Y == 0, np.nan, _Y), k_target=10),
     Err(ValueError, "`y` must be integer column indices")),
    ("extrapolate repeated classes",
     lambda: es.extrapolate_accuracy(_S, np.array(list("aabbcc") * 2), classes=list("aabbc"),
                                     k_target=10),
     Err(ValueError, "`classes` must be distinct class labels")),
    ("extrapolate n_subsamples -1",
     lambda: es.extrapolate_accuracy(_S, _Y, k_target=10, n_subsamples=-1),
     Err(ValueError, "`n_subsamples` must be an integer >= 0")),
    ("extrapolate level 2",
     lambda: es.extrapolate_accuracy(_S, _Y, k_target=10, confidence_level=2),
     Err(ValueError, "`confidence_level` must be a number strictly between 0 and 1")),
    ("extrapolate method", lambda: es.extrapolate_accuracy(_S, _Y, "foo", k_target=10),
     Err(ValueError, "`method` must be one of")),
    ("average_accuracy k 0", lambda: es.average_accuracy(_S, _Y, k=0),
     Err(ValueError, "`k` must be integers in")),
    ("average_accuracy k above k1", lambda: es.average_accuracy(_S, _Y, k=50),
     Err(ValueError, "`k` must be integers in")),
    ("average_accuracy k text", lambda: es.average_accuracy(_S, _Y, k="3"),
     Err(TypeError, "`k` must be an integer")),
    ("average_accuracy 1e308 scores (brute force)",
     lambda: es.average_accuracy(_S * 1e308, _Y, k=[2, 3, 4]),
     Ok(lambda r: np.allclose(r, [_average_accuracy_brute(_S, _Y, k) for k in (2, 3, 4)],
                              rtol=0, atol=1e-12))),
    ("true_class_rank nan", lambda: es.true_class_rank(np.full((4, 3), np.nan), [0, 1, 2, 0]),
     Err(ValueError, "`scores` must be free of NaN")),
    ("average_risk k 0", lambda: es.average_risk(_S, _Y, 0), Err(ValueError, "`k` must be")),
    # datasets
    ("datasets unknown name", lambda: es.datasets.load("nope"),
     Err(ValueError, "`name` must be one of")),
    ("datasets name int", lambda: es.datasets.load(3), Err((TypeError, ValueError), "`name`")),
    ("datasets empty name", lambda: es.datasets.load(""), Err(ValueError, "`name` must be")),
    ("datasets data_home int", lambda: es.datasets.load("spambase", data_home=3),
     Err(TypeError, "`data_home`")),
    ("datasets download text", lambda: es.datasets.load("sim_pool", download="yes"),
     Err(TypeError, "`download`")),
    # the shared parallel map
    ("map_replicates n -1", lambda: es.map_replicates(_task, -1),
     Err(ValueError, "`n` must be an integer >= 0; got -1")),
    ("map_replicates n 2.5", lambda: es.map_replicates(_task, 2.5),
     Err(TypeError, "`n` must be an integer")),
    ("map_replicates n text", lambda: es.map_replicates(_task, "3"),
     Err(TypeError, "`n` must be an integer")),
    ("map_replicates n huge", lambda: es.map_replicates(_task, 10**30),
     Err(ValueError, "`n` must be a number of tasks a list can hold")),
    ("map_replicates fn", lambda: es.map_replicates(3, 2),
     Err(TypeError, "`fn` must be a callable")),
    ("map_replicates progress", lambda: es.map_replicates(_task, 2, progress="yes"),
     Err(TypeError, "`progress` must be None, True or False")),
    ("map_replicates desc", lambda: es.map_replicates(_task, 2, desc=3),
     Err(TypeError, "`desc` must be None or a str")),
    ("map_replicates n_jobs 0", lambda: es.map_replicates(_task, 2, n_jobs=0),
     Err(ValueError, "`n_jobs` must be None, a positive int")),
    ("map_replicates rng -1", lambda: es.map_replicates(_task, 2, rng=-1),
     Err(ValueError, "`rng` must be None, a non-negative int seed")),
    ("map_replicates rng float", lambda: es.map_replicates(_task, 2, rng=1.5),
     Err(TypeError, "`rng` must be None, a non-negative int seed")),
    ("map_replicates n 0", lambda: es.map_replicates(_task, 0), Ok(lambda r: r == [])),
    ("map_replicates n 3.0", lambda: es.map_replicates(_task, 3.0), Ok(lambda r: r == [0, 1, 2])),
]


def _params(cases: list) -> list:
    """``(id, *values)`` tuples, or ``pytest.param``s with marks, as parameters with ids."""
    out = []
    for c in cases:
        values, marks = (c.values, c.marks) if hasattr(c, "marks") else (c, ())
        out.append(pytest.param(*values[1:], id=values[0], marks=marks))
    return out


@pytest.mark.parametrize("call, expect", _params(API_CASES))
def test_api_case(call, expect):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
        except Exception as err:  # noqa: BLE001 - every exception is judged below
            assert isinstance(expect, Err), f"unexpected {type(err).__name__}: {err}"
            assert isinstance(err, expect.exc), f"{type(err).__name__}: {err}"
            assert _raised_in_evalstats(err), f"raised inside a dependency: {err!r}"
            assert _names_argument(str(err)), f"names no argument: {err}"
            assert re.search(expect.match, str(err)), str(err)
            return
    assert not isinstance(expect, Err), f"no error; got {result!r}"
    if isinstance(expect, Flagged):
        assert any(issubclass(w.category, expect.warning) for w in caught)
        assert "!" in repr(result) or getattr(result, "notes", None)
    else:
        assert expect.check(result), repr(result)
    _finite_or_flagged(result)


def test_the_harness_can_fail():
    """The judge refuses what it must: a numpy error, an unnamed argument, a silent NaN."""
    with pytest.raises(ValueError) as info:
        np.zeros(2).reshape(3)
    assert not _raised_in_evalstats(info.value)
    assert not _names_argument("cannot reshape array of size 2 into shape (3,)")
    silent = type("R", (), {"estimate": float("nan"), "notes": (),
                            "conf_int": lambda self: (0.0, 1.0)})()
    with pytest.raises(AssertionError, match="silent NaN"):
        _finite_or_flagged(silent)


# -- the command line ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Pools, designs, labels and score files, good and bad, written once."""
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(11)
    n = 200
    p = np.round(rng.beta(0.7, 0.7, n), 6)
    pool = pd.DataFrame({"id": [f"{i:05d}" for i in range(n)], "prob": p,
                         "pred": (p > 0.5).astype(int), "y": (rng.random(n) < p).astype(int)})
    pool.to_csv(d / "pool.csv", index=False)
    pool.assign(prob=pool["prob"].where(pool.index != 3, np.nan)).to_csv(d / "pool_nan.csv",
                                                                          index=False)
    pool.assign(prob=pool["prob"].where(pool.index != 3, 1e308)).to_csv(d / "pool_big.csv",
                                                                        index=False)
    pool.assign(prob=pool["prob"].astype(str).where(pool.index != 7, "0,5")).to_csv(
        d / "pool_comma.csv", index=False)
    pool.assign(id=pool["id"].where(pool.index != 9, "00001")).to_csv(d / "pool_dup.csv",
                                                                      index=False)
    pool.assign(id=pool["id"].where(pool.index != 9, "1")).to_csv(d / "pool_alike.csv",
                                                                  index=False)
    (d / "empty.csv").write_text("")
    (d / "header.csv").write_text("id,prob,pred\n")
    (d / "binary.csv").write_bytes(bytes(range(256)) * 8)
    assert main(["sample", "--pool", str(d / "pool.csv"), "--score-col", "prob", "--pred-col",
                 "pred", "--id-col", "id", "--n-labels", "50", "--seed", "2", "--out",
                 str(d / "design.csv")]) == 0
    design = pd.read_csv(d / "design.csv", dtype={"id": str}, keep_default_na=False)
    truth = pool.set_index("id")["y"].loc[design["id"]].to_numpy()
    design.assign(label=truth).to_csv(d / "labeled.csv", index=False)
    design.assign(label=design["pred"].astype(int)).to_csv(d / "copied.csv", index=False)
    design.assign(label=np.where(np.arange(len(design)) == 4, 2, truth)).to_csv(
        d / "label2.csv", index=False)
    pd.DataFrame({"id": design["id"], "label": truth}).to_csv(d / "labels.csv", index=False)
    pd.DataFrame({"id": [*design["id"], design["id"].iloc[3]], "label": [*truth, 1]}).to_csv(
        d / "labels_dup.csv", index=False)
    pd.DataFrame({"id": design["id"], "label": np.where(np.arange(len(design)) == 2, "yes",
                                                        truth.astype(str))}).to_csv(
        d / "labels_text.csv", index=False)
    pd.DataFrame({"id": design["id"].str.lstrip("0").replace("", "0"), "label": truth}).to_csv(
        d / "labels_unpadded.csv", index=False)
    _na_design(d, pool)
    scores = rng.random((30, 6))
    pd.DataFrame(scores, columns=list("abcdef")).to_csv(d / "scores.csv", index=False)
    pd.DataFrame(scores * 1e308, columns=list("abcdef")).to_csv(d / "scores_big.csv",
                                                                index=False)
    pd.DataFrame(np.where(np.eye(30, 6) > 0, np.nan, scores), columns=list("abcdef")).to_csv(
        d / "scores_nan.csv", index=False)
    pd.DataFrame({"label": list("abcdef" * 5)}).to_csv(d / "classes.csv", index=False)
    return d


def _na_design(d: Path, pool: pd.DataFrame) -> None:
    """A 20-item pool, every item sampled, one of them with the id ``NA``."""
    small = pool.iloc[:20].assign(id=lambda f: f["id"].where(f.index != 5, "NA"))
    small.to_csv(d / "pool_na.csv", index=False)
    assert main(["sample", "--pool", str(d / "pool_na.csv"), "--score-col", "prob",
                 "--pred-col", "pred", "--id-col", "id", "--n-labels", "20", "--seed", "2",
                 "--out", str(d / "design_na.csv")]) == 0
    design = pd.read_csv(d / "design_na.csv", dtype={"id": str}, keep_default_na=False)
    truth = small.set_index("id")["y"].loc[design["id"]].to_numpy()
    design.assign(label=truth).to_csv(d / "labeled_na.csv", index=False)


def _same_bytes(name: str, other: str) -> Callable[[Path], bool]:
    return lambda d: (d / name).read_bytes() == (d / other).read_bytes()


PLAN = ["plan", "--n-pool", "20000", "--prevalence", "0.04", "--rule-rate", "0.05",
        "--half-width", "0.05"]
EXTRA = ["extrapolate", "--scores", "{d}/scores.csv", "--labels", "{d}/classes.csv",
         "--k-target", "12", "--n-subsamples", "2", "--method", "naive", "--seed", "1"]
SAMPLE = ["sample", "--pool", "{d}/pool.csv", "--score-col", "prob", "--pred-col", "pred",
          "--id-col", "id", "--n-labels", "20", "--seed", "1", "--out", "{d}/out.csv"]


def _swap(argv: list[str], flag: str, value: str) -> list[str]:
    i = argv.index(flag)
    return [*argv[:i + 1], value, *argv[i + 2:]]


CLI_CASES = [
    # plan
    ("plan negative pool", _swap(PLAN, "--n-pool", "-5"), 2, "`--n-pool` must be an integer"),
    ("plan pool 1e308", _swap(PLAN, "--n-pool", "1e308"), 2, "`--n-pool` must be an integer"),
    ("plan huge pool", _swap(PLAN, "--n-pool", "9" * 30), 2, "`--n-pool` must be an integer"),
    ("plan prevalence nan", _swap(PLAN, "--prevalence", "nan"), 2, "`--prevalence` must be"),
    ("plan half-width inf", _swap(PLAN, "--half-width", "inf"), 2, "`--half-width` must be"),
    ("plan level 95", [*PLAN, "--confidence-level", "95"], 2, "use 0.95, not 95"),
    ("plan unknown measure", [*PLAN, "--measures", "foo"], 2, "`--measures` must be one of"),
    ("plan no measure", [*PLAN, "--measures", ""], 2, "`--measures` must be a non-empty"),
    ("plan max-labels negative", [*PLAN, "--max-labels", "-4"], 2, "`--max-labels` must be"),
    ("plan out suffix", [*PLAN, "--out", "{d}/x.exe"], 2, "`--out` must be a report file"),
    ("plan out folder", [*PLAN, "--out", "{d}/nodir/x.html"], 2, "an existing folder"),
    # extrapolate
    ("extrapolate k 1", _swap(EXTRA, "--k-target", "1"), 2, "`--k-target` must be an integer"),
    ("extrapolate k negative", _swap(EXTRA, "--k-target", "-5"), 2, "`--k-target` must be"),
    ("extrapolate k huge", _swap(EXTRA, "--k-target", "9" * 30), 2, "`--k-target` must be"),
    ("extrapolate nan score", _swap(EXTRA, "--scores", "{d}/scores_nan.csv"), 2,
     r"scores_nan.csv, row 2, column 'a': expected a score"),
    ("extrapolate 1e308 scores", _swap(EXTRA, "--scores", "{d}/scores_big.csv"), 0, ""),
    ("extrapolate empty file", _swap(EXTRA, "--scores", "{d}/empty.csv"), 2,
     "empty.csv: the scores file is empty"),
    ("extrapolate missing file", _swap(EXTRA, "--scores", "{d}/nofile.csv"), 2,
     "does not exist"),
    ("extrapolate binary file", _swap(EXTRA, "--scores", "{d}/binary.csv"), 2, "binary.csv"),
    ("extrapolate n-subsamples -1", _swap(EXTRA, "--n-subsamples", "-1"), 2,
     "`--n-subsamples` must be an integer >= 0"),
    ("extrapolate label column", [*EXTRA, "--label-column", "nope"], 2,
     "lacks column.s. 'nope'"),
    ("extrapolate n-jobs 0", [*EXTRA, "--n-jobs", "0"], 2, "`--n-jobs` must be None"),
    ("extrapolate plot suffix", [*EXTRA, "--plot", "{d}/a.xyz"], 2, "`--plot` must be an image"),
    # demo
    ("demo out suffix", ["demo", "--fast", "--out", "{d}/r.exe"], 2, "`--out` must be a report"),
    ("demo negative seed", ["demo", "--fast", "--seed", "-3"], 2, "`--seed` must be"),
    # sample
    ("sample nan score", _swap(SAMPLE, "--pool", "{d}/pool_nan.csv"), 2,
     "pool_nan.csv, row 5, column 'prob': expected a probability in"),
    ("sample 1e308 score", _swap(SAMPLE, "--pool", "{d}/pool_big.csv"), 2,
     "pool_big.csv, row 5, column 'prob': expected a probability in"),
    ("sample decimal comma", _swap(SAMPLE, "--pool", "{d}/pool_comma.csv"), 2,
     "pool_comma.csv, row 9, column 'prob'"),
    ("sample repeated id", _swap(SAMPLE, "--pool", "{d}/pool_dup.csv"), 2,
     "pool_dup.csv, rows 3 and 11, column 'id': expected a unique identifier"),
    ("sample look-alike id", _swap(SAMPLE, "--pool", "{d}/pool_alike.csv"), 2,
     "rows 3 and 11, column 'id'.*'00001' and '1', the same identifier written differently"),
    ("sample empty pool", _swap(SAMPLE, "--pool", "{d}/empty.csv"), 2, "the pool is empty"),
    ("sample header only", _swap(SAMPLE, "--pool", "{d}/header.csv"), 2,
     "header.csv: the pool has a header but no rows"),
    ("sample binary pool", _swap(SAMPLE, "--pool", "{d}/binary.csv"), 2, "binary.csv"),
    ("sample missing column", _swap(SAMPLE, "--score-col", "p"), 2, "lacks column.s. 'p'"),
    ("sample n-labels 0", _swap(SAMPLE, "--n-labels", "0"), 2, "`--n-labels` must be"),
    ("sample n-labels negative", _swap(SAMPLE, "--n-labels", "-4"), 2, "`--n-labels` must be"),
    ("sample n-labels huge", _swap(SAMPLE, "--n-labels", "9" * 30), 2,
     "`--n-labels` must be at most the pool size 200"),
    ("sample n-labels above pool", _swap(SAMPLE, "--n-labels", "201"), 2,
     "`--n-labels` must be at most the pool size"),
    ("sample epsilon nan", [*SAMPLE, "--epsilon", "nan"], 2, "`--epsilon` must be"),
    ("sample beta negative", [*SAMPLE, "--measure", "fbeta", "--beta", "-1"], 2,
     "`--beta` must be"),
    ("sample alpha inf", [*SAMPLE, "--alpha", "inf"], 2, "`--alpha` must be"),
    ("sample seed negative", _swap(SAMPLE, "--seed", "-1"), 2, "`--seed` must be"),
    ("sample id is the score", _swap(SAMPLE, "--id-col", "prob"), 2, "`--id-col` must be"),
    ("sample out is the pool", _swap(SAMPLE, "--out", "{d}/pool.csv"), 2, "--pool"),
    ("sample out holds labels", _swap(SAMPLE, "--out", "{d}/labeled.csv"), 2,
     r"labeled.csv' already exists and holds 50 label\(s\) in column 'label'"),
    ("sample out is a labels file", _swap(SAMPLE, "--out", "{d}/labels.csv"), 2,
     r"holds 50 label\(s\)"),
    ("sample keeps text ids", SAMPLE, 0, ""),
    # estimate
    ("estimate labels in the design", ["estimate", "--design", "{d}/labeled.csv"], 0, ""),
    ("estimate labels file", ["estimate", "--design", "{d}/design.csv", "--labels",
                              "{d}/labels.csv"], 0, ""),
    ("estimate ids written as numbers", ["estimate", "--design", "{d}/design.csv", "--labels",
                                         "{d}/labels_unpadded.csv"], 0, ""),
    ("estimate missing design", ["estimate", "--design", "{d}/nofile.csv"], 2,
     "does not exist"),
    ("estimate empty design", ["estimate", "--design", "{d}/empty.csv"], 2,
     "empty.csv: the design is empty"),
    ("estimate binary design", ["estimate", "--design", "{d}/binary.csv"], 2, "binary.csv"),
    ("estimate pool as design", ["estimate", "--design", "{d}/pool.csv", "--label-col", "y"],
     2, "not a design written by `evalstats sample`"),
    ("estimate level 95", ["estimate", "--design", "{d}/labeled.csv", "--confidence-level",
                           "95"], 2, "use 0.95, not 95"),
    ("estimate level nan", ["estimate", "--design", "{d}/labeled.csv", "--confidence-level",
                            "nan"], 2, "`--confidence-level` must be"),
    ("estimate label-col pred", ["estimate", "--design", "{d}/labeled.csv", "--label-col",
                                 "pred"], 2, "scored against itself"),
    ("estimate label-col score", ["estimate", "--design", "{d}/labeled.csv", "--label-col",
                                  "score"], 2, "the model's score column"),
    ("estimate label-col id", ["estimate", "--design", "{d}/labeled.csv", "--label-col", "id"],
     2, "the design's id column"),
    ("estimate label-col is id-col", ["estimate", "--design", "{d}/design.csv", "--labels",
                                      "{d}/labels.csv", "--label-col", "id"], 2,
     "`--label-col` must be a column other than --id-col"),
    ("estimate copied predictions", ["estimate", "--design", "{d}/copied.csv"], 2,
     "not a copy of the predictions"),
    ("estimate missing label column", ["estimate", "--design", "{d}/design.csv"], 2,
     "lacks column.s. 'label'"),
    ("estimate label 2", ["estimate", "--design", "{d}/label2.csv"], 2,
     "label2.csv, row 6, column 'label': expected 0 or 1"),
    ("estimate text label", ["estimate", "--design", "{d}/design.csv", "--labels",
                             "{d}/labels_text.csv"], 2,
     "labels_text.csv, row 4, column 'label': expected numeric labels"),
    ("estimate repeated label id", ["estimate", "--design", "{d}/design.csv", "--labels",
                                    "{d}/labels_dup.csv"], 2,
     "labels_dup.csv, rows 5 and 52, column 'id'"),
    ("estimate id NA", ["estimate", "--design", "{d}/labeled_na.csv"], 0, ""),
]

#: what must hold of the files after the command
AFTER = {
    "sample out holds labels": lambda d: "label" in pd.read_csv(d / "labeled.csv").columns,
    "sample out is a labels file": lambda d: len(pd.read_csv(d / "labels.csv")) == 50,
    "sample out is the pool": lambda d: "y" in pd.read_csv(d / "pool.csv").columns,
    "sample keeps text ids": lambda d: set(pd.read_csv(d / "out.csv", dtype=str)["id"]) <= set(
        pd.read_csv(d / "pool.csv", dtype=str)["id"]),
}


@pytest.mark.parametrize("argv, rc, match", _params(CLI_CASES))
def test_cli_case(files, capsys, request, argv, rc, match):
    name = request.node.callspec.id
    got = main([a.replace("{d}", str(files)) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    assert got == rc, err
    if rc == 2:
        line = err.splitlines()[-1]
        cmd = argv[0]
        assert line.startswith(f"evalstats {cmd}: error: "), err
        assert re.search(match, line), line
        assert err.count(f"evalstats {cmd}: error:") == 1
    if name in AFTER:
        assert AFTER[name](files), f"files changed by {name}"
