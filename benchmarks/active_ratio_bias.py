"""The ratio's bias in active estimation: the plain ratio of totals against Beale's correction.

Every binary measure is ``G = A/B`` with totals estimated without bias; ``Ĝ = Â/B̂`` is
biased where ``B̂`` is noisy — F-measures and recall on rare pools, where the positives
among the predicted negatives are a rare total (``E[Ĝ] − G ≈ (G·Var B̂ − Cov(Â, B̂))/B²``,
Cochran 1977, §6.8). Beale's estimator (Beale 1962; Cochran 1977, §6.9)
``Ĝ_B = Ĝ (1 + Ĉ_AB/(ÂB̂)) / (1 + V̂_BB/B̂²)`` removes that first-order term. The
(co)variances of the totals are the martingale's, either the realised ones (``realised``)
or the model-expected (predictable) ones of the batch models (``model``), or the pair whose
linearised variance is larger (``max``, as the default interval picks).

For each pool cell of ``benchmarks/active_pools.py``, R runs of ``es.active_evaluate``
with default arguments at 500 labels; per run, F1 and recall (the measures whose
denominator is estimated): the plain estimate, the three Beale estimates, and whether each
lies inside the default 95 % interval. Reported per (cell, measure): bias and RMSE of each,
RMSE ratios to the plain ratio with paired bootstrap 95 % intervals (runs resampled), and
the share of runs whose estimate lies outside the default interval.

**Decision rule (written before anything was run on ``FRESH4_FAMILY``).** On the
development family the ``model`` variance did best of the three (its argument: the bias
term is an expectation over the design, which the predictable variance estimates; the
realised one is small exactly in the runs that missed the rare positives, where ``Ĝ`` is
high). Adopt Beale with the ``model`` variance for the default estimate iff, on FRESH4,
(1) the geometric mean over cells and the two measures of the RMSE ratio Beale/plain has a
paired bootstrap 95 % interval wholly below 1, and (2) no (cell, measure) has a ratio whose
interval lies wholly above 1. Otherwise keep the plain ratio (simpler).

    python benchmarks/active_ratio_bias.py --families dev --reps 60 --out dev
    python benchmarks/active_ratio_bias.py --families fresh4 --reps 100 --out fresh4

Writes ``results/active_ratio_bias_<tag>_raw.csv`` and ``..._<tag>.csv``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import active_pools  # noqa: E402  (a sibling script, not a package)

RESULTS = Path(__file__).resolve().parent / "results"
MEASURES = ("f1", "recall")
VARIANTS = ("realised", "model", "max")


def covariances(r, kind: str) -> tuple[float, float]:
    """``(V̂_BB, Ĉ_AB)`` of the totals' estimates from the realised or model variance."""
    a2 = r.a * r.a
    if kind == "realised":
        s2 = float(r.a @ r.a)
        d_a, d_b = r.A - r.a_hat, r.B - r.b_hat
        return float(a2 @ (d_b * d_b)) / (1 - s2), float(a2 @ (d_a * d_b)) / (1 - s2)
    (a1, a0, _), (b1, b0, _) = r.coef
    w1, w0 = r.W
    return b1 * b1 * w1 + b0 * b0 * w0, a1 * b1 * w1 + a0 * b0 * w0


def beale(r, kind: str) -> float:
    """Beale's ratio from the ``kind`` (co)variances (the plain ratio where undefined)."""
    if kind == "max":
        kind = "model" if r.std_error_model > r.std_error_realised else "realised"
    v_bb, c_ab = covariances(r, kind)
    if not (r.b_hat > 0 and r.a_hat > 0 and np.isfinite(v_bb) and np.isfinite(c_ab)):
        return float(r.estimate)
    return float(r.estimate * (1 + c_ab / (r.a_hat * r.b_hat)) / (1 + v_bb / r.b_hat ** 2))


def one_run(pool: dict, seed, n_labels: int) -> list[dict]:
    from evalstats.active._aipw import score_interval
    from evalstats.active._measures import measure_spec

    est = active_pools.default_run(pool, seed, n_labels)
    rows = []
    for m in MEASURES:
        r = est.sample.estimate(measure_spec(m))
        lo, hi = score_interval(r, 0.95)
        row = dict(measure=m, truth=pool["meta"][m], plain=r.estimate, lo=lo, hi=hi)
        row.update({f"beale_{k}": beale(r, k) for k in VARIANTS})
        rows.append(row)
    return rows


def run(which: str, reps: int, n_labels: int, out: Path, seed: int) -> pd.DataFrame:
    rows: list[dict] = []
    for pool, children in active_pools.seeded_pools(which, reps, seed):
        for i, child in enumerate(children):
            rows += [dict(r, cell=pool["name"], rep=i) for r in one_run(pool, child,
                                                                          n_labels)]
        pd.DataFrame(rows).to_csv(out, index=False)
    return pd.DataFrame(rows)


def _ratio_ci(e_new: np.ndarray, e_old: np.ndarray, rng, n_boot: int = 2000):
    idx = rng.integers(0, len(e_new), (n_boot, len(e_new)))
    ratios = np.sqrt((e_new[idx] ** 2).mean(1) / (e_old[idx] ** 2).mean(1))
    return np.quantile(ratios, [0.025, 0.975])


def summarise(raw: pd.DataFrame, seed: int = 1) -> tuple[pd.DataFrame, dict]:
    """Per (cell, measure) bias, RMSE, RMSE ratio to the plain ratio (bootstrap CI),
    outside-interval shares; and the rule's pooled geometric-mean ratio with its CI."""
    rng = np.random.default_rng(seed)
    rows, groups = [], []
    for (cell, m), g in raw.groupby(["cell", "measure"], sort=False):
        e0 = (g.plain - g.truth).to_numpy()
        row = dict(cell=cell, measure=m, reps=len(g), bias_plain=e0.mean(),
                   rmse_plain=np.sqrt(np.mean(e0 ** 2)),
                   outside_plain=np.mean((g.plain < g.lo) | (g.plain > g.hi)))
        for k in VARIANTS:
            e = (g[f"beale_{k}"] - g.truth).to_numpy()
            lo, hi = _ratio_ci(e, e0, rng)
            row.update({f"bias_{k}": e.mean(), f"rmse_{k}": np.sqrt(np.mean(e ** 2)),
                        f"ratio_{k}": np.sqrt(np.mean(e ** 2) / np.mean(e0 ** 2)),
                        f"ratio_{k}_low": lo, f"ratio_{k}_high": hi,
                        f"outside_{k}": np.mean((g[f"beale_{k}"] < g.lo)
                                                | (g[f"beale_{k}"] > g.hi))})
        rows.append(row)
        groups.append(((g.beale_model - g.truth).to_numpy(), e0))
    table = pd.DataFrame(rows)
    boot = []
    for _ in range(2000):
        logs = []
        for e, e0 in groups:
            i = rng.integers(0, len(e), len(e))
            logs.append(0.5 * np.log(np.mean(e[i] ** 2) / np.mean(e0[i] ** 2)))
        boot.append(np.exp(np.mean(logs)))
    gm = float(np.exp(np.mean(np.log(table.ratio_model))))
    lo, hi = np.quantile(boot, [0.025, 0.975])
    worse = table[table.ratio_model_low > 1][["cell", "measure"]].values.tolist()
    rule = dict(geomean_ratio_model=gm, ci=(float(lo), float(hi)), cells_worse=worse,
                adopt=bool(hi < 1 and not worse))
    return table, rule


def main(argv: list[str] | None = None) -> None:
    args = active_pools.runs_parser(__doc__, "fresh4", 100).parse_args(argv)
    raw, tag = active_pools.raw_rows(args, RESULTS, "active_ratio_bias", run)
    table, rule = summarise(raw)
    table.to_csv(RESULTS / f"active_ratio_bias_{tag}.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(table.round(4).to_string(index=False))
    print(rule)


if __name__ == "__main__":
    main()
