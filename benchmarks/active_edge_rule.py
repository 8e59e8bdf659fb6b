"""Intervals of the default active estimate: the variance split into labels and floor.

The default (``design="pps"``, adaptive) is run on the benchmark pools; each repetition
records, at 200 / 500 / 1000 labels and for every measure, the estimate dict the interval
is built from (:meth:`evalstats.active._ht.DesignSample.estimate`). From those dicts the
script computes the package's interval (each Wilson limit with the side's variance split
into the labeled items' binomial part and the variance floor, see
:mod:`evalstats.active._intervals`) and the interval of the previous rule (Wilson at
``n* = Ĝ(1 − Ĝ)/SE²`` of the whole s.e. wherever the estimate is interior), and reports
coverage (binomial SE) and mean width of both per (pool, measure, labels), and the share
of intervals that changed. The estimates
are the same under both rules.

    python benchmarks/active_edge_rule.py --reps 200 --seed 51            # ~50 min, 1 core
    python benchmarks/active_edge_rule.py --raw benchmarks/results/active_edge_rule_raw.csv.gz

Writes ``results/active_edge_rule.csv`` (the table; ``--out``) and, after a run, the
estimate dicts next to it (``<out>_raw.csv.gz``, one row per dict).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evalstats.active import ActiveEvaluator
from evalstats.active._estimators import interval_of

RESULTS = Path(__file__).resolve().parent / "results"
POOLS = ("sim_calibrated,sim_overconfident,sim_rare,er_abt_buy,er_abt_buy_rare,tweets100k,"
         "tweets_rare,shuttle_rare,letter_rare,kdd_rare")


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
                    r = res.sample.estimate(spec, 0)
                    rows.append(dict(
                        pool=name, rep=rep, budget=b, measure=spec.name, truth=tr[spec.name],
                        estimate=r["estimate"], design_estimate=r.get("design_estimate"),
                        se=r["std_error"], se_low=r.get("se_low"), se_high=r.get("se_high"),
                        se_labels=r.get("se_labels"),
                        n_eff=r.get("n_eff"), ess=r.get("ess"), vacuous=r.get("vacuous", False),
                        reach=json.dumps(list(r.get("reach", ()))),
                        held=json.dumps(list(r.get("held", ())))))
        print(f"{name}: {reps} runs, {time.perf_counter() - t0:.0f} s", flush=True)
    return pd.DataFrame(rows)


def _as_dict(r) -> dict:
    return dict(estimate=r.estimate, design_estimate=r.design_estimate, std_error=r.se,
                se_low=r.se_low, se_high=r.se_high, se_labels=r.se_labels, n_eff=r.n_eff, ess=r.ess,
                vacuous=bool(r.vacuous), reach=[tuple(x) for x in json.loads(r.reach)],
                held=[tuple(x) for x in json.loads(r.held)])


def previous_interval(d: dict) -> tuple[float, float]:
    """The interval before the split: Wilson at ``n*`` of each side's whole s.e. (then the
    models' reach and held bounds), i.e. the package's interval without ``se_labels``."""
    return tuple(interval_of(dict(d, se_labels=None), bounded=True, level=0.95,
                             method="wilson"))


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in raw.itertuples():
        d = _as_dict(r)
        cur = tuple(interval_of(d, bounded=True, level=0.95, method="wilson"))
        prev = previous_interval(d)
        rows.append(dict(pool=r.pool, budget=r.budget, measure=r.measure,
                         cover=cur[0] <= r.truth <= cur[1], width=cur[1] - cur[0],
                         cover_prev=prev[0] <= r.truth <= prev[1], width_prev=prev[1] - prev[0],
                         changed=not np.allclose(cur, prev, rtol=0, atol=1e-12)))
    o = pd.DataFrame(rows)
    t = o.groupby(["pool", "measure", "budget"]).agg(
        reps=("cover", "size"), coverage=("cover", "mean"), coverage_prev=("cover_prev", "mean"),
        mean_width=("width", "mean"), mean_width_prev=("width_prev", "mean"),
        share_changed=("changed", "mean")).reset_index()
    t["coverage_se"] = np.sqrt(t.coverage * (1 - t.coverage) / t.reps)
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=51)
    ap.add_argument("--pools", default=POOLS)
    ap.add_argument("--raw", nargs="*", help="estimate dicts of an earlier run (skips the runs)")
    ap.add_argument("--out", default=str(RESULTS / "active_edge_rule.csv"))
    a = ap.parse_args()
    if a.raw:
        raw = pd.concat([pd.read_csv(f) for f in a.raw], ignore_index=True)
    else:
        from active_benchmark import load_pools

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw = collect(load_pools(a.pools.split(",")), a.reps, a.seed)
        raw.to_csv(a.out.removesuffix(".csv") + "_raw.csv.gz", index=False)
    t = summarise(raw)
    t.to_csv(a.out, index=False)
    pd.set_option("display.width", 200)
    print(t[t.share_changed > 0].round(4).to_string(index=False))
    print(f"intervals changed: {t.share_changed.mean():.3f} of all; lowest coverage "
          f"{t.coverage.min():.3f} (previous rule {t.coverage_prev.min():.3f})")


if __name__ == "__main__":
    main()
