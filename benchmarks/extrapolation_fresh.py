"""Benchmark: accuracy extrapolation on a development and a fresh family of cases.

The families are defined in ``extrapolation_families.py`` (fixed before the fresh family
was run).

Decision rule for the default, fixed before the fresh family was run: the method with the
smallest worst-case RMSE at 10 x k1 over the fresh cases (simulated cases, and real cases
with a 10x target), a tie -- a difference within one Monte-Carlo s.e. of the paired
difference -- going to the simpler method, in this order: ``hd`` (one parameter), the
two-parameter normal model (two), the radial regression with one tail assumption, the
radial regression with both tails, combinations of these. A mechanism of the default
(a tail assumption, the ratio-4 back-test, soft weights, a penalty) stays only if removing
it raises the fresh worst case by more than one s.e. The band must cover 0.93-0.97 pooled
over the fresh cases at every ratio.

Every method is run with its package defaults (and ``k_target`` = the case's targets); a
fit that raises counts as the worst possible error and is listed. For each case and target
ratio k2/k1 in 2, 4, 10, 20: RMSE against the truth, bias, coverage of the 95 % band (with
its binomial s.e.), mean band width and the width over the RMSE, CPU seconds per fit (one
thread).

Run ``OMP_NUM_THREADS=1 python benchmarks/extrapolation_fresh.py --family fresh --reps 20``
(``--family dev`` for the development family, ``--table`` to print the tables of the raw
CSV only). Writes one row per fit and target to
``benchmarks/results/extrapolation_<family>_raw.csv`` (appended per repetition, so a crash
loses nothing), the true curves to ``benchmarks/results/extrapolation_truth.csv`` and the
summary to ``benchmarks/results/extrapolation_<family>.csv``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import extrapolation_families as fam  # noqa: E402

from evalstats.extrapolate import extrapolate_accuracy  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
TRUTH = RESULTS / "extrapolation_truth.csv"
#: method name -> keyword arguments of extrapolate_accuracy (package defaults otherwise)
METHODS = {
    "default": {},
    "two_param": dict(method="two_param"),
    "hd": dict(method="hd"),
    "kde": dict(method="kde"),
    "naive": dict(method="naive"),
    "npmle": dict(method="npmle"),
    "regression-gls": dict(method="regression", curve_weights="gls"),
    "polynomial": dict(method="polynomial"),
    # the high-degree call of the held-out study, with and without the roughness penalty
    "polynomial-hd": dict(method="polynomial", degree=[(48, 2), (48, 3), (96, 3), (96, 4)]),
    "polynomial-hd-pen0": dict(method="polynomial", penalty=0.0,
                               degree=[(48, 2), (48, 3), (96, 3), (96, 4)]),
    # the probit-stretched Bernstein basis fitted by the Bernoulli pseudolikelihood (two
    # tails, stretches 4-6): the former default
    "stretched-pl": dict(method="polynomial", likelihood="bernoulli"),
    "pseudolikelihood": dict(method="pseudolikelihood"),
}
SEEDS = {"dev": 3100, "fresh": 4200}
TRUTH_PROBLEMS = 30


def settings(family: str) -> list[fam.Setting]:
    if family == "dev":
        return fam.sim_settings(fam.DEV_SIMS)
    return fam.sim_settings(fam.FRESH_SIMS) + fam.real_settings()


def truths(sets: list[fam.Setting]) -> pd.DataFrame:
    """True curves, computed once per case and cached in ``TRUTH``."""
    old = pd.read_csv(TRUTH) if TRUTH.exists() else pd.DataFrame(
        columns=["setting", "k", "truth", "truth_se", "n_problems"])
    rows = []
    for st in sets:
        if st.name in set(old.setting):
            continue
        t0 = time.time()
        if st.full is not None:
            from evalstats.extrapolate import average_accuracy
            val, se, n = average_accuracy(*st.full, st.ks), np.zeros(len(st.ks)), 0
        else:
            val, se = fam.truth_curve(st.draw, st.ks, TRUTH_PROBLEMS, seed=99)
            n = TRUTH_PROBLEMS
        rows += [dict(setting=st.name, k=int(k), truth=float(v), truth_se=float(s),
                      n_problems=n) for k, v, s in zip(st.ks, val, se, strict=True)]
        print(f"truth {st.name}: {np.round(val, 4)} (s.e. <= {se.max():.4f}, "
              f"{time.time() - t0:.0f} s)", flush=True)
    if rows:
        old = pd.concat([old, pd.DataFrame(rows)], ignore_index=True)
        old.to_csv(TRUTH, index=False, float_format="%.6g")
    return old


def fit_one(scores, y, ks, kwargs, rep):
    """(pred, lo, hi, cpu seconds, error text) of one fit at its package defaults."""
    t0 = time.process_time()
    err = ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = extrapolate_accuracy(scores, y, k_target=[int(k) for k in ks], rng=rep,
                                       **kwargs)
            pr = fit.predict(ks)
            out = pr.accuracy.to_numpy(), pr.conf_low.to_numpy(), pr.conf_high.to_numpy()
        except Exception as exc:  # counted as the worst possible error, and listed
            err = f"{type(exc).__name__}: {exc}"[:200]
            out = (np.full(len(ks), np.nan),) * 3
    return (*out, time.process_time() - t0, err)


def run(family: str, methods: list[str], reps: int, raw: Path, only: list[str] | None):
    sets = [s for s in settings(family) if not only or s.name in only]
    tru = truths(sets).set_index(["setting", "k"])
    done = set()
    if raw.exists():
        old = pd.read_csv(raw)
        done = set(zip(old.setting, old.method, old.rep, strict=True))
    for st in sets:
        t0 = time.time()
        for rep in range(reps):
            scores, y = st.problem(rep, SEEDS[family])
            rows = []
            for m in methods:
                if (st.name, m, rep) in done:
                    continue
                pred, lo, hi, sec, err = fit_one(scores, y, st.ks, METHODS[m], rep)
                for j, k in enumerate(st.ks):
                    t = tru.loc[(st.name, int(k))]
                    rows.append(dict(setting=st.name, method=m, rep=rep, k1=st.k1, k=int(k),
                                     truth=t.truth, truth_se=t.truth_se, pred=pred[j],
                                     lo=lo[j], hi=hi[j], cpu=sec, error=err))
            if rows:
                pd.DataFrame(rows).to_csv(raw, mode="a", header=not raw.exists(),
                                          index=False, float_format="%.6g")
        print(f"-- {st.name}: {time.time() - t0:.0f} s", flush=True)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """One row per (setting, method, k): RMSE, bias, coverage, width, CPU seconds."""
    raw = raw.assign(ratio=raw.k / raw.k1, failed=raw.error.fillna("").ne(""))
    worst = np.where(raw.truth > 0.5, 0.0, 1.0)
    raw["err"] = np.where(raw.failed, worst - raw.truth, raw.pred - raw.truth)
    raw["cov"] = ~raw.failed & (raw.lo <= raw.truth) & (raw.truth <= raw.hi)
    raw["width"] = np.where(raw.failed, 0.0, raw.hi - raw.lo)
    g = raw.groupby(["setting", "method", "k"], sort=False)
    out = g.agg(k1=("k1", "first"), ratio=("ratio", "first"), reps=("rep", "nunique"),
                truth=("truth", "first"), bias=("err", "mean"),
                rmse=("err", lambda e: float(np.sqrt(np.mean(e**2)))),
                coverage=("cov", "mean"), width=("width", "mean"), cpu=("cpu", "mean"),
                failed=("failed", "sum")).reset_index()
    out["coverage_se"] = np.sqrt(out.coverage * (1 - out.coverage) / out.reps)
    out["width_over_rmse"] = out.width / out.rmse
    return out


def overall(summ: pd.DataFrame) -> pd.DataFrame:
    """Per method: worst (and where) and mean RMSE over the cases at each ratio -- the worst
    case at 10x is the criterion for the default --, the real cases' largest RMSE and
    |bias|, pooled band coverage (binomial s.e.), mean width / RMSE, CPU s per fit."""
    real = summ.setting.str.contains("omniglot|letter")
    rows = {}
    for m, g in summ.groupby("method"):
        r = {}
        for ratio in (2, 4, 10, 20):
            c = g[np.isclose(g.ratio, ratio)]
            if len(c):
                r[f"worst_{ratio}x"] = c.rmse.max()
                r[f"worst_case_{ratio}x"] = c.setting.iloc[int(np.argmax(c.rmse))]
                r[f"mean_{ratio}x"] = c.rmse.mean()
        gr = g[real[g.index]]
        if len(gr):
            r["real_worst_rmse"] = gr.rmse.max()
            r["real_worst_abs_bias"] = gr.bias.abs().max()
        w = g.reps.to_numpy()
        r["coverage"] = np.average(g.coverage, weights=w)
        r["coverage_se"] = np.sqrt(r["coverage"] * (1 - r["coverage"]) / w.sum())
        r["width_over_rmse"] = np.average(g.width_over_rmse, weights=w)
        r["cpu_s"] = g.cpu.mean()
        r["reps"] = int(g.reps.min())
        r["failed"] = int(g.failed.sum())
        rows[m] = r
    return pd.DataFrame(rows).T


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", choices=["dev", "fresh"], default="fresh")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--methods", nargs="*", default=list(METHODS))
    ap.add_argument("--settings", nargs="*", default=None)
    ap.add_argument("--table", action="store_true", help="only the tables of the raw CSV")
    args = ap.parse_args(argv)
    RESULTS.mkdir(parents=True, exist_ok=True)
    raw = RESULTS / f"extrapolation_{args.family}_raw.csv"
    if not args.table:
        run(args.family, args.methods, args.reps, raw, args.settings)
    summ = summarise(pd.read_csv(raw))
    summ.to_csv(RESULTS / f"extrapolation_{args.family}.csv", index=False,
                float_format="%.5g")
    pd.set_option("display.width", 200)
    print(summ.pivot_table(index=["setting", "ratio"], columns="method",
                           values="rmse").round(3).to_string())
    print(overall(summ).round(3).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
