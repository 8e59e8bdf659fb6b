"""Coverage and width of evalstats.budget.evaluate_rules intervals: the Jeffreys smoothing
of the unknown labels (the package) against the textbook variance and against half a
pseudo-count in each residual cell of every stratum (the earlier smoothing), under
stratified, simple random and Poisson designs at equal labels.

Pools. Development: ``sim_pool`` (the smoothing was chosen on it). Fresh (specified before
the first run, never used to choose): 30,000 items with scores s ~ Beta(0.5, b), b set so
that mean(s) is 1 % or 10 %, labels y ~ Bernoulli(s).
Designs (as ``budget_label_reduction.py``): stratified, strata = the top 2 x prevalence of
the score and the rest, 200 / 100 labels; simple random, 300; Poisson, inclusion
probability proportional to score + 0.05, expected 300. Rules: the top prevalence/2,
prevalence and 2 x prevalence of the score, and score > 0.2.

Run:  python benchmarks/budget_design_smoothing.py [--reps 200] [--family dev|fresh|both]
Writes benchmarks/results/budget_design_smoothing.csv.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evalstats.budget._estimates as E
from evalstats import datasets
from evalstats.budget import LabelDesign, evaluate_rules

RESULTS = Path(__file__).resolve().parent / "results"
PACKAGE = E.label_smoothed_variance


def cell_smoothed_variance(y, r, measure, est, xt, centered=True):
    """The earlier smoothing: half a pseudo-count in each of the three residual cells
    (x = 0; x = 1, z = 0; x = 1, z = 1) of a stratum (precision: only where some x = 1)."""
    num_f, den_f = E.MEASURE_PARTS[measure]
    y = np.asarray(y, float).reshape(-1, 1)
    z, x = num_f(y, r), den_f(y, r)
    n_h = len(y)
    n10 = ((x == 1) & (z == 0)).sum(axis=0)
    n11 = ((x == 1) & (z == 1)).sum(axis=0)
    c = np.where((n10 + n11 > 0) | (measure != "precision"), 0.5, 0.0)
    tot = n_h + 3 * c
    p10, p11 = (n10 + c) / tot, (n11 + c) / tot
    with np.errstate(divide="ignore", invalid="ignore"):
        e10 = np.nan_to_num(np.where(xt > 0, -est / xt, 0.0))
        e11 = np.nan_to_num(np.where(xt > 0, (1.0 - est) / xt, 0.0))
    mean, second = p10 * e10 + p11 * e11, p10 * e10 ** 2 + p11 * e11 ** 2
    if not centered:
        return second
    return n_h / (n_h - 1.0) * np.maximum(second - mean ** 2, 0.0)


def pools(family, rng):
    if family == "dev":
        sim = datasets.load("sim_pool")
        return {"sim_pool": (sim["label"].to_numpy().astype(int), sim["prob"].to_numpy(float))}
    out = {}
    for prev in (0.01, 0.10):
        s = np.clip(rng.beta(0.5, 0.5 * (1 - prev) / prev, size=30_000), 1e-6, 1 - 1e-6)
        out[f"beta{prev:g}"] = ((rng.random(30_000) < s).astype(int), s)
    return out


def draw(design, y, s, stratum, sizes, pi, rng):
    n = len(y)
    if design == "stratified":
        idx = np.concatenate([rng.choice(np.flatnonzero(stratum == h), min(nh, sizes[h]),
                                         replace=False) for h, nh in ((0, 200), (1, 100))])
        return idx, LabelDesign.stratified(stratum[idx], sizes)
    if design == "simple":
        return rng.choice(n, 300, replace=False), LabelDesign.simple(n, 300)
    idx = np.flatnonzero(rng.random(n) < pi)
    return idx, LabelDesign.poisson(pi[idx])


def run(y, s, reps, rng):
    prev = y.mean()
    stratum = (s > np.quantile(s, 1 - 2 * prev)).astype(int)
    sizes = {h: int((stratum == h).sum()) for h in (0, 1)}
    rules = {f"top{q:.3g}": (s > np.quantile(s, 1 - q)).astype(int)
             for q in (prev / 2, prev, 2 * prev)}
    rules["p>0.2"] = (s > 0.2).astype(int)
    rules = {k: r for k, r in rules.items() if r.sum() > 0}
    truth = {k: dict(precision=(y * r).sum() / r.sum(), recall=(y * r).sum() / y.sum(),
                     specificity=((1 - y) * (1 - r)).sum() / (1 - y).sum())
             for k, r in rules.items()}
    pi = np.minimum(1.0, (s + 0.05) * 300 / (s + 0.05).sum())
    acc = {}
    for design in ("stratified", "simple", "poisson"):
        for _ in range(reps):
            idx, d = draw(design, y, s, stratum, sizes, pi, rng)
            for variant, fn in (("package", PACKAGE), ("cells", cell_smoothed_variance),
                                ("textbook", PACKAGE)):
                E.label_smoothed_variance = fn
                ev = evaluate_rules(y[idx], {k: r[idx] for k, r in rules.items()}, d)
                method = "korn_graubard" if variant == "textbook" else None
                for rec in ev.tidy(method=method).to_dict("records"):
                    t = truth[rec["rule"]][rec["measure"]]
                    lo, hi = rec["conf_low"], rec["conf_high"]
                    ok = bool(np.isfinite(lo) and lo <= t <= hi)
                    c = acc.setdefault((design, variant, rec["rule"], rec["measure"]), [0, 0.0])
                    c[0] += ok
                    c[1] += hi - lo if np.isfinite(lo) else 1.0
    E.label_smoothed_variance = PACKAGE
    return pd.DataFrame([dict(design=d, variant=v, rule=r, measure=m, reps=reps,
                              coverage=h / reps, se=np.sqrt(h / reps * (1 - h / reps) / reps),
                              mean_width=w / reps)
                         for (d, v, r, m), (h, w) in acc.items()])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--family", choices=("dev", "fresh", "both"), default="both")
    args = ap.parse_args(argv)
    families = ("dev", "fresh") if args.family == "both" else (args.family,)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fam in families:
            rng = np.random.default_rng(40 if fam == "dev" else 4040)
            for name, (y, s) in pools(fam, rng).items():
                out.append(run(y, s, args.reps, rng).assign(family=fam, pool=name,
                                                            prevalence=y.mean()))
    df = pd.concat(out, ignore_index=True)
    RESULTS.mkdir(exist_ok=True)
    df.to_csv(RESULTS / "budget_design_smoothing.csv", index=False)
    pd.set_option("display.width", 250)
    for col in ("coverage", "mean_width"):
        print(df.pivot_table(index=["pool", "rule", "measure"], columns=["design", "variant"],
                             values=col).round(3).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
