r"""The paper's model: a monotone polynomial :math:`\bar K(u)` in ``u`` fitted by the rank
pseudolikelihood (Zheng, Achanta & Benjamini, Nov-2016 draft, sec. 3.3-4).

**Model.** For zero-one loss and a uniform prior the draft's :math:`\bar K(u)` is the
discriminability :math:`D(u) = \Pr[U^*\le u]` (:math:`U^*` the favourability of the true
class). It is a polynomial of degree ``d`` in ``u``, written in the Bernstein basis
:math:`D(u) = \sum_{\ell=0}^{d} c_\ell\binom{d}{\ell}u^\ell(1-u)^{d-\ell}`, monotone by
:math:`0\le c_0\le c_1\le\dots\le c_d\le 1` (sec. 3.4; nondecreasing Bernstein coefficients
are the usual sufficient condition). ``1 - c_d`` is the share of test points whose true
class beats every wrong class (an atom of :math:`U^*` at 1; the draft does not exclude it).
Theorem 1 (in the JMLR form, ``k - 1`` wrong classes) gives the accuracy in closed form,

.. math:: 1 - \mathrm{acc}_k = (k-1)\int_0^1 D(u)u^{k-2}du
          = \sum_\ell c_\ell\,(k-1)\frac{d!}{\ell!}\frac{\Gamma(\ell+k-1)}{\Gamma(d+k)}.

**Pseudolikelihood** (eq. 7). With :math:`V_x` the number of the ``n = m - 1`` wrong
classes of a fitted set of ``m`` classes that test point ``x`` beats (ties broken at
random, in expectation), :math:`C^{(h)}_x = 1\{V_x\ge h\}\sim\mathrm{Bernoulli}(\gamma_h)`,
:math:`\gamma_h = 1-\int_0^1 D(u)\,\mathrm{beta}_{h,n-h+1}(u)\,du` (``V | U* ~ Bin(n, U*)``,
integrated by parts), and :math:`\int B_{\ell,d}\,\mathrm{beta}_{h,n-h+1} =
\binom{d}{\ell}B(\ell+h, d-\ell+n-h+1)/B(h, n-h+1)`. The coefficients maximise
:math:`\sum_{x,h} C\log\gamma_h + (1-C)\log(1-\gamma_h)` (concave; cvxpy, CLARABEL), under
the monotonicity constraints and the draft's test-risk constraint (approach 2): the fitted
accuracy at ``m`` classes equals the unbiased ATA_m (``match_k1``). It is a
pseudolikelihood because the ``C`` of one test point are dependent.

**Degree** (the draft leaves it open). The ranks of ``m`` classes resolve :math:`U^*` only
to ``1/(m-1)``, and a polynomial of degree ``d`` has resolution about ``1/d`` near
``u = 1``; so the degree is a multiple ``rho`` of the number of wrong classes,
``d = ceil(rho (m - 1))``, and ``rho`` in :data:`DEGREE_RATIOS` is chosen by the
class-subsampling back-test (the subsampling principle of JMLR sec. 3.4) like every
other method's hyper-parameter. A fit on half of the classes thereby has the same
resolution relative to its data as the fit on all of them.

Every part above is the draft's except the Bernstein parametrisation of monotonicity, the
closed-form integrals and the degree rule.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln, gammaln

from ._curves import View
from ._methods import Method
from ._solvers import solve_checked

#: degree / number of wrong classes of the fitted set (candidates of the back-test)
DEGREE_RATIOS = (1.0, 2.0, 4.0, 8.0)


def degree_for(rho: float, m: int) -> int:
    """Polynomial degree for a fit on ``m`` classes: ``ceil(rho (m - 1))``, at least 1."""
    return max(1, int(np.ceil(rho * (m - 1) - 1e-9)))


def accuracy_design(d: int, ks: np.ndarray) -> np.ndarray:
    r"""(len(ks), d + 1) matrix with :math:`1-\mathrm{acc}_k = H c` (module doc)."""
    ks = np.asarray(ks, float)[:, None]
    ell = np.arange(d + 1)[None, :]
    return np.exp(np.log(ks - 1.0) + gammaln(d + 1.0) - gammaln(ell + 1.0)
                  + gammaln(ell + ks - 1.0) - gammaln(d + ks))


def survival_design(d: int, n: int) -> np.ndarray:
    r"""(n, d + 1) matrix :math:`G` with :math:`1-\gamma_h = (Gc)_h`, ``h = 1..n``
    (module doc); rows sum to 1."""
    h = np.arange(1, n + 1, dtype=float)[:, None]
    ell = np.arange(d + 1, dtype=float)[None, :]
    logc = gammaln(d + 1.0) - gammaln(ell + 1.0) - gammaln(d - ell + 1.0)
    return np.exp(logc + betaln(ell + h, d - ell + n - h + 1.0) - betaln(h, n - h + 1.0))


class PolynomialCurve:
    """Accuracy curve of a degree-``d`` Bernstein polynomial ``D(u)`` with coefficients
    ``coef`` (closed form, any ``k``)."""

    def __init__(self, coef: np.ndarray):
        self.coef = np.asarray(coef, float)

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        d = len(self.coef) - 1
        return np.clip(1.0 - accuracy_design(d, ks) @ self.coef, 0.0, 1.0)

    def discriminability(self, u: np.ndarray) -> np.ndarray:
        """``D(u)`` at ``u`` in [0, 1]."""
        u = np.clip(np.asarray(u, float), 0.0, 1.0)[:, None]
        d = len(self.coef) - 1
        ell = np.arange(d + 1)[None, :]
        logc = gammaln(d + 1.0) - gammaln(ell + 1.0) - gammaln(d - ell + 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            up = np.where(ell > 0, ell * np.log(u), 0.0)           # 0 log 0 = 0
            down = np.where(ell < d, (d - ell) * np.log1p(-u), 0.0)
        return np.exp(logc + up + down) @ self.coef


class PaperPolynomial(Method):
    r"""Monotone polynomial ``D(u)`` by the rank pseudolikelihood (module doc): the
    Bernoulli form of eq. 7 or, with ``likelihood="binomial"``, the Jun-2016 form
    :math:`V_x\sim\mathrm{Bin}(n, U^*)`; candidates are degree ratios ``rho`` (degree
    ``ceil(rho (m - 1))`` on ``m`` classes)."""

    name = "pseudolikelihood"

    def __init__(self, k1: int, candidates: list | None = None, *, match_k1: bool = True,
                 likelihood: str = "bernoulli"):
        self.match_k1, self.form = match_k1, likelihood
        super().__init__(k1, candidates)

    def default_candidates(self):
        return list(DEGREE_RATIOS)

    def label(self, rho):
        return f"pseudolikelihood(d={degree_for(rho, self.k1)} = {rho:g} x (k1-1))"

    def prepare(self, sizes):
        for rho in self.candidates:
            for m in sizes:
                self._problem(rho, m)

    def _problem(self, rho, m):
        import cvxpy as cp

        key = (float(rho), int(m))
        if key in self._cache:
            return self._cache[key]
        d, n = degree_for(rho, m), m - 1
        G = survival_design(d, n)
        c = cp.Variable(d + 1)
        lose_all = cp.Parameter()                 # 1 - ATA_m
        below = G @ c                             # P(V < h) = 1 - gamma_h, h = 1..n
        if self.form == "bernoulli":
            data = cp.Parameter(2 * n, nonneg=True)   # [N_h, N - N_h] / (N n)
            ll = (data[:n] @ cp.log(1.0 - below + 1e-12)
                  + data[n:] @ cp.log(below + 1e-12))
        else:                                     # share of points with V = v, v = 0..n
            data = cp.Parameter(n + 1, nonneg=True)
            ll = data @ cp.log(cp.diff(cp.hstack([np.zeros(1), below, np.ones(1)])) + 1e-12)
        cons = [c[0] >= 0, cp.diff(c) >= 0, c[-1] <= 1]
        if self.match_k1:
            cons.append(G[-1] @ c == lose_all)
        self._cache[key] = (cp.Problem(cp.Maximize(ll), cons), c, data, lose_all)
        return self._cache[key]

    def fit(self, view: View, rho):
        prob, c, data, lose_all = self._problem(rho, view.k1)
        npts = float(max(view.n, 1))
        surv = np.clip(view.survival_counts(), 0.0, npts)       # N_h, h = 1..n
        if self.form == "bernoulli":
            data.value = np.concatenate([surv, npts - surv]) / (npts * (view.k1 - 1))
        else:
            data.value = np.clip(-np.diff(np.concatenate([[npts], surv, [0.0]])), 0, None) / npts
        lose_all.value = 1.0 - surv[-1] / npts
        coef, status = solve_checked(prob, c, self.label(rho))
        return np.clip(coef, 0.0, 1.0), status

    def curve(self, coef, rho):
        return PolynomialCurve(coef)
