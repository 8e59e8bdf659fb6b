"""Private pieces of :func:`evalstats.budget.evaluate_rules`: design-weighted ratio
estimates of precision, sensitivity and specificity for many rules at once."""

from __future__ import annotations

import numpy as np

MEASURE_PARTS = {
    # measure: (numerator indicator, denominator indicator) as functions of y, r
    "precision": (lambda y, r: y * r, lambda y, r: r),
    "sensitivity": (lambda y, r: y * r, lambda y, r: y + 0 * r),
    "specificity": (lambda y, r: (1 - y) * (1 - r), lambda y, r: (1 - y) + 0 * r),
}


def stratified_ratio(y: np.ndarray, r: np.ndarray, strata: np.ndarray,
                     stratum_sizes: dict, measure: str):
    r"""Ratio estimate and linearised standard error under stratified SRS without replacement.

    Weights :math:`w_i = N_h/n_h` (Horvitz-Thompson). For :math:`\hat R = \hat Z/\hat X`
    the residuals :math:`e_i = (z_i - \hat R x_i)/\hat X` give
    :math:`\widehat{Var}(\hat R) = \sum_h N_h^2 (1 - n_h/N_h) s_{e,h}^2 / n_h`
    (Cochran 1977, eqs 5.9 and 6.13). ``r`` is (n, K); returns arrays of length K:
    estimate, std_error, estimated denominator total, and the number of strata with one
    label (whose variance contribution cannot be estimated and is left out).
    """
    y = y[:, None].astype(float)
    r = r.astype(float)
    num_f, den_f = MEASURE_PARTS[measure]
    z, x = num_f(y, r), den_f(y, r)
    labels_h = np.unique(strata)
    w = np.empty(len(strata))
    for h in labels_h:
        m = strata == h
        w[m] = stratum_sizes[h] / m.sum()
    zt = w @ z
    xt = w @ x
    with np.errstate(divide="ignore", invalid="ignore"):
        est = np.where(xt > 0, zt / xt, np.nan)
        e = np.where(xt > 0, (z - est * x) / xt, 0.0)
    var = np.zeros(r.shape[1])
    n_single = 0
    for h in labels_h:
        m = strata == h
        n_h, big_n = int(m.sum()), float(stratum_sizes[h])
        if n_h < 2:
            n_single += 1
            continue
        s2 = e[m].var(axis=0, ddof=1)
        var += big_n ** 2 * (1.0 - n_h / big_n) * s2 / n_h
    return est, np.sqrt(var), xt, n_single


def poisson_ratio(y: np.ndarray, r: np.ndarray, pi: np.ndarray, measure: str):
    r"""Ratio estimate under Poisson sampling with inclusion probabilities π_i.

    :math:`\hat R = \sum z_i/π_i / \sum x_i/π_i`, linearised variance
    :math:`\sum (1-π_i) e_i^2/π_i^2` (Särndal, Swensson & Wretman 1992, Result 5.6.1
    with the Poisson-design variance of a total).
    """
    y = y[:, None].astype(float)
    r = r.astype(float)
    num_f, den_f = MEASURE_PARTS[measure]
    z, x = num_f(y, r), den_f(y, r)
    w = 1.0 / pi
    zt, xt = w @ z, w @ x
    with np.errstate(divide="ignore", invalid="ignore"):
        est = np.where(xt > 0, zt / xt, np.nan)
        e = np.where(xt > 0, (z - est * x) / xt, 0.0)
    var = ((1.0 - pi) * w * w) @ (e * e)
    return est, np.sqrt(var), xt
