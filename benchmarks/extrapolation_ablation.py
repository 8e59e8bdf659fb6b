"""Ablation of the default extrapolation method (``method="regression"``) on the fresh family.

For every fresh case and repetition (the problems of ``extrapolation_accuracy.py``) the
candidate models are fitted once -- the radial regression at every bandwidth under both
tail assumptions ("open": a share of test points recognised with certainty at every k, the
constant element of ClassExReg; "closed": D(1) = 1) and the two-parameter normal model --
on all classes, on 40 random halves of the classes and on a random quarter inside each half
(the same class draws for every variant). Every variant of the default's mechanisms is then
evaluated against the truth:

* candidate set: open tail (the default), closed tail, both tails, two_param, two_param
  with the open-tail candidates;
* back-test: halves only (ratio 2, the default; JMLR sec. 3.4) or halves and quarters
  (ratios 2 and 4);
* weights: soft, ``exp(-5 (RMSE / RMSE_min - 1))`` (the default), or the arg-min;
* band: the half-class spread at the same extrapolation ratio alone, or combined with the
  weighted spread of the candidates (the default).

The mechanisms ablated are internal, so this script uses the package's private fitting
classes (``evalstats.extrapolate._methods`` and ``._normal``).

Run ``OMP_NUM_THREADS=1 python benchmarks/extrapolation_ablation.py`` (``--reps``, default
30; ``--table`` to print the tables of the raw CSV only). Writes one row per repetition,
variant and target to ``benchmarks/results/extrapolation_ablation_raw.csv`` (appended per
repetition) and the summary to ``benchmarks/results/extrapolation_ablation.csv``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parent))
import extrapolation_accuracy as bench  # noqa: E402

from evalstats._warnings import ConvergenceError  # noqa: E402
from evalstats.extrapolate._curves import Data, predict_curve  # noqa: E402
from evalstats.extrapolate._methods import Radial, fit_all  # noqa: E402
from evalstats.extrapolate._normal import TwoParam  # noqa: E402

RESULTS = bench.RESULTS
N_SUB = 40
N_BW = 10                               # bandwidths per tail: open 0..9, closed 10..19
CANDIDATE_SETS = {"open": range(0, 10), "closed": range(10, 20), "both": range(0, 20),
                  "two_param": [20], "two_param+open": [*range(0, 10), 20]}
BACKTESTS = ("halves", "halves+quarters")
WEIGHTS = ("soft", "argmin")
DEFAULT = "open|halves|soft"


def _preds(meth, fits, ks) -> np.ndarray:
    out = np.full((len(fits), len(ks)), np.nan)
    for j, ((p, _), cand) in enumerate(zip(fits, meth.candidates, strict=True)):
        if not isinstance(p, ConvergenceError):
            out[j] = predict_curve(meth.curve(p, cand), ks)
    return out


def candidate_fits(scores, y, ks, rep: int) -> dict:
    """Every candidate's predictions: ``full`` (C, K); back-test predictions of ATA_{k1}
    from halves ``bt2`` and quarters ``bt4`` (L, C); half fits at the same extrapolation
    ratio ``half_same_ratio`` (L, C, K)."""
    k1 = scores.shape[1]
    half, quarter = k1 // 2, k1 // 4
    data = Data(scores, y, "random", keep_scores=False)
    methods = [Radial(k1, None, tails=("open", "closed")), TwoParam(k1)]
    for m in methods:
        m.prepare([k1, half] + ([quarter] if quarter >= 6 else []))
    g = np.random.default_rng(rep)
    at_half = np.maximum(ks * half / k1, 2.0)

    def fit(view, at):
        return np.vstack([_preds(m, fit_all(m, view), at) for m in methods])

    out = dict(full=fit(data.view(), ks), bt2=[], bt4=[], half_same_ratio=[])
    for _ in range(N_SUB):
        cls = g.choice(k1, half, replace=False)
        v = data.view(cls)
        out["bt2"].append(fit(v, np.array([k1]))[:, 0])
        out["half_same_ratio"].append(fit(v, at_half))
        sub = g.choice(cls, quarter, replace=False)
        out["bt4"].append(fit(data.view(sub), np.array([k1]))[:, 0] if quarter >= 6
                          else np.full(len(out["bt2"][-1]), np.nan))
    out = {k: np.asarray(v) for k, v in out.items()}
    out["ata_k1"] = float(data.view().ata(np.array([k1]))[0])
    return out


def soft_weights(rmse: np.ndarray) -> np.ndarray:
    r = np.where(np.isfinite(rmse), rmse, np.inf)
    w = np.exp(-5.0 * (r / max(r.min(), 1e-12) - 1.0))
    w = np.where(w / w.sum() < 1e-3, 0.0, w)
    return w / w.sum()


def variant_rows(f: dict, ks, k1: int) -> list[dict]:
    """Prediction, sampling s.e. and candidate spread of every variant."""
    rows = []
    for cs, bt, wt in itertools.product(CANDIDATE_SETS, BACKTESTS, WEIGHTS):
        idx = list(CANDIDATE_SETS[cs])
        P = f["bt2"] if bt == "halves" else np.vstack([f["bt2"], f["bt4"]])
        P = P[:, idx][~np.isnan(P[:, idx]).all(axis=1)]
        rmse = np.sqrt(np.mean(np.where(np.isnan(P), 1.0, P - f["ata_k1"]) ** 2, axis=0))
        if wt == "soft":
            w = soft_weights(rmse)
        else:
            w = np.zeros(len(idx))
            w[int(np.nanargmin(rmse))] = 1.0
        full = f["full"][idx]
        pred = w @ full
        se = np.einsum("lck,c->lk", np.nan_to_num(f["half_same_ratio"][:, idx]), w).std(
            axis=0, ddof=1)
        spread = np.sqrt((w[:, None] * (full - pred) ** 2).sum(axis=0))
        rows += [dict(variant=f"{cs}|{bt}|{wt}", k=int(k), ratio=k / k1, pred=pred[j],
                      se=se[j], spread=spread[j]) for j, k in enumerate(ks)]
    return rows


def run(reps: int, raw: Path) -> None:
    sets = bench.settings("fresh")
    tru = bench.truths(sets).set_index(["setting", "k"])
    done = set()
    if raw.exists():
        old = pd.read_csv(raw, usecols=["setting", "rep"])
        done = set(zip(old.setting, old.rep, strict=True))
    for st in sets:
        t0 = time.time()
        for rep in range(reps):
            if (st.name, rep) in done:
                continue
            scores, y = st.problem(rep, bench.SEEDS["fresh"])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                f = candidate_fits(scores, y, st.ks.astype(float), rep)
            rows = pd.DataFrame(variant_rows(f, st.ks, st.k1)).assign(setting=st.name,
                                                                        rep=rep)
            rows["truth"] = [tru.loc[(st.name, k)].truth for k in rows.k]
            rows.to_csv(raw, mode="a", header=not raw.exists(), index=False,
                        float_format="%.6g")
        print(f"-- {st.name}: {time.time() - t0:.0f} s", flush=True)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Per variant and ratio: worst and mean RMSE over the cases, coverage of the 95 %
    band with the sampling spread alone and with the candidates' spread added, and the
    mean half-width over the RMSE."""
    q = norm.ppf(0.975)
    raw = raw.assign(err=raw.pred - raw.truth, band=np.hypot(raw.se, raw.spread))
    cell = raw.groupby(["variant", "ratio", "setting"]).err.apply(
        lambda e: float(np.sqrt(np.mean(e**2)))).rename("rmse").reset_index()
    g = raw.groupby(["variant", "ratio"])
    out = pd.DataFrame({
        "worst_rmse": cell.groupby(["variant", "ratio"]).rmse.max(),
        "worst_case": cell.loc[cell.groupby(["variant", "ratio"]).rmse.idxmax()].set_index(
            ["variant", "ratio"]).setting,
        "mean_rmse": cell.groupby(["variant", "ratio"]).rmse.mean(),
        "coverage_sampling": g.apply(lambda d: np.mean(np.abs(d.err) <= q * d.se)),
        "coverage": g.apply(lambda d: np.mean(np.abs(d.err) <= q * d.band)),
        "n": g.size(),
        "halfwidth_over_rmse": g.apply(lambda d: q * d.band.mean()
                                       / np.sqrt(np.mean(d.err**2)))}).reset_index()
    out["coverage_se"] = np.sqrt(out.coverage * (1 - out.coverage) / out.n)
    return out.merge(paired_worst_se(raw), on=["variant", "ratio"])


def paired_worst_se(raw: pd.DataFrame, n_boot: int = 200) -> pd.DataFrame:
    """Bootstrap s.e. of (worst-case RMSE of a variant - that of the default): the
    repetitions of each case are resampled together for every variant (paired)."""
    sq = raw.assign(sq=(raw.pred - raw.truth) ** 2).pivot_table(
        index=["ratio", "setting", "rep"], columns="variant", values="sq")
    g = np.random.default_rng(0)
    rows = []
    for ratio, block in sq.groupby(level="ratio"):
        cases = [b.to_numpy() for _, b in block.groupby(level="setting")]
        diffs = []
        for _ in range(n_boot):
            mse = np.array([c[g.integers(0, len(c), len(c))].mean(axis=0) for c in cases])
            worst = np.sqrt(mse.max(axis=0))
            diffs.append(worst - worst[list(block.columns).index(DEFAULT)])
        se = np.std(diffs, axis=0, ddof=1)
        rows += [dict(variant=v, ratio=ratio, delta_worst_se=s) for v, s in
                 zip(block.columns, se, strict=True)]
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--table", action="store_true", help="only the tables of the raw CSV")
    args = ap.parse_args(argv)
    raw = RESULTS / "extrapolation_ablation_raw.csv"
    if not args.table:
        run(args.reps, raw)
    summ = summarise(pd.read_csv(raw))
    summ.to_csv(RESULTS / "extrapolation_ablation.csv", index=False, float_format="%.5g")
    pd.set_option("display.width", 200)
    base = summ[summ.variant == DEFAULT].set_index("ratio").worst_rmse
    summ["delta_worst"] = summ.worst_rmse - summ.ratio.map(base)
    for ratio, t in summ.groupby("ratio"):
        print(f"\nratio {ratio:g}:")
        print(t.drop(columns="ratio").sort_values("worst_rmse").round(3).to_string(
            index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
