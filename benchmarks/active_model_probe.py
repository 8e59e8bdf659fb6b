"""Probe (issue 14, not package code): would trusting the model in the far tail beat OASIS?

Every design-unbiased estimator of F1 on a pool with a few far-tail false negatives has a
typical value that misses them (the difference estimator's residual term removes the
model's tail total, ``Σ_U m − Σ_S m/π ≈ 0``) and a rare overshoot of ``1/π`` when one is
drawn: its RMSE is mostly that typical miss. Estimators that borrow the model's tail total
are not design-unbiased; this probe measures two of them, built on the labels of the
package's default design (adaptive batches of 100), side by side with the default:

* ``composite`` — per (batch, prediction group, score stratum) cell the model's total ``P``
  plus the design residual ``R̂`` shrunk by ``w = τ²/(τ² + v)``: ``v`` the model-anticipated
  design variance of ``R̂``, ``τ² = Σ m(1 − m) + σ²_u P²`` the prior variance of the cell's
  residual (Bernoulli noise plus a relative model bias ``σ_u``, moment-estimated over all
  cells). The model is the pool's score rescaled per stratum by a Gamma–Poisson multiplier
  ``(1 + Σ y)/(1 + Σ m)`` (one pseudo-event) from the labels before the batch. Fay–Herriot
  style; ``w`` is fixed before the batch is drawn.
* ``composite_mix`` — ``w F̂_composite + (1 − w) F̂_default`` with ``w = V/(V + (F̂_c − F̂_d)²)``,
  ``V`` the default's variance read off its interval (the James–Stein composite of small
  area estimation: trust the model less where it disagrees with the design estimate).
* ``model_based`` — Bayesian logistic recalibration ``y ~ Bernoulli(σ(a + b·logit m + u_h))``
  (priors a ~ N(0, 3²), b ~ N(1, 0.25²), stratum effects u_h ~ N(0, 0.3²)), fitted on every
  label (the design is ignorable given the scores), Laplace approximation; F1 from 400
  posterior-predictive draws of the unlabeled items' totals (mean; interval: 2.5 / 97.5 %).

Usage: ``python benchmarks/active_model_probe.py [--reps R] [--pools a,b] [--out DIR]``
(``--combine RAW ...`` pools the raw files of runs over disjoint pools);
writes ``active_model_probe.csv`` (one row per pool × method × budget) and
``active_model_probe_raw.csv.gz``, prints RMSE ÷ adaptive OASIS's (from the committed
``active_benchmark.csv``) and coverage. Uses the evaluator's private state.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize, special

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _runs import output_dir, pooled_runs_parser  # noqa: E402
from active_benchmark import RESULTS, load_pools, truth  # noqa: E402

from evalstats.active import ActiveEvaluator  # noqa: E402

POOLS = ("sim_calibrated,sim_overconfident,sim_rare,er_abt_buy,er_abt_buy_rare,tweets100k,"
         "tweets_rare,shuttle_rare,kdd_rare")
BUDGETS = (500, 1000)
PRIOR_A, PRIOR_B, PRIOR_U = 3.0, 0.25, 0.3
N_DRAWS = 400


# -- composite (per-cell Fay–Herriot shrinkage of the design residual) ------------------------

def _stratum_model(prior, stratum, n_strata, idx, y):
    """The scores rescaled per stratum by (1 + Σ y)/(1 + Σ m) over the labels given."""
    if len(idx) == 0:
        return prior.copy()
    s = stratum[idx]
    th = ((1.0 + np.bincount(s, weights=y, minlength=n_strata))
          / (1.0 + np.bincount(s, weights=prior[idx], minlength=n_strata)))
    return np.clip(prior * th[stratum], 0.0, 1.0)


def composite_f1(ev, y_pool):
    ds, _ = ev._pps_sample()
    des, pool = ev._pps, ev._pool
    stratum, ns = des.model.stratum, des.model.n_strata
    f = pool.preds[:, 0]
    ids = np.asarray(ev._draw_idx)[: ds.n_labels]
    bt, lam = ds.item_batch, ds.lambdas()
    cells, known = [], []
    for k in range(len(ds.batches)):
        li = ids[bt < k]
        unl, pi, _, _ = des.inclusion(int(ds.batches[k]["n_target"]), li, y_pool[li])
        mc = _stratum_model(pool.probs, stratum, ns, li, y_pool[li])
        pi_all = unl.scatter(pi)
        si = ids[bt == k]
        cert, sfree = si[pi_all[si] >= 1], si[pi_all[si] < 1]
        free = unl.array[pi < 1]
        row, kn = [], {}
        for g in (0, 1):
            kn[g] = float(y_pool[li][f[li] == g].sum() + y_pool[cert][f[cert] == g].sum())
            u = free[f[free] == g]
            s = sfree[f[sfree] == g]
            bern = mc[u] * (1 - mc[u])
            row.append((np.bincount(stratum[u], weights=mc[u], minlength=ns),
                        np.bincount(stratum[u], weights=bern, minlength=ns),
                        np.bincount(stratum[u], weights=(1 - pi_all[u]) / pi_all[u] * bern,
                                    minlength=ns),
                        np.bincount(stratum[s], weights=(y_pool[s] - mc[s]) / pi_all[s],
                                    minlength=ns)))
        cells.append(row)
        known.append(kn)
    num = sum(float(np.sum(r * r - b - v)) for row in cells for (_, b, v, r) in row)
    den = sum(float(np.sum(p * p)) for row in cells for (p, _, _, _) in row)
    su2 = max(0.0, num / den) if den > 0 else 0.0
    tot, sd = {0: 0.0, 1: 0.0}, {0: 0.0, 1: 0.0}
    for k, row in enumerate(cells):
        for g, (p, b, v, r) in zip((0, 1), row, strict=True):
            tau2 = b + su2 * p * p
            w = np.where(tau2 + v > 0, tau2 / np.maximum(tau2 + v, 1e-300), 1.0)
            tot[g] += lam[k] * (known[k][g] + float(np.sum(p + w * r)))
            sd[g] += lam[k] * np.sqrt(float(np.sum(w * v)))   # batches fully correlated
    return _f1_with_se(tot, sd, float(f.sum()))


def _f1_with_se(tot, sd, n1):
    den = 0.5 * n1 + 0.5 * (tot[1] + tot[0])
    if not den > 0:
        return float("nan"), float("nan")
    d1, d0 = (den - 0.5 * tot[1]) / den ** 2, -0.5 * tot[1] / den ** 2
    return (float(np.clip(tot[1] / den, 0, 1)),
            float(np.hypot(d1 * sd[1], d0 * sd[0])))


# -- model-based (Bayesian logistic recalibration with stratum effects) -----------------------

def _laplace_fit(z, h, y, n_strata):
    X = np.zeros((len(y), 2 + n_strata))
    X[:, 0], X[:, 1] = 1.0, z
    X[np.arange(len(y)), 2 + h] = 1.0
    prec = np.concatenate([[PRIOR_A ** -2, PRIOR_B ** -2], np.full(n_strata, PRIOR_U ** -2)])
    mean = np.concatenate([[0.0, 1.0], np.zeros(n_strata)])

    def nll(t):
        eta = X @ t
        return float(np.sum(np.logaddexp(0, eta) - y * eta) + 0.5 * np.sum(prec * (t - mean) ** 2))

    def grad(t):
        return X.T @ (special.expit(X @ t) - y) + prec * (t - mean)

    t = optimize.minimize(nll, mean.copy(), jac=grad, method="L-BFGS-B").x
    p = special.expit(X @ t)
    return t, np.linalg.inv((X * (p * (1 - p))[:, None]).T @ X + np.diag(prec))


def model_based_f1(ev, y_pool, rng):
    pool, stratum, ns = ev._pool, ev._pps.model.stratum, ev._pps.model.n_strata
    f = pool.preds[:, 0]
    m0 = np.clip(pool.probs, 1e-9, 1 - 1e-9)
    z = np.log(m0) - np.log1p(-m0)
    ids = np.array(sorted(ev._labels))
    t, cov = _laplace_fit(z[ids], stratum[ids], y_pool[ids], ns)
    draws = rng.multivariate_normal(t, cov, size=N_DRAWS, method="cholesky")
    unl = np.ones(len(y_pool), bool)
    unl[ids] = False
    tot = {}
    for g in (0, 1):
        sel = unl & (f == g)
        mean, var = np.zeros(N_DRAWS), np.zeros(N_DRAWS)
        for s in np.unique(stratum[sel]):
            zs = z[sel & (stratum == s)]
            if zs.size > 4000:                      # 2,000 quantile bins
                q = np.quantile(zs, np.linspace(0, 1, 2001))
                zs, wt = 0.5 * (q[1:] + q[:-1]), np.full(2000, zs.size / 2000)
            else:
                wt = np.ones(zs.size)
            p = special.expit(draws[:, [0]] + draws[:, [1]] * zs[None, :] + draws[:, [2 + s]])
            mean += p @ wt
            var += (p * (1 - p)) @ wt
        tot[g] = (float(y_pool[ids][f[ids] == g].sum())
                  + np.maximum(mean + np.sqrt(var) * rng.standard_normal(N_DRAWS), 0.0))
    n1 = float(f.sum())
    draws_f1 = 2 * tot[1] / (n1 + tot[1] + tot[0])
    return (float(np.mean(draws_f1)), float(np.quantile(draws_f1, 0.025)),
            float(np.quantile(draws_f1, 0.975)))


# -- the run -----------------------------------------------------------------------------------

def run_pool(name, pool, reps, seed):
    y = pool["label"]
    rows = []
    for rep, ss in enumerate(np.random.SeedSequence(seed).spawn(reps)):
        rng = np.random.default_rng(ss)
        ev = ActiveEvaluator(pool["scores"], "f1", predictions=pool["pred"], rng=rng)
        for b in BUDGETS:
            while ev.n_labels < b:
                ids = ev.query(min(100, b - ev.n_labels))
                ev.update(ids, y[ids])
            d = ev.result().measures().set_index("measure").loc["f1"]
            c, c_se = composite_f1(ev, y)
            v_d = ((d["conf_high"] - d["conf_low"]) / 3.92) ** 2
            w = v_d / (v_d + (c - d["estimate"]) ** 2) if np.isfinite(c) else 0.0
            mix = w * c + (1 - w) * d["estimate"] if np.isfinite(c) else d["estimate"]
            mb, mb_lo, mb_hi = model_based_f1(ev, y, rng)
            base = dict(pool=name, rep=rep, budget=b)
            rows += [dict(base, method="default", estimate=d["estimate"],
                          conf_low=d["conf_low"], conf_high=d["conf_high"]),
                     dict(base, method="composite", estimate=c, conf_low=c - 1.96 * c_se,
                          conf_high=c + 1.96 * c_se),
                     dict(base, method="composite_mix", estimate=mix, conf_low=np.nan,
                          conf_high=np.nan),
                     dict(base, method="model_based", estimate=mb, conf_low=mb_lo,
                          conf_high=mb_hi)]
    return rows


def summarise(raw, truths):
    committed = pd.read_csv(RESULTS / "active_benchmark.csv")
    oasis = committed[(committed.method == "oasis") & (committed.measure == "f1")].set_index(
        ["pool", "budget"])["rmse"]
    out = []
    for (pool, method, budget), g in raw.groupby(["pool", "method", "budget"], sort=False):
        t = truths[pool]
        err = g.estimate - t
        rmse = float(np.sqrt(np.nanmean(err ** 2)))
        cov = (g.conf_low <= t) & (t <= g.conf_high)
        has_ci = g.conf_low.notna().any()
        out.append(dict(pool=pool, method=method, budget=budget, truth=t, reps=len(g),
                        rmse=rmse, bias=float(np.nanmean(err)),
                        rmse_ratio_to_oasis=rmse / oasis.get((pool, budget), np.nan),
                        coverage=float(cov.mean()) if has_ci else np.nan,
                        mean_width=float((g.conf_high - g.conf_low).mean()) if has_ci
                        else np.nan))
    return pd.DataFrame(out)


def main(argv=None):
    ap = pooled_runs_parser(__doc__, 30, 1426,
                            "pool these raw files (runs over other pools) into the summary")
    ap.add_argument("--pools", default=POOLS)
    a = ap.parse_args(argv)
    out = output_dir(a.out)
    if a.combine:
        raw = pd.concat([pd.read_csv(f) for f in a.combine], ignore_index=True)
        names = list(dict.fromkeys(raw.pool))
        pools = load_pools(names)
        truths = {name: truth(pools[name])["f1"] for name in names}
    else:
        names = a.pools.split(",")
        pools = load_pools(names)
        raw, truths = [], {}
        for name in names:
            truths[name] = truth(pools[name])["f1"]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                raw += run_pool(name, pools[name], a.reps, a.seed)
            print(f"{name} done", flush=True)
        raw = pd.DataFrame(raw)
    res = summarise(raw, truths)
    tag = "" if sorted(names) == sorted(POOLS.split(",")) else "_" + "_".join(names)
    raw.to_csv(out / f"active_model_probe{tag}_raw.csv.gz", index=False)
    res.to_csv(out / f"active_model_probe{tag}.csv", index=False)
    with pd.option_context("display.width", 200):
        print(res.pivot_table(index=["pool", "budget"], columns="method",
                              values=["rmse_ratio_to_oasis", "coverage"]).round(2).to_string())


if __name__ == "__main__":
    main()
