"""How close the default's design comes to the Godambe–Joshi bound on calibrated laws.

Under a model in which the labels are independent, ``y_i ~ Bernoulli(g_i)`` with known
``g_i``, every design-unbiased estimator ``T̂`` of a pool total ``T = Σ c_i y_i`` from a
design with inclusion probabilities ``π_i`` has anticipated variance
``E_ξ E_p (T̂ − T)² ≥ Σ c_i² g_i (1 − g_i) (1/π_i − 1)`` (Godambe & Joshi 1965, Ann. Math.
Stat. 36; Särndal, Swensson & Wretman 1992, §12.2), and over designs with ``Σ π_i = n``
the right side is smallest at ``π_i ∝ |c_i| √(g_i(1 − g_i))`` capped at 1. The bound
``GJ(n)`` is what the default's sizes aim at (its ``s*`` is that allocation under the
batch model), so the ratio of the default's anticipated variance to it measures what the
batches, the refits and the defensive share cost.

For each pool of a calibrated law (scores are the probabilities ``g``; labels drawn anew
from ``g`` in every run, so the runs average over the law as the bound does) and for the
linearised F1 total ``D = Σ (f_i − F/2) y_i`` (``F`` the law's F1 at the expected
counts; ``Â − F·B̂`` is its design-unbiased estimate from the default's unprojected
totals), this reports the default's root anticipated variance of ``D̂ − D`` over runs, the
bound at the same number of labels, their ratio with a bootstrap interval, and the F1
RMSE of the default, of its labelled model-based option and of adaptive OASIS with their
biases; and the same two numbers for the *Godambe–Joshi oracle*: one batch of ``n``
labels sized under the law's own probabilities (the model is the truth; defensive share
``ORACLE_EPSILON``), the design whose allocation the bound describes, with the default's
estimator. The F1 RMSE ratios to OASIS come with paired bootstrap intervals. The totals'
estimates are read from the design's draw records (a private part of the package; the
public estimate reports only the projected ratios).

    python benchmarks/active_efficiency.py --reps 400        # about 10 minutes, 2 cores

Writes ``results/active_efficiency.csv`` (the table) and ``..._raw.csv`` (one row per run).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import active_families  # noqa: E402  (sibling scripts)
import active_pools  # noqa: E402
from _runs import output_dir, pooled_runs_parser  # noqa: E402

#: the defensive share of the oracle design: OASIS's own ε (Marchant & Rubinstein 2017)
ORACLE_EPSILON = 1e-3

#: calibrated laws: (name, cell or real pool whose scores are the probabilities)
LAWS = ("real_abt_prob", "dev_cal_rare", "dev_cal_2pct", "f4_cal_t_rare")


def gj_bound(g: np.ndarray, c: np.ndarray, n: int) -> float:
    """``min Σ c² g(1 − g)(1/π − 1)`` over ``Σ π = n``, ``0 < π ≤ 1``: the root."""
    v = c * c * g * (1.0 - g)
    r = np.sort(np.sqrt(v))[::-1]
    rest = np.concatenate(([0.0], np.cumsum(r)))
    total = rest[-1]
    k = 0                     # items at π = 1: the largest r with (n − k) r_k ≥ Σ_{j≥k} r_j
    while k < min(n, r.size) - 1 and (n - k) * r[k] >= total - rest[k]:
        k += 1
    pi_rest = (n - k) * r[k:] / (total - rest[k])
    keep = r[k:] > 0
    return float(np.sqrt(np.sum(r[k:][keep] ** 2 * (1.0 / pi_rest[keep] - 1.0))))


def law_pool(name: str) -> dict | None:
    """The pool of ``name`` whose scores are taken as the law's probabilities."""
    pool = active_pools.build_cell(active_pools.cells([name])[0])
    if pool is not None:
        pool["g"] = np.clip(pool["scores"].astype(np.float64), 0.0, 1.0)
    return pool


def one_run(pool: dict, seed: np.random.SeedSequence, n_labels: int, f_law: float) -> dict:
    """Labels drawn from the law, then the default, its model-based option and OASIS."""
    import evalstats as es
    from evalstats.active._aipw import pseudo_outcomes

    rng = np.random.default_rng(seed)
    g, f = pool["g"], pool["predictions"].astype(np.float64)
    y = (rng.random(g.size) < g).astype(np.int8)
    truth = active_pools.pool_truth(pool["predictions"], y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = es.active_evaluate(pool["scores"], lambda i: y[i], n_labels=n_labels,
                                 predictions=pool["predictions"], rng=rng, progress=False)
    tot = pseudo_outcomes(est.sample.records)
    y1_hat, y0_hat = float(tot.a @ tot.x1), float(tot.a @ tot.x0)
    y1, y0 = float(f @ y), float((1.0 - f) @ y)
    p = float(f.sum())
    d_err = (y1_hat - f_law * (p + y1_hat + y0_hat) / 2) - (y1 - f_law * (p + y1 + y0) / 2)
    mb = est.model_based().set_index("term").loc["f1", "estimate"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ora = es.active_evaluate(pool["scores"], lambda i: y[i], n_labels=n_labels,
                                 predictions=pool["predictions"], rng=rng, progress=False,
                                 batch_size=n_labels, adaptive=False, epsilon=ORACLE_EPSILON)
    tot_o = pseudo_outcomes(ora.sample.records)
    y1_o, y0_o = float(tot_o.a @ tot_o.x1), float(tot_o.a @ tot_o.x0)
    d_oracle = (y1_o - f_law * (p + y1_o + y0_o) / 2) - (y1 - f_law * (p + y1 + y0) / 2)
    oasis_pool = dict(pool, labels=y, meta=dict(pool["meta"], **truth))
    oasis = active_families.run_oasis(oasis_pool, [n_labels], seed)[0]["estimate"]
    return dict(cell=pool["name"], truth=truth["f1"], d_error=d_err, default=est.estimate,
                model_based=float(mb), oasis=oasis, d_error_oracle=d_oracle,
                gj_oracle=ora.estimate)


def summarise(raw: pd.DataFrame, bounds: dict, n_boot: int = 1000) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for cell, grp in raw.groupby("cell", sort=False):
        d = grp["d_error"].to_numpy()
        idx = rng.integers(0, d.size, size=(n_boot, d.size))
        ratio = np.sqrt(np.mean(d[idx] ** 2, axis=1)) / bounds[cell]
        row = dict(cell=cell, reps=len(grp), gj_bound=bounds[cell],
                   default_rmse_d=float(np.sqrt(np.mean(d ** 2))),
                   ratio=float(np.sqrt(np.mean(d ** 2)) / bounds[cell]),
                   ratio_low=float(np.quantile(ratio, 0.025)),
                   ratio_high=float(np.quantile(ratio, 0.975)))
        if "d_error_oracle" in grp:
            do = grp["d_error_oracle"].to_numpy()
            row["oracle_ratio"] = float(np.sqrt(np.mean(do ** 2)) / bounds[cell])
        err = {m: grp[m].to_numpy() - grp["truth"].to_numpy()
               for m in ("default", "oasis", "gj_oracle") if m in grp}
        for m in ("default", "gj_oracle"):
            if m in err:
                mse = np.nanmean(err[m][idx] ** 2, axis=1) / np.nanmean(err["oasis"][idx] ** 2,
                                                                        axis=1)
                row[f"{m}_vs_oasis"] = float(np.sqrt(np.nanmean(err[m] ** 2)
                                                     / np.nanmean(err["oasis"] ** 2)))
                row[f"{m}_vs_oasis_low"], row[f"{m}_vs_oasis_high"] = (
                    float(v) for v in np.sqrt(np.quantile(mse, [0.025, 0.975])))
        for m in ("default", "model_based", "oasis", "gj_oracle"):
            if m not in grp:
                continue
            e = grp[m].to_numpy() - grp["truth"].to_numpy()
            row[f"{m}_f1_rmse"] = float(np.sqrt(np.nanmean(e ** 2)))
            row[f"{m}_f1_bias"] = float(np.nanmean(e))
            row[f"{m}_f1_bias_se"] = float(np.nanstd(e, ddof=1) / np.sqrt(np.isfinite(e).sum()))
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    ap = pooled_runs_parser(__doc__, reps=200, seed=2026,
                            combine_help="re-read raw CSVs instead of running")
    ap.add_argument("--labels", type=int, default=500)
    ap.add_argument("--laws", default=",".join(LAWS))
    args = ap.parse_args(argv)
    out = output_dir(args.out)
    bounds, raws = {}, []
    for name in args.laws.split(","):
        pool = law_pool(name)
        if pool is None:
            continue
        g, f = pool["g"], pool["predictions"].astype(np.float64)
        p, pos = float(f.sum()), float(g.sum())
        f_law = 2 * float(f @ g) / (p + pos)
        bounds[name] = gj_bound(g, f - f_law / 2, args.labels)
        if args.combine:
            continue
        print(f"{name}: {g.size:,} items, law F1 {f_law:.4f}, GJ bound {bounds[name]:.2f}",
              flush=True)
        seeds = np.random.SeedSequence([args.seed, active_pools.cell_seed(name)]).spawn(
            args.reps)
        raws.append(pd.DataFrame([one_run(pool, s, args.labels, f_law) for s in seeds]))
    raw = (pd.concat([pd.read_csv(c) for c in args.combine]) if args.combine
           else pd.concat(raws, ignore_index=True))
    if not args.combine:
        raw.to_csv(out / "active_efficiency_raw.csv", index=False)
    table = summarise(raw, bounds)
    table.to_csv(out / "active_efficiency.csv", index=False)
    with pd.option_context("display.width", 250):
        print(table.round(4).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
