"""The tail assumptions of the radial regression ("open", the default: a share 1 - D(1) of
test points never fails; "closed", an option: D(1) = 1), checked against a brute-force
constrained least-squares solve and the exact chance curve; the band's tail part for the
two-tailed polynomial pseudolikelihood."""

from __future__ import annotations

import numpy as np
from scipy import optimize

from evalstats.extrapolate._methods import RADIAL_BANDWIDTHS, Radial
from evalstats.extrapolate._solvers import nnls_capped


def test_closed_nnls_matches_constrained_least_squares():
    rng = np.random.default_rng(3)
    H = rng.uniform(0, 1, (30, 8))
    y = H @ np.r_[0.2, 0.1, np.zeros(6)] + 0.01 * rng.standard_normal(30)   # sum(b) < 1
    open_b, _ = nnls_capped(H, y)
    closed_b, status = nnls_capped(H, y, closed=True)
    assert status == "optimal"
    assert open_b.sum() < 0.9
    np.testing.assert_allclose(closed_b.sum(), 1.0, rtol=1e-12)
    # brute force: SLSQP with b >= 0, sum(b) = 1
    res = optimize.minimize(lambda b: np.sum((H @ b - y) ** 2), np.full(8, 1 / 8),
                            jac=lambda b: 2 * H.T @ (H @ b - y), bounds=[(0, None)] * 8,
                            constraints=[dict(type="eq", fun=lambda b: b.sum() - 1)],
                            method="SLSQP", options=dict(ftol=1e-15, maxiter=1000))
    ours = np.sum((H @ closed_b - y) ** 2)
    assert ours <= res.fun * (1 + 1e-4) + 1e-10


class _ChanceView:
    """ATA_k = 1/k exactly (D(u) = u)."""

    def __init__(self, k1):
        self.k1 = k1

    def ata(self, ks):
        return 1.0 / np.asarray(ks, float)


def test_default_candidates_are_the_open_tail_and_both_tails_recover_chance():
    assert [c[1] for c in Radial(40).candidates] == ["open"] * len(RADIAL_BANDWIDTHS)
    meth = Radial(40, tails=("open", "closed"))
    assert len(meth.candidates) == 2 * len(RADIAL_BANDWIDTHS)
    labels = [meth.label(c) for c in meth.candidates]
    assert "regression(h=0.5)" in labels and "regression(h=0.5, D(1)=1)" in labels
    for cand in [(0.5, "open"), (0.5, "closed")]:
        coef, _ = meth.fit(_ChanceView(40), cand)
        pred = meth.curve(coef, cand).accuracy(np.array([80, 400]))
        np.testing.assert_allclose(pred, [1 / 80, 1 / 400], atol=2e-3)
    coef, _ = meth.fit(_ChanceView(40), (0.5, "closed"))
    np.testing.assert_allclose(coef.sum(), 1.0, rtol=1e-12)


def test_band_model_part_covers_the_spread_between_tails():
    import warnings

    from evalstats import datasets
    from evalstats.extrapolate import extrapolate_accuracy
    from evalstats.extrapolate._curves import predict_curve

    b = datasets.load("sim_multiclass")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = extrapolate_accuracy(b.scores, b.labels, method="polynomial",
                                   likelihood="bernoulli", k_target=[1000], rng=2,
                                   n_subsamples=3, degree=[(24, 4.0, "open"), (24, 4.0, "cut")])
    assert len(fit._tail_curves) == 2           # best open and best cut candidate
    ks = np.array([200, 1000])
    a, c = (predict_curve(t, ks) for t in fit._tail_curves)
    pr = fit.predict(ks)
    assert np.all(pr.model_sd.to_numpy() >= np.abs(a - c) / 2 - 1e-12)
