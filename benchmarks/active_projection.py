"""The projection of the active estimator's totals onto the values the labels allow.

The AIPW totals ``Ŷ₁``, ``Ŷ₀`` (positives among predicted positives and negatives) are
unbiased, but a 1/q-weighted residual of one rare positive can carry a total past its
group's size or below the positives already labeled, and a measure outside [0, 1]
follows. The default projects each total onto ``[labeled positives of the group, group
size − labeled negatives of the group]``; the truth lies there, so no run's total moves
away from it. This script measures what that does to the measures: for each pool cell of
``benchmarks/active_pools.py``, R runs of ``es.active_evaluate`` at 500 labels; per run and
measure the estimate and the default score interval from the projected totals and from
the unprojected ones (the same draws). Reported per (cell, measure): the share of runs
the projection moved, bias and RMSE of each, coverage of each interval, and the share of
unprojected estimates outside [0, 1].

    python benchmarks/active_projection.py --families dev --reps 100 --out dev
    python benchmarks/active_projection.py --families fresh4 --reps 100 --out fresh4

Writes ``results/active_projection_<tag>_raw.csv.gz`` and ``..._<tag>.csv``.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import active_pools  # noqa: E402  (a sibling script, not a package)

RESULTS = Path(__file__).resolve().parent / "results"
MEASURES = ("f1", "precision", "recall", "accuracy")
UNBOUNDED = (-np.inf, np.inf, -np.inf, np.inf)


def one_run(pool: dict, seed, n_labels: int, name: str, rep: int) -> list[dict]:
    from evalstats.active._aipw import (
        pseudo_outcomes,
        ratio_coefficients,
        ratio_estimate,
        score_interval,
    )
    from evalstats.active._measures import measure_spec

    est = active_pools.default_run(pool, seed, n_labels)
    rec = est.sample.records
    tot = pseudo_outcomes(rec)
    raw = dataclasses.replace(tot, support=UNBOUNDED)
    rows = []
    for m in MEASURES:
        spec = measure_spec(m)
        coef = ratio_coefficients(spec, rec.pool_size, float(rec.n_pred_pos[0]))
        for kind, t in (("projected", tot), ("raw", raw)):
            r = ratio_estimate(t, coef)
            lo, hi = score_interval(r, 0.95)
            rows.append(dict(cell=name, rep=rep, measure=m, kind=kind,
                             truth=pool["meta"][m], est=r.estimate, lo=lo, hi=hi,
                             moved=r.projected))
    return rows


def run(which: str, reps: int, n_labels: int, out: Path, seed: int) -> pd.DataFrame:
    rows: list[dict] = []
    for pool, children in active_pools.seeded_pools(which, reps, seed):
        for i, child in enumerate(children):
            rows += one_run(pool, child, n_labels, pool["name"], i)
        pd.DataFrame(rows).to_csv(out, index=False)
    return pd.DataFrame(rows)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Per (cell, measure): moved share, bias/RMSE/coverage of each kind, raw outside [0, 1]."""
    d = raw.assign(err=raw.est - raw.truth,
                   hit=(raw.lo <= raw.truth) & (raw.truth <= raw.hi))
    rows = []
    for (cell, m), g in d.groupby(["cell", "measure"], sort=False):
        p, r = g[g.kind == "projected"], g[g.kind == "raw"]
        rows.append(dict(cell=cell, measure=m, reps=len(p), moved=p.moved.mean(),
                         raw_outside_01=((r.est < 0) | (r.est > 1)).mean(),
                         bias_raw=r.err.mean(), bias_projected=p.err.mean(),
                         rmse_raw=np.sqrt((r.err ** 2).mean()),
                         rmse_projected=np.sqrt((p.err ** 2).mean()),
                         coverage_raw=r.hit.mean(), coverage_projected=p.hit.mean()))
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    args = active_pools.runs_parser(__doc__, "dev", 100).parse_args(argv)
    raw, tag = active_pools.raw_rows(args, RESULTS, "active_projection", run, ".csv.gz")
    table = summarise(raw)
    table.to_csv(RESULTS / f"active_projection_{tag}.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(table.round(4).to_string(index=False))


if __name__ == "__main__":
    main()
