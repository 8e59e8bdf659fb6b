"""Fitting methods for accuracy extrapolation (private to :mod:`evalstats.extrapolate`).

Each method turns a *view* of the data (the true-class ranks within a set of classes) into
parameters, and parameters into a curve ``acc(k)``. A method has a list of candidate
hyper-parameters (bandwidths, degrees); a candidate is chosen by class subsampling.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, stats
from scipy.special import log_ndtr, logsumexp, ndtr

from .._warnings import ConvergenceError, ConvergenceWarning
from . import _grid as grid
from ._ranks import ata_curve

RADIAL_BANDWIDTHS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
POLY_DEGREES = (3, 6, 12, 24)
POLY_SCALES = (1.0, 2.0, 4.0)
KDE_MULTIPLIERS = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
PL_NODES = np.linspace(-4.0, 6.0, 101)


# -- data views --------------------------------------------------------------------------------
@dataclass
class View:
    """True-class ranks of the test points of ``classes`` among ``classes`` only."""

    b: np.ndarray
    t: np.ndarray
    k1: int
    ties: str
    scores: np.ndarray | None = None     # (n_sub, k1) scores, only for score-based methods
    labels: np.ndarray | None = None

    def ata(self, ks: np.ndarray) -> np.ndarray:
        return ata_curve(self.b, self.t, self.k1, ks, self.ties)


class Data:
    """The full score matrix with comparison tables, to cut views on class subsets."""

    def __init__(self, scores: np.ndarray, y: np.ndarray, ties: str, keep_scores: bool):
        self.scores, self.y, self.ties, self.keep_scores = scores, y, ties, keep_scores
        true = scores[np.arange(len(y)), y][:, None]
        self.less = scores < true
        self.eq = scores == true
        self.k1 = scores.shape[1]

    def view(self, classes: np.ndarray | None = None) -> View:
        if classes is None:
            rows, cols = np.arange(len(self.y)), np.arange(self.k1)
        else:
            cols = np.sort(classes)
            rows = np.flatnonzero(np.isin(self.y, cols))
        b = self.less[np.ix_(rows, cols)].sum(axis=1)
        t = self.eq[np.ix_(rows, cols)].sum(axis=1) - 1
        v = View(b=b, t=t, k1=len(cols), ties=self.ties)
        if self.keep_scores:
            v.scores = self.scores[np.ix_(rows, cols)]
            v.labels = np.searchsorted(cols, self.y[rows])
        return v


# -- curves ------------------------------------------------------------------------------------
_DESIGN_CACHE: dict = {}


def _cached_design(basis_z: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """``grid.design`` memoised on (basis, ks): half-sample curves share their bases."""
    ks = np.asarray(ks, float)
    key = (id(basis_z), ks.tobytes())
    hit = _DESIGN_CACHE.get(key)
    if hit is None or hit[0] is not basis_z:
        if len(_DESIGN_CACHE) > 256:
            _DESIGN_CACHE.clear()
        hit = (basis_z, grid.design(basis_z, ks))   # keeps basis_z alive: ids stay unique
        _DESIGN_CACHE[key] = hit
    return hit[1]


class BasisCurve:
    """``acc_k = 1 - sum_l beta_l H_{l,k}`` for basis CDFs of ``Phi^{-1}(U*)`` on the z grid."""

    def __init__(self, basis_z: np.ndarray, beta: np.ndarray):
        self.basis_z, self.beta = basis_z, np.asarray(beta, float)

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        return np.clip(1.0 - _cached_design(self.basis_z, ks) @ self.beta, 0.0, 1.0)

    def discriminability(self, u: np.ndarray) -> np.ndarray:
        """D(u) = P(U* <= u), interpolated from the z grid."""
        z = stats.norm.ppf(np.clip(u, 1e-300, 1 - 1e-16))
        dz = self.beta @ self.basis_z
        return np.interp(z, grid.Z, dz)


class MassCurve:
    """``acc_k = sum_m w_m u_m^(k-1)``: a discrete distribution of ``U*`` (log space)."""

    def __init__(self, log_u: np.ndarray, w: np.ndarray | None = None):
        self.log_u = np.asarray(log_u, float)
        self.w = np.full(len(self.log_u), 1.0 / len(self.log_u)) if w is None else np.asarray(w)

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        km1 = np.asarray(ks, float)[:, None] - 1.0
        pos = self.w > 0
        return np.exp(logsumexp(km1 * self.log_u[None, pos], axis=1,
                                b=self.w[None, pos]))


class NaiveCurve:
    """The unbiased ATA_k for ``k <= k1`` and the constant ATA_{k1} beyond."""

    def __init__(self, ata: np.ndarray, k1: int):
        self.ata, self.k1 = np.asarray(ata, float), k1

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        ks = np.asarray(ks, float)
        return np.interp(np.minimum(ks, self.k1), np.arange(2, self.k1 + 1), self.ata)


class AveragedCurve:
    """A weighted average of curves (soft model selection)."""

    def __init__(self, curves: list, weights: np.ndarray):
        w = np.asarray(weights, float)
        self.curves, self.weights = curves, w / w.sum()

    def accuracy(self, ks: np.ndarray) -> np.ndarray:
        return sum(w * c.accuracy(ks) for w, c in zip(self.weights, self.curves, strict=True))


# -- methods -----------------------------------------------------------------------------------
class Method:
    """Base: ``candidates`` (hyper-parameters), ``fit(view, cand) -> params``,
    ``curve(params, cand) -> curve``."""

    name = ""
    needs_scores = False

    def __init__(self, k1: int, candidates: list[Any] | None = None):
        self.k1 = k1
        self.candidates = candidates if candidates is not None else self.default_candidates()
        self.status: list[str] = []

    def default_candidates(self) -> list[Any]:
        return [None]

    def label(self, cand: Any) -> str:
        return self.name


def _nnls_capped(H: np.ndarray, y: np.ndarray) -> np.ndarray:
    """min ||H b - y|| s.t. b >= 0, sum(b) <= 1 (D(1) <= 1), by NNLS.

    If the plain NNLS solution violates the cap, the constraint is active at the optimum of
    this convex problem, and ``sum(b) = 1`` is imposed by a heavily weighted extra row.
    """
    beta, _ = optimize.nnls(H, y)
    if beta.sum() > 1.0 + 1e-9:
        w = 1e3 * max(1.0, float(np.abs(H).max()))
        A = np.vstack([H, w * np.ones(H.shape[1])])
        beta, _ = optimize.nnls(A, np.append(y, w))
        beta = beta / max(beta.sum(), 1.0)
    return beta


class Radial(Method):
    r"""ClassExReg (JMLR sec. 3.3): :math:`\Phi^{-1}(U^*)` a non-negative mixture of
    :math:`N(t_\ell, h^2)`, plus a point mass at perfect accuracy, fitted by NNLS to
    :math:`1-\mathrm{ATA}_k`, ``k = 2..k1``."""

    name = "regression"

    def default_candidates(self):
        return list(RADIAL_BANDWIDTHS)

    def label(self, h):
        return f"regression(h={h:g})"

    def _basis(self, h):
        key = ("basis", h)
        if key not in self.__dict__.setdefault("_cache", {}):
            b = grid.radial_basis(grid.radial_knots(self.k1, h), h)
            self._cache[key] = (b, grid.design(b, np.arange(2, self.k1 + 1)))
        return self._cache[key]

    def fit(self, view: View, h):
        basis, H = self._basis(h)
        y = 1.0 - view.ata(np.arange(2, view.k1 + 1))
        return _nnls_capped(H[: view.k1 - 1], y)

    def curve(self, beta, h):
        return BasisCurve(self._basis(h)[0], beta)


class Polynomial(Method):
    r"""Moment method of the 2016 drafts: :math:`D(u)` a Bernstein polynomial of degree
    ``d`` in :math:`x = \Phi(\Phi^{-1}(u)/s)` with nondecreasing coefficients in [0, 1]
    (monotone, ``D >= 0``, ``D(1) <= 1``), least squares to :math:`1-\mathrm{ATA}_k` in
    cvxpy; optionally constrained to reproduce the observed ATA at the fitted k.

    The Nov-2016 draft regresses costs on powers of a noisy estimate of ``U`` and needs a
    covariate (errors-in-variables) adjustment; here the responses ATA_k are already the
    unbiased U-statistics of ``E[U^(k-1)]`` and the design ``H`` is exact, so that
    adjustment does not apply. (The draft's normaliser ``(k-h)!/(zeta^h k!)`` should read
    ``(k-1-h)!/(zeta^h (k-1)!)``; not needed here.)"""

    name = "polynomial"

    def __init__(self, k1, candidates=None, match_k1=True):
        super().__init__(k1, candidates)
        self.match_k1 = match_k1

    def default_candidates(self):
        return [(d, s) for s in POLY_SCALES for d in POLY_DEGREES]

    def label(self, cand):
        return f"polynomial(d={cand[0]}, s={cand[1]:g})"

    def _basis(self, cand):
        key = ("basis", cand)
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            d, s = cand
            x = ndtr(grid.Z / s)
            b = stats.binom.pmf(np.arange(d + 1)[:, None], d, x[None, :])
            # D(Phi(z)) = sum_l beta_l B_l(x): tabulate the Bernstein basis itself.
            cache[key] = (b, grid.design(b, np.arange(2, self.k1 + 1)))
        return cache[key]

    def _problem(self, cand, m):
        import cvxpy as cp

        key = ("prob", cand, m)
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            _, H = self._basis(cand)
            Hm = H[: m - 1]
            beta = cp.Variable(Hm.shape[1])
            y = cp.Parameter(m - 1)
            cons = [beta[0] >= 0, cp.diff(beta) >= 0, beta[-1] <= 1]
            if self.match_k1:
                cons.append(Hm[-1] @ beta == y[-1])
            prob = cp.Problem(cp.Minimize(cp.sum_squares(Hm @ beta - y)), cons)
            cache[key] = (prob, beta, y)
        return cache[key]

    def fit(self, view, cand):
        prob, beta, y = self._problem(cand, view.k1)
        y.value = 1.0 - view.ata(np.arange(2, view.k1 + 1))
        return solve_checked(prob, beta, self)

    def curve(self, beta, cand):
        return BasisCurve(self._basis(cand)[0], beta)


def solve_checked(prob, var, method: Method) -> np.ndarray:
    """Solve a cvxpy problem; ``optimal_inaccurate`` is recorded, other failures raise."""
    import cvxpy as cp

    try:
        prob.solve(solver=cp.CLARABEL)
    except cp.SolverError as err:
        raise ConvergenceError(f"{method.name}: solver CLARABEL failed ({err}).") from err
    method.status.append(prob.status)
    if prob.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or var.value is None:
        raise ConvergenceError(f"{method.name}: solver CLARABEL returned status "
                               f"{prob.status!r}.")
    return np.asarray(var.value, float)


class Pseudolikelihood(Method):
    r"""Constrained pseudolikelihood (Jun-2016 sec. 4.2, 'CONS'): ``U*`` discrete on the
    nodes :math:`u_m = \Phi(z_m)`, the number of wrong classes beaten
    :math:`V\sim\mathrm{Bin}(k_1-1, U^*)`; maximise :math:`\sum_x\log\sum_m w_m
    \mathrm{Bin}(V_x; k_1-1, u_m)` over the simplex (a concave, DCP objective), optionally
    with :math:`\sum_m w_m u_m^{k_1-1} = \mathrm{ATA}_{k_1}` and a nondecreasing density of
    ``U*`` (the Bayes-classifier constraint)."""

    name = "pseudolikelihood"

    def __init__(self, k1, candidates=None, match_k1=True, monotone_density=False):
        super().__init__(k1, candidates)
        self.match_k1, self.monotone_density = match_k1, monotone_density

    def _problem(self, m):
        import cvxpy as cp

        cache = self.__dict__.setdefault("_cache", {})
        if m not in cache:
            u = ndtr(PL_NODES)
            A = stats.binom.pmf(np.arange(m)[:, None], m - 1, u[None, :])
            counts = cp.Parameter(m, nonneg=True)
            ata = cp.Parameter()
            w = cp.Variable(len(u), nonneg=True)
            cons = [cp.sum(w) == 1]
            if self.match_k1:
                cons.append(np.exp((m - 1) * log_ndtr(PL_NODES)) @ w == ata)
            if self.monotone_density:
                du = np.diff(np.concatenate([[0.0], u]))
                cons.append(cp.diff(cp.multiply(1.0 / du, w)) >= 0)
            obj = cp.Maximize(counts @ cp.log(A @ w + 1e-300))
            cache[m] = (cp.Problem(obj, cons), w, counts, ata)
        return cache[m]

    def fit(self, view, cand):
        m = view.k1
        prob, w, counts, ata = self._problem(m)
        v = np.minimum(view.b + view.t // 2, m - 1)
        counts.value = np.bincount(v, minlength=m) / len(v)
        ata.value = float(view.ata(np.array([m]))[0])
        return np.clip(solve_checked(prob, w, self), 0.0, None)

    def curve(self, w, cand):
        return MassCurve(log_ndtr(PL_NODES), w / w.sum())


class HighDim(Method):
    r"""HD (Zheng & Benjamini): :math:`\bar\pi_k(c) = E[\Phi(W)^{k-1}]`, :math:`W\sim N(c,1)`,
    with ``c`` solving :math:`\bar\pi_{k_1}(c) = \mathrm{ATA}_{k_1}`."""

    name = "hd"

    def fit(self, view, cand):
        target = float(view.ata(np.array([view.k1]))[0])

        def f(c):
            return grid.normal_mean_accuracy(c, [view.k1])[0, 0] - target

        lo, hi = -8.0, 8.0
        if f(lo) > 0:
            return np.array([lo])
        if f(hi) < 0:
            return np.array([hi])
        return np.array([optimize.brentq(f, lo, hi, xtol=1e-10)])

    def curve(self, c, cand):
        return BasisCurve(grid.radial_basis(c, 1.0), np.ones(1))


class KDE(Method):
    r"""Kay et al. (2008), JMLR sec. 3.5: per test point, :math:`a_x` = the Gaussian-KDE
    probability that a wrong-class score is below the true-class score;
    :math:`\mathrm{acc}_k = \mathrm{mean}_x\, a_x^{k-1}`. Bandwidth: Silverman's rule per
    test point times a multiplier ``cand``, chosen by the same class-subsampling
    cross-validation as the other methods (R's ``ucv``/``bcv`` selectors are not used:
    Silverman's rule alone, multiplier 1, over-smooths the upper tail of the wrong-class
    scores and biases the accuracy strongly downwards). The JMLR text
    prints ``1 - (1 - a)^(k-1)``; the exponentiation ``a^(k-1)`` is the correct form (the
    truth wins iff all ``k - 1`` wrong classes score lower)."""

    name = "kde"
    needs_scores = True

    def default_candidates(self):
        return list(KDE_MULTIPLIERS)

    def label(self, mult):
        return f"kde(bw={mult:g} x Silverman)"

    def fit(self, view, mult):
        s, lab = view.scores, view.labels
        n, k = s.shape
        if not np.all(np.isfinite(s)):
            raise ValueError("method='kde' needs finite scores; got -inf values "
                             "(use a rank-based method for log-probabilities with zeros).")
        true = s[np.arange(n), lab]
        wrong = np.where(np.arange(k)[None, :] == lab[:, None], np.nan, s)
        sd = np.nanstd(wrong, axis=1, ddof=1)
        iqr = np.subtract(*np.nanpercentile(wrong, [75, 25], axis=1)) / 1.34
        spread = np.where(iqr > 0, np.minimum(sd, iqr), sd)
        bw = mult * 0.9 * spread * (k - 1) ** -0.2
        bw = np.where(bw > 0, bw, 1e-12)
        z = (true[:, None] - wrong) / bw[:, None]
        logcdf = np.where(np.isnan(z), -np.inf, log_ndtr(np.nan_to_num(z)))
        return logsumexp(logcdf, axis=1) - np.log(k - 1)

    def curve(self, log_a, cand):
        return MassCurve(log_a)


class Naive(Method):
    """The accuracy observed at k1 classes, carried forward unchanged."""

    name = "naive"

    def fit(self, view, cand):
        return view.ata(np.arange(2, view.k1 + 1))

    def curve(self, ata, cand):
        return NaiveCurve(ata, len(ata) + 1)


METHODS = {"regression": Radial, "polynomial": Polynomial, "pseudolikelihood": Pseudolikelihood,
           "hd": HighDim, "kde": KDE, "naive": Naive}


class SubsampleTask:
    """Picklable task: fit every candidate on a random half of the classes."""

    def __init__(self, data: Data, method: Method, m: int):
        self.data, self.method, self.m = data, method, m

    def __call__(self, i: int, g: np.random.Generator):
        classes = g.choice(self.data.k1, size=self.m, replace=False)
        view = self.data.view(classes)
        n0 = len(self.method.status)
        out = []
        for cand in self.method.candidates:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                try:
                    out.append(self.method.fit(view, cand))
                except ConvergenceError as err:
                    out.append(err)
        return out, list(self.method.status[n0:])


def warn_status(method: Method, notes) -> None:
    bad = [s for s in method.status if s != "optimal"]
    if bad:
        notes.warn(ConvergenceWarning,
                   f"{method.name}: {len(bad)} of {len(method.status)} solver calls ended "
                   f"with status {sorted(set(bad))}.")
