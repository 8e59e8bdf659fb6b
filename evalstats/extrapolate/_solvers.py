"""Solvers that never crash: NNLS with an iteration cap and a fallback, checked cvxpy solves.

Private to :mod:`evalstats.extrapolate`. Every solver returns ``(solution, status)``; a
status other than ``"optimal"`` is reported in the result's notes by the caller. An outright
failure raises :class:`~evalstats._warnings.ConvergenceError` (the caller records it as a
failed candidate).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import optimize

from .._warnings import ConvergenceError

NNLS_MAXITER_FACTOR = 50


def nnls_safe(A: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    """``min ||A b - y||, b >= 0``: scipy ``nnls`` with ``maxiter = 50 n``; if it stops at
    the cap (``RuntimeError``), bounded-variable least squares (``lsq_linear``, BVLS)."""
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(y))):
        raise ConvergenceError("non-finite values in the least-squares problem.")
    try:
        beta, _ = optimize.nnls(A, y, maxiter=NNLS_MAXITER_FACTOR * A.shape[1])
        return beta, "optimal"
    except RuntimeError:
        pass
    res = optimize.lsq_linear(A, y, bounds=(0.0, np.inf), method="bvls", max_iter=10_000)
    if res.x is None or not np.all(np.isfinite(res.x)):
        raise ConvergenceError("nnls reached its iteration cap and lsq_linear failed.")
    return np.maximum(res.x, 0.0), "nnls_fallback_lsq_linear" + ("" if res.success
                                                                   else "_inaccurate")


def nnls_capped(H: np.ndarray, y: np.ndarray, closed: bool = False) -> tuple[np.ndarray, str]:
    """min ||H b - y|| s.t. b >= 0, sum(b) <= 1 (D(1) <= 1), by NNLS; with ``closed``,
    ``sum(b) = 1`` (D(1) = 1: no test point is recognised with certainty at every k).

    If the plain NNLS solution violates the cap, the constraint is active at the optimum of
    this convex problem, and ``sum(b) = 1`` is imposed by a heavily weighted extra row.
    """
    beta, status = nnls_safe(H, y)
    if closed or beta.sum() > 1.0 + 1e-9:
        w = 1e3 * max(1.0, float(np.abs(H).max()))
        A = np.vstack([H, w * np.ones(H.shape[1])])
        beta, status2 = nnls_safe(A, np.append(y, w))
        beta = beta / (beta.sum() if closed and beta.sum() > 0 else max(beta.sum(), 1.0))
        status = status if status2 == "optimal" else status2
    return beta, status


#: largest constraint violation of a solution accepted as a solve (CLARABEL reported
#: "optimal" for an infeasible NPMLE, its weights summing to 6.6e9 instead of 1)
MAX_VIOLATION = 1e-4


def _violation(prob) -> float:
    """The largest violation of ``prob``'s constraints at the current solution."""
    worst = 0.0
    for c in prob.constraints:
        v = c.violation()
        if v is None:
            return float("inf")
        worst = max(worst, float(np.max(np.abs(v))) if np.size(v) else 0.0)
    return worst


def solve_checked(prob, var, name: str) -> tuple[np.ndarray, str]:
    """Solve a cvxpy problem with CLARABEL (then SCS if that fails outright).

    Never warm-started: CLARABEL's warm start reuses the solver object of the previous
    solve, so a solution would depend on the solve history (coefficients moved by up to
    1e-2 for the same data) and fits would differ with ``n_jobs``; the parameterised
    problems reuse cvxpy's canonicalisation between solves, which does not change results.

    Returns ``(value, status)``; ``optimal_inaccurate`` is returned as a status, any other
    failure raises :class:`ConvergenceError`, and so does a solution that violates a
    constraint by more than :data:`MAX_VIOLATION` whatever the solver's status.
    """
    import cvxpy as cp

    errors = []
    for solver in (cp.CLARABEL, cp.SCS):
        try:
            with warnings.catch_warnings():     # the status says it; evalstats reports it
                warnings.filterwarnings("ignore", message="Solution may be inaccurate",
                                        category=UserWarning)
                prob.solve(solver=solver, warm_start=False)  # history-free: n_jobs-identical
        except (cp.SolverError, ArithmeticError, ValueError) as err:
            errors.append(f"{solver}: {err}")
            continue
        if prob.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) and var.value is not None \
                and np.all(np.isfinite(var.value)):
            worst = _violation(prob)
            if not worst <= MAX_VIOLATION:
                errors.append(f"{solver}: status {prob.status!r} but a constraint is "
                              f"violated by {worst:.3g}")
                continue
            status = prob.status if solver == cp.CLARABEL else f"{prob.status} ({solver})"
            return np.asarray(var.value, float), status
        errors.append(f"{solver}: status {prob.status!r}")
    raise ConvergenceError(f"{name}: " + "; ".join(errors) + ".")
