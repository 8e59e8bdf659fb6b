"""Monte-Carlo coverage of the class-subsampling band (slow; not run in CI).

Model: the Gaussian 1-NN simulation of ``data/make_datasets.py`` (sigma = 0.6, d = 10,
3 test points per class), k1 = 50 observed classes; the truth E[U^(k-1)] from that file's
``_nn_truth`` (400,000 draws). Run: ``pytest -m slow tests/test_extrapolate_coverage.py -s``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _scripts import load_script

from evalstats.extrapolate import extrapolate_accuracy

REPS = 200
K1 = 50
TARGETS = np.array([2 * K1, 4 * K1, 10 * K1])


def _make_datasets():
    return load_script("data/make_datasets.py")


def coverage_run(method="regression", reps=REPS, sigma=0.6, seed=11):
    md = _make_datasets()
    truth = md._nn_truth(sigma, 10, TARGETS, np.random.default_rng(seed), n_mc=400_000)
    md._nn_truth = lambda s, d, ks, rng, n_mc=0: np.full(len(ks), np.nan)
    hits = np.zeros(len(TARGETS), int)
    errs = []
    for rep in range(reps):
        df, _, _ = md.make_sim_multiclass(seed=seed + 1 + rep, k1=K1, sigma=sigma)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = extrapolate_accuracy(df.drop(columns="label").to_numpy(float),
                                       df["label"].to_numpy(), method=method, rng=rep)
        pr = fit.predict(TARGETS)
        hits += (pr.conf_low.to_numpy() <= truth) & (truth <= pr.conf_high.to_numpy())
        errs.append(pr.accuracy.to_numpy() - truth)
    return hits, np.array(errs), truth


@pytest.mark.slow
def test_band_coverage_regression():
    hits, errs, truth = coverage_run()
    cov = hits / REPS
    se = np.sqrt(0.95 * 0.05 / REPS)
    for k, c, e in zip(TARGETS, cov, errs.T, strict=True):
        print(f"k={k}: coverage {c:.3f} (binomial SE {se:.3f}, {REPS} reps), "
              f"bias {e.mean():+.4f}, RMSE {np.sqrt((e**2).mean()):.4f}")
    # the half-sampling band is designed to be conservative up to ~4 x k1
    assert np.all(cov[:2] >= 0.95 - 3 * se)
