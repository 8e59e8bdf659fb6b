"""The variance of the default active interval: realised, model-expected or their maximum.

The default interval of ``active_evaluate`` inverts a score statistic whose variance is the
martingale's quadratic variation. Two estimates of it are consistent (Hall & Heyde 1980,
ch. 3): the *realised* one, ``Σ a_t² D_t(g)²``, and the *predictable* one expected under the
batch model, ``Σ a_t² (c₁(g)² w₁ₜ + c₀(g)² w₀ₜ)`` (``w`` recorded by the design before each
draw). ``max`` inverts the larger of the two (the union of the two score sets). For each pool
cell of ``benchmarks/active_pools.py``, R runs of ``es.active_evaluate`` with default
arguments at ``--labels`` labels; each run gives, for F1, precision, recall and accuracy,
the estimate and the three 95 % score intervals on the same draws (so the three are paired).
Reported per (cell, measure, variance): coverage ± binomial SE, the share of misses above
and below, the median width; per (cell, measure): bias and RMSE of the estimate (the same
for the three). A run that raises counts as a miss of all three (never dropped).

**Decision rule (written before anything was run on ``FRESH2_FAMILY``).** Let ``c_v`` be
the worst coverage, over the FRESH2 cells and the four measures, of the interval with
variance ``v``, and ``s`` the binomial SE ``sqrt(c(1 − c)/R)`` of the cell where
``realised`` is worst. Adopt ``max`` as the default if ``c_max − c_realised > s``; a
difference within one SE is a tie and goes to the simpler ``realised``. (``max`` contains
``realised`` run by run, so ``c_max ≥ c_realised``; the question is whether the gain is
more than noise.) ``model`` alone is reported, never a candidate: it is exact only under a
calibrated working model.

**Second decision (written before anything was run on ``FRESH3_FAMILY``): the first
batch's model-expected variance.** The first batch is drawn before any label, so its
model-expected variance is computed under the scores as given. ``refit`` re-evaluates it
under the first model fitted on labels (the second batch's); ``max`` is the current rule.
Paired runs (same seeds) of both on FRESH3, 100 runs per cell. Adopt ``refit`` iff (1) its
worst coverage over cells and measures is at least ``max``'s worst minus one binomial SE,
(2) the paired bootstrap 95 % interval (runs resampled within cells) of the difference
(``refit`` − ``max``) in the summed distance of the cells' coverages from [0.92, 0.99]
does not lie wholly above 0, and (3) the bootstrap 95 % interval of the geometric mean
width ratio ``refit``/``max`` lies wholly below 1. Otherwise keep ``max`` (simpler).

    python benchmarks/active_interval_variance.py --families dev --reps 100 --out dev
    python benchmarks/active_interval_variance.py --families fresh2 --reps 300 --out fresh2
    python benchmarks/active_interval_variance.py --summarise \\
        benchmarks/results/active_interval_variance_fresh2_raw.csv --out fresh2

Writes ``benchmarks/results/active_interval_variance_<tag>_raw.csv`` (one row per run,
measure and variance, appended as runs finish) and ``..._<tag>.csv`` (the table), and prints
the table and, for ``fresh2``, the decision. Runs one at a time (``nice`` it on a shared
machine); pools of ``LARGE`` items or more get ``reps // 5`` runs (at least 10).
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import active_pools  # noqa: E402  (a sibling script, not a package)

RESULTS = Path(__file__).resolve().parent / "results"
MEASURES = ("f1", "precision", "recall", "accuracy")
VARIANCES = ("realised", "model", "max")
FIELDS = ["cell", "rep", "n_labels", "measure", "variance", "truth", "estimate", "lo", "hi",
          "se_realised", "se_model", "seconds", "error"]
LEVEL = 0.95


def one_run(pool: dict, seed: np.random.SeedSequence, n_labels: int) -> list[dict]:
    """The estimate and the three score intervals of every measure from one default run."""
    from evalstats.active._aipw import score_interval
    from evalstats.active._measures import measure_spec

    t0 = time.perf_counter()
    try:
        est = active_pools.default_run(pool, seed, n_labels)
        rows = []
        for m in MEASURES:
            r = est.sample.estimate(measure_spec(m))
            for v in VARIANCES:
                lo, hi = score_interval(r, LEVEL, variance=v)
                rows.append(dict(measure=m, variance=v, estimate=r.estimate, lo=lo, hi=hi,
                                 se_realised=r.std_error_realised,
                                 se_model=r.std_error_model, error=""))
    except Exception as exc:  # a failed run is a miss, never dropped
        rows = [dict(measure=m, variance=v, estimate=np.nan, lo=np.nan, hi=np.nan,
                     se_realised=np.nan, se_model=np.nan, error=repr(exc)[:200])
                for m in MEASURES for v in VARIANCES]
    dt = time.perf_counter() - t0
    return [dict(r, seconds=dt) for r in rows]


def run(which: str, reps: int, n_labels: int, out: Path, seed: int) -> None:
    """Every cell of ``which``, appending rows to ``out`` as runs finish."""
    with open(out, "w", newline="") as fh:
        csv.DictWriter(fh, FIELDS).writeheader()
    for pool, children in active_pools.seeded_pools(which, reps, seed):
        for r, child in enumerate(children):
            rows = one_run(pool, child, n_labels)
            with open(out, "a", newline="") as fh:
                w = csv.DictWriter(fh, FIELDS)
                for row in rows:
                    w.writerow(dict(row, cell=pool["name"], rep=r, n_labels=n_labels,
                                    truth=pool["meta"][row["measure"]]))


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Coverage ± SE, misses above/below and median width per (cell, measure, variance),
    with bias and RMSE per (cell, measure)."""
    df = raw.copy()
    df["hit"] = (df.lo <= df.truth) & (df.truth <= df.hi)       # NaN (failed) -> miss
    df["above"] = df.truth < df.lo
    df["below"] = df.truth > df.hi
    df["width"] = df.hi - df.lo
    df["err"] = df.estimate - df.truth
    g = df.groupby(["cell", "measure", "variance"], sort=False)
    t = g.agg(reps=("hit", "size"), coverage=("hit", "mean"), miss_above=("above", "mean"),
              miss_below=("below", "mean"), median_width=("width", "median"),
              bias=("err", "mean"), rmse=("err", lambda e: float(np.sqrt(np.mean(e ** 2)))),
              failed=("error", lambda e: int(e.notna().sum())))
    t["coverage_se"] = np.sqrt(t.coverage * (1 - t.coverage) / t.reps)
    return t.reset_index()


def decide(table: pd.DataFrame) -> dict:
    """The written rule: ``max`` iff its worst coverage beats ``realised``'s by > one SE."""
    worst = {v: table[table.variance == v].sort_values("coverage").iloc[0] for v in VARIANCES}
    c_r, c_m = worst["realised"].coverage, worst["max"].coverage
    s = float(np.sqrt(c_r * (1 - c_r) / worst["realised"].reps))
    return dict(worst_realised=(worst["realised"].cell, worst["realised"].measure, c_r),
                worst_model=(worst["model"].cell, worst["model"].measure,
                             worst["model"].coverage),
                worst_max=(worst["max"].cell, worst["max"].measure, c_m), se=s,
                adopt_max=bool(c_m - c_r > s))


def show(table: pd.DataFrame) -> str:
    """Coverage ± SE and median width, realised | model | max side by side."""
    t = table.copy()
    t["cov"] = [f"{c:.3f}±{s:.3f}" for c, s in zip(t.coverage, t.coverage_se, strict=True)]
    piv = t.pivot_table(index=["cell", "measure"], columns="variance",
                        values=["cov", "median_width"], aggfunc="first", sort=False)
    piv = piv.reindex(columns=[(k, v) for k in ("cov", "median_width") for v in VARIANCES])
    first = t[t.variance == "realised"].set_index(["cell", "measure"])
    piv[("reps", "")] = first.reps
    piv[("rmse", "")] = first.rmse.round(4)
    with pd.option_context("display.max_rows", 500, "display.width", 250):
        return piv.round(4).to_string()


def main(argv: list[str] | None = None) -> None:
    args = active_pools.runs_parser(__doc__, "fresh2", 300).parse_args(argv)
    raw, tag = active_pools.raw_rows(args, RESULTS, "active_interval_variance", run)
    table = summarise(raw)
    table.to_csv(RESULTS / f"active_interval_variance_{tag}.csv", index=False)
    print(show(table))
    if tag.startswith("fresh2"):
        print(decide(table))


if __name__ == "__main__":
    main()
