"""Coverage of the default active intervals on one pool versus over draws of its labels.

The benchmark's coverage is over the design's randomness on *one* pool, whose labels are
fixed. In the rare-event regime the interval must allow for the positives among items the
design rarely draws (inclusion probability ≪ 1/batches); for a fixed pool their number is
one fixed value that the labels barely reveal, so nearly every run's interval allows for it
or nearly none does, and the pool's coverage tends to 1, or falls, rather than to the
nominal level (``--catch``: how often runs label them). This script makes
that visible: it keeps each pool's scores and predictions, redraws the labels
``y ~ Bernoulli(p)`` from the calibrated probabilities ``p`` (``--draws`` pools, one seed
each), and runs the package default (``ActiveEvaluator(design="pps", adaptive=True)``,
batches of 100, as in the main benchmark) ``--reps`` times on each. Reported per family,
labels (100/200/500/1000) and measure:

* ``coverage`` — over all draws and runs (the coverage over the model's label process,
  which the model-based part of the interval targets), with its standard error over draws
  (the runs of one draw are not independent draws of the truth);
* the spread of the per-draw coverages (lowest, 10 %, median, 90 %, highest; ``draw_sd``)
  against the spread that binomial noise of ``--reps`` runs alone would give
  (``binom_sd``), and the share of draws above 0.97 (with 40 runs: at most one miss, which
  a pool whose coverage is exactly 0.95 shows in 40 % of draws);
* ``hidden_corr`` — the correlation over draws between a draw's coverage and ``|z|`` of
  its hidden positives: ``z = (H − E H)/√Var H``, ``H`` the positives among the predicted
  negatives with ``p`` below ``--hidden-p`` (the items the design rarely reaches).

Families: ``sim_rare`` (the benchmark's simulated pool, 100,000 items, ~0.03 % positives:
the rare-event regime), ``er_abt_buy`` (the real scores of er_abt_buy, labels drawn from its
calibrated ``prob``), ``er_abt_buy_rare`` (the same scores, labels drawn from
``p / (2 − p)``, the probability once each positive is kept with probability ½ as in the
benchmark's er_abt_buy_rare: about 0.07 % positives, every item kept; the scores then
overstate them) and ``sim_calibrated`` (``sim_pool``'s ``prob``, 3.2 % positives; a
control, out of the regime at these budgets).

    python benchmarks/active_label_draws.py --quick           # 3 draws x 5 runs, ~1 min
    python benchmarks/active_label_draws.py --families sim_rare --draws 25 --reps 40
    python benchmarks/active_label_draws.py --families er_abt_buy,sim_calibrated \\
        --draws 25 --reps 40 --out active_label_draws_b.csv
    python benchmarks/active_label_draws.py --catch 200      # how often runs label them
    python benchmarks/active_label_draws.py --raw results/active_label_draws_a_raw.csv.gz \\
        results/active_label_draws_b_raw.csv.gz            # the table from raw rows

Writes the table (``results/active_label_draws.csv``) and the raw rows next to it.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from active_benchmark import RESULTS, _pool, _prefix_run, sim_rare, truth

import evalstats as es
from evalstats.active import ActiveEvaluator


def family(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(p, predictions)`` of a family: calibrated probabilities and fixed predictions."""
    if name == "sim_rare":
        pool = sim_rare()
        return pool["scores"], pool["pred"]
    if name == "sim_calibrated":
        sim = es.datasets.load("sim_pool")
        return sim["prob"].to_numpy(float), sim["pred"].to_numpy(float)
    if name in ("er_abt_buy", "er_abt_buy_rare"):
        er = es.datasets.load("er_abt_buy")
        p = er["prob"].to_numpy(float)
        # er_abt_buy_rare keeps each positive with probability ½: P(y = 1 | x) = p / (2 − p)
        return (p if name == "er_abt_buy" else p / (2.0 - p)), er["pred"].to_numpy(float)
    raise ValueError("family must be sim_rare, sim_calibrated, er_abt_buy or er_abt_buy_rare; "
                     f"got {name!r}")


def run(name: str, draws: int, reps: int, seed: int, hidden_p: float) -> pd.DataFrame:
    """Raw rows: ``reps`` runs of the default on each of ``draws`` label draws."""
    p, pred = family(name)
    hidden = (pred < 0.5) & (p < hidden_p)
    e_h, v_h = float(p[hidden].sum()), float((p[hidden] * (1 - p[hidden])).sum())
    label_seeds = np.random.SeedSequence([seed, 1]).spawn(draws)
    run_seeds = np.random.SeedSequence([seed, 2]).spawn(draws * reps)
    rows = []
    for d in range(draws):
        y = (np.random.default_rng(label_seeds[d]).random(p.shape[0]) < p).astype(float)
        pool = _pool(p, pred, y)
        tr = truth(pool)
        z_hidden = (float(y[hidden].sum()) - e_h) / np.sqrt(v_h) if v_h > 0 else 0.0
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for r in range(reps):
                for row in _prefix_run(pool, r, run_seeds[d * reps + r], design="pps",
                                       adaptive=True):
                    rows.append(dict(row, family=name, draw=d, truth=tr[row["measure"]],
                                     z_hidden=z_hidden))
        print(f"{name} draw {d}: {reps} runs, {time.perf_counter() - t0:.0f} s, "
              f"hidden positives z = {z_hidden:+.2f}", flush=True)
    return pd.DataFrame(rows)


def catch_rates(reps: int, seed: int, hidden_p: float) -> pd.DataFrame:
    """How often the default labels the hidden positives of the real er_abt_buy pool (its
    predicted negatives with ``p < hidden_p`` that are positive): per labels, the share of
    runs that labeled at least one, each one's mean catch rate, and the mean number of
    labels among the hidden items."""
    from active_benchmark import load_pools

    pools = load_pools(["er_abt_buy"])
    if "er_abt_buy" not in pools:
        raise SystemExit("--catch needs the shared datasets (er_abt_buy); set EVALSTATS_DATA")
    pool = pools["er_abt_buy"]
    p, f, y = pool["scores"], pool["pred"], pool["label"]
    items = np.flatnonzero((f < 0.5) & (p < hidden_p))
    positives = items[y[items] == 1]
    seeds = np.random.SeedSequence([seed, 3]).spawn(reps)
    caught = {b: [] for b in (200, 500, 1000)}
    labeled = {b: [] for b in caught}
    for r in range(reps):
        ev = ActiveEvaluator(p, "f1", predictions=f, rng=seeds[r], design="pps", adaptive=True)
        for b in caught:
            while ev.n_labels < b:
                ids = ev.query(min(100, b - ev.n_labels))
                ev.update(ids, y[ids])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ids = ev.result().sample.item_ids          # the items labeled so far
            caught[b].append(np.isin(positives, ids))
            labeled[b].append(int(np.isin(ids, items).sum()))
    return pd.DataFrame([dict(budget=b, hidden_items=len(items), hidden_positives=len(positives),
                              share_runs_any=float(np.mean([c.any() for c in caught[b]])),
                              catch_rate_each=float(np.mean(caught[b])),
                              labels_among_hidden=float(np.mean(labeled[b])), runs=reps)
                         for b in caught])


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Pooled and per-draw coverage per (family, labels, measure); see the module docstring."""
    raw = raw[np.isfinite(raw.truth)].copy()
    raw["covered"] = (raw.conf_low <= raw.truth) & (raw.truth <= raw.conf_high)
    raw["err2"] = (raw.estimate - raw.truth) ** 2
    per = (raw.groupby(["family", "budget", "measure", "draw"])
           .agg(cov=("covered", "mean"), runs=("covered", "size"),
                z=("z_hidden", "first")).reset_index())
    rows = []
    for key, g in per.groupby(["family", "budget", "measure"]):
        c = g["cov"].to_numpy()
        pooled = float(np.average(c, weights=g.runs))      # over every run of every draw
        corr = (float(np.corrcoef(c, np.abs(g.z))[0, 1])
                if c.std() > 0 and np.abs(g.z).std() > 0 else float("nan"))
        rows.append(dict(zip(("family", "budget", "measure"), key, strict=True),
                         draws=len(c), runs_per_draw=int(g.runs.median()), coverage=pooled,
                         coverage_se=float(c.std(ddof=1) / np.sqrt(len(c))) if len(c) > 1
                         else float("nan"),
                         lowest=float(c.min()), q10=float(np.quantile(c, 0.1)),
                         median=float(np.median(c)), q90=float(np.quantile(c, 0.9)),
                         highest=float(c.max()), draw_sd=float(c.std(ddof=1)),
                         binom_sd=float(np.sqrt(pooled * (1 - pooled) / g.runs.median())),
                         share_draws_above_97=float(np.mean(c > 0.97)),
                         hidden_corr=corr))
    out = pd.DataFrame(rows)
    rmse = (raw.groupby(["family", "budget", "measure"]).err2.mean() ** 0.5).rename("rmse")
    return out.merge(rmse.reset_index(), on=["family", "budget", "measure"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="sim_rare,er_abt_buy,er_abt_buy_rare,sim_calibrated")
    ap.add_argument("--quick", action="store_true", help="3 draws x 5 runs per family")
    ap.add_argument("--draws", type=int, default=25)
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--hidden-p", type=float, default=0.01,
                    help="items with p below this among the predicted negatives are 'hidden'")
    ap.add_argument("--raw", nargs="*", help="raw rows of earlier runs (skips the runs)")
    ap.add_argument("--catch", type=int, default=0, metavar="RUNS",
                    help="only: how often RUNS runs on the real er_abt_buy labels label its "
                         "hidden positives (results/active_label_draws_catch.csv)")
    ap.add_argument("--out", default="active_label_draws.csv",
                    help="CSV name in benchmarks/results/")
    a = ap.parse_args()
    if a.catch:
        t = catch_rates(a.catch, a.seed, a.hidden_p)
        t.to_csv(RESULTS / "active_label_draws_catch.csv", index=False)
        print(t.round(3).to_string(index=False))
        return 0
    if a.quick:
        a.draws, a.reps = 3, 5
        if a.out == "active_label_draws.csv":
            a.out = "active_label_draws_quick.csv"
    out = RESULTS / a.out
    if a.raw:
        # draws of different runs (seeds) are different pools: number them apart
        raw = pd.concat([pd.read_csv(f).assign(draw=lambda x, i=i: x.draw + 1000 * i)
                         for i, f in enumerate(a.raw)], ignore_index=True)
    else:
        names = a.families.split(",")
        if es.datasets.find_shared_datasets() is None:
            print("shared datasets not found: the er_abt_buy families skipped")
            names = [n for n in names if not n.startswith("er_abt_buy")]
        raw = pd.concat([run(n, a.draws, a.reps, a.seed, a.hidden_p) for n in names],
                        ignore_index=True)
        RESULTS.mkdir(parents=True, exist_ok=True)
        raw.to_csv(out.with_name(out.stem + "_raw.csv.gz"), index=False)
    table = summarise(raw)
    table.to_csv(out, index=False)
    pd.set_option("display.width", 220)
    print(table.round(3).to_string(index=False))
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
