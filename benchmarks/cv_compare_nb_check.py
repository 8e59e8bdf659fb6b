"""Coverage and power of ``compare_learners`` on the CLI demo's design (issue 13).

Naive Bayes vs the majority-class guess, n = 60, g = 15: X ~ N(0, I₃),
y = 1{x₁ + 0.5 x₂ + logistic noise > 0}, zero-one loss. The true difference
θ_NB(15) − θ_majority(15) is computed by Monte Carlo (exact conditional errors on 4,000
test points, 4,000 learning sets; learning sets with one class are skipped as the
learners cannot be compared there). Each replication draws a data set and runs
``compare_learners`` with its defaults; the default (score-type) interval and
test and the plain t interval and test are read from the same result. Coverage counts
every replication (a fallback interval as it comes out).

Usage: ``python benchmarks/cv_compare_nb_check.py [--reps R] [--seed S] [--out DIR]
[--combine RAW ...]``. Writes ``cv_compare_nb_check_raw.csv`` and prints the summary.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from _runs import output_dir, pooled_runs_parser
from sklearn.dummy import DummyClassifier
from sklearn.naive_bayes import GaussianNB

from evalstats.cv_variance import compare_learners

N, G = 60, 15


def simulate(m, rng):
    X = rng.normal(size=(m, 3))
    return X, (X[:, 0] + 0.5 * X[:, 1] + rng.logistic(size=m) > 0).astype(int)


def truth(rng, n_sets=4000, n_test=4000):
    """θ_NB(g) − θ_majority(g) and its Monte-Carlo s.e."""
    Xt = rng.normal(size=(n_test, 3))
    p = 1 / (1 + np.exp(-(Xt[:, 0] + 0.5 * Xt[:, 1])))
    d = np.full(n_sets, np.nan)
    for k in range(n_sets):
        X, y = simulate(G, rng)
        if len(np.unique(y)) == 2:
            e = [np.where(m.fit(X, y).predict(Xt) == 1, 1 - p, p).mean()
                 for m in (GaussianNB(), DummyClassifier())]
            d[k] = e[0] - e[1]
    ok = np.isfinite(d)
    return float(d[ok].mean()), float(d[ok].std(ddof=1) / np.sqrt(ok.sum()))


def replicate(reps, seed):
    rows = []
    for gen in np.random.default_rng(seed).spawn(reps):
        X, y = simulate(N, gen)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = compare_learners(GaussianNB(), DummyClassifier(), X, y, train_size=G, rng=gen,
                                 progress=False)
        (lo, hi), (lo_t, hi_t) = r.conf_int(), r.conf_int(method="t")
        rows.append(dict(seed=seed, estimate=r.estimate, std_error=r.std_error,
                         p_value=r.p_value, p_value_t=r.diagnostics["p_value_t"], lo=lo, hi=hi,
                         lo_t=lo_t, hi_t=hi_t, coupling=r.coupling, skewness=r.skewness,
                         skew_shrink=r.diagnostics["skew_shrink"], n_draws=r.n_draws,
                         fallback=bool(r.variance_fallback), df=r.df,
                         variance_estimate=r.variance_estimate,
                         leading_variance=r.leading_variance, mc_se=r.mc_se,
                         jk_var_theta=r.diagnostics["jackknife"]["var_theta"]))
    return pd.DataFrame(rows)


def summarise(raw, theta):
    R = len(raw)
    out = []
    for name, lo, hi, p in (("default", raw.lo, raw.hi, raw.p_value),
                            ("t", raw.lo_t, raw.hi_t, raw.p_value_t)):
        cov = float(np.mean((lo <= theta) & (theta <= hi)))
        out.append(dict(interval=name, reps=R, theta=theta, coverage=cov,
                        coverage_se=np.sqrt(cov * (1 - cov) / R),
                        miss_below=float(np.mean(hi < theta)),
                        miss_above=float(np.mean(lo > theta)),
                        median_width=float(np.median(hi - lo)),
                        rejection_rate=float(np.mean(p < 0.05))))
    res = pd.DataFrame(out)
    res["difference_in_se"] = abs(theta) / raw.estimate.std(ddof=1)
    res["fallback_rate"] = raw.fallback.mean()
    res["median_coupling"] = raw.coupling.median()
    return res


def main(argv=None):
    ap = pooled_runs_parser(__doc__, 120, 11,
                            "pool these raw files (runs with different --seed); no new runs")
    a = ap.parse_args(argv)
    out = output_dir(a.out)
    raw = (pd.concat([pd.read_csv(p) for p in a.combine], ignore_index=True) if a.combine
           else replicate(a.reps, a.seed))
    theta, theta_se = truth(np.random.default_rng(99))
    raw.to_csv(out / "cv_compare_nb_check_raw.csv", index=False)
    res = summarise(raw, theta)
    res.to_csv(out / "cv_compare_nb_check.csv", index=False)
    print(f"true difference {theta:.4f} (MC s.e. {theta_se:.4f})")
    print(res.round(3).to_string(index=False))


if __name__ == "__main__":
    main()
