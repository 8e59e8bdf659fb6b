"""Active vs passive estimation of F1, precision, recall and accuracy (and oasis side by side).

For every pool and method, each repetition draws one sequence until 1000 distinct labels
and reads the estimates at 100, 200, 500 and 1000 labels (prefixes of the same sequence,
each a valid draw-until-B-th-label run). Reported per (pool, method, budget, measure):
RMSE, RMSE ratio passive/method (> 1: active better), 95% interval coverage with its
binomial standard error (undefined estimates count as misses) and mean width.

Pools: the bundled simulated pool with calibrated and with overconfident scores;
``er_abt_buy`` (0.09 % positives); ``tweets100k`` (raw SVM margins: active recalibrates
with Platt scaling between batches of 100 labels, the first batch is uniform — those
calibration labels are part of the budget); a letter one-vs-rest logistic model.

oasis (PyPI ``oasis`` 0.1.3; ``ImportanceSampler`` = Sawade static IS at ε = 10⁻³, and the
adaptive ``OASISSampler``) is run on the same pools for F1 when it is installed; it gives no
intervals. Its importance sampler redraws with ``numpy.random.choice(N, p=q)`` at every
step (O(N) per draw), so it gets ``--oasis-reps`` repetitions.

    python benchmarks/active_benchmark.py            # full run (500 repetitions)
    python benchmarks/active_benchmark.py --quick    # small run
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evalstats as es
from evalstats._parallel import map_replicates
from evalstats.active import ActiveEvaluator, optimal_proposal

BUDGETS = (100, 200, 500, 1000)
MEASURES = ("f1", "precision", "recall", "accuracy")
RESULTS = Path(__file__).resolve().parent / "results"


# -- pools -------------------------------------------------------------------------------------

def load_pools(names: list[str]) -> dict[str, dict]:
    pools = {}
    sim = es.datasets.load("sim_pool")
    if "sim_calibrated" in names:
        pools["sim_calibrated"] = dict(scores=sim["prob"].to_numpy(), pred=sim["pred"].to_numpy(),
                                       label=sim["label"].to_numpy())
    if "sim_overconfident" in names:
        pools["sim_overconfident"] = dict(scores=sim["prob_overconfident"].to_numpy(),
                                          pred=sim["pred"].to_numpy(),
                                          label=sim["label"].to_numpy())
    shared = es.datasets.find_shared_datasets()
    if shared is None:
        print("shared datasets not found: only the simulated pools are run")
        return pools
    if "er_abt_buy" in names:
        d = es.datasets.load("er_abt_buy")
        pools["er_abt_buy"] = dict(scores=d["prob"].to_numpy(), pred=d["pred"].to_numpy(),
                                   label=d["label"].to_numpy())
    if "tweets100k" in names:
        d = es.datasets.load("tweets100k")
        pools["tweets100k"] = dict(scores=d["score"].to_numpy(), pred=d["pred"].to_numpy(),
                                   label=d["label"].to_numpy(), raw=True)
    if "letter_A" in names:
        pools["letter_A"] = letter_pool()
    return pools


def letter_pool(letter: str = "A") -> dict:
    """Logistic regression (scikit-learn) trained on rows 0..9999, pool = rows 10000..19999."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    d = es.datasets.load("letter")
    x = d.drop(columns="letter").to_numpy(float)
    y = (d["letter"] == letter).to_numpy().astype(int)
    sc = StandardScaler().fit(x[:10000])
    model = LogisticRegression(max_iter=2000).fit(sc.transform(x[:10000]), y[:10000])
    p = model.predict_proba(sc.transform(x[10000:]))[:, 1]
    return dict(scores=p, pred=(p > 0.5).astype(int), label=y[10000:])


def truth(pool: dict) -> dict[str, float]:
    f, y = pool["pred"], pool["label"]
    tp, fp, fn = np.sum((f == 1) & (y == 1)), np.sum((f == 1) & (y == 0)), np.sum(
        (f == 0) & (y == 1))
    return dict(f1=2 * tp / (2 * tp + fp + fn), precision=tp / (tp + fp) if tp + fp else np.nan,
                recall=tp / (tp + fn), accuracy=np.mean(f == y))


# -- one repetition ----------------------------------------------------------------------------

class ActiveRun:
    """One draw sequence to 1000 labels with the evalstats evaluator (picklable)."""

    def __init__(self, pool: dict, proposal: str, recalibrate: str | None):
        self.pool, self.proposal, self.recalibrate = pool, proposal, recalibrate

    def __call__(self, i: int, rng: np.random.Generator) -> list[dict]:
        pool = self.pool
        scores = pool["scores"]
        if pool.get("raw") and self.recalibrate is None:     # passive: scores are unused
            scores = 1 / (1 + np.exp(-scores))
        ev = ActiveEvaluator(scores, "f1", predictions=pool["pred"],
                             proposal=self.proposal, recalibrate=self.recalibrate, rng=rng)
        rows = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for b in BUDGETS:
                while ev.n_labels < b:
                    ids = ev.query(min(100, b - ev.n_labels))
                    ev.update(ids, pool["label"][ids])
                res = ev.result()
                for _, r in res.measures().iterrows():
                    rows.append(dict(rep=i, budget=b, measure=r["measure"],
                                     estimate=r["estimate"], conf_low=r["conf_low"],
                                     conf_high=r["conf_high"], n_draws=res.n_draws))
        return rows


def oasis_run(pool: dict, kind: str, rng_seed: int) -> list[dict]:
    import oasis

    np.random.seed(rng_seed)  # noqa: NPY002 — oasis draws from the global generator
    y = pool["label"]

    def oracle(i):
        return int(y[i])

    kw = dict(proba=not pool.get("raw", False), epsilon=1e-3)   # raw margins: oasis' own map
    if kind == "oasis_is":
        smp = oasis.ImportanceSampler(0.5, pool["pred"], pool["scores"], oracle, **kw)
    else:
        smp = oasis.OASISSampler(0.5, pool["pred"], pool["scores"], oracle,
                                 stratification_method="cum_sqrt_F",
                                 stratification_n_strata=30, stratification_n_bins=2 ** 12,
                                 **kw)
    rows = []
    done = 0
    for b in BUDGETS:
        smp.sample_distinct(b - done)
        done = b
        rows.append(dict(rep=rng_seed, budget=b, measure="f1", estimate=float(smp.estimate_[-1]),
                         conf_low=np.nan, conf_high=np.nan, n_draws=len(smp.estimate_)))
    return rows


def import_oasis() -> bool:
    try:
        import scipy

        scipy.percentile = np.percentile          # removed from recent SciPy
        scipy.ptp = np.ptp
        import oasis  # noqa: F401
    except Exception as err:                       # noqa: BLE001 — optional peer
        print(f"oasis not available ({err}); skipping it")
        return False
    return True


# -- aggregation -------------------------------------------------------------------------------

def summarise(raw: pd.DataFrame, truths: dict, reps: dict) -> pd.DataFrame:
    out = []
    for (pool, method, budget, measure), g in raw.groupby(["pool", "method", "budget",
                                                           "measure"]):
        t = truths[pool][measure]
        n_rep = reps[(pool, method)]
        est = g["estimate"].to_numpy(float)
        ok = np.isfinite(est)
        err = est[ok] - t
        cover = ok & (g["conf_low"].to_numpy() <= t) & (t <= g["conf_high"].to_numpy())
        has_ci = np.isfinite(g["conf_low"].to_numpy()).any()
        cov = cover.sum() / n_rep if has_ci else np.nan
        out.append(dict(pool=pool, method=method, budget=budget, measure=measure, truth=t,
                        reps=n_rep, undefined=int((~ok).sum()),
                        rmse=float(np.sqrt(np.mean(err ** 2))) if ok.any() else np.nan,
                        bias=float(np.mean(err)) if ok.any() else np.nan,
                        coverage=cov,
                        coverage_se=np.sqrt(cov * (1 - cov) / n_rep) if has_ci else np.nan,
                        mean_width=float(np.nanmean(g["conf_high"] - g["conf_low"]))
                        if has_ci else np.nan,
                        mean_draws=float(g["n_draws"].mean())))
    return add_ratio(pd.DataFrame(out))


def add_ratio(df: pd.DataFrame) -> pd.DataFrame:
    """RMSE of passive divided by RMSE of each method (same pool, budget, measure)."""
    base = df[df.method == "passive"].set_index(["pool", "budget", "measure"])["rmse"]
    key = list(zip(df.pool, df.budget, df.measure, strict=True))
    df["rmse_ratio_passive_over_method"] = [base.get(k, np.nan) for k in key] / df["rmse"]
    return df


def speed(n_pool: int = 10_000_000) -> pd.DataFrame:
    """Proposal for a 10-million pool; drawing 1000 labels by binary search vs np.random.choice."""
    rng = np.random.default_rng(0)
    p = rng.beta(0.3, 8, size=n_pool)
    pred = (p > 0.5).astype(float)
    t0 = time.perf_counter()
    prop = optimal_proposal(p, "f1", predictions=pred)
    t_prop = time.perf_counter() - t0
    t0 = time.perf_counter()
    ev = ActiveEvaluator(p, "f1", predictions=pred, rng=1)
    ev.query(1000)
    t_query = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(20):                      # 20 draws with an O(N) choice each
        rng.choice(n_pool, p=prop.q)
    t_choice20 = time.perf_counter() - t0
    return pd.DataFrame([dict(pool_size=n_pool, proposal_seconds=t_prop,
                              evaluator_with_1000_labels_seconds=t_query,
                              numpy_choice_per_draw_seconds=t_choice20 / 20,
                              ratio_choice_1000_draws_over_evaluator=t_choice20 / 20 * 1000
                              / t_query)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="20 repetitions, 5 for oasis")
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--oasis-reps", type=int, default=100)
    ap.add_argument("--pools", default="sim_calibrated,sim_overconfident,er_abt_buy,tweets100k,"
                                       "letter_A")
    ap.add_argument("--no-oasis", action="store_true")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--reuse-oasis", default=None, metavar="CSV",
                    help="take the oasis rows from an earlier results CSV instead of rerunning")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None, help="CSV name in benchmarks/results/")
    args = ap.parse_args(argv)
    reps = 20 if args.quick else args.reps
    oreps = 5 if args.quick else args.oasis_reps
    pools = load_pools(args.pools.split(","))
    have_oasis = not args.no_oasis and args.reuse_oasis is None and import_oasis()
    raw, truths, nrep = [], {}, {}
    for name, pool in pools.items():
        truths[name] = truth(pool)
        methods = [("passive", "passive", None)]
        if pool.get("raw"):
            methods.append(("active_f1+platt", "optimal", "platt"))
        else:
            methods.append(("active_f1", "optimal", None))
            if name == "sim_overconfident":
                methods.append(("active_f1+platt", "optimal", "platt"))
        for label, proposal, recal in methods:
            t0 = time.perf_counter()
            runs = map_replicates(ActiveRun(pool, proposal, recal), reps, rng=args.seed,
                                  progress=False)
            for rows in runs:
                raw += [dict(r, pool=name, method=label) for r in rows]
            nrep[(name, label)] = reps
            print(f"{name:18s} {label:16s} {reps} reps in {time.perf_counter() - t0:6.1f} s",
                  flush=True)
        if have_oasis:
            for kind in ("oasis_is", "oasis_oasis"):
                t0 = time.perf_counter()
                try:
                    for r in range(oreps):
                        raw += [dict(x, pool=name, method=kind)
                                for x in oasis_run(pool, kind, args.seed + r)]
                    nrep[(name, kind)] = oreps
                except Exception as err:               # noqa: BLE001 — report, continue
                    print(f"{name}: oasis {kind} failed: {err!r}")
                    raw = [x for x in raw if not (x["pool"] == name and x["method"] == kind)]
                    continue
                print(f"{name:18s} {kind:16s} {oreps} reps in "
                      f"{time.perf_counter() - t0:6.1f} s", flush=True)
    table = summarise(pd.DataFrame(raw), truths, nrep)
    if args.reuse_oasis:
        old = pd.read_csv(args.reuse_oasis)
        old = old[old.method.str.startswith("oasis") & old.pool.isin(list(pools))]
        table = add_ratio(pd.concat([table, old.drop(
            columns="rmse_ratio_passive_over_method")], ignore_index=True))
        print(f"oasis rows reused from {args.reuse_oasis} (run earlier with the same seeds)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / (args.out or ("active_benchmark_quick.csv" if args.quick
                                  else "active_benchmark.csv"))
    table.to_csv(out, index=False)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        cols = ["pool", "method", "budget", "measure", "reps", "undefined", "rmse",
                "rmse_ratio_passive_over_method", "coverage", "coverage_se", "mean_width"]
        print(table[cols].round(4).to_string(index=False))
    if not args.no_speed:
        sp = speed(1_000_000 if args.quick else 10_000_000)
        sp.to_csv(RESULTS / ("active_speed_quick.csv" if args.quick else "active_speed.csv"),
                  index=False)
        print(sp.round(4).to_string(index=False))
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
