"""Active estimation side by side: oasis, passive, the papers' static design and the πps designs.

Methods (one run of each per repetition and pool):

* ``passive`` — uniform draws with replacement (the evaluator with ``proposal="passive"``);
* ``sawade`` — the papers' static optimal proposal, with replacement (``design=
  "with_replacement"``; raw margins: Platt recalibration between batches of 100);
* ``pps_static`` — without replacement, capped πps, one batch for the whole budget
  (a separate run per budget), the calibrated (GREG) difference estimator (the default);
* ``pps_static_diff`` / ``pps_static_ht`` — the same design with the plain difference
  (model-assisted) or the Horvitz–Thompson estimator;
* ``pps_adaptive`` — without replacement in batches of 100 with the stratified
  Beta–Bernoulli model updated between batches (estimates at 100/200/500/1000 labels are
  prefixes of one run), calibrated estimator (``pps_adaptive_diff``: plain difference);
* ``oasis_is`` / ``oasis`` — PyPI ``oasis`` 0.1.3 ``ImportanceSampler`` (Sawade static IS,
  ε = 10⁻³) and the adaptive ``OASISSampler`` (30 strata), F1 only, no intervals.

Pools: ``sim_calibrated`` / ``sim_overconfident`` (bundled ``sim_pool``), ``er_abt_buy``
(0.093 % positives, calibrated ``prob``), ``tweets100k`` (raw SVM margins), and three pools
with at most 0.05 % positives: ``er_abt_buy_rare`` (every negative of er_abt_buy and 25 of its
50 positives, fixed seed), ``tweets_rare`` (every negative of tweets100k and 5 positives;
raw margins), ``sim_rare`` (simulated, 100,000 items, calibrated scores). Positives are
subsampled (negatives kept) because dropping negatives would *raise* the positive rate.

Reported per (pool, method, n_labels, measure): RMSE, bias, RMSE ratio oasis/method for F1,
95 % coverage with its binomial SE (an undefined estimate counts as a miss unless it reports
an interval: the whole range [0, 1] when no labeled item entered its denominator, counted in
``undefined_whole_range``), mean width, and
seconds per run; and the time to build a proposal for a 10-million pool.

    python benchmarks/active_benchmark.py --reps 150          # the committed run
    python benchmarks/active_benchmark.py --quick              # 10 repetitions
    python benchmarks/active_benchmark.py --reps 100 --methods pps_static,oasis --out x.csv
    python benchmarks/active_benchmark.py --merge benchmarks/results/x.csv   # into the CSV
"""

from __future__ import annotations

import argparse
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evalstats as es
from evalstats.active import ActiveEvaluator, optimal_proposal

BUDGETS = (100, 200, 500, 1000)
MEASURES = ("f1", "precision", "recall", "accuracy")
RESULTS = Path(__file__).resolve().parent / "results"


# -- pools -------------------------------------------------------------------------------------

def _pool(scores, pred, label, raw=False) -> dict:
    return dict(scores=np.asarray(scores, float), pred=np.asarray(pred, float),
                label=np.asarray(label, float), raw=raw)


def _rare(d: pd.DataFrame, score_col: str, n_pos: int, seed: int) -> pd.DataFrame:
    """Every negative and ``n_pos`` randomly chosen positives of ``d``."""
    rng = np.random.default_rng(seed)
    pos = np.flatnonzero(d["label"].to_numpy() == 1)
    keep = np.sort(np.concatenate([np.flatnonzero(d["label"].to_numpy() == 0),
                                   rng.choice(pos, n_pos, replace=False)]))
    return d.iloc[keep].reset_index(drop=True)


def sim_rare(n: int = 100_000, seed: int = 7) -> dict:
    """Calibrated simulated pool with ~0.03 % positives: a 0.03 % group with logit p ~ N(1, 1.5²)
    and the rest with logit p ~ N(−10, 1.5²); y ~ Bernoulli(p); prediction p > 0.5."""
    rng = np.random.default_rng(seed)
    group = rng.random(n) < 0.0003
    logit = np.where(group, rng.normal(1.0, 1.5, n), rng.normal(-10.0, 1.5, n))
    p = 1.0 / (1.0 + np.exp(-logit))
    y = (rng.random(n) < p).astype(float)
    return _pool(p, (p > 0.5).astype(float), y)


def _scored_rare(X: np.ndarray, y: np.ndarray, n_pos: int, seed: int) -> dict:
    """A held-out-style pool: a logistic regression fitted on a random half of ``(X, y)``
    scores the other half, whose positives are then subsampled to ``n_pos`` — so the
    scores are calibrated for the *original* prevalence, not the pool's (a prior shift, as
    when a matcher trained on one catalogue pair scores another)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(y))
    tr, te = idx[:len(y) // 2], idx[len(y) // 2:]
    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X[tr], y[tr])
    p, yt = clf.predict_proba(X[te])[:, 1], y[te]
    pos = np.flatnonzero(yt == 1)
    keep = np.sort(np.concatenate([np.flatnonzero(yt == 0),
                                   rng.choice(pos, n_pos, replace=False)]))
    return _pool(p[keep], (p[keep] > 0.5).astype(float), yt[keep])


def held_out_style_pools(names: list[str]) -> dict[str, dict]:
    """Three pools built for checking the defaults on data they were not chosen on (fourth
    session): ``shuttle_rare`` (Statlog Shuttle, classes 2/3/6/7 vs rest, 28,882 items, 12
    positives), ``letter_rare`` (letter A vs rest on six features, 9,605 items, 5
    positives, every one missed: F1 = 0 on the boundary), ``kdd_rare`` (KDD Cup 99 rare
    attacks vs rest on eight features, 300,000 rows sampled, 147,401 items, 50 positives;
    the scores expect 2,091 positives: a 40-fold prior shift)."""
    out = {}
    root = es.datasets.find_shared_datasets()
    if "shuttle_rare" in names:
        s = pd.read_csv(root / "shuttle" / "shuttle.tsv.gz", sep="\t")
        X = s.drop(columns="target").to_numpy(float)
        out["shuttle_rare"] = _scored_rare(np.sign(X) * np.log1p(np.abs(X)),
                                           s["target"].isin([2, 3, 6, 7]).to_numpy(int), 12, 1)
    if "letter_rare" in names:
        d = pd.read_csv(root / "letter" / "letter-recognition.data.gz", header=None)
        out["letter_rare"] = _scored_rare(d.drop(columns=0).to_numpy(float)[:, :6],
                                          (d[0] == "A").to_numpy(int), 5, 2)
    if "kdd_rare" in names:
        k = pd.read_csv(root / "kddcup" / "kddcup.tsv.gz", sep="\t").sample(300_000,
                                                                          random_state=3)
        X = np.log1p(np.abs(k.drop(columns="target").to_numpy(float)))[:, :8]
        out["kdd_rare"] = _scored_rare(X, (~k["target"].isin([9, 11, 18])).to_numpy(int),
                                       50, 3)
    return out


def load_pools(names: list[str]) -> dict[str, dict]:
    pools = {}
    sim = es.datasets.load("sim_pool")
    if "sim_calibrated" in names:
        pools["sim_calibrated"] = _pool(sim["prob"], sim["pred"], sim["label"])
    if "sim_overconfident" in names:
        pools["sim_overconfident"] = _pool(sim["prob_overconfident"], sim["pred"], sim["label"])
    if "sim_rare" in names:
        pools["sim_rare"] = sim_rare()
    if es.datasets.find_shared_datasets() is None:
        print("shared datasets not found: only the simulated pools are run")
        return pools
    er = es.datasets.load("er_abt_buy")
    tw = es.datasets.load("tweets100k")
    if "er_abt_buy" in names:
        pools["er_abt_buy"] = _pool(er["prob"], er["pred"], er["label"])
    if "er_abt_buy_rare" in names:
        d = _rare(er, "prob", 25, 11)
        pools["er_abt_buy_rare"] = _pool(d["prob"], d["pred"], d["label"])
    if "tweets100k" in names:
        pools["tweets100k"] = _pool(tw["score"], tw["pred"], tw["label"], raw=True)
    if "tweets_rare" in names:
        d = _rare(tw, "score", 5, 13)
        pools["tweets_rare"] = _pool(d["score"], d["pred"], d["label"], raw=True)
    pools.update(held_out_style_pools(names))
    return pools


def measures_of(pred, label) -> dict[str, float]:
    """F1, precision, recall and accuracy of 0/1 predictions against 0/1 labels (NaN where
    a denominator is 0)."""
    f, y = np.asarray(pred, float), np.asarray(label, float)
    tp, fp, fn = float(np.sum(f * y)), float(np.sum(f * (1 - y))), float(np.sum((1 - f) * y))
    return dict(f1=2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else np.nan,
                precision=tp / (tp + fp) if tp + fp else np.nan,
                recall=tp / (tp + fn) if tp + fn else np.nan, accuracy=float(np.mean(f == y)))


def truth(pool: dict) -> dict[str, float]:
    """The pool's true measures."""
    return measures_of(pool["pred"], pool["label"])


# -- one repetition of each method -------------------------------------------------------------

def _rows(res, rep: int, budget: int, seconds: float) -> list[dict]:
    out = []
    for _, r in res.measures().iterrows():
        out.append(dict(rep=rep, budget=budget, measure=r["measure"], estimate=r["estimate"],
                        conf_low=r["conf_low"], conf_high=r["conf_high"], seconds=seconds))
    return out


def _prefix_run(pool: dict, rep: int, seed, **kw) -> list[dict]:
    ev = ActiveEvaluator(pool["scores"], "f1", predictions=pool["pred"], rng=seed, **kw)
    rows, t0 = [], time.perf_counter()
    for b in BUDGETS:
        while ev.n_labels < b:
            ids = ev.query(min(100, b - ev.n_labels))
            ev.update(ids, pool["label"][ids])
        rows += _rows(ev.result(), rep, b, time.perf_counter() - t0)
    return rows


#: method-name suffix -> πps estimator (no suffix: the package default, "calibrated")
_ESTIMATOR_SUFFIX = {"ht": "horvitz_thompson", "diff": "difference"}


def run_method(method: str, pool: dict, rep: int, seed) -> list[dict]:
    raw = pool["raw"]
    if method == "passive":
        scores = 1 / (1 + np.exp(-pool["scores"])) if raw else pool["scores"]
        return _prefix_run(dict(pool, scores=scores), rep, seed, design="with_replacement",
                           proposal="passive")
    if method == "sawade":
        return _prefix_run(pool, rep, seed, design="with_replacement",
                           recalibrate="platt" if raw else None)
    if method.startswith("pps_adaptive"):
        est = _ESTIMATOR_SUFFIX.get(method.rsplit("_", 1)[-1], "calibrated")
        return _prefix_run(pool, rep, seed, design="pps", adaptive=True, estimator=est)
    if method.startswith("pps_static"):
        est = _ESTIMATOR_SUFFIX.get(method.rsplit("_", 1)[-1], "calibrated")
        rows, rng = [], np.random.default_rng(seed)
        for b in BUDGETS:
            t0 = time.perf_counter()
            ev = ActiveEvaluator(pool["scores"], "f1", predictions=pool["pred"], rng=rng,
                                 design="pps", adaptive=False, estimator=est)
            ids = ev.query(b)
            ev.update(ids, pool["label"][ids])
            rows += _rows(ev.result(), rep, b, time.perf_counter() - t0)
        return rows
    if method.startswith("oasis"):
        return oasis_run(pool, method, rep, seed)
    raise ValueError(method)


def oasis_sampler(pool: dict, kind: str, seed):
    """An oasis sampler of F1 (``kind`` "oasis_is" or "oasis") answering from the pool's
    labels, numpy's global generator seeded from ``seed`` (oasis draws from it)."""
    import oasis

    np.random.seed(np.random.default_rng(seed).integers(2 ** 31))  # noqa: NPY002 (oasis)
    y = pool["label"].astype(int)
    kw = dict(proba=not pool["raw"], epsilon=1e-3)
    pred = pool["pred"].astype(int)
    if kind == "oasis_is":
        return oasis.ImportanceSampler(0.5, pred, pool["scores"], lambda i: int(y[i]), **kw)
    return oasis.OASISSampler(0.5, pred, pool["scores"], lambda i: int(y[i]),
                              stratification_method="cum_sqrt_F",
                              stratification_n_strata=30, stratification_n_bins=2 ** 12,
                              **kw)


def oasis_run(pool: dict, kind: str, rep: int, seed) -> list[dict]:
    smp = oasis_sampler(pool, kind, seed)
    rows, done, t0, failed = [], 0, time.perf_counter(), False
    for b in BUDGETS:
        if not failed:
            try:
                smp.sample_distinct(b - done)
                est = float(smp.estimate_[-1])
            except Exception:  # noqa: BLE001 - oasis raises ValueError ("probabilities
                # contain NaN") or a bare Exception ("no more space ... max_iter"): a failed run
                failed, est = True, float("nan")
        done = b
        rows.append(dict(rep=rep, budget=b, measure="f1", estimate=est,
                         conf_low=np.nan, conf_high=np.nan, seconds=time.perf_counter() - t0))
    return rows


def import_oasis() -> bool:
    try:
        import scipy

        scipy.percentile = np.percentile          # removed from recent SciPy
        scipy.ptp = np.ptp
        sys.modules.setdefault("tables", types.ModuleType("tables"))  # only its experiments
        import oasis  # noqa: F401
    except Exception as err:                       # noqa: BLE001 — optional peer
        print(f"oasis not available ({err}); skipping it")
        return False
    return True


# -- aggregation -------------------------------------------------------------------------------

def summarise(raw: pd.DataFrame, truths: dict) -> pd.DataFrame:
    out = []
    for (pool, method, budget, measure), g in raw.groupby(["pool", "method", "budget",
                                                           "measure"]):
        t = truths[pool][measure]
        n_rep = g["rep"].nunique()
        est = g["estimate"].to_numpy(float)
        ok = np.isfinite(est)
        err = est[ok] - t
        lo, hi = g["conf_low"].to_numpy(float), g["conf_high"].to_numpy(float)
        has_ci = np.isfinite(lo).any()
        # an undefined estimate counts as a miss unless it reports an interval (the whole
        # range [0, 1] when no labeled item entered its denominator): that is what a user reads
        cov = float(np.sum((lo <= t) & (t <= hi)) / n_rep) if has_ci else np.nan
        out.append(dict(pool=pool, method=method, budget=budget, measure=measure, truth=t,
                        reps=n_rep, undefined=int((~ok).sum()),
                        undefined_whole_range=int(np.sum(~ok & (lo == 0) & (hi == 1))),
                        rmse=float(np.sqrt(np.mean(err ** 2))) if ok.any() else np.nan,
                        bias=float(np.mean(err)) if ok.any() else np.nan, coverage=cov,
                        coverage_se=float(np.sqrt(cov * (1 - cov) / n_rep)) if has_ci
                        else np.nan,
                        mean_width=float(np.nanmean(hi - lo)) if has_ci else np.nan,
                        seconds_per_run=float(g["seconds"].mean())))
    df = pd.DataFrame(out)
    base = df[df.method == "oasis"].set_index(["pool", "budget", "measure"])["rmse"]
    key = list(zip(df.pool, df.budget, df.measure, strict=True))
    df["rmse_ratio_to_oasis"] = df["rmse"] / np.array([base.get(k, np.nan) for k in key])
    return df.merge(ratio_interval(raw, truths), how="left",
                    on=["pool", "method", "budget", "measure"])


def ratio_interval(raw: pd.DataFrame, truths: dict, n_boot: int = 2000,
                   seed: int = 1) -> pd.DataFrame:
    """Percentile-bootstrap 95 % interval of each F1 RMSE ratio to adaptive OASIS.

    The repetitions are resampled in pairs (repetition ``r`` of a method and of OASIS share
    the seed of the run's ``SeedSequence`` child ``r``); a run whose estimate is undefined
    is left out of both RMSEs, as in :func:`summarise`. With 0.03 % positives a few runs
    that sample a far-tail false negative dominate an RMSE, so the ratio of two 100-run
    RMSEs is uncertain by ±20–40 % (``rmse_ratio_low``/``rmse_ratio_high``).
    """
    f1 = raw[raw.measure == "f1"]
    if "oasis" not in set(f1.method):
        return pd.DataFrame(columns=["pool", "method", "budget", "measure",
                                     "rmse_ratio_low", "rmse_ratio_high"])
    rng = np.random.default_rng(seed)
    rows = []
    for (pool, budget), g in f1.groupby(["pool", "budget"]):
        sq = (g.pivot_table(index="rep", columns="method", values="estimate")
              - truths[pool]["f1"]) ** 2
        if "oasis" not in sq:
            continue
        idx = rng.integers(0, len(sq), size=(n_boot, len(sq)))
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)         # every OASIS run failed
            den = np.nanmean(sq["oasis"].to_numpy()[idx], axis=1)
        for method in sq.columns:
            with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                num = np.nanmean(sq[method].to_numpy()[idx], axis=1)
                lo, hi = np.nanquantile(np.sqrt(num / den), [0.025, 0.975])
            rows.append(dict(pool=pool, method=method, budget=budget, measure="f1",
                             rmse_ratio_low=lo, rmse_ratio_high=hi))
    return pd.DataFrame(rows)


def attach_ratio_interval(table: pd.DataFrame, raw: pd.DataFrame) -> pd.DataFrame:
    """``table`` with ``rmse_ratio_low``/``high`` recomputed from the raw runs (truths taken
    from the table; methods without raw runs get NaN)."""
    truths = {p: {"f1": t} for p, t in
              table[table.measure == "f1"].groupby("pool")["truth"].first().items()}
    ci = ratio_interval(raw[raw.pool.isin(list(truths))], truths)
    keep = table.drop(columns=["rmse_ratio_low", "rmse_ratio_high"], errors="ignore")
    return keep.merge(ci, how="left", on=["pool", "method", "budget", "measure"])


def merge_tables(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``old`` with every (pool, method) that ``new`` holds replaced by ``new``'s rows; the
    ratio to adaptive OASIS recomputed from the merged table."""
    key = set(zip(new.pool, new.method, strict=True))
    keep = [k not in key for k in zip(old.pool, old.method, strict=True)]
    df = pd.concat([old[keep], new], ignore_index=True)
    base = df[df.method == "oasis"].set_index(["pool", "budget", "measure"])["rmse"]
    idx = list(zip(df.pool, df.budget, df.measure, strict=True))
    df["rmse_ratio_to_oasis"] = df["rmse"] / np.array([base.get(k, np.nan) for k in idx])
    return df.sort_values(["pool", "method", "budget", "measure"]).reset_index(drop=True)


def verdict(table: pd.DataFrame) -> pd.DataFrame:
    """Per method: worst F1 RMSE ratio to adaptive OASIS over pools at 500 and 1000 labels,
    and the coverage range over pools, measures and 200/500/1000 labels (the default is the
    method with the smallest worst-case ratio among those with intervals)."""
    rows = []
    for method, g in table.groupby("method"):
        f1 = g[(g.measure == "f1") & g.budget.isin([500, 1000])]
        cov = g[g.budget.isin([200, 500, 1000])]["coverage"]
        rows.append(dict(method=method, worst_f1_ratio_to_oasis=f1["rmse_ratio_to_oasis"].max(),
                         mean_f1_ratio_to_oasis=f1["rmse_ratio_to_oasis"].mean(),
                         coverage_min=cov.min(), coverage_max=cov.max()))
    return pd.DataFrame(rows).sort_values("worst_f1_ratio_to_oasis")


def speed(n_pool: int) -> pd.DataFrame:
    """Seconds to build the first proposal of a pool of ``n_pool`` items: the papers'
    (with replacement), and the πps evaluator's set-up, its proposal (inclusion
    probabilities of a 1000-item batch; first call) and then its first ``query(1000)``
    (the proposal again, the floor's pool totals and the Pareto sample)."""
    rng = np.random.default_rng(0)
    p = rng.beta(0.3, 8, size=n_pool)
    pred = (p > 0.5).astype(float)
    t0 = time.perf_counter()
    optimal_proposal(p, "f1", predictions=pred)
    t_sawade = time.perf_counter() - t0
    t0 = time.perf_counter()
    ev = ActiveEvaluator(p, "f1", predictions=pred, rng=1, design="pps", adaptive=False)
    t_init = time.perf_counter() - t0
    none = np.zeros(0, dtype=int)
    t1 = time.perf_counter()
    ev._pps.inclusion(1000, none, none.astype(float))   # the proposal alone, first call
    t_prop = time.perf_counter() - t1
    t1 = time.perf_counter()
    ev.query(1000)
    t_query = time.perf_counter() - t1
    return pd.DataFrame([dict(pool_size=n_pool, sawade_proposal_seconds=t_sawade,
                              pps_evaluator_init_seconds=t_init,
                              pps_proposal_seconds=t_prop,
                              pps_first_query_1000_seconds=t_query)])


def print_tables(table: pd.DataFrame) -> None:
    with pd.option_context("display.width", 220, "display.max_rows", 2000):
        cols = ["pool", "method", "budget", "measure", "reps", "undefined", "rmse", "bias",
                "rmse_ratio_to_oasis", "coverage", "coverage_se", "mean_width",
                "seconds_per_run"]
        print(table[table.measure == "f1"][cols].round(4).to_string(index=False))
        ratio = table[(table.measure == "f1") & table.budget.isin([500, 1000])].pivot_table(
            index="pool", columns=["method", "budget"], values="rmse_ratio_to_oasis")
        print("\nF1 RMSE / adaptive OASIS RMSE")
        print(ratio.round(2).to_string())
        if "rmse_ratio_low" in table:
            f1 = table[(table.measure == "f1") & table.budget.isin([500, 1000])
                       & table.rmse_ratio_low.notna()]
            band = f1.assign(band=[f"{lo:.2f}-{hi:.2f}" for lo, hi in
                                   zip(f1.rmse_ratio_low, f1.rmse_ratio_high, strict=True)])
            print("\nbootstrap 95 % interval of that ratio (repetitions resampled in pairs)")
            print(band.pivot_table(index="pool", columns=["method", "budget"], values="band",
                                   aggfunc="first").to_string())
        cov = table[table.budget.isin([200, 500, 1000]) & table.coverage.notna()]
        print("\nCoverage (min over measures) by pool, method and labels")
        print(cov.pivot_table(index="pool", columns=["method", "budget"], values="coverage",
                              aggfunc="min").round(3).to_string())
        print("\nVerdict")
        print(verdict(table).round(3).to_string(index=False))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10 repetitions")
    ap.add_argument("--reps", type=int, default=150)
    ap.add_argument("--pools", default="sim_calibrated,sim_overconfident,er_abt_buy,"
                                       "tweets100k,er_abt_buy_rare,tweets_rare,sim_rare",
                    help="comma-separated; also shuttle_rare, letter_rare, kdd_rare (built "
                         "with scikit-learn, see held_out_style_pools)")
    ap.add_argument("--methods", default="passive,sawade,pps_static,pps_static_diff,"
                                         "pps_static_ht,pps_adaptive,pps_adaptive_diff,"
                                         "oasis_is,oasis")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None, help="CSV name in benchmarks/results/")
    ap.add_argument("--speed-only", action="store_true",
                    help="only time the proposal for a 10-million pool")
    ap.add_argument("--summarise", default=None, metavar="CSV",
                    help="only print the tables of an earlier results CSV")
    ap.add_argument("--ratio-ci", nargs="+", default=None, metavar="RAW_CSV",
                    help="only recompute the bootstrap intervals of the F1 RMSE ratios in the "
                         "committed active_benchmark.csv from runs' *_raw.csv files (OASIS's "
                         "among them)")
    ap.add_argument("--merge", default=None, metavar="CSV",
                    help="only merge an earlier run's CSV into the committed "
                         "active_benchmark.csv (its pools x methods replace the old rows)")
    args = ap.parse_args(argv)
    if args.ratio_ci:
        target = RESULTS / "active_benchmark.csv"
        table = attach_ratio_interval(pd.read_csv(target),
                                      pd.concat([pd.read_csv(f) for f in args.ratio_ci]))
        table.to_csv(target, index=False)
        print_tables(table)
        return 0
    if args.merge:
        target = RESULTS / "active_benchmark.csv"
        merged = merge_tables(pd.read_csv(target), pd.read_csv(args.merge))
        merged.to_csv(target, index=False)
        print_tables(merged)
        print(f"merged {args.merge} into {target}")
        return 0
    if args.summarise:
        print_tables(pd.read_csv(args.summarise))
        return 0
    if args.speed_only:
        sp = speed(10_000_000)
        sp.to_csv(RESULTS / "active_speed.csv", index=False)
        print(sp.round(3).to_string(index=False))
        return 0
    reps = 10 if args.quick else args.reps
    pools = load_pools(args.pools.split(","))
    if not pools:
        print(f"none of the pools {args.pools} could be built (their datasets are missing); "
              "nothing to run")
        return 1
    methods = args.methods.split(",")
    if any(m.startswith("oasis") for m in methods) and not import_oasis():
        methods = [m for m in methods if not m.startswith("oasis")]
    raw, truths = [], {}
    seeds = np.random.SeedSequence(args.seed).spawn(reps)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / (args.out or ("active_benchmark_quick.csv" if args.quick
                                  else "active_benchmark.csv"))
    for name, pool in pools.items():
        truths[name] = truth(pool)
        print(f"{name}: {len(pool['label'])} items, {pool['label'].mean():.4%} positives, "
              f"F1 {truths[name]['f1']:.4f}", flush=True)
        for method in methods:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for r in range(reps):
                    raw += [dict(x, pool=name, method=method)
                            for x in run_method(method, pool, r, seeds[r])]
            print(f"  {method:15s} {reps} reps in {time.perf_counter() - t0:6.1f} s",
                  flush=True)
        table = summarise(pd.DataFrame(raw), truths)       # written after every pool
        table.to_csv(out, index=False)
        pd.DataFrame(raw).to_csv(out.with_name(out.stem + "_raw.csv"), index=False)
    print_tables(table)
    if not args.no_speed:
        sp = speed(1_000_000 if args.quick else 10_000_000)
        sp.to_csv(RESULTS / ("active_speed_quick.csv" if args.quick else "active_speed.csv"),
                  index=False)
        print(sp.round(3).to_string(index=False))
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
