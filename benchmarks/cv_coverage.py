"""Coverage and width of ``cv_error_ci``'s interval for θ(g) on two families of designs.

What it measures
----------------
For every cell (design, n, g) of a family (``cv_designs.py``), ``--reps`` data sets are
drawn; on each, ``cv_error_ci`` runs with its defaults and the interval of every candidate
below is read off the *same* result (``conf_int(method=...)`` with the candidate's df), so
candidates are compared on identical data sets. Coverage of θ(g) (binomial SE), misses
below/above θ, median width ÷ the known-variance oracle's 2·1.96·sd(Θ̂) (sd over the
cell's data sets), and the share of data sets the package flags as unreliable. A NaN or
fallback interval counts as it comes out (never dropped).

How the default was chosen (written before the development runs)
-----------------------------------------------------------------
Candidates (``CANDIDATES``): the interval on the loss's own scale (log for non-negative
losses, logit for bounded ones: ``auto``), the same with the skewness correction
(``auto_skew``), the plain ``t`` and ``t_skew`` intervals; each with the Satterthwaite df
of V̂ estimated from the draws (``nuV``: 2V̂²/Var̂(V̂), first-order projection estimate),
or the df of the squared standard error on the interval's own scale (``nuF``); and the
previous default (``auto`` with min((n − 1)/3, ``nuF``): ``cal``).

Rule, applied to the **dev** family:

1. A cell is *flagged* when the package's unreliability warning fires in at least half of
   its data sets; flagged cells are reported, not scored.
2. A candidate is *eligible* if, pooled over the bounded-loss cells (0-1 loss), its
   coverage is at most 0.97 and its median width at most 1.1 × the oracle's.
3. Among eligible candidates, the default is the one with the highest worst-cell coverage
   over the unflagged cells; candidates within one binomial SE (√(0.95·0.05/reps)) of
   that best value tie, and ties go to the simplest (fewest estimated ingredients: auto·nuV
   = auto·nuF = t·nuV < auto·cal < the skew corrections, which add γ̂ and ρ̂), then to
   the narrower median width over the unflagged cells.

The **fresh** family (``cv_designs.fresh_family``) is run once after the choice and
reported for the default and the options, with no further choice made on it.

Usage
-----
``python benchmarks/cv_coverage.py --family dev --reps 300`` (one command, ~3 h on one
core); ``--cells mean_normal:40:10 ...`` runs a subset; ``--combine RAW ...`` pools raw
files of several runs (e.g. different ``--seed``). Writes
``results/cv_coverage_<family>_raw.csv`` (one row per data set, every ingredient) and
``results/cv_coverage_<family>.csv`` (the table); prints the table and the rule's choice.
"""

from __future__ import annotations

import dataclasses
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _runs import output_dir, pooled_runs_parser  # noqa: E402
from cv_designs import dev_family, fresh_family  # noqa: E402

from evalstats.cv_variance import cv_error_ci  # noqa: E402
from evalstats.cv_variance._engine import interval_data_df, ustat_df  # noqa: E402
from evalstats.cv_variance._results import CVErrorResult  # noqa: E402

#: (interval, df rule) of every candidate; "auto" = the loss's own scale (log/logit)
CANDIDATES = (("auto", "cal"), ("auto", "nuF"), ("auto", "nuV"), ("auto_skew", "nuV"),
              ("t", "nuV"), ("t_skew", "nuV"))
SIMPLICITY = {("auto", "nuV"): 0, ("auto", "nuF"): 0, ("t", "nuV"): 0, ("auto", "cal"): 1,
              ("auto_skew", "nuV"): 2, ("t_skew", "nuV"): 2}
FAMILIES = {"dev": dev_family, "fresh": fresh_family}
TRUTH_REPS_NOTE = "θ(g): exact (mean design) or Monte Carlo (s.e. in the truth column)"


def _cell_key(key) -> str:
    return f"{key[0]}:{key[1]}:{key[2]}"


def _df_of(u, rule: str) -> float:
    """The df of candidate rule ``rule`` from one result's ingredients."""
    est = u.diagnostics["data_df_estimated"]
    scale = "t" if rule == "nuV" else u.interval_method.removesuffix("_skew")
    data = est.get(scale, np.nan)
    if rule == "cal":     # the earlier default: min((n - 1)/3, the interval scale's df)
        return ustat_df(u.n, u.variance_estimate, u.variance_mc_se,
                        interval_data_df(u.n, u.train_size, float(data), "min"))
    if not np.isfinite(data):
        return u.df
    return ustat_df(u.n, u.variance_estimate, u.variance_mc_se, max(2.0, float(data)))


def _method(u, interval: str) -> str:
    scale = u.interval_method.removesuffix("_skew")
    return {"auto": scale, "auto_skew": f"{scale}_skew"}.get(interval, interval)


def one_data_set(design, n: int, g: int, rng) -> dict:
    """One data set: the default result's ingredients and every candidate's interval."""
    X, y = design.sim(n, rng)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        u = cv_error_ci(design.learner(), X, y, train_size=g, loss=design.loss,
                        loss_range=design.loss_range, rng=rng, progress=False)
        seconds = time.perf_counter() - t0
    est = u.diagnostics["data_df_estimated"]
    row = dict(estimate=u.estimate, std_error=u.std_error, variance=u.variance_estimate,
               variance_mc_se=u.variance_mc_se, mc_se=u.mc_se,
               leading_variance=u.leading_variance, df=u.df, n_draws=u.n_draws,
               fallback=u.variance_fallback, interval_method=u.interval_method,
               skewness=u.skewness, coupling=u.coupling, seconds=seconds,
               flagged=bool(u.diagnostics.get("unreliable", False)),
               warnings="|".join(sorted({type(w.message).__name__ for w in caught})),
               **{f"dfest_{k}": v for k, v in est.items()},
               **{f"jk_{k}": v for k, v in u.diagnostics["jackknife"].items()},
               **{k: v for k, v in u.diagnostics.items() if k in EXTRA_DIAGNOSTICS})
    row["default_low"], row["default_high"] = u.conf_int()
    for interval, rule in CANDIDATES:
        df = _df_of(u, rule)
        lo, hi = dataclasses.replace(u, df=df).conf_int(method=_method(u, interval))
        row[f"{interval}.{rule}_low"], row[f"{interval}.{rule}_high"] = lo, hi
        row[f"{interval}.{rule}_df"] = df
    return row


#: diagnostics copied into the raw rows when the package reports them
EXTRA_DIAGNOSTICS = ("dominance", "df_variance", "unreliable")


def cell_truth(key, design, seed: int) -> tuple[float, float]:
    """θ(g) of a cell (cached in ``results/cv_truth.csv``: Monte Carlo is slow)."""
    path = output_dir(None) / "cv_truth.csv"
    cache = pd.read_csv(path) if path.exists() else pd.DataFrame(
        columns=["cell", "g", "truth", "truth_se"])
    name = _cell_key(key)
    hit = cache[cache.cell == name]
    if len(hit):
        return float(hit.truth.iloc[0]), float(hit.truth_se.iloc[0])
    theta, se = design.truth(key[2], np.random.default_rng([seed, 7]))
    cache = pd.concat([cache, pd.DataFrame([dict(cell=name, g=key[2], truth=theta,
                                                 truth_se=se)])])
    cache.to_csv(path, index=False)
    return theta, se


def run_cell(key, design, reps: int, seed: int) -> pd.DataFrame:
    """``reps`` data sets of one cell (seeded by the cell and ``seed``)."""
    name, n, g = key
    theta, theta_se = cell_truth(key, design, seed)
    tag = [seed, n, g, sum(map(ord, name))]
    rows = []
    for k, gen in enumerate(np.random.default_rng(tag).spawn(reps)):
        rows.append(dict(cell=_cell_key(key), design=name, n=n, g=g, rep=k, seed=seed,
                         truth=theta, truth_se=theta_se, **one_data_set(design, n, g, gen)))
    return pd.DataFrame(rows)


def _cover(raw: pd.DataFrame, low: str, high: str) -> dict:
    lo, hi, th = raw[low].to_numpy(), raw[high].to_numpy(), raw.truth.to_numpy()
    hit = (lo <= th) & (th <= hi)          # NaN limits count as misses
    oracle = 2 * 1.96 * raw.estimate.std(ddof=1)
    r = len(raw)
    return dict(coverage=hit.mean(), se=np.sqrt(hit.mean() * (1 - hit.mean()) / r),
                below=np.mean(hi < th), above=np.mean(lo > th),
                width_ratio=np.nanmedian(hi - lo) / oracle)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """One row per cell and interval (the default, then every candidate)."""
    rows = []
    for cell, part in raw.groupby("cell", sort=False):
        flag = part["flag_rule"].mean() if "flag_rule" in part else np.nan
        base = dict(cell=cell, design=part.design.iloc[0], n=part.n.iloc[0],
                    g=part.g.iloc[0], reps=len(part), truth=part.truth.iloc[0],
                    flag_share=flag, median_df_nuV=part["auto.nuV_df"].median())
        rows.append(dict(base, interval="default",
                         **_cover(part, "default_low", "default_high")))
        for interval, rule in CANDIDATES:
            name = f"{interval}.{rule}"
            rows.append(dict(base, interval=name,
                             **_cover(part, f"{name}_low", f"{name}_high")))
    return pd.DataFrame(rows)


def _result_from_row(row: dict, std_error: float, df: float) -> CVErrorResult:
    """A result rebuilt from a raw row (for intervals the run did not record)."""
    bounded = row["interval_method"].startswith("logit")
    return CVErrorResult(estimate=row["estimate"], std_error=std_error, df=df,
                         n=int(row["n"]), method="ustat",
                         interval_method=row["interval_method"],
                         loss_range=(0.0, 1.0) if bounded else (0.0, np.inf),
                         skewness=row["skewness"], coupling=row["coupling"])


def add_ablations(raw: pd.DataFrame) -> pd.DataFrame:
    """Intervals recomputed from the recorded ingredients: ``auto.nuV.nofloor`` is
    ``auto.nuV`` without the leading-term floor (s.e. √(V̂ + se_MC²) where V̂ > 0 and no
    fallback replaced it, the recorded s.e. otherwise)."""
    lo, hi = [], []
    for row in raw.to_dict("records"):
        plain = row["variance"] > 0 and not isinstance(row["fallback"], str)
        se = np.sqrt(row["variance"] + row["mc_se"] ** 2) if plain else row["std_error"]
        a, b = _result_from_row(row, se, row["auto.nuV_df"]).conf_int()
        lo.append(a)
        hi.append(b)
    return raw.assign(**{"auto.nuV.nofloor_low": lo, "auto.nuV.nofloor_high": hi})


def flag_rule(raw: pd.DataFrame) -> pd.Series:
    """The unreliability flag: one observation carries more than half of the first-order
    variance (``dominance`` > 1/2; see ``cv_variance._draws.dominance``)."""
    return raw["dominance"] > 0.5


def choose_default(table: pd.DataFrame, reps: int) -> tuple[str, pd.DataFrame]:
    """The rule of the module docstring; returns the chosen candidate and its score table."""
    cand = table[table.interval != "default"]
    bounded = cand[cand.design.str.endswith("zero_one")]
    scored = cand[~(cand.flag_share >= 0.5)]
    rows = []
    for name, part in scored.groupby("interval", sort=False):
        b = bounded[bounded.interval == name]
        key = tuple(name.split("."))
        rows.append(dict(interval=name, worst=part.coverage.min(),
                         worst_cell=part.cell.iloc[int(np.argmin(part.coverage))],
                         bounded_coverage=b.coverage.mean(),
                         bounded_width=b.width_ratio.median(),
                         width=part.width_ratio.median(), simplicity=SIMPLICITY[key]))
    score = pd.DataFrame(rows)
    score["eligible"] = (score.bounded_coverage <= 0.97) & (score.bounded_width <= 1.1)
    ok = score[score.eligible]
    if ok.empty:
        return "none eligible", score
    tie = ok[ok.worst >= ok.worst.max() - np.sqrt(0.95 * 0.05 / reps)]
    best = tie.sort_values(["simplicity", "width"]).iloc[0]
    return str(best.interval), score


def main(argv=None) -> int:
    ap = pooled_runs_parser(__doc__, reps=300, seed=3601,
                            combine_help="pool raw files of earlier runs")
    ap.add_argument("--family", choices=sorted(FAMILIES), default="dev")
    ap.add_argument("--cells", nargs="+", default=None, metavar="DESIGN:N:G")
    args = ap.parse_args(argv)
    out = output_dir(args.out)
    tag = f"cv_coverage_{args.family}"
    if args.combine:
        raw = pd.concat([pd.read_csv(p) for p in args.combine], ignore_index=True)
    else:
        family = FAMILIES[args.family]()
        keys = [k for k in family if args.cells is None or _cell_key(k) in args.cells]
        parts = []
        for key in keys:
            t0 = time.perf_counter()
            parts.append(run_cell(key, family[key], args.reps, args.seed))
            pd.concat(parts).to_csv(out / f"{tag}_raw_s{args.seed}.csv", index=False)
            print(f"{_cell_key(key)}: {time.perf_counter() - t0:.0f} s", flush=True)
        raw = pd.concat(parts, ignore_index=True)
    raw["flag_rule"] = flag_rule(raw)
    table = summarise(raw)
    table.to_csv(out / f"{tag}.csv", index=False)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(table.round(3).to_string(index=False))
        if args.family == "dev":
            choice, score = choose_default(table, int(table.reps.min()))
            print(score.round(3).to_string(index=False))
            print(f"rule's choice: {choice}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
