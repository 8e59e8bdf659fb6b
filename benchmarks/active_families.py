"""Active estimation on the pool families: bias, RMSE, coverage and width against adaptive OASIS.

For each pool cell of ``benchmarks/active_pools.py`` and each method, R independent runs
(run ``r`` of every method on a cell shares one ``np.random.SeedSequence`` child, so methods
are paired) at each label budget, and optionally under optional stopping. Methods:

* a **spec** ``{"name": ..., "kwargs": {...}}`` is run through the public API,
  ``es.active_evaluate(scores, oracle, n_labels=..., measure=..., predictions=..., rng=...,
  **kwargs)``; every measure is read from ``est.measures()`` (the headline alone from
  ``est.estimate``/``est.conf_int()`` if that fails). Built in: ``default`` (``{}``),
  ``anytime`` (``{"interval": "anytime"}``), ``passive`` (``{"proposal": "passive"}``); more
  with ``--spec NAME='{"kwarg": value}'``;
* ``design`` — the ``design_estimate`` attribute of the ``default`` run (the design-based
  estimate the package computed next to its headline; recorded only where the installed code
  has it), headline measure only, with the same interval (the package centres it there);
* ``model_based`` — ``est.model_based()`` of the ``default`` run: the labelled model-based
  option (labels plus the last batch model's expectation for every item never labeled),
  every measure, no interval;
* ``oasis`` — adaptive OASIS (Marchant & Rubinstein 2017; PyPI ``oasis`` 0.1.3,
  ``OASISSampler``: 30 strata by the cumulative √F rule, ε = 10⁻³, the settings of its
  paper), F1 only, no interval; labels bought as prefixes of one run per repetition.

A run that raises is recorded with the exception text and counts as a miss in the coverage
(never dropped); an undefined (NaN) estimate likewise unless its interval holds the truth.
With ``--stopping`` every spec is also driven through ``es.ActiveEvaluator`` with
``query()``/``update()`` in batches of ``--stop-batch`` labels and stopped as soon as the
headline interval is narrower than ``--stop-width`` (0.10) or at ``--stop-cap`` (1,000)
labels; its rows have ``n_labels == "stop"`` and the coverage there is the coverage *at the
stopping time* (valid only for an anytime-valid sequence).

Reported per (cell, method, n_labels, measure): truth, mean estimate, bias ± its Monte-Carlo
SE and the median error (under a blind spot the errors are skewed: most runs overestimate F1
and a few catch a hidden positive, so the mean of 100 runs and its SE can miss the tail), RMSE
with a percentile-bootstrap 95 % interval over runs, the F1 RMSE ratio to adaptive OASIS with
a paired bootstrap interval, coverage ± binomial SE, median width, failed and undefined runs,
mean labels used and seconds per run.

    python benchmarks/active_families.py --quick                      # 2 cells x 5 runs
    python benchmarks/active_families.py --families dev --reps 100 --labels 500 \\
        --methods default,design,oasis --n-jobs 2 --out baseline       # today's baseline
    python benchmarks/active_families.py --families dev --methods default,anytime,oasis \\
        --stopping --labels 200,500,1000 --n-jobs 2 --out dev
    python benchmarks/active_families.py --summarise benchmarks/results/active_families_a_raw.csv \\
        benchmarks/results/active_families_b_raw.csv --out ab     # runs made in parts

Writes ``benchmarks/results/active_families[_<tag>].csv`` (the table) and
``..._raw.csv`` (one row per run and measure, appended as runs finish).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
import types
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import active_pools  # noqa: E402  (a sibling script, not a package)

RESULTS = Path(__file__).resolve().parent / "results"
MEASURES = ("f1", "precision", "recall", "accuracy")
BUILTIN_SPECS = {"default": {}, "anytime": {"interval": "anytime"},
                 "passive": {"proposal": "passive"}}
DERIVED = ("design", "model_based", "oasis")
#: methods that give no interval by design (their coverage is not defined)
NO_INTERVAL = ("oasis", "model_based")
RAW_FIELDS = ["cell", "family", "method", "n_labels", "measure", "rep", "truth", "estimate",
              "conf_low", "conf_high", "labels_used", "stopped_by", "seconds", "n_warnings",
              "error"]
QUICK_CELLS = ["dev_cal_badthr", "dev_margins"]
OASIS_SETTINGS = dict(epsilon=1e-3, stratification_method="cum_sqrt_F",
                      stratification_n_strata=30, stratification_n_bins=2 ** 12)


# -- one run ---------------------------------------------------------------------------------

def _measure_rows(est: Any, measures: list[str], headline: str) -> dict[str, tuple]:
    """``{measure: (estimate, low, high)}`` from an estimate of the public API."""
    out = {}
    try:
        tab = est.measures()
        col = "measure" if "measure" in tab else "term"
        for _, r in tab.iterrows():
            if r[col] in measures and r[col] not in out:          # the first model's row
                out[r[col]] = (float(r["estimate"]), float(r["conf_low"]), float(r["conf_high"]))
    except Exception:  # noqa: BLE001 - the API may change under the harness: fall back
        lo, hi = est.conf_int()
        out[headline] = (float(est.estimate), float(lo), float(hi))
    return out


def _headline(spec: dict[str, Any], measures: list[str]) -> str:
    return spec["kwargs"].get("measure", measures[0])


def _spec_kwargs(spec: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in spec["kwargs"].items() if k != "measure"}


def run_fixed(pool: dict, spec: dict, n_labels: int, measures: list[str], seed) -> list[dict]:
    """One ``active_evaluate`` run: rows per measure (and the ``design`` and
    ``model_based`` rows of ``default``)."""
    import evalstats as es

    labels, headline = pool["labels"], _headline(spec, measures)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = es.active_evaluate(pool["scores"], lambda ids: labels[ids], n_labels=n_labels,
                                 measure=headline, predictions=pool["predictions"],
                                 rng=np.random.default_rng(seed), **_spec_kwargs(spec))
    seconds = time.perf_counter() - t0
    base = dict(labels_used=getattr(est, "n_labels", n_labels), stopped_by="",
                seconds=seconds, n_warnings=len(caught), error="")
    rows = [dict(base, method=spec["name"], measure=m, estimate=e, conf_low=lo, conf_high=hi)
            for m, (e, lo, hi) in _measure_rows(est, measures, headline).items()]
    if spec.get("design") and hasattr(est, "design_estimate"):
        lo, hi = est.conf_int()
        rows.append(dict(base, method="design", measure=headline,
                         estimate=float(est.design_estimate), conf_low=float(lo),
                         conf_high=float(hi)))
    if spec.get("model_based") and hasattr(est, "model_based"):
        tab = est.model_based()
        rows += [dict(base, method="model_based", measure=r.term, estimate=float(r.estimate),
                      conf_low=np.nan, conf_high=np.nan)
                 for r in tab.itertuples() if r.term in measures]
    return rows


def _interval_width(res: Any, headline: str) -> float:
    e, lo, hi = _measure_rows(res, [headline], headline).get(headline, (np.nan,) * 3)
    return float(hi - lo)


def run_stopping(pool: dict, spec: dict, measures: list[str], seed, width: float, cap: int,
                 batch: int) -> list[dict]:
    """Label in batches until the headline interval is narrower than ``width`` or ``cap``
    labels are bought (``ActiveEvaluator.query``/``update``); rows at the stopping time."""
    import evalstats as es

    labels, headline = pool["labels"], _headline(spec, measures)
    kwargs = {k: v for k, v in _spec_kwargs(spec).items() if k != "batch_size"}
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = es.ActiveEvaluator(pool["scores"], headline, predictions=pool["predictions"],
                                rng=np.random.default_rng(seed), **kwargs)
        while True:
            ids = ev.query(min(batch, cap - ev.n_labels))
            ev.update(ids, labels[ids])
            res = ev.result()
            narrow = _interval_width(res, headline) < width   # NaN width: not narrow
            if narrow or ev.n_labels >= cap or len(ids) == 0:  # (nothing left to label)
                break
    base = dict(labels_used=ev.n_labels, stopped_by="width" if narrow else "cap",
                seconds=time.perf_counter() - t0, n_warnings=len(caught), error="")
    return [dict(base, method=spec["name"], measure=m, estimate=e, conf_low=lo, conf_high=hi)
            for m, (e, lo, hi) in _measure_rows(res, measures, headline).items()]


def import_oasis() -> Any:
    """The PyPI ``oasis`` module, patched for current SciPy (``sp.percentile``/``sp.ptp``
    were removed; its ``tables`` import serves only its experiments); None if missing."""
    import scipy

    for name in ("percentile", "ptp"):
        if not hasattr(scipy, name):
            setattr(scipy, name, getattr(np, name))
    sys.modules.setdefault("tables", types.ModuleType("tables"))
    try:
        import oasis
    except ImportError:
        return None
    return oasis


def run_oasis(pool: dict, budgets: list[int], seed) -> list[dict]:
    """Adaptive OASIS for F1; one run, estimates at each budget (a prefix of the run).
    Its warnings ("Failed to create 30 strata" where scores tie) are counted per run."""
    oasis = import_oasis()
    if oasis is None:
        raise ImportError("oasis is not installed: pip install --no-deps oasis")
    np.random.seed(np.random.default_rng(seed).integers(2 ** 31))  # noqa: NPY002 (oasis)
    labels = pool["labels"]
    rows, done, t0 = [], 0, time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        smp = oasis.OASISSampler(0.5, pool["predictions"].astype(int),
                                 pool["scores"].astype(np.float64), lambda i: int(labels[i]),
                                 proba=pool["meta"]["family"] != "margins", **OASIS_SETTINGS)
        for b in sorted(budgets):
            smp.sample_distinct(b - done)
            done = b
            rows.append(dict(method="oasis", n_labels=b, measure="f1",
                             estimate=float(smp.estimate_[-1]), conf_low=np.nan,
                             conf_high=np.nan, labels_used=b, stopped_by="",
                             seconds=time.perf_counter() - t0, n_warnings=len(caught),
                             error=""))
    return rows


# -- one repetition of every method ------------------------------------------------------------

def _failed(method: str, n_labels: Any, measures: list[str], err: BaseException) -> list[dict]:
    text = f"{type(err).__name__}: {err}".replace("\n", " ")[:300]
    return [dict(method=method, n_labels=n_labels, measure=m, estimate=np.nan, conf_low=np.nan,
                 conf_high=np.nan, labels_used=np.nan, stopped_by="", seconds=np.nan,
                 n_warnings=0, error=text) for m in measures]


def _seed(child: np.random.SeedSequence, key: int) -> np.random.SeedSequence:
    """The child's own sub-seed for budget ``key`` (0 for the stopping run): the same for
    every method, so runs are paired."""
    return np.random.SeedSequence(child.entropy, spawn_key=child.spawn_key + (key,))


def one_rep(pool: dict, rep: int, child: np.random.SeedSequence, plan: dict) -> list[dict]:
    """Every method of ``plan`` on ``pool`` for repetition ``rep``."""
    rows, measures = [], plan["measures"]
    for spec in plan["specs"]:
        for b in plan["budgets"]:
            try:
                rows += [dict(r, n_labels=b) for r in
                         run_fixed(pool, spec, b, measures, _seed(child, b))]
            except Exception as err:  # noqa: BLE001 - a failed run is a miss, never dropped
                rows += _failed(spec["name"], b, measures, err)
                if spec.get("design"):
                    rows += _failed("design", b, [_headline(spec, measures)], err)
                if spec.get("model_based"):
                    rows += _failed("model_based", b, measures, err)
        if plan["stopping"] and spec["name"] in plan["stop_specs"]:
            try:
                rows += [dict(r, n_labels="stop") for r in run_stopping(
                    pool, spec, measures, _seed(child, 0), **plan["stop"])]
            except Exception as err:  # noqa: BLE001
                rows += _failed(spec["name"], "stop", measures, err)
    if plan["oasis"]:
        try:
            rows += run_oasis(pool, plan["budgets"], child)
        except Exception as err:  # noqa: BLE001 - oasis fails on some pools: a miss
            rows += [r for b in plan["budgets"] for r in _failed("oasis", b, ["f1"], err)]
    truth = {m: pool["meta"][m] for m in MEASURES}
    return [dict(r, cell=pool["name"], family=pool["meta"]["family"], rep=rep,
                 truth=truth.get(r["measure"], np.nan)) for r in rows]


# -- aggregation -------------------------------------------------------------------------------

def _bootstrap_rmse(err: np.ndarray, rng: np.random.Generator, n_boot: int) -> tuple:
    if err.size < 2:
        return np.nan, np.nan
    idx = rng.integers(0, err.size, size=(n_boot, err.size))
    return tuple(np.quantile(np.sqrt(np.mean(err[idx] ** 2, axis=1)), [0.025, 0.975]))


def _text(col: pd.Series) -> np.ndarray:
    """A text column read back from CSV (empty cells come back as NaN) as strings."""
    return np.array(["" if pd.isna(v) else str(v) for v in col], dtype=object)


def _cell_stats(g: pd.DataFrame, rng: np.random.Generator, n_boot: int) -> dict[str, Any]:
    """The summary of one (cell, method, n_labels, measure) group of runs."""
    t, reps = float(g["truth"].iloc[0]), len(g)
    est = g["estimate"].to_numpy(float)
    lo, hi = g["conf_low"].to_numpy(float), g["conf_high"].to_numpy(float)
    ok = np.isfinite(est)
    err = est[ok] - t
    error = _text(g["error"])
    failed = int((error != "").sum())
    has_ci = g["method"].iloc[0] not in NO_INTERVAL    # failed runs of the others: misses
    with np.errstate(invalid="ignore"):
        hits = (lo <= t) & (t <= hi)                 # a NaN interval is a miss
    cov = hits.sum() / reps if has_ci else np.nan
    width = hi - lo
    rmse_lo, rmse_hi = _bootstrap_rmse(err, rng, n_boot)
    return dict(truth=t, reps=reps, failed=failed, undefined=int((~ok).sum()) - failed,
                mean_estimate=float(est[ok].mean()) if ok.any() else np.nan,
                bias=float(err.mean()) if ok.any() else np.nan,
                bias_se=float(err.std(ddof=1) / np.sqrt(err.size)) if err.size > 1 else np.nan,
                median_error=float(np.median(err)) if ok.any() else np.nan,
                rmse=float(np.sqrt(np.mean(err ** 2))) if ok.any() else np.nan,
                rmse_low=rmse_lo, rmse_high=rmse_hi, coverage=cov,
                coverage_se=float(np.sqrt(cov * (1 - cov) / reps)) if has_ci else np.nan,
                median_width=float(np.nanmedian(width)) if np.isfinite(width).any() else np.nan,
                mean_labels=float(np.nanmean(g["labels_used"].to_numpy(float)))
                if g["labels_used"].notna().any() else np.nan,
                stopped_by_width=float(np.mean(_text(g["stopped_by"]) == "width")),
                seconds_per_run=float(np.nanmean(g["seconds"].to_numpy(float)))
                if g["seconds"].notna().any() else np.nan,
                first_error=next((e for e in error if e), ""))


def ratio_to_oasis(raw: pd.DataFrame, rng: np.random.Generator, n_boot: int) -> pd.DataFrame:
    """F1 RMSE of each method over adaptive OASIS's on the same cell and budget, with a
    percentile-bootstrap 95 % interval resampling repetitions in pairs (run ``r`` of both
    shares its seed); runs without a finite estimate are left out of each RMSE."""
    f1 = raw[(raw.measure == "f1") & (raw.n_labels != "stop")]
    rows = []
    for (cell, b), g in f1.groupby(["cell", "n_labels"]):
        sq = (g.pivot_table(index="rep", columns="method", values="estimate", dropna=False)
              - g["truth"].iloc[0]) ** 2
        if "oasis" not in sq or sq["oasis"].notna().sum() == 0:
            continue
        idx = rng.integers(0, len(sq), size=(n_boot, len(sq)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            den = np.nanmean(sq["oasis"].to_numpy()[idx], axis=1)
            for method in sq.columns:
                col = sq[method].to_numpy()
                ratio = np.sqrt(np.nanmean(col[idx], axis=1) / den)
                rows.append(dict(cell=cell, n_labels=b, method=method, measure="f1",
                                 rmse_ratio_oasis=np.sqrt(np.nanmean(col)
                                                          / np.nanmean(sq["oasis"])),
                                 ratio_low=np.nanquantile(ratio, 0.025),
                                 ratio_high=np.nanquantile(ratio, 0.975)))
    return pd.DataFrame(rows, columns=["cell", "n_labels", "method", "measure",
                                       "rmse_ratio_oasis", "ratio_low", "ratio_high"])


def summarise(raw: pd.DataFrame, n_boot: int = 1000, seed: int = 1) -> pd.DataFrame:
    """The table: one row per (cell, method, n_labels, measure)."""
    raw = raw.assign(n_labels=raw["n_labels"].astype(str))
    rng = np.random.default_rng(seed)
    keys = ["cell", "method", "n_labels", "measure"]
    table = pd.DataFrame([dict(zip(keys, k, strict=True), **_cell_stats(g, rng, n_boot))
                          for k, g in raw.groupby(keys, sort=True)])
    return table.merge(ratio_to_oasis(raw, rng, n_boot), how="left",
                       on=["cell", "n_labels", "method", "measure"])


def _fmt(table: pd.DataFrame) -> pd.DataFrame:
    def pm(a, b, d=4):
        return [f"{x:+.{d}f}±{y:.{d}f}" if np.isfinite(x) else "" for x, y in zip(a, b,
                                                                               strict=True)]

    def band(x, lo, hi, d):
        return [f"{v:.{d}f} [{a:.{d}f},{b:.{d}f}]" if np.isfinite(v) else ""
                for v, a, b in zip(x, lo, hi, strict=True)]

    return pd.DataFrame(dict(
        cell=table.cell, method=table.method, labels=table.n_labels, measure=table.measure,
        truth=table.truth.round(4), mean=table.mean_estimate.round(4),
        bias=pm(table.bias, table.bias_se), rmse=band(table.rmse, table.rmse_low,
                                                      table.rmse_high, 4),
        ratio_oasis=band(table.rmse_ratio_oasis, table.ratio_low, table.ratio_high, 2),
        coverage=[f"{c:.3f}±{s:.3f}" if np.isfinite(c) else "" for c, s in
                  zip(table.coverage, table.coverage_se, strict=True)],
        width=table.median_width.round(4), fail=table.failed, undef=table.undefined,
        n_lab=table.mean_labels.round(0)))


def print_tables(table: pd.DataFrame, headline: str = "f1") -> None:
    with pd.option_context("display.width", 250, "display.max_rows", 5000,
                           "display.max_colwidth", 40):
        head = table[table.measure == headline]
        print(_fmt(head).to_string(index=False))
        others = table[(table.measure != headline) & table.coverage.notna()]
        if len(others):
            print("\nCoverage of the other measures (binomial SE in the CSV)")
            print(others.pivot_table(index="cell", columns=["method", "n_labels", "measure"],
                                     values="coverage").round(3).to_string())
        errors = table[(table.failed > 0) & (table.measure == headline)]
        for r in errors.itertuples():
            print(f"failed runs (misses): {r.cell}/{r.method}/{r.n_labels}: {r.failed} of "
                  f"{r.reps}, e.g. {r.first_error[:120]}")


# -- the run -----------------------------------------------------------------------------------

def make_plan(methods: list[str], custom: dict[str, dict], measures: list[str],
              budgets: list[int], stopping: bool, stop: dict[str, Any]) -> dict[str, Any]:
    """Specs to run (``design`` and ``model_based`` ride on ``default``), whether OASIS
    runs, and the budgets."""
    known = {**BUILTIN_SPECS, **custom}
    unknown = [m for m in methods if m not in known and m not in DERIVED]
    if unknown:
        raise SystemExit(f"unknown methods {unknown}: built in {sorted(known)} and "
                         f"{list(DERIVED)}; add one with --spec NAME='{{...}}'")
    specs = {m: dict(name=m, kwargs=known[m]) for m in methods if m in known}
    for derived in ("design", "model_based"):
        if derived in methods:
            specs.setdefault("default", dict(name="default", kwargs={}))[derived] = True
    if "oasis" in methods and import_oasis() is None:
        raise SystemExit("oasis is not installed: pip install scikit-learn && "
                         "pip install --no-deps oasis")
    return dict(specs=list(specs.values()), oasis="oasis" in methods, measures=measures,
                budgets=budgets, stopping=stopping, stop=stop,
                stop_specs=[m for m in methods if m in known])


def _progress(total: int):
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="runs", unit="run")


def run_cells(cells: list[tuple], plan: dict, reps: tuple[int, int], seed: int,
              n_jobs: int | None, raw_path: Path) -> None:
    """Every (cell, repetition); raw rows appended to ``raw_path`` as runs finish.
    ``reps`` is (repetitions, repetitions of cells of ``active_pools.LARGE`` items or more);
    a cell's first ``k`` repetitions are the same whatever the total."""
    from joblib import Parallel, delayed

    with open(raw_path, "w", newline="") as fh:
        csv.DictWriter(fh, RAW_FIELDS).writeheader()
    n_reps = [reps[kw.get("n_items", 0) >= active_pools.LARGE] for _, kw in cells]
    bar = _progress(sum(n_reps))
    for cell, n in zip(cells, n_reps, strict=True):
        pool = active_pools.build_cell(cell)
        if pool is None:      # a real pool whose dataset is absent (said when loading)
            continue
        print(active_pools.describe(pool), flush=True)
        children = np.random.SeedSequence([seed, active_pools.cell_seed(pool["name"])]
                                          ).spawn(n)
        tasks = (delayed(one_rep)(pool, r, children[r], plan) for r in range(n))
        done = (Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks) if n_jobs
                else (one_rep(pool, r, children[r], plan) for r in range(n)))
        for rows in done:
            with open(raw_path, "a", newline="") as fh:
                csv.DictWriter(fh, RAW_FIELDS, extrasaction="ignore").writerows(rows)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="dev",
                    help=f"{', '.join(active_pools.FAMILY_NAMES)} or comma-separated cell "
                         "names (active_pools.py)")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--reps-large", type=int, default=None,
                    help="repetitions of cells of 2e6 items or more (default --reps; one "
                         "run of today's default on 1e7 items takes minutes)")
    ap.add_argument("--labels", default="500", help="comma-separated label budgets")
    ap.add_argument("--methods", default="default,design,oasis",
                    help=f"comma-separated: {', '.join(BUILTIN_SPECS)}, {', '.join(DERIVED)} "
                         "or a --spec name")
    ap.add_argument("--spec", action="append", default=[], metavar="NAME=JSON",
                    help="a method spec: keyword arguments of es.active_evaluate as JSON")
    ap.add_argument("--measures", default=",".join(MEASURES),
                    help="the first is the headline (the proposal's measure)")
    ap.add_argument("--stopping", action="store_true",
                    help="add the optional-stopping run of every spec")
    ap.add_argument("--stop-width", type=float, default=0.10)
    ap.add_argument("--stop-cap", type=int, default=1000)
    ap.add_argument("--stop-batch", type=int, default=50)
    ap.add_argument("--n-jobs", type=int, default=None, help="parallel runs (joblib)")
    ap.add_argument("--quick", action="store_true",
                    help=f"{' and '.join(QUICK_CELLS)} x 5 runs at 200 labels")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None, help="tag: results/active_families_<tag>.csv")
    ap.add_argument("--summarise", nargs="+", default=None, metavar="RAW_CSV",
                    help="only rebuild the table from raw CSVs (several: runs of disjoint "
                         "cells, written to --out)")
    return ap


def _custom_specs(items: list[str]) -> dict[str, dict]:
    out = {}
    for item in items:
        name, _, text = item.partition("=")
        kwargs = json.loads(text or "{}")
        if not name or not isinstance(kwargs, dict):
            raise SystemExit(f"--spec wants NAME='{{json kwargs}}'; got {item!r}")
        out[name] = kwargs
    return out


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    tag = "quick" if args.quick and args.out is None else args.out
    out = RESULTS / (f"active_families_{tag}.csv" if tag else "active_families.csv")
    measures = args.measures.split(",")
    if args.summarise:
        raw = pd.concat([pd.read_csv(f) for f in args.summarise], ignore_index=True)
        if tag is None and len(args.summarise) == 1:
            out = Path(args.summarise[0].replace("_raw.csv", ".csv"))
    else:
        fam = QUICK_CELLS if args.quick else args.families
        cells = active_pools.cells(fam if fam in active_pools.FAMILY_NAMES or args.quick
                                   else fam.split(","))
        if any(kw["name"] in active_pools.list_families()["fresh"] for _, kw in cells):
            print("note: fresh-family cells are for deciding a default, once")
        budgets = [200] if args.quick else [int(b) for b in args.labels.split(",")]
        stop = dict(width=args.stop_width, cap=args.stop_cap, batch=args.stop_batch)
        plan = make_plan(args.methods.split(","), _custom_specs(args.spec), measures,
                         budgets, args.stopping, stop)
        RESULTS.mkdir(parents=True, exist_ok=True)
        raw_path = out.with_name(out.stem + "_raw.csv")
        reps = 5 if args.quick else args.reps
        run_cells(cells, plan, (reps, args.reps_large or reps), args.seed, args.n_jobs,
                  raw_path)
        raw = pd.read_csv(raw_path)
        print(f"raw rows in {raw_path}")
    table = summarise(raw)
    table.to_csv(out, index=False)
    print_tables(table, measures[0])
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
