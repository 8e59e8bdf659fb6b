"""Intervals of the default active estimate next to 0 or 1: the floor weight vs Wilson at n*.

The default (``design="pps"``, adaptive) is run on the benchmark pools; each repetition
records, at 200 / 500 / 1000 labels and for every measure, the estimate dict the interval
is built from (:meth:`evalstats.active._ht.DesignSample.estimate`). ``--bed small`` runs
instead nine 2,000-item simulated pools (:func:`small_pool`) with the passive and the
optimal πps proposal (calibrated estimator) and the passive one with the difference
estimator, 30 / 60 / 100 labels from scratch. From those dicts the script computes the
package's interval (an estimate within one s.e. of 0 or 1 whose s.e. is mostly variance
floor is moved toward the boundary rule, :func:`evalstats.active._intervals.boundary_weight`)
and the interval of the previous rule (Wilson at ``n* = Ĝ(1 − Ĝ)/SE²`` of each side's
whole s.e. wherever the estimate is interior), and reports coverage (binomial SE), mean
width of both and the share of intervals that changed per (pool, design, measure,
labels). The estimates are the same under both rules. ``coverage_models_only``: over the
runs in the rare-event regime (their share: ``share_models``), the coverage of the models'
reach alone, the hull of every model pair's ``G̃ ± zσ`` (:mod:`evalstats.active._rare`).

    python benchmarks/active_edge_rule.py --reps 200 --seed 51            # ~50 min, 1 core
    python benchmarks/active_edge_rule.py --bed small --reps 300 --seed 1 \
        --out benchmarks/results/active_edge_rule_small.csv              # ~7 min, 1 core
    python benchmarks/active_edge_rule.py --raw benchmarks/results/active_edge_rule_raw.csv.gz

The committed pools run is two processes over five pools each (``--seed 51`` for
sim_calibrated, sim_overconfident, sim_rare, er_abt_buy, er_abt_buy_rare; ``--seed 52``
for the other five), their raw rows concatenated. Writes the table (``--out``, default
``results/active_edge_rule.csv``) and, after a run, the estimate dicts next to it
(``<out>_raw.csv.gz``, one row per dict).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from active_benchmark import measures_of

from evalstats._result import critical_value
from evalstats.active import ActiveEvaluator
from evalstats.active._estimators import interval_of

RESULTS = Path(__file__).resolve().parent / "results"
POOLS = ("sim_calibrated,sim_overconfident,sim_rare,er_abt_buy,er_abt_buy_rare,tweets100k,"
         "tweets_rare,shuttle_rare,letter_rare,kdd_rare")


def _row(r: dict, **keys) -> dict:
    """One raw row: the keys and an estimate dict's fields."""
    return dict(keys, estimate=r.get("estimate"), design_estimate=r.get("design_estimate"),
                se=r.get("std_error"), se_low=r.get("se_low"), se_high=r.get("se_high"),
                se_labels=r.get("se_labels"), n_eff=r.get("n_eff"), ess=r.get("ess"),
                vacuous=r.get("vacuous", False), defined=r.get("defined", True),
                reach=json.dumps(list(r.get("reach", ()))),
                held=json.dumps(list(r.get("held", ()))))


def collect(pools: dict, reps: int, seed: int) -> pd.DataFrame:
    """One row per (pool, repetition, labels, measure): the default's estimate dict."""
    from active_benchmark import truth

    rows = []
    for name, p in pools.items():
        tr, t0 = truth(p), time.perf_counter()
        for rep in range(reps):
            ev = ActiveEvaluator(p["scores"], "f1", predictions=p["pred"],
                                 rng=seed * 1000 + rep, design="pps", adaptive=True)
            for b in (200, 500, 1000):
                while ev.n_labels < b:
                    ids = ev.query(min(100, b - ev.n_labels))
                    ev.update(ids, p["label"][ids])
                res = ev.result()
                for spec in res.specs:
                    rows.append(_row(res.sample.estimate(spec, 0), pool=name, design="default",
                                     rep=rep, budget=b, measure=spec.name,
                                     truth=tr[spec.name]))
        print(f"{name}: {reps} runs, {time.perf_counter() - t0:.0f} s", flush=True)
    return pd.DataFrame(rows)


#: the small-sample bed: 2,000-item simulated pools, ``name: ((a, b), p(s), c)`` — scores
#: ``s ~ Beta(a, b)``, labels ``y ~ Bernoulli(p(s))``, predictions ``s > c``
SMALL_POOLS = {
    "rare_cal": ((0.3, 6), lambda s: s, 0.5),
    "rare_over": ((0.3, 6), lambda s: s / 4, 0.5),
    "rare_under": ((0.3, 6), lambda s: np.minimum(1, 3 * s), 0.3),
    "rare_under2": ((0.3, 6), lambda s: np.minimum(1, 2 * s), 0.2),
    "lowprec": ((0.3, 6), lambda s: s / 3, 0.15),
    "good_clf": ((0.08, 0.08), lambda s: s, 0.5),           # near-separable, calibrated
    "verybad": ((0.5, 5), lambda s: 0.01 * s, 0.3),         # predicted positives rarely true
    "weak": ((2, 40), lambda s: 0.04, 0.07),                # 4 % positives, weak scores
    "mid": ((0.5, 4.5), lambda s: s, 0.3),                  # 10 % positives, informative
}
SMALL_DESIGNS = {"passive_calibrated": dict(proposal="passive"), "optimal_calibrated": {},
                 "passive_difference": dict(proposal="passive", estimator="difference")}


def small_pool(kind: str, n: int = 2000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores, labels and predictions of a small-sample-bed pool (seed 0)."""
    (a, b), prob, cut = SMALL_POOLS[kind]
    g = np.random.default_rng(0)
    s = g.beta(a, b, n)
    y = g.random(n) < prob(s)
    return s, y.astype(int), (s > cut).astype(int)


def collect_small(reps: int, seed: int) -> pd.DataFrame:
    """One row per (pool, design, labels, repetition, measure) of the small-sample bed:
    ``active_evaluate`` with 30 / 60 / 100 labels from scratch."""
    from evalstats.active import active_evaluate

    rows = []
    for kind in SMALL_POOLS:
        s, y, f = small_pool(kind)
        tr = measures_of(f, y)
        t0 = time.perf_counter()
        for design, kw in SMALL_DESIGNS.items():
            for n in (30, 60, 100):
                for rep in range(reps):
                    res = active_evaluate(s, lambda ids, y=y: y[ids], n_labels=n, measure="f1",
                                          predictions=f, rng=seed * 1000 + rep, **kw)
                    for spec in res.specs:
                        rows.append(_row(res.sample.estimate(spec), pool=kind, design=design,
                                         rep=rep, budget=n, measure=spec.name,
                                         truth=tr[spec.name]))
        print(f"{kind}: {reps} runs x 9, {time.perf_counter() - t0:.0f} s", flush=True)
    return pd.DataFrame(rows)


def _as_dict(r) -> dict:
    return dict(defined=bool(getattr(r, "defined", True)), estimate=r.estimate,
                design_estimate=r.design_estimate, std_error=r.se, se_low=r.se_low,
                se_high=r.se_high, se_labels=r.se_labels, n_eff=r.n_eff, ess=r.ess,
                vacuous=bool(r.vacuous), reach=[tuple(x) for x in json.loads(r.reach)],
                held=[tuple(x) for x in json.loads(r.held)])


def previous_interval(d: dict) -> tuple[float, float]:
    """The interval before the split: Wilson at ``n*`` of each side's whole s.e. (then the
    models' reach and held bounds), i.e. the package's interval without ``se_labels``."""
    return tuple(interval_of(dict(d, se_labels=None), bounded=True, level=0.95,
                             method="wilson"))


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    rows = []
    if "design" not in raw:
        raw = raw.assign(design="default")
    for r in raw.itertuples():
        if not np.isfinite(r.truth):
            continue                        # the measure is undefined on this pool
        # an undefined estimate counts: [0, 1] where vacuous, else (nan, nan), a miss
        d = _as_dict(r)
        cur = tuple(interval_of(d, bounded=True, level=0.95, method="wilson"))
        prev = previous_interval(d)
        # the models' reach alone: the hull of every pair's G̃ ± zσ (rare regime only)
        z = critical_value(0.95)
        hull = ((max(min(g - z * s for g, s in d["reach"]), 0.0),
                 min(max(g + z * s for g, s in d["reach"]), 1.0)) if d["reach"] else None)
        rows.append(dict(pool=r.pool, design=r.design, budget=r.budget, measure=r.measure,
                         cover_models=float(hull[0] <= r.truth <= hull[1]) if hull else np.nan,
                         cover=cur[0] <= r.truth <= cur[1], width=cur[1] - cur[0],
                         cover_prev=prev[0] <= r.truth <= prev[1], width_prev=prev[1] - prev[0],
                         changed=not np.allclose(cur, prev, rtol=0, atol=1e-12)))
    o = pd.DataFrame(rows)
    t = o.groupby(["pool", "design", "measure", "budget"]).agg(
        reps=("cover", "size"), coverage=("cover", "mean"), coverage_prev=("cover_prev", "mean"),
        mean_width=("width", "mean"), mean_width_prev=("width_prev", "mean"),
        share_changed=("changed", "mean"), share_models=("cover_models", "count"),
        coverage_models_only=("cover_models", "mean")).reset_index()
    t["share_models"] /= t.reps      # the share of runs in the rare regime
    t["coverage_se"] = np.sqrt(t.coverage * (1 - t.coverage) / t.reps)
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=51)
    ap.add_argument("--pools", default=POOLS)
    ap.add_argument("--bed", choices=("pools", "small"), default="pools",
                    help="the benchmark pools (default) or the small-sample bed")
    ap.add_argument("--raw", nargs="*", help="estimate dicts of an earlier run (skips the runs)")
    ap.add_argument("--out", default=str(RESULTS / "active_edge_rule.csv"))
    a = ap.parse_args()
    if a.raw:
        raw = pd.concat([pd.read_csv(f) for f in a.raw], ignore_index=True)
    else:
        from active_benchmark import load_pools

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw = (collect_small(a.reps, a.seed) if a.bed == "small" else
                   collect(load_pools(a.pools.split(",")), a.reps, a.seed))
        raw.to_csv(a.out.removesuffix(".csv") + "_raw.csv.gz", index=False)
    t = summarise(raw)
    t.to_csv(a.out, index=False)
    pd.set_option("display.width", 200)
    print(t[t.share_changed > 0].round(4).to_string(index=False))
    diff = t.coverage - t.coverage_prev
    print(f"intervals changed: {t.share_changed.mean():.3f} of all; lowest coverage "
          f"{t.coverage.min():.3f} (previous rule {t.coverage_prev.min():.3f}); cells whose "
          f"coverage changed: {int((diff != 0).sum())} of {len(t)} (largest drop "
          f"{abs(min(diff.min(), 0.0)):.3f}); mean width / previous, lowest "
          f"{(t.mean_width / t.mean_width_prev).min():.3f}")


if __name__ == "__main__":
    main()
