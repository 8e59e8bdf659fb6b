"""Benchmark for evalstats.budget (Valizadegan et al., SDM 2012).

Default run (sized for one core of a shared 2-core machine, ~10 min):

A. **Plan coverage** for random AND informative rules. Pools: sim_pool (the README example's
   setting: |S| = 20,000, prevalence 0.034, rule rate 0.05, half-width 0.02) and the test
   70 % of connect-4 (draw), letter (A vs rest) and spambase (spam), scored by a logistic
   regression fitted on the other 30 %. Informative rules flag the top 5 % / 10 % of the
   scores; random rules flag the same number of random examples (a new rule each
   replication). For each plan (rules any/random x strategy positives/random, exact bound)
   the labels of each measure's plan are drawn (random positives, or random examples)
   and the estimator the plan is for is computed (deterministic midpoint, subset estimate,
   or the paper's plug-in mean with the prevalence known); coverage = share of
   replications with |estimate - truth| <= half-width (binomial SE reported).
B. **evaluate_rules coverage** under each design it accepts: stratified (strata = top
   2 x prevalence of the score, 200 / 100 labels), simple random (300), Poisson (inclusion
   probability proportional to score + 0.05, expected 300); the blind design is refused
   (recorded). Rules: score thresholds at rates prevalence/2, prevalence, 2 x prevalence.
C. **Speed** of plan_labels for n_pool = 1e4 ... 1e12 (median of 3 runs).

``--paper`` adds the Section-5 experiments (label reduction of guided vs random
sampling at equal error; bound tightness), slow (~1 h).

Run:  python benchmarks/budget_label_reduction.py [--quick] [--paper]
Writes benchmarks/results/budget_plan_coverage.csv, budget_design_coverage.csv,
budget_plan_speed.csv (and with --paper budget_label_reduction.csv, budget_bound_tightness.csv).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evalstats import datasets, map_replicates
from evalstats.budget import (
    LabelDesign,
    bernstein_bound,
    evaluate_rules,
    guided_sample,
    plan_labels,
)
from evalstats.budget.simulation import (
    empirical_positives_needed,
    error_curve,
    labels_to_reach,
    random_rules,
)

RESULTS = Path(__file__).resolve().parent / "results"


def load_pools(quick: bool):
    """Rare-positive pools from ../shared/datasets (connect-4 draw, letter 'A' vs rest)."""
    if datasets.find_shared_datasets() is None:
        raise SystemExit("../shared/datasets not found: this benchmark needs connect4/letter.")
    df = datasets.load("connect4")
    pools = {"connect4-draw": (pd.get_dummies(df.drop(columns="class")).to_numpy(np.float32),
                               (df["class"] == "draw").to_numpy().astype(int))}
    if not quick:
        lt = datasets.load("letter")
        pools["letter-A"] = (lt.drop(columns="letter").to_numpy(np.float32),
                             (lt["letter"] == "A").to_numpy().astype(int))
    return pools


class _Sampler:
    """Picklable task for map_replicates: one guided (or random) sample per seed."""

    def __init__(self, X, y, n_labels, strategy):
        self.X, self.y, self.n_labels, self.strategy = X, y, n_labels, strategy

    def __call__(self, i, gen):
        return guided_sample(self.X, self.y, self.n_labels, strategy=self.strategy,
                             n_seed=100, batch_size=5, rng=gen)


def reduction_rows(name, X, y, args, rng):
    n_pool = len(y)
    guided = map_replicates(_Sampler(X, y, args.n_labels, "guided"), args.seeds, rng=rng,
                            n_jobs=args.n_jobs, desc="guided")
    rnd = map_replicates(_Sampler(X, y, args.n_random, "random"), args.seeds, rng=rng,
                         n_jobs=args.n_jobs, desc="random")
    grid_g = np.unique(np.linspace(100, args.n_labels, 39).astype(int))
    grid_r = np.unique(np.geomspace(50, args.n_random, 40).astype(int))
    rows = []
    for rate in args.rates:
        rules = random_rules(n_pool, int(rate * n_pool), args.rules, rng)
        curves = {}
        for s in range(args.seeds):
            for est in ("subset", "blind", "plugin"):
                curves.setdefault(f"guided/{est}", []).append(
                    error_curve(y, rules, guided[s].indices, grid_g, est, rng))
            for est in ("subset", "plugin"):
                curves.setdefault(f"random/{est}", []).append(
                    error_curve(y, rules, rnd[s].indices, grid_r, est, rng))
        avg = {k: pd.concat(v).groupby(["measure", "n_labels"], as_index=False)["mean_error"]
               .mean() for k, v in curves.items()}
        for target in args.targets:
            n_r = labels_to_reach(avg["random/subset"], "precision", target)
            for scheme in ("guided/subset", "guided/blind", "guided/plugin", "random/plugin"):
                n_g = labels_to_reach(avg[scheme], "precision", target)
                rows.append(dict(dataset=name, prevalence=y.mean(), rule_rate=rate,
                                 target_error=target, scheme=scheme, labels_guided=n_g,
                                 labels_random=n_r, reduction=1 - n_g / n_r,
                                 positives_found=np.mean([g.labels.sum() for g in guided])))
    return rows


def tightness_rows(name, y, args, rng):
    rows = []
    n_pos = int(y.sum())
    grid = np.unique(np.linspace(0, n_pos, 400 if not args.quick else 100).astype(int))
    for rate in args.rates:
        for h in args.half_widths:
            t0 = time.perf_counter()
            need = empirical_positives_needed(y, rate, "precision", h, 0.95, 2 * args.rules,
                                              grid, rng)
            for variance in ("hypergeometric", "paper"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    plan = plan_labels(len(y), y.mean(), rate, half_width=h,
                                       measures=("precision",), variance=variance,
                                       rules="random")
                tab = plan.table[(plan.table["strategy"] == "positives")
                                 & (plan.table["rules"] == "random")]
                for rec in tab.to_dict("records"):
                    rows.append(dict(dataset=name, rule_rate=rate, half_width=h,
                                     variance=variance, bound=rec["bound"],
                                     plan_positives=rec["n_positive"],
                                     needed_positives=need,
                                     excess_positives=rec["n_positive"] - need,
                                     tightness_ratio=rec["n_positive"] / need if need else
                                     float("nan"),
                                     seconds=time.perf_counter() - t0))
    return rows


MEASURES = ("precision", "recall", "specificity")


def scored_pools(quick: bool, rng):
    """{name: (y, score)}: sim_pool as is; real pools scored by a logistic regression
    fitted on a random 30 % (the pool is the other 70 %)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    sim = datasets.load("sim_pool")
    pools = {"sim_pool": (sim["label"].to_numpy().astype(int), sim["prob"].to_numpy(float))}
    if datasets.find_shared_datasets() is None:
        print("../shared/datasets not found: only sim_pool")
        return pools
    raw = {"connect4-draw": lambda d: (pd.get_dummies(d.drop(columns="class")),
                                       d["class"] == "draw"),
           "letter-A": lambda d: (d.drop(columns="letter"), d["letter"] == "A"),
           "spambase": lambda d: (d.drop(columns="spam"), d["spam"] == 1)}
    files = {"connect4-draw": "connect4", "letter-A": "letter", "spambase": "spambase"}
    for name in (("connect4-draw",) if quick else tuple(raw)):
        X, y = raw[name](datasets.load(files[name]))
        X, y = X.to_numpy(np.float64), y.to_numpy().astype(int)
        train = rng.random(len(y)) < 0.3
        sc = StandardScaler().fit(X[train])
        clf = LogisticRegression(max_iter=2000).fit(sc.transform(X[train]), y[train])
        pools[name] = (y[~train], clf.predict_proba(sc.transform(X[~train]))[:, 1])
    return pools


def _truth(y, r):
    tp = int((y & r).sum())
    return np.array([tp / r.sum(), tp / y.sum(), int((~y & ~r).sum()) / (~y).sum()])


def _estimate(kind, y, r, idx, n_pos):
    """The estimator each plan is for, on the labeled indices ``idx``."""
    n, size = len(y), int(r.sum())
    yl, rl = y[idx], r[idx]
    tp_l, fp_l = int((yl & rl).sum()), int((~yl & rl).sum())
    tn_l, n_lpos = int((~yl & ~rl).sum()), int(yl.sum())
    if kind == "deterministic":  # labeled positives: midpoint of the range of any rule
        k = len(idx)
        u_pos, u_neg, a = n_pos - k, n - n_pos, size - tp_l
        lo, hi = max(0, a - u_neg), min(a, u_pos)
        tp = tp_l + (lo + hi) / 2
        tn = u_neg - a + (lo + hi) / 2
        return np.array([tp / size, tp / n_pos, tn / (n - n_pos)])
    if kind == "subset":
        if len(idx) == 0:   # measures the feasibility bounds pin: midpoint of the range
            return np.array([np.mean(bernstein_bound(
                m, n_pool=n, n_pool_positive=n_pos, n_rule_positive=size
            ).deterministic_range) for m in MEASURES])
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.array([tp_l, tp_l, tn_l], float) / np.array(
                [tp_l + fp_l, n_lpos, len(idx) - n_lpos], float)
    u = n - len(idx)  # plug-in means (eqs 3.4-3.10), prevalence known (or estimated)
    eps = (n_pos - n_lpos) / u
    u_rpos = size - tp_l - fp_l
    tp = tp_l + u_rpos * eps
    return np.array([tp / size, tp / n_pos, (tn_l + (u - u_rpos) * (1 - eps)) / (n - n_pos)])


PLANS = [("any", "positives", "deterministic", "deterministic"),
         ("any", "random", "exact", "subset"),
         ("random", "positives", "exact", "plugin"),
         ("random", "random", "exact", "plugin")]


def unknown_prevalence_rows(name, y, args, rng):
    """Random-rule plans with prevalence_known=False: n_prevalence random labels estimate
    the prevalence, k positives are labeled, and the plug-in means use the estimate (for
    the unlabeled positive rate and the recall/specificity denominators)."""
    y = y.astype(bool)
    n, n_pos = len(y), int(y.sum())
    size = int(round(0.05 * n))
    rows = []
    for h in (0.05, 0.1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = plan_labels(n, n_pos / n, size / n, half_width=h, rules="random",
                               strategy="positives", prevalence_known=False)
        # positives to label (n_total adds the search and the prevalence sample)
        need = plan.headline().set_index("measure")["n_positive"]
        hits = np.zeros(3)
        for _ in range(args.reps):
            r = np.zeros(n, bool)
            r[rng.choice(n, size, replace=False)] = True
            truth = _truth(y, r)
            n_pos_hat = int(round(n * y[rng.choice(n, plan.n_prevalence, replace=False)]
                                  .mean()))
            for j, m in enumerate(MEASURES):
                k = min(int(need[m]), n_pos)
                idx = rng.choice(np.flatnonzero(y), k, replace=False)
                est = _estimate("plugin", y, r, idx, max(n_pos_hat, k))[j]
                hits[j] += bool(np.isfinite(est) and abs(est - truth[j]) <= h + 1e-12)
        for j, m in enumerate(MEASURES):
            cov = hits[j] / args.reps
            rows.append(dict(dataset=name, n_pool=n, prevalence=n_pos / n, rule_rate=0.05,
                             half_width=h, plan_rules="random", strategy="positives",
                             bound="exact", estimator="plugin, prevalence estimated",
                             rule_kind="random", measure=m, labels=int(need[m]),
                             plan_total=plan.n_total, reps=args.reps, coverage=cov,
                             se=np.sqrt(cov * (1 - cov) / args.reps)))
    return rows


def plan_coverage_rows(name, y, score, args, rng):
    y = y.astype(bool)
    n, n_pos = len(y), int(y.sum())
    rows = []
    settings = [(0.05, 0.02)] if name == "sim_pool" else [(0.05, 0.03), (0.10, 0.03)]
    # a tight target where random-rule plans need labels (random class counts matter)
    settings.append((0.05, 0.004 if name == "sim_pool" else 0.006))
    for rate, h in settings:
        tight = h < 0.01
        size = int(round(rate * n))
        informative = np.zeros(n, bool)
        informative[np.argsort(-(score + 1e-9 * rng.random(n)), kind="stable")[:size]] = True
        for rules, strategy, bound, est_kind in PLANS:
            if tight and rules == "any":
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                plan = plan_labels(n, n_pos / n, size / n, half_width=h, rules=rules,
                                   strategy=strategy, bound="exact")
            # positives to label, or random labels (n_total adds the search for positives)
            need = plan.headline().set_index("measure")[
                "n_positive" if strategy == "positives" else "n_total"]
            for rule_kind in ("informative", "random"):
                t0 = time.perf_counter()
                hits = np.zeros(3)
                for _ in range(args.reps):
                    r = informative
                    if rule_kind == "random":
                        r = np.zeros(n, bool)
                        r[rng.choice(n, size, replace=False)] = True
                    truth = _truth(y, r)
                    for j, m in enumerate(MEASURES):
                        k = int(need[m])
                        idx = (rng.choice(np.flatnonzero(y), k, replace=False)
                               if strategy == "positives" else rng.choice(n, k, replace=False))
                        est = _estimate(est_kind, y, r, idx, n_pos)[j]
                        hits[j] += bool(np.isfinite(est) and abs(est - truth[j]) <= h + 1e-12)
                for j, m in enumerate(MEASURES):
                    cov = hits[j] / args.reps
                    rows.append(dict(dataset=name, n_pool=n, prevalence=n_pos / n,
                                     rule_rate=rate, half_width=h, plan_rules=rules,
                                     strategy=strategy, bound=bound, estimator=est_kind,
                                     rule_kind=rule_kind, measure=m, labels=int(need[m]),
                                     plan_total=plan.n_total, reps=args.reps, coverage=cov,
                                     se=np.sqrt(cov * (1 - cov) / args.reps),
                                     seconds=time.perf_counter() - t0))
    return rows


def design_coverage_rows(name, y, score, args, rng):
    n = len(y)
    prev = y.mean()
    stratum = (score > np.quantile(score, 1 - 2 * prev)).astype(int)
    sizes = {h: int((stratum == h).sum()) for h in (0, 1)}
    rates = (prev / 2, prev, 2 * prev)
    rules = {f"top{100 * q:.3g}%": (score > np.quantile(score, 1 - q)).astype(int)
             for q in rates}
    truth = {}
    for k, r in rules.items():
        tp = (y * r).sum()
        truth[k] = dict(precision=tp / r.sum(), recall=tp / y.sum(),
                        specificity=((1 - y) * (1 - r)).sum() / (1 - y).sum())
    pi = np.minimum(1.0, (score + 0.05) * 300 / (score + 0.05).sum())
    rows = []
    for design in ("stratified", "simple", "poisson", "blind"):
        if design == "blind":
            is_blind = np.zeros(300, bool)
            is_blind[200:] = True
            try:
                evaluate_rules(np.r_[np.ones(200, int), np.zeros(100, int)],
                               np.ones((300, 1), int), LabelDesign.blind(is_blind, n))
                refused = False
            except ValueError:
                refused = True
            rows.append(dict(dataset=name, design="blind", rule="all", measure="all",
                             reps=0, coverage=float("nan"), se=float("nan"),
                             refused=refused))
            continue
        hits, width, t0 = {}, {}, time.perf_counter()
        for _ in range(args.design_reps):
            if design == "stratified":
                idx = np.concatenate([rng.choice(np.flatnonzero(stratum == h),
                                                 min(nh, sizes[h]), replace=False)
                                      for h, nh in ((0, 200), (1, 100))])
                d = LabelDesign.stratified(stratum[idx], sizes)
            elif design == "simple":
                idx = rng.choice(n, 300, replace=False)
                d = LabelDesign.simple(n, 300)
            else:
                idx = np.flatnonzero(rng.random(n) < pi)
                d = LabelDesign.poisson(pi[idx])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                td = evaluate_rules(y[idx], {k: r[idx] for k, r in rules.items()}, d).tidy()
            for rec in td.to_dict("records"):
                key = (rec["rule"], rec["measure"])
                t = truth[rec["rule"]][rec["measure"]]
                ok = bool(rec["conf_low"] <= t <= rec["conf_high"])
                hits[key] = hits.get(key, 0) + ok
                width[key] = width.get(key, 0.0) + (rec["conf_high"] - rec["conf_low"]
                                                    if np.isfinite(rec["conf_low"]) else 1.0)
        for (rule, m), hcount in hits.items():
            cov = hcount / args.design_reps
            rows.append(dict(dataset=name, design=design, rule=rule, measure=m,
                             reps=args.design_reps, coverage=cov,
                             se=np.sqrt(cov * (1 - cov) / args.design_reps),
                             mean_width=width[rule, m] / args.design_reps, refused=False,
                             seconds=time.perf_counter() - t0))
    return rows


def speed_rows():
    rows = []
    for n_pool in (10**4, 10**6, 10**9, 10**12):
        for known in (True, False):
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    plan = plan_labels(n_pool, 0.03, 0.05, half_width=0.02,
                                       prevalence_known=known)
                times.append(time.perf_counter() - t0)
            rows.append(dict(n_pool=n_pool, prevalence_known=known,
                             seconds_median=float(np.median(times)), n_total=plan.n_total,
                             strategy=plan.strategy))
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small run (sim_pool + connect-4)")
    ap.add_argument("--paper", action="store_true",
                    help="also the Section-5 experiments (label reduction, tightness; slow)")
    ap.add_argument("--design-only", action="store_true",
                    help="only B (evaluate_rules coverage), 300 reps, seed 77: writes "
                         "budget_design_coverage_check.csv")
    ap.add_argument("--n-jobs", type=int, default=None,
                    help="joblib workers for the sampling seeds (results do not depend on it)")
    args = ap.parse_args(argv)
    q = args.quick
    args.reps = 200 if q else 1000
    args.design_reps = 100 if q else 300
    rng = np.random.default_rng(2012)
    RESULTS.mkdir(exist_ok=True)
    pd.set_option("display.width", 200)
    if args.design_only:
        rows = []
        for name, (y, score) in scored_pools(False, rng).items():
            rows += design_coverage_rows(name, y, score, args, np.random.default_rng(77))
        out = pd.DataFrame(rows)
        out.to_csv(RESULTS / "budget_design_coverage_check.csv", index=False)
        print(out.drop(columns=["seconds"], errors="ignore").round(4).to_string(index=False))
        return 0
    speed = pd.DataFrame(speed_rows())
    speed.to_csv(RESULTS / "budget_plan_speed.csv", index=False)
    print("C. plan_labels speed (median of 3)\n" + speed.round(3).to_string(index=False))
    cover, design = [], []
    for name, (y, score) in scored_pools(q, rng).items():
        t0 = time.perf_counter()
        cover += plan_coverage_rows(name, y, score, args, rng)
        cover += unknown_prevalence_rows(name, y, args, rng)
        design += design_coverage_rows(name, y, score, args, rng)
        print(f"{name}: {time.perf_counter() - t0:.0f} s", flush=True)
    cover, design = pd.DataFrame(cover), pd.DataFrame(design)
    cover.to_csv(RESULTS / "budget_plan_coverage.csv", index=False)
    design.to_csv(RESULTS / "budget_design_coverage.csv", index=False)
    cols = ["dataset", "rule_rate", "half_width", "plan_rules", "strategy", "rule_kind",
            "measure", "labels", "coverage", "se"]
    print("\nA. Plan coverage: P(|estimate - truth| <= half-width), target 0.95")
    print(cover[cols].round(4).to_string(index=False))
    print("\nB. evaluate_rules coverage of the default 95% interval")
    print(design.drop(columns=["seconds"], errors="ignore").round(4).to_string(index=False))
    if args.paper:
        paper_experiments(args)
    return 0


def paper_experiments(args) -> None:
    """Section 5 of the paper: label reduction and bound tightness (slow)."""
    q = args.quick
    args.seeds = 1 if q else 3
    args.rules = 30 if q else 100
    args.n_labels = 600 if q else 2000
    args.n_random = 4000 if q else 12000
    args.rates = (0.05, 0.15) if q else (0.05, 0.10, 0.15, 0.20, 0.30)
    args.targets = (0.05, 0.025)
    args.half_widths = (0.005, 0.0025)
    rng = np.random.default_rng(2012)
    red, tight = [], []
    for name, (X, y) in load_pools(q).items():
        t0 = time.perf_counter()
        red += reduction_rows(name, X, y, args, rng)
        tight += tightness_rows(name, y, args, rng)
        print(f"{name}: {time.perf_counter() - t0:.0f} s")
    red, tight = pd.DataFrame(red), pd.DataFrame(tight)
    red.to_csv(RESULTS / "budget_label_reduction.csv", index=False)
    tight.to_csv(RESULTS / "budget_bound_tightness.csv", index=False)
    print("\nLabel reduction at equal mean precision error (guided vs random/subset)")
    print(red.round(4).to_string(index=False))
    print("\nBound tightness: plan positives / positives actually needed (95% of rules)")
    print(tight.drop(columns="seconds").round(3).to_string(index=False))


if __name__ == "__main__":
    raise SystemExit(main())
