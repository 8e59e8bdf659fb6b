r"""Regularised NPMLE of ``U*`` (Jun-2016 sec. 4.2, 'CONS'), an option, not the default.

``U*`` discrete on the nodes :math:`u_m = \Phi(z_m)` of a probit grid; the number of wrong
classes beaten :math:`V\sim\mathrm{Bin}(k_1-1, U^*)`; maximise the mean binomial log
pseudolikelihood :math:`n^{-1}\sum_x\log\sum_m w_m\mathrm{Bin}(V_x; k_1-1, u_m)` over the
simplex, optionally with :math:`\sum_m w_m u_m^{k_1-1} = \mathrm{ATA}_{k_1}` and a
nondecreasing density of ``U*`` (the Bayes-classifier constraint). Unregularised, the
maximiser is a handful of atoms and its extrapolation has a large variance; a roughness
penalty :math:`\lambda M^3\sum(\Delta^2 w)^2` on the
node weights (``M`` nodes) spreads it.
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import log_ndtr, ndtr

from ._curves import MassCurve
from ._methods import Method
from ._solvers import solve_checked

NODES = np.linspace(-4.0, 6.0, 101)
PENALTY = 1e-3


class NPMLE(Method):
    """Discrete ``U*`` on a probit grid by a penalised binomial pseudolikelihood."""

    name = "npmle"

    def __init__(self, k1, candidates=None, *, match_k1=True, monotone_density=False,
                 penalty: float | None = None):
        super().__init__(k1, candidates)
        self.match_k1, self.monotone_density = match_k1, monotone_density
        self.penalty = PENALTY if penalty is None else float(penalty)

    def prepare(self, sizes):
        for m in sizes:
            self._problem(m)

    def _problem(self, m):
        import cvxpy as cp

        if m in self._cache:
            return self._cache[m]
        u = ndtr(NODES)
        A = stats.binom.pmf(np.arange(m)[:, None], m - 1, u[None, :])
        counts = cp.Parameter(m, nonneg=True)
        ata = cp.Parameter()
        w = cp.Variable(len(u), nonneg=True)
        cons = [cp.sum(w) == 1]
        if self.match_k1:
            cons.append(np.exp((m - 1) * log_ndtr(NODES)) @ w == ata)
        if self.monotone_density:
            du = np.diff(np.concatenate([[0.0], u]))
            cons.append(cp.diff(cp.multiply(1.0 / du, w)) >= 0)
        rough = float(len(u)) ** 3 * cp.sum_squares(cp.diff(w, 2))
        obj = cp.Maximize(counts @ cp.log(A @ w + 1e-300) - self.penalty * rough)
        self._cache[m] = (cp.Problem(obj, cons), w, counts, ata)
        return self._cache[m]

    def fit(self, view, cand):
        m = view.k1
        prob, w, counts, ata = self._problem(m)
        # the share of test points beating v wrong classes, ties broken as ``ties`` says
        # (random: V = b + J, J uniform on 0..t); the mid-rank b + t//2 made all-tied scores
        # (accuracy exactly 1/k) look like a classifier that beats half the classes
        surv = np.concatenate([[float(view.n)], view.survival_counts(), [0.0]])
        counts.value = np.maximum(-np.diff(surv), 0.0) / view.n
        # a perfect subsample (ATA = 1) lies beyond the grid's top node u = Φ(6): target
        # the largest value the grid can reach (all weight on that node)
        reach = float(np.exp((m - 1) * log_ndtr(NODES[-1])))
        ata.value = min(float(view.ata(np.array([m]))[0]), reach)
        wv, status = solve_checked(prob, w, self.name)
        return np.clip(wv, 0.0, None), status

    def curve(self, w, cand):
        return MassCurve(log_ndtr(NODES), w / w.sum())
