"""Whether another weighting of the default's batches could lower its error.

The default's estimate of each pool total is ``Ŷ = Σ_k a_k X̄_k``, with ``X̄_k`` the mean
pseudo-outcome of batch ``k``'s random draws and ``a_k = n_k / n`` (equal weight per
label). Each ``X̄_k`` has conditional mean ``Y`` given the earlier batches, so *any* fixed
schedule ``a`` with ``Σ a_k = 1`` keeps the totals exactly unbiased, and a batch whose
pseudo-outcomes are noisy (the first, sized under the scores as given) could be weighted
down. This benchmark measures how much a fixed schedule could buy, on the same runs of the
default (so the schedules are paired):

* ``equal`` — the default's ``a_k = n_k / n``;
* ``drop_first`` — the first batch used only to fit the model (``a_1 = 0``, the others
  equal);
* ``best_in_sample`` — the schedule that minimises the mean squared error of the
  linearised F1 total ``D = Y₁ − F (P + Y₁ + Y₀)/2`` over the runs themselves
  (``a ∝ M⁻¹ 1``, ``M`` the runs' second-moment matrix of the batches' errors of ``D``):
  optimistic — no fixed schedule has a smaller error of ``D`` on these runs;
* ``best_cross_fit`` — the same schedule fitted on the other half of the runs (honest).

Reported per pool: the F1 RMSE of each schedule's estimate ``2Ŷ₁/(P + Ŷ₁ + Ŷ₀)`` (from
the unprojected totals, so the schedules differ only in ``a``), the ratio of each to
``equal`` with a paired bootstrap 95 % interval, the per-batch root mean squared error of
``D`` and the in-sample best schedule. The batches' pseudo-outcomes are read from the
design's draw records (a private part of the package); ``headline`` in the raw rows is the
package's (projected) estimate, for reference. The batch sizes are the same in every run
(``batch_size`` of ``active_evaluate``).

    python benchmarks/active_batch_weights.py --reps 300     # about 5 minutes, 2 cores

Writes ``results/active_batch_weights.csv`` (the table) and ``..._raw.csv`` (one row per
run and batch).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parent))
import active_pools  # noqa: E402  (sibling script)
from _runs import output_dir, pooled_runs_parser  # noqa: E402

#: pools where the default trails adaptive OASIS, and one where it leads (control)
POOLS = ("f4_margins_sat", "fr_margins", "f3_over_rare", "f3_blind_beta", "real_abt_prob",
         "dev_cal_2pct")

def one_run(pool: dict, seed: np.random.SeedSequence, n_labels: int) -> list[dict]:
    """One default run: each batch's mean pseudo-outcomes of ``Y₁`` and ``Y₀``."""
    import evalstats as es
    from evalstats.active._aipw import pseudo_outcomes

    y = pool["labels"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = es.active_evaluate(pool["scores"], lambda i: y[i], n_labels=n_labels,
                                 predictions=pool["predictions"],
                                 rng=np.random.default_rng(seed), progress=False)
    rec = est.sample.records
    tot = pseudo_outcomes(rec)
    b = rec.batch[~rec.certain]
    return [dict(batch=int(k), n_labels=int((rec.batch == k).sum()),
                 x1=float(tot.x1[b == k].mean()), x0=float(tot.x0[b == k].mean()),
                 headline=float(est.estimate))
            for k in np.unique(b)]


def best_schedule(d: np.ndarray) -> np.ndarray:
    """``argmin_a mean (d a)²`` over ``Σ a = 1``: ``a ∝ M⁻¹ 1``."""
    m = d.T @ d / d.shape[0]
    w = np.linalg.solve(m + 1e-12 * np.trace(m) * np.eye(m.shape[0]), np.ones(m.shape[0]))
    return w / w.sum()


def pool_table(raw: pd.DataFrame, truth: dict, rng: np.random.Generator,
               n_boot: int = 2000) -> list[dict]:
    """The schedules' F1 RMSE on one pool, their ratios to ``equal`` and the batch errors."""
    x1 = raw.pivot(index="run", columns="batch", values="x1").to_numpy()
    x0 = raw.pivot(index="run", columns="batch", values="x0").to_numpy()
    n_k = raw.pivot(index="run", columns="batch", values="n_labels").to_numpy()[0]
    p, f = truth["n_pred_pos"], truth["f1"]
    y1, y0 = truth["tp"], truth["fn"]
    d = (x1 - f * (p + x1 + x0) / 2) - (y1 - f * (p + y1 + y0) / 2)
    k = d.shape[1]
    half = np.arange(d.shape[0]) % 2 == 0
    schedules = {"equal": n_k / n_k.sum(),
                 "drop_first": np.r_[0.0, n_k[1:] / n_k[1:].sum()],
                 "best_in_sample": best_schedule(d)}
    errors = {}
    for name, a in schedules.items():
        errors[name] = 2 * (x1 @ a) / (p + x1 @ a + x0 @ a) - f
    cross = np.empty(d.shape[0])
    for part in (half, ~half):
        a = best_schedule(d[~part])
        cross[part] = 2 * (x1[part] @ a) / (p + x1[part] @ a + x0[part] @ a) - f
    errors["best_cross_fit"] = cross
    idx = rng.integers(0, d.shape[0], size=(n_boot, d.shape[0]))
    base = np.mean(errors["equal"][idx] ** 2, axis=1)
    rows = []
    for name, e in errors.items():
        ratio = np.sqrt(np.mean(e[idx] ** 2, axis=1) / base)
        a = schedules.get(name, np.full(k, np.nan))
        rows.append(dict(schedule=name, runs=d.shape[0], f1_rmse=float(np.sqrt(np.mean(e ** 2))),
                         f1_bias=float(e.mean()),
                         ratio_equal=float(np.sqrt(np.mean(e ** 2) / np.mean(
                             errors["equal"] ** 2))),
                         ratio_low=float(np.quantile(ratio, 0.025)),
                         ratio_high=float(np.quantile(ratio, 0.975)),
                         weights=" ".join(f"{v:.2f}" for v in a),
                         batch_rmse_d=" ".join(f"{v:.1f}" for v in np.sqrt(np.mean(d ** 2, 0)))))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = pooled_runs_parser(__doc__, reps=300, seed=2026,
                            combine_help="re-read raw CSVs instead of running")
    ap.add_argument("--labels", type=int, default=500)
    ap.add_argument("--pools", default=",".join(POOLS))
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args(argv)
    out = output_dir(args.out)
    raws, truths = [], {}
    for pool, seeds in active_pools.seeded_pools(args.pools, 0 if args.combine else args.reps,
                                                 args.seed):
        name = pool["name"]
        pred, lab = pool["predictions"].astype(np.int64), pool["labels"].astype(np.int64)
        truths[name] = dict(active_pools.pool_truth(pred, lab), n_pred_pos=float(pred.sum()))
        if args.combine:
            continue
        runs = Parallel(n_jobs=args.n_jobs)(delayed(one_run)(pool, s, args.labels)
                                            for s in seeds)
        raws.append(pd.DataFrame([dict(pool=name, run=r, **row)
                                  for r, rows in enumerate(runs) for row in rows]))
    raw = (pd.concat([pd.read_csv(c) for c in args.combine]) if args.combine
           else pd.concat(raws, ignore_index=True))
    if not args.combine:
        raw.to_csv(out / "active_batch_weights_raw.csv", index=False)
    rng = np.random.default_rng(1)
    table = pd.DataFrame([dict(pool=name, **row)
                          for name, grp in raw[raw["pool"].isin(truths)].groupby(
                              "pool", sort=False)
                          for row in pool_table(grp, truths[name], rng)])
    table.to_csv(out / "active_batch_weights.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_colwidth", 40):
        print(table.round(4).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
