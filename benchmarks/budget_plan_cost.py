"""Plans of evalstats.budget.plan_labels against the labels actually needed, on fresh pools.

The pools below were specified before this benchmark was first run and after every default
of ``plan_labels`` was chosen (development used sim_pool and the pools of
``budget_label_reduction.py``); none of them was used to choose anything.

**Fresh pools (spec).** N = 20,000 items; latent score z ~ N(0, 1); true probability
s = expit(a + 2 z), with ``a`` set so that mean(s) is the target prevalence
π ∈ {0.005, 0.03, 0.10}; labels y ~ Bernoulli(s) conditioned on exactly round(π N)
positives (rejection), so that the plan's prevalence is exact for every pool; a fresh
pool per replication. Rules: informative, the top q = 5 % of z (ties broken at random).
Targets: half-width 0.02 and 0.05 on precision, recall and specificity at 95 %, jointly
(the default). Pilot scores for the score-order search: the true s (calibrated), and an
overconfident pilot expit(a' + 4 z) with ``a'`` giving the same mean.

**What is measured, per cell.**

* The default plan (any rule, ``strategy="auto"``): its labels to buy, and the share of
  pools on which every measure of the rule is within the half-width after buying them
  (joint coverage, binomial SE); the per-measure plan (``joint=False``) beside it.
* Random labels: the labels actually needed, n95 = the smallest n on a grid at which
  95 % of pools have all three subset estimates within the half-width (the measures the
  feasibility bounds pin are reported at the midpoint of their range), against the plan.
* Labeled positives (deterministic range): the labels a random-order search and a
  score-order search (calibrated and overconfident pilot) actually needed to meet the
  plan's k positives (95 % quantile and mean over pools) against the plan's forecast
  (``n_total`` and ``n_total_mean`` of the deterministic rows, with and without
  ``scores``); and ``guided_sample`` (decision tree on [z, noise], 100 seeds, batches of
  25) on a few pools per cell, for comparison (``--guided N`` pools, default 5).
* The README example (|S| = 20,000, prevalence 0.03, rule rate 0.05, ±0.02) is the
  π = 0.03, h = 0.02 cell.

Run:  python benchmarks/budget_plan_cost.py [--pools 1000] [--guided 5]
Writes benchmarks/results/budget_plan_cost.csv (plan_labels' run time is in
budget_label_reduction.py).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.special import expit

from evalstats.budget import bernstein_bound, guided_sample, plan_labels

RESULTS = Path(__file__).resolve().parent / "results"
N = 20_000
PREVALENCES = (0.005, 0.03, 0.10)
HALF_WIDTHS = (0.02, 0.05)
RULE_RATE = 0.05
MEASURES = ("precision", "recall", "specificity")
#: cells where guided_sample is run (it refits a tree every 25 labels up to the pool)
GUIDED_CELLS = ((0.03, 0.02), (0.10, 0.05))


def intercept(z, slope, target):
    """``a`` with mean(expit(a + slope z)) = target."""
    return brentq(lambda a: expit(a + slope * z).mean() - target, -40, 40)


def conditioned_labels(s, n_pos, rng, max_tries=100_000):
    """Bernoulli(s) labels conditioned on exactly ``n_pos`` positives (rejection)."""
    for _ in range(max_tries):
        y = rng.random(len(s)) < s
        if y.sum() == n_pos:
            return y
    raise RuntimeError("rejection sampling did not hit the positive count")


def truth(y, r):
    tp = (y & r).sum()
    return np.array([tp / r.sum(), tp / y.sum(), (~y & ~r).sum() / (~y).sum()])


def subset_errors(y, r, perm, grid, truth_v, pinned_mid):
    """|subset estimate - truth| of each measure after the first n of ``perm`` (n in
    ``grid``); a pinned measure uses the midpoint of its feasibility range."""
    yp, rp = y[perm], r[perm]
    c_tp = np.cumsum(yp & rp)[grid - 1]
    c_r = np.cumsum(rp)[grid - 1]
    c_y = np.cumsum(yp)[grid - 1]
    c_tn = np.cumsum(~yp & ~rp)[grid - 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        est = np.stack([c_tp / c_r, c_tp / c_y, c_tn / (grid - c_y)])
    for j, mid in pinned_mid.items():
        est[j] = mid
    err = np.abs(est - truth_v[:, None])
    return np.where(np.isfinite(err), err, 1.0)


def kth_position(y_ordered, k):
    """Labels needed to meet the k-th positive in this order (the pool if never)."""
    if k == 0:
        return 0
    c = np.cumsum(y_ordered)
    return int(np.searchsorted(c, k) + 1) if c[-1] >= k else len(y_ordered)


def plans(pi, h, s, s_over):
    kw = dict(n_pool=N, prevalence=round(pi * N) / N, rule_rate=RULE_RATE, half_width=h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(default=plan_labels(**kw), per_measure=plan_labels(**kw, joint=False),
                    scores=plan_labels(**kw, scores=s, strategy="positives"),
                    overconfident=plan_labels(**kw, scores=s_over, strategy="positives"))


def pinned(plan):
    """{measure index: midpoint} for the measures pinned by the feasibility bounds (the
    deterministic range before any label)."""
    out = {}
    for j, m in enumerate(MEASURES):
        lo, hi = bernstein_bound(m, n_pool=plan.n_pool,
                                 n_pool_positive=round(plan.prevalence * plan.n_pool),
                                 n_rule_positive=round(plan.rule_rate * plan.n_pool)
                                 ).deterministic_range
        if (hi - lo) / 2 <= plan.half_width:
            out[j] = (lo + hi) / 2
    return out


def cell(pi, h, args, rng):
    z = rng.normal(size=N)
    s = expit(intercept(z, 2.0, pi) + 2.0 * z)
    s_over = expit(intercept(z, 4.0, pi) + 4.0 * z)
    n_pos = round(pi * N)
    r = np.zeros(N, bool)
    r[np.argsort(-(z + 1e-9 * rng.random(N)))[:round(RULE_RATE * N)]] = True
    p = plans(pi, h, s, s_over)
    det = {k: p[k].table.query("bound == 'deterministic'").set_index("measure")
           for k in ("default", "scores", "overconfident")}
    k_det = int(det["default"]["n_positive"].max())
    n_plan = {k: int(p[k].headline()["n_total"].max()) for k in ("default", "per_measure")}
    rand = p["default"].table.query("strategy == 'random' and bound == 'exact'")
    n_rand = int(rand["n_total"].max())
    grid = np.unique(np.clip(np.rint(np.linspace(0.05, 1.15, 45) * n_rand), 1, N).astype(int))
    mids = pinned(p["default"])
    within = np.zeros((args.pools, len(grid)), bool)
    at_plan = {k: np.zeros((args.pools, 3), bool) for k in n_plan}
    search = {k: np.zeros(args.pools) for k in ("random", "scores", "overconfident")}
    order_s, order_o = (np.argsort(-(v + 1e-12 * rng.random(N))) for v in (s, s_over))
    for i in range(args.pools):
        y = conditioned_labels(s, n_pos, rng)
        t = truth(y, r)
        perm = rng.permutation(N)
        within[i] = (subset_errors(y, r, perm, grid, t, mids) <= h + 1e-12).all(axis=0)
        for k, n in n_plan.items():
            strat = p[k].strategy
            idx = np.array([n]) if n else np.array([1])
            if strat == "random" and n:
                at_plan[k][i] = subset_errors(y, r, perm, idx, t, mids)[:, 0] <= h + 1e-12
            else:   # deterministic range after k positives: certain; check it anyway
                at_plan[k][i] = _range_check(y, r, perm, k_det, h)
        search["random"][i] = kth_position(y[perm], k_det)
        search["scores"][i] = kth_position(y[order_s], k_det)
        search["overconfident"][i] = kth_position(y[order_o], k_det)
    n95 = int(grid[np.flatnonzero(within.mean(axis=0) >= 0.95)[0]]) \
        if (within.mean(axis=0) >= 0.95).any() else np.nan
    guided = _guided(z, s, n_pos, k_det, args, rng) if (pi, h) in GUIDED_CELLS else []
    return _rows(pi, h, p, det, n_plan, at_plan, n_rand, n95, search, guided, k_det, args)


def _range_check(y, r, perm, k, h):
    """Truth in the deterministic range after the first k positives of ``perm``, and the
    range's half-width at most h, for each measure."""
    pos = perm[y[perm]][:k]
    t_v = truth(y, r)
    ok = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # informative hits: flagged, range returned
        for j, m in enumerate(MEASURES):
            lo, hi = bernstein_bound(m, n_pool=N, n_pool_positive=int(y.sum()),
                                     n_rule_positive=int(r.sum()), n_labeled_positive=k,
                                     rule_hits_positive=int(r[pos].sum()),
                                     rule_hits_negative=0).deterministic_range
            ok.append(bool(lo - 1e-12 <= t_v[j] <= hi + 1e-12 and (hi - lo) / 2 <= h + 1e-9))
    return np.array(ok)


def _guided(z, s, n_pos, k, args, rng):
    """Labels guided_sample needed to find k positives (a few pools, the whole pool as
    budget)."""
    out = []
    X = np.column_stack([z, rng.normal(size=N)])
    for _ in range(args.guided):
        y = conditioned_labels(s, n_pos, rng).astype(int)
        res = guided_sample(X, y, N, n_seed=100, batch_size=25, rng=rng)
        out.append(kth_position(res.labels, k))
    return np.array(out, float)


def _rows(pi, h, p, det, n_plan, at_plan, n_rand, n95, search, guided, k_det, args):
    base = dict(prevalence=pi, half_width=h, rule_rate=RULE_RATE, pools=args.pools)
    rows = []
    for k in ("default", "per_measure"):
        cov = at_plan[k].all(axis=1).mean()
        rows.append(base | dict(
            what=f"{k} plan: joint coverage", plan_labels=n_plan[k],
            strategy=p[k].strategy, value=cov, se=np.sqrt(cov * (1 - cov) / args.pools),
            per_measure=", ".join(f"{v:.3f}" for v in at_plan[k].mean(axis=0))))
    rows.append(base | dict(what="random labels: plan vs n95 actually needed",
                            plan_labels=n_rand, strategy="random", value=n95,
                            ratio=n_rand / n95 if n95 else np.nan))
    forecast = dict(random=det["default"], scores=det["scores"],
                    overconfident=det["overconfident"])
    for k, v in search.items():
        rows.append(base | dict(
            what=f"search for {k_det} positives ({k} order): plan q95 / mean vs actual",
            plan_labels=int(forecast[k]["n_total"].max()),
            plan_mean=float(forecast[k]["n_total_mean"].max()),
            value=float(np.quantile(v, 0.95)), actual_mean=float(v.mean())))
    if len(guided):
        rows.append(base | dict(what=f"guided_sample: labels to find {k_det} positives",
                                plan_labels=np.nan, value=float(np.quantile(guided, 0.95)),
                                actual_mean=float(guided.mean()), runs=len(guided)))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pools", type=int, default=1000, help="fresh pools per cell")
    ap.add_argument("--guided", type=int, default=5, help="guided_sample runs per cell")
    ap.add_argument("--seed", type=int, default=4040)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    RESULTS.mkdir(exist_ok=True)
    rows = []
    for pi in PREVALENCES:
        for h in HALF_WIDTHS:
            t0 = time.perf_counter()
            rows += cell(pi, h, args, rng)
            print(f"prevalence {pi}, +/-{h}: {time.perf_counter() - t0:.0f} s", flush=True)
    out = pd.DataFrame(rows)
    out.to_csv(RESULTS / "budget_plan_cost.csv", index=False)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 80)
    print(out.round(4).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
