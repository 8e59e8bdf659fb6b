"""Fitting methods for accuracy extrapolation (private to :mod:`evalstats.extrapolate`).

Each method turns a *view* of the data (the true-class ranks within a set of classes) into
``(parameters, solver status)``, and parameters into a curve ``acc(k)``. A method has a
list of candidate hyper-parameters (bandwidths, degrees); candidates are weighted by class
subsampling. Methods hold only precomputed, read-only tables (bases, designs): a fit never
mutates the method, so fits in worker processes give bit-identical results.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy import optimize
from scipy.special import log_ndtr, logsumexp

from .._warnings import ConvergenceError
from . import _grid as grid
from ._curves import BasisCurve, MassCurve, NaiveCurve, View
from ._gls import ata_covariance, whitener
from ._solvers import nnls_capped

RADIAL_BANDWIDTHS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
KDE_MULTIPLIERS = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
#: tail assumptions of the radial regression: "open" lets a share 1 - D(1) of the test
#: points be recognised with certainty at every k (the constant element of ClassExReg),
#: "closed" imposes D(1) = 1; the default is ClassExReg's open tail
TAILS = ("open",)


class Method:
    """Base: ``candidates`` (hyper-parameters), ``prepare(sizes)`` (precompute tables for
    views of these numbers of classes), ``fit(view, cand) -> (params, status)``,
    ``curve(params, cand) -> curve``."""

    name = ""
    needs_scores = False
    #: weight the tail assumptions (:meth:`family`) equally, the candidates within each by
    #: the back-test (else the back-test weights all candidates together)
    equal_families = False

    def __init__(self, k1: int, candidates: list[Any] | None = None):
        self.k1 = k1
        self.candidates = candidates if candidates is not None else self.default_candidates()
        self._cache: dict = {}

    def default_candidates(self) -> list[Any]:
        return [None]

    def label(self, cand: Any) -> str:
        return self.name

    def family(self, cand: Any) -> Any:
        """The tail assumption of a candidate (``None``: a single family)."""
        return None

    def prepare(self, sizes: list[int]) -> None:
        """Precompute what fits on views of ``sizes`` classes need (in the parent process,
        so that every worker uses the very same tables)."""


class Radial(Method):
    r"""ClassExReg (JMLR sec. 3.3): :math:`\Phi^{-1}(U^*)` a non-negative mixture of
    :math:`N(t_\ell, h^2)`, plus a point mass at perfect accuracy, fitted by NNLS to
    :math:`1-\mathrm{ATA}_k`, ``k = 2..k1`` (NNLS capped at ``50 n`` iterations, then
    ``lsq_linear``); with ``gls=True`` by generalised least squares with the shrunken
    covariance of the ATA_k (:mod:`._gls`). Candidates are ``(h, tail)``: ``"open"``, the
    default (:math:`\sum\beta\le 1`; the remaining mass sits at perfect accuracy, the
    constant element of the authors' code), or, with ``tails``, ``"closed"``
    (:math:`\sum\beta = 1`, i.e. :math:`D(1) = 1`)."""

    name = "regression"

    def __init__(self, k1: int, candidates: list[Any] | None = None, *, gls: bool = False,
                 tails: tuple[str, ...] = TAILS):
        bandwidths = candidates if candidates is not None else list(RADIAL_BANDWIDTHS)
        super().__init__(k1, [(float(h), t) for t in tails for h in bandwidths])
        self.gls = gls

    @staticmethod
    def _split(cand) -> tuple[float, bool]:
        """``(h, closed)`` from a candidate ``(h, "open" | "closed")`` or a bare ``h``."""
        if np.ndim(cand) == 0:
            return float(cand), False
        return float(cand[0]), cand[1] == "closed"

    def family(self, cand):
        return "closed" if self._split(cand)[1] else "open"

    def label(self, cand):
        h, closed = self._split(cand)
        return f"regression(h={h:g}{', D(1)=1' if closed else ''})"

    def _basis(self, h):
        key = ("basis", h)
        if key not in self._cache:
            b = grid.radial_basis(grid.radial_knots(self.k1, h), h)
            self._cache[key] = (b, grid.design(b, np.arange(2, self.k1 + 1)))
        return self._cache[key]

    def prepare(self, sizes):
        for cand in self.candidates:
            self._basis(self._split(cand)[0])

    def fit(self, view: View, cand):
        h, closed = self._split(cand)
        _, H = self._basis(h)
        ks = np.arange(2, view.k1 + 1)
        y, H = 1.0 - view.ata(ks), H[: view.k1 - 1]
        if self.gls:
            w = view.__dict__.get("_whitener")
            if w is None:      # memoised on the view: every bandwidth reuses it
                w = view._whitener = whitener(ata_covariance(view.b, view.t, view.k1, ks,
                                                             view.ties))
            H, y = w @ H, w @ y
        return nnls_capped(H, y, closed)

    def curve(self, beta, cand):
        return BasisCurve(self._basis(self._split(cand)[0])[0], beta)


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
            return np.array([lo]), "boundary"
        if f(hi) < 0:
            return np.array([hi]), "boundary"
        return np.array([optimize.brentq(f, lo, hi, xtol=1e-10)]), "optimal"

    def curve(self, c, cand):
        return BasisCurve(grid.radial_basis(c, 1.0), np.ones(1))


class KDE(Method):
    r"""Kay et al. (2008), JMLR sec. 3.5: per test point, :math:`a_x` = the Gaussian-KDE
    probability that a wrong-class score is below the true-class score;
    :math:`\mathrm{acc}_k = \mathrm{mean}_x\, a_x^{k-1}`. Bandwidth: Silverman's rule per
    test point, :math:`0.9\min(\mathrm{sd}, \mathrm{IQR}/1.34)(k-1)^{-1/5}`, times a
    multiplier ``cand`` chosen by the same class-subsampling cross-validation as the other
    methods (Silverman's rule alone over-smooths the upper tail of the wrong-class scores
    and biases the accuracy downwards). The JMLR text prints ``1 - (1 - a)^(k-1)``; the
    exponentiation ``a^(k-1)`` is the correct form (the truth wins iff all ``k - 1`` wrong
    classes score lower)."""

    name = "kde"
    needs_scores = True

    def default_candidates(self):
        return list(KDE_MULTIPLIERS)

    def label(self, mult):
        return f"kde(bw={mult:g} x Silverman)"

    @staticmethod
    def _split(view: View):
        """True scores, (n, k-1) wrong scores and the Silverman bandwidth (memoised on the
        view: every multiplier reuses them)."""
        hit = getattr(view, "_kde_split", None)
        if hit is None:
            s, lab = view.scores, view.labels
            n, k = s.shape
            true = s[np.arange(n), lab]
            wrong = s[np.arange(k)[None, :] != lab[:, None]].reshape(n, k - 1)
            sd = wrong.std(axis=1, ddof=1) if k > 2 else np.zeros(n)
            q75, q25 = np.percentile(wrong, [75, 25], axis=1)
            iqr = (q75 - q25) / 1.34
            spread = np.where(iqr > 0, np.minimum(sd, iqr), sd)
            bw = 0.9 * spread * (k - 1) ** -0.2
            hit = (true, wrong, np.where(bw > 0, bw, 1e-12))
            view._kde_split = hit
        return hit

    def fit(self, view, mult):
        true, wrong, bw = self._split(view)
        z = (true[:, None] - wrong) / (mult * bw[:, None])
        return logsumexp(log_ndtr(z), axis=1) - np.log(wrong.shape[1]), "optimal"

    def curve(self, log_a, cand):
        return MassCurve(log_a)


class Naive(Method):
    """The accuracy observed at k1 classes, carried forward unchanged."""

    name = "naive"

    def fit(self, view, cand):
        return view.ata(np.arange(2, view.k1 + 1)), "optimal"

    def curve(self, ata, cand):
        return NaiveCurve(ata, len(ata) + 1)


def fit_all(method: Method, view: View) -> list:
    """``(params, status)`` of every candidate on ``view``; a failure is kept as the
    :class:`ConvergenceError` (with status ``"failed"``)."""
    out = []
    for cand in method.candidates:
        if view.n == 0:
            out.append((ConvergenceError("no test points in these classes"), "no_test_points"))
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                out.append(method.fit(view, cand))
            except ConvergenceError as err:
                out.append((err, "failed"))
    return out
