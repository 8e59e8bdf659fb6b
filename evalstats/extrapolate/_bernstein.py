r"""The package's extension of the paper's model: a monotone, high-degree Bernstein
polynomial for :math:`D(u)` in a probit-stretched ``u`` (``method="polynomial"``).

Zheng, Achanta & Benjamini (Nov-2016 draft, sec. 3-4) model the discriminability
:math:`D(u) = \Pr[U^*\le u]` (their :math:`\bar K`) by a monotone polynomial in ``u``
(:mod:`._pseudolikelihood` fits it as written). A polynomial in ``u`` cannot bend within
``1/k1`` of ``u = 1`` at a practical degree; this module stretches the probit scale:

* **Basis.** :math:`D(\Phi(z)) = \sum_{\ell=0}^{d} c_\ell B_{\ell,d}(\Phi(z/s))`, Bernstein
  polynomials of degree ``d`` in :math:`x=\Phi(\Phi^{-1}(u)/s)`; ``s = 1`` is a
  polynomial in ``u``, ``s > 1`` spreads the corner near ``u = 1`` over the basis. Degree
  and stretch are chosen by the class-subsampling back-test (least squares: ``(d, s)`` in
  (48, 2), (48, 3), (96, 3), (96, 4); pseudolikelihood: ``d = 64``, ``s`` in 4, 5, 6).
* **Two tail assumptions.** ``"open"``: :math:`D(1) = c_d \le 1` (a share :math:`1-c_d`
  of test points never fails); ``"cut"``: the polynomial lives on
  :math:`u\le u_c = \Phi(z_c)` only, :math:`x = \min(1, \Phi(z/s)/\Phi(z_c/s))` with
  :math:`c_d = 1`, so :math:`D = 1` beyond the resolution limit
  :math:`u_c = 1 - 1/(r k_1^2)` of JMLR sec. 3.4 (``r`` test points per class). The
  pseudolikelihood fit uses both, with weight 1/2 each (``Bernstein.equal_families``), the
  stretches within a tail weighted by the back-test.
* **Constraints.** :math:`0\le c_0\le c_1\le\dots\le c_d\le 1` (monotone, ``D >= 0``,
  ``D(1) <= 1``; ``c_d = 1`` for the cut tail); optionally ``match_k1``: the fitted
  accuracy at ``k1`` equals the unbiased ATA_{k1} (the draft's test-risk constraint).
* **Roughness penalty** :math:`\lambda\, d^3\sum_\ell(\Delta^2 c_\ell)^2`
  (:math:`\approx\lambda\int_0^1 c''(t)^2dt`); zero by default for least squares (the
  monotonicity constraints already regularise it), small for the pseudolikelihood.
* **Fits** (cvxpy, CLARABEL): ``"ls"`` -- mean squared error of
  :math:`1-\mathrm{ATA}_k = \sum_\ell c_\ell H_{k\ell}` over ``k = 2..k1``;
  ``"bernoulli"`` -- the draft's eq. (7), :math:`C^{(h)}_x = 1\{V_x\ge h\}\sim
  \mathrm{Bernoulli}(\gamma_h)`, :math:`\gamma_h = 1-\int D\,\mathrm{beta}_{h,n-h+1}`
  (:func:`_grid.order_stat_weights`); ``"binomial"`` -- the Jun-2016 form,
  :math:`V_x\sim\mathrm{Bin}(n, U^*)`. Both likelihoods are concave in ``c``; ties enter
  through their exact expected counts.

The drafts' parts: the polynomial :math:`\bar K`, monotonicity, the test-risk constraint and
the two likelihoods. The package's: the probit stretch, the high degree with a roughness
penalty, the cut tail and the back-test weights.
"""

from __future__ import annotations

import numpy as np

from . import _grid as grid
from ._curves import BasisCurve, View
from ._methods import Method
from ._solvers import solve_checked

DEGREE = 64
#: stretches of the pseudolikelihood fits, each under both tail assumptions
STRETCHES = (4.0, 5.0, 6.0)
TAILS = ("open", "cut")
#: stretches of the least-squares fit (``method="polynomial"``), open tail
#: (degree, stretch) candidates of the least-squares fit (``method="polynomial"``), open
#: tail, unpenalised: degrees either side of 64, stretches 2-4
LS_CANDIDATES = ((48, 2.0), (48, 3.0), (96, 3.0), (96, 4.0))
#: default roughness penalty per objective (scale of the objective: mean squared error of
#: the ATA curve, or the mean Bernoulli/binomial log pseudolikelihood); the least-squares
#: fit is unpenalised (the penalty raised its worst-case error on the fresh benchmark
#: family, ``benchmarks/README.md``)
PENALTY = {"ls": 0.0, "bernoulli": 1e-7, "binomial": 1e-7}
FITS = ("ls", "bernoulli", "binomial")


class Bernstein(Method):
    """Monotone Bernstein polynomial of ``D`` in a probit-stretched ``u`` (module doc);
    candidates are ``(degree, stretch)`` pairs or ``(degree, stretch, tail)`` triples. The
    back-test weights the stretches within each tail assumption; the tails get equal
    weight (:attr:`equal_families`)."""

    name = "polynomial"
    equal_families = True

    def __init__(self, k1, candidates=None, *, fit: str = "ls", match_k1: bool = True,
                 penalty: float | None = None, per_class: float = 1.0):
        self.form, self.match_k1 = fit, match_k1
        #: z of the resolution limit, 1 - 1/(r k1^2) (r test points per class): where the
        #: "cut" tail reaches D = 1
        self.z_cut = grid.resolution_z(k1, per_class)
        super().__init__(k1, candidates)
        self.penalty = PENALTY[fit] if penalty is None else float(penalty)

    def default_candidates(self):
        if fit_ls(self.form):
            return [(d, s, "open") for d, s in LS_CANDIDATES]
        return [(DEGREE, s, t) for t in TAILS for s in STRETCHES]

    @staticmethod
    def tail(cand) -> str:
        """Tail assumption of a candidate ``(degree, stretch[, tail])``: ``"open"`` or
        ``"cut"`` (module doc)."""
        return cand[2] if len(cand) > 2 else "open"

    def family(self, cand):
        return self.tail(cand)

    def label(self, cand):
        extra = "" if self.tail(cand) == "open" else f", D=1 beyond z={self.z_cut:.2f}"
        fit = "" if self.form == "ls" else f", {self.form} pseudolikelihood"
        return f"{self.name}(d={cand[0]}, s={cand[1]:g}{extra}{fit})"

    def _basis(self, cand):
        key = ("basis", tuple(cand))
        if key not in self._cache:
            z_max = self.z_cut if self.tail(cand) == "cut" else None
            b = grid.bernstein_basis(int(cand[0]), float(cand[1]), z_max=z_max)
            self._cache[key] = (b, grid.design(b, np.arange(2, self.k1 + 1)))
        return self._cache[key]

    def _order_design(self, cand, m):
        key = ("G", cand, m)
        if key not in self._cache:
            self._cache[key] = grid.order_stat_weights(m - 1) @ self._basis(cand)[0].T
        return self._cache[key]

    def prepare(self, sizes):
        for cand in self.candidates:
            for m in sizes:
                self._problem(cand, m)

    def _problem(self, cand, m):
        import cvxpy as cp

        key = ("prob", cand, m)
        if key in self._cache:
            return self._cache[key]
        d = int(cand[0])
        H = self._basis(cand)[1][: m - 1]
        c = cp.Variable(d + 1)
        nd = m - 1 if fit_ls(self.form) else (m if self.form == "binomial" else 2 * (m - 1))
        data = cp.Parameter(nd, nonneg=True)        # see fit(): what the data vector holds
        top = cp.Parameter()                        # 1 - ATA_{m}
        cons = [c[0] >= 0, cp.diff(c) >= 0,
                c[-1] <= 1 if self.tail(cand) == "open" else c[-1] == 1]   # see module doc
        if self.match_k1:
            cons.append(H[-1] @ c == top)
        rough = float(d) ** 3 * cp.sum_squares(cp.diff(c, 2)) if d >= 2 else 0
        if self.form == "ls":
            obj = cp.Minimize(cp.sum_squares(H @ c - data) + (m - 1) * self.penalty * rough)
        else:
            G = self._order_design(cand, m)          # (Gc)_h = 1 - gamma_h, h = 1..m-1
            if self.form == "bernoulli":
                # data = [N_h, n - N_h] / (n (m-1)): mean over the (point, h) indicators
                ll = (data[: m - 1] @ cp.log(1 - G @ c + 1e-12)
                      + data[m - 1:] @ cp.log(G @ c + 1e-12))
            else:
                # data = counts of V = v, v = 0..m-1, / n;
                # P(V = v) = (Gc)_{v+1} - (Gc)_v with (Gc)_0 = 0, (Gc)_m = 1
                p = cp.diff(cp.hstack([np.zeros(1), G @ c, np.ones(1)]))
                ll = data @ cp.log(p + 1e-12)
            obj = cp.Maximize(ll - self.penalty * rough)
        prob = cp.Problem(obj, cons)
        self._cache[key] = (prob, c, data, top)
        return self._cache[key]

    def fit(self, view: View, cand):
        m = view.k1
        prob, c, data, top = self._problem(cand, m)
        ata = view.ata(np.arange(2, m + 1))
        top.value = float(1.0 - ata[-1])
        n = float(max(view.n, 1))
        if self.form == "ls":
            data.value = np.clip(1.0 - ata, 0.0, None)
        else:
            surv = np.clip(view.survival_counts(), 0.0, n)
            if self.form == "bernoulli":
                data.value = np.concatenate([surv, n - surv]) / (n * (m - 1))
            else:
                data.value = np.clip(-np.diff(np.concatenate([[n], surv, [0.0]])), 0, None) / n
        return solve_checked(prob, c, self.label(cand))

    def curve(self, coef, cand):
        return BasisCurve(self._basis(cand)[0], coef)


def fit_ls(form: str) -> bool:
    return form == "ls"
