"""The NPMLE option (``method="npmle"``) at its edges, and the solver's feasibility check."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from evalstats._warnings import ConvergenceError
from evalstats.extrapolate import average_accuracy, extrapolate_accuracy
from evalstats.extrapolate._solvers import MAX_VIOLATION, _violation, solve_checked


def _fit(S, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return extrapolate_accuracy(S, y, method="npmle", **kw)


def test_all_tied_scores_follow_chance():
    """Every score equal: with random tie-breaking the accuracy at k classes is exactly 1/k
    (closed form: the true class wins a k-way tie with probability 1/k). The likelihood
    used the mid-rank b + t//2 and predicted a flat 0.025 at k = 80 and 400."""
    k1 = 40
    y = np.repeat(np.arange(k1), 5)
    S = np.zeros((len(y), k1))
    f = _fit(S, y, k_target=[80], n_subsamples=6, rng=0)
    p = f.predict([40, 80])
    assert p.accuracy.iloc[0] == pytest.approx(1 / 40, rel=1e-6)      # observed, 1/k1
    assert p.accuracy.iloc[1] == pytest.approx(1 / 80, rel=0.05)      # was 0.025 (1/40)


def test_perfect_classifier_is_not_turned_into_garbage():
    """Observed accuracy 1 at every k ≤ k1: the constraint Σ w u^(k1−1) = 1 lies beyond the
    grid's top node; the solver reported 'optimal' with weights summing to 6.6e9 and the fit
    predicted 0.22 at k1 (observed 1.0). Now the target is the grid's reach."""
    rng = np.random.default_rng(0)
    k1 = 12
    y = np.repeat(np.arange(k1), 2)
    S = rng.normal(size=(len(y), k1))
    S[np.arange(len(y)), y] = 10
    assert average_accuracy(S, y, k=[k1])[0] == 1.0
    f = _fit(S, y, k_target=[24], n_subsamples=4, rng=0)
    p = f.predict([2, 12, 24])
    assert np.all(p.accuracy > 0.999)


def test_solution_violating_a_constraint_is_refused():
    """A 'solution' is checked against the constraints, not only the solver's status."""
    import cvxpy as cp

    x = cp.Variable(3, nonneg=True)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(x)), [cp.sum(x) == 1])
    x.value = np.array([1.0, 1.0, 1.0])                 # sum 3: violated by 2
    assert _violation(prob) == pytest.approx(2.0)
    value, status = solve_checked(prob, x, "toy")       # a real solve passes the check
    assert value.sum() == pytest.approx(1.0, abs=MAX_VIOLATION)
    infeasible = cp.Problem(cp.Minimize(cp.sum(x)), [cp.sum(x) == 1, x[0] >= 2])
    with pytest.raises(ConvergenceError, match="toy"):
        solve_checked(infeasible, x, "toy")
