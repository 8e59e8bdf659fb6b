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
    label (whose variance contribution cannot be estimated and is left out), and a
    smoothed standard error, in which each stratum's residual variance takes the label
    rate of each (stratum, prediction) cell at its posterior mean under a Jeffreys prior
    (:func:`label_smoothed_variance`). A stratum whose sample missed the rare labels of a
    heavily weighted cell then still contributes variance (the textbook estimate gives it
    none, the source of under-coverage at small strata); with well filled cells it equals
    the usual estimate up to O(1/n_h).
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
    var_s = np.zeros(r.shape[1])
    n_single = 0
    for h in labels_h:
        m = strata == h
        n_h, big_n = int(m.sum()), float(stratum_sizes[h])
        if n_h < 2:
            n_single += 1
            continue
        fpc = big_n ** 2 * (1.0 - n_h / big_n) / n_h
        var += fpc * e[m].var(axis=0, ddof=1)
        var_s += fpc * label_smoothed_variance(y[m], r[m], measure, est, xt)
    return est, np.sqrt(var), xt, n_single, np.sqrt(np.maximum(var, var_s))


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
    # never below the textbook variance: averaging (1-π)/π² within a bin loses the
    # correlation between the largest weights and the largest residuals
    var_s = np.maximum(var, _poisson_smoothed_variance(z, pi, est, xt, measure, y, r))
    return est, np.sqrt(var), xt, np.sqrt(var_s)


def _poisson_smoothed_variance(z, pi, est, xt, measure: str, y, r, n_bins: int = 5):
    r"""Poisson-design variance with the residual cells smoothed within bins of π.

    Rows are grouped into up to ``n_bins`` bins of similar inclusion probability (at least
    20 rows each); within bin b the residual distribution is replaced by its smoothed
    version (:func:`label_smoothed_variance`), giving
    :math:`\sum_b \overline{(1-π)/π^2}_b\, n_b \sum_c \tilde p_{bc} e_c^2` (the smoothed
    second moment of the residuals in bin b; uncentred, as in the Poisson-design variance).
    A rare, heavily weighted event (e.g. a positive with a tiny π that the sample missed)
    then still contributes variance; the textbook estimator gives it none.
    """
    n = len(pi)
    order = np.argsort(pi, kind="stable")
    n_b = max(1, min(n_bins, n // 20))
    var = np.zeros(z.shape[1])
    for idx in np.array_split(order, n_b):
        m = len(idx)
        if m < 2:
            continue
        factor = float(np.mean((1.0 - pi[idx]) / pi[idx] ** 2))
        var += factor * m * label_smoothed_variance(y[idx], r[idx], measure, est, xt,
                                                    centered=False)
    return var


#: residual e = (z - R x)/X of each (rule prediction, label) cell, as (coefficient of
#: 1/X, coefficient of -R/X): z and x of the three measures
_CELL_RESIDUAL = {
    "precision": {(1, 1): 1.0, (1, 0): 0.0},
    "sensitivity": {(1, 1): 1.0, (0, 1): 0.0},
    "specificity": {(0, 0): 1.0, (1, 0): 0.0},
}


def label_smoothed_variance(y, r, measure: str, est, xt, centered: bool = True):
    r"""Residual variance of one stratum with a Jeffreys prior on the unknown labels.

    The rule's predictions are known; only the labels are not. Within each prediction
    cell (r = 0, r = 1) of the stratum the label rate is taken as the posterior mean under
    a Beta(1/2, 1/2) prior, :math:`(n_{r1} + 1/2)/(n_r + 1)`, and the cell's share as its
    sample share :math:`n_r/n_h`. The four (r, y) cells then carry the residuals
    :math:`e = (z - \hat R x)/\hat X` of the measure (0, :math:`-\hat R/\hat X` or
    :math:`(1 - \hat R)/\hat X`), and the stratum variance is
    :math:`\frac{n_h}{n_h-1}(\sum_c \tilde p_c e_c^2 - (\sum_c \tilde p_c e_c)^2)`
    (``centered=False``: the second moment). A cell the sample shows no example of keeps
    probability 0: a rule that never fires in a stratum gets no invented prediction there
    (the smoothing of a simple random sample is that of one stratum, so it does not
    penalise stratified designs); a cell whose labels were all one class gets the other
    class with rate 1/(2(n_r + 1)).
    """
    y = np.asarray(y, float).reshape(-1, 1)
    r = np.asarray(r, float)
    n_h = len(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        one = np.where(xt > 0, (1.0 - est) / xt, 0.0)
        minus = np.where(xt > 0, -est / xt, 0.0)
    one, minus = np.nan_to_num(one), np.nan_to_num(minus)
    mean = np.zeros(r.shape[1])
    second = np.zeros(r.shape[1])
    for rv in (0, 1):
        in_cell = r == rv
        n_r = in_cell.sum(axis=0)
        rate = (((y == 1) & in_cell).sum(axis=0) + 0.5) / (n_r + 1.0)
        share = n_r / n_h
        for yv, p_y in ((1, rate), (0, 1.0 - rate)):
            kind = _CELL_RESIDUAL[measure].get((rv, yv))
            if kind is None:
                continue
            e = one if kind == 1.0 else minus
            mean += share * p_y * e
            second += share * p_y * e * e
    if not centered:
        return second
    return n_h / max(n_h - 1.0, 1.0) * np.maximum(second - mean ** 2, 0.0)
