"""Size and power of ``compare_learners``' test of θ_A(g) = θ_B(g).

What it measures
----------------
For each design of ``cv_designs.COMPARE_DESIGNS`` (n = 40, g = 10 by default), ``--reps``
null data sets (θ_A = θ_B exactly) and, where the difference is known in closed form,
``--alt-reps`` data sets at a difference of ``--multiple`` × the sd of Θ̂_A − Θ̂_B (sd from
the design's null runs; the realised multiple, true difference ÷ sd at the alternative,
is reported) on either side of H0. Every test below is read off the *same* result:

* ``t.nuV`` — T = Θ̂/se against t with the Satterthwaite df of V̂ estimated from the draws;
* ``t.cal`` — the same T against t with the previous df rule (min((n − 1)/3, estimate));
* ``score.cal`` — the previous default, the score-type test of ``interval="t_score"``;
* ``score.nuV`` — the score-type statistic against t with ``nuV``.

Rejection rates at 5 % with binomial SE; at the alternatives also the **t ceiling**: the
power of T at its exact 5 % critical value (the 95 % quantile of |T| over the design's null
data sets, i.e. size-adjusted), and the power of the z test that knows sd(Θ̂_A − Θ̂_B).

How the default test was chosen (written before the runs)
---------------------------------------------------------
Among the tests whose type-I error is at most 0.05 + one binomial SE in every **dev**
null (``family == "dev"``), the one with the highest mean power over the dev alternatives;
ties (within one SE) go to the simpler (t before the score form, which adds ρ̂). The
**fresh** nulls and alternatives are then reported for the choice, with no further choice.

How far the ceiling is from reach (``frontier``)
-----------------------------------------------
The t ceiling knows each design's null quantile of |T|. ``frontier`` reports (a) those
quantiles and the power of T at the *largest* of them, the best a test on T with one
threshold can do while holding its size on every null; and (b) for the family of
score-type statistics ``Z_c = T/√max(1 − c·ρ̂·T, φ)`` against t with the data df, ``c``
from 0 (the Wald t) to ½ (the default) and φ ∈ {¼, ½}, the worst size over the nulls and
the worst power minus the ceiling over the alternatives. Written to
``results/cv_compare_frontier.csv`` and ``results/cv_compare_thresholds.csv``.

Usage: ``python benchmarks/cv_compare.py [--reps 400] [--alt-reps 200]`` (one command);
``--designs NAME ...`` a subset; ``--combine RAW ...`` pools raw files. Writes
``results/cv_compare_raw.csv`` and ``results/cv_compare.csv``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _runs import output_dir, pooled_runs_parser  # noqa: E402
from cv_designs import COMPARE_DESIGNS, ols_risk  # noqa: E402

from evalstats.cv_variance import compare_learners  # noqa: E402
from evalstats.cv_variance._engine import ustat_df  # noqa: E402
from evalstats.cv_variance._score import score_statistic  # noqa: E402

TESTS = ("t.nuV", "t.cal", "score.cal", "score.nuV")


def one_data_set(design, n: int, g: int, shift: float, rng) -> dict:
    """One compare_learners run: its ingredients and the p-value of every test."""
    X, y, a, b, loss = design.setup(n, shift, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        r = compare_learners(a, b, X, y, train_size=g, loss=loss, rng=rng, progress=False)
        seconds = time.perf_counter() - t0
    d = r.diagnostics
    t = r.estimate / r.std_error if r.std_error > 0 else np.nan
    nu = ustat_df(n, r.variance_estimate, r.variance_mc_se,
                  max(2.0, float(d["data_df_estimated"])))
    z = score_statistic(t, r.coupling)
    row = dict(estimate=r.estimate, std_error=r.std_error, variance=r.variance_estimate,
               variance_mc_se=r.variance_mc_se, leading_variance=r.leading_variance,
               mc_se=r.mc_se, jk_var=d["jackknife"]["var_theta"], df=r.df, df_nuV=nu,
               dfest_t=d["data_df_estimated"], coupling=r.coupling, T=t,
               fallback=r.variance_fallback, n_draws=r.n_draws, seconds=seconds,
               default_p=r.p_value, default_method=r.interval_method,
               default_statistic=r.statistic)
    row["p_t.nuV"] = 2 * stats.t.sf(abs(t), nu)
    row["p_t.cal"] = d["p_value_t"]
    row["p_score.cal"] = d["p_value_t_score"]
    row["p_score.nuV"] = 2 * stats.t.sf(abs(z), nu)
    return row


def _runs(name, n, g, shift, truth, hypothesis, reps, seed):
    design = COMPARE_DESIGNS[name]
    gens = np.random.default_rng([seed, n, g, sum(map(ord, name + hypothesis))]).spawn(reps)
    rows = [dict(design=name, family=design.family, n=n, g=g, hypothesis=hypothesis,
                 shift=shift, truth=truth, rep=k, seed=seed,
                 **one_data_set(design, n, g, shift, gen)) for k, gen in enumerate(gens)]
    return pd.DataFrame(rows)


def _alt_shift(name: str, g: int, target: float) -> float:
    """The shift whose true difference θ_A − θ_B is ``target`` (closed forms)."""
    if name == "mean_half":                # 0.75/g − μ²/4 = target
        return float(np.sqrt(max(4 * (0.75 / g - target), 0.0)))
    if name == "ols_sym_skew":             # ((1 + δ)² − 1)K = target
        return float(np.sqrt(max(1 + target / ols_risk(1.0, g, 1), 0.0)) - 1)
    # nested_ols: (1 + b²)K₁ − K₂ = target
    return float(np.sqrt(max((target + ols_risk(1.0, g, 2)) / ols_risk(1.0, g, 1) - 1, 0.0)))


ALTERNATIVES = {"mean_half": (-1, 1), "ols_sym_skew": (-1,), "nested_ols": (-1, 1)}


def run_design(name, n, g, reps, alt_reps, multiple, seed) -> pd.DataFrame:
    design = COMPARE_DESIGNS[name]
    null = _runs(name, n, g, design.null(g), 0.0, "H0", reps, seed)
    parts = [null]
    sd = null.estimate.std(ddof=1)
    for side in ALTERNATIVES.get(name, ()) if alt_reps else ():
        shift = _alt_shift(name, g, side * multiple * sd)
        truth = design.diff(g, shift)
        label = f"{multiple:g} sd {'below' if side < 0 else 'above'}"
        parts.append(_runs(name, n, g, shift, truth, label, alt_reps, seed))
    return pd.concat(parts, ignore_index=True)


def _rate(p: pd.Series) -> tuple[float, float]:
    rej = (p < 0.05).to_numpy()          # a NaN p-value is no rejection (counted, not dropped)
    return float(rej.mean()), float(np.sqrt(rej.mean() * (1 - rej.mean()) / len(rej)))


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Rejection rate (SE) of every test per design and hypothesis; at an alternative
    the t ceiling (size-adjusted power of T) and the known-sd z test."""
    rows = []
    for (name, n, g), part in raw.groupby(["design", "n", "g"], sort=False):
        null = part[part.hypothesis == "H0"]
        crit = np.nanquantile(np.abs(null["T"]), 0.95)
        for hyp, h in part.groupby("hypothesis", sort=False):
            sd = h.estimate.std(ddof=1)
            row = dict(design=name, family=h.family.iloc[0], n=n, g=g, hypothesis=hyp,
                       reps=len(h), truth=h.truth.iloc[0],
                       multiple=h.truth.iloc[0] / sd if hyp != "H0" else 0.0,
                       median_df_nuV=h.df_nuV.median(), median_df_cal=h.df.median(),
                       fallback=(h.fallback.fillna("") != "").mean())
            for test in TESTS:
                row[test], row[f"{test}_se"] = _rate(h[f"p_{test}"])
            if hyp != "H0":
                row["t_ceiling"] = float(np.mean(np.abs(h["T"]) > crit))
                row["z_known_sd"] = float(np.mean(np.abs(h.estimate) > 1.96 * sd))
            rows.append(row)
    return pd.DataFrame(rows)


def choose_test(table: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    """The rule of the module docstring, on the dev designs."""
    dev = table[table.family == "dev"]
    null, alt = dev[dev.hypothesis == "H0"], dev[dev.hypothesis != "H0"]
    if null.empty or alt.empty:
        return "no development nulls and alternatives in this run", pd.DataFrame()
    rows = []
    for test in TESTS:
        size_ok = bool(np.all(null[test] <= 0.05 + null[f"{test}_se"]))
        rows.append(dict(test=test, worst_size=null[test].max(), size_ok=size_ok,
                         power=alt[test].mean(), power_se=alt[f"{test}_se"].mean(),
                         simplicity=0 if test.startswith("t.") else 1))
    score = pd.DataFrame(rows)
    ok = score[score.size_ok]
    if ok.empty:
        return "none holds its size", score
    tie = ok[ok.power >= ok.power.max() - ok.power_se.max()]
    return str(tie.sort_values(["simplicity", "power"], ascending=[True, False]).test.iloc[0]), \
        score


def frontier(raw: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(a) per-design null quantile of |T| and power of T at the largest of them;
    (b) worst size and worst power gap to the t ceiling of the score family ``Z_c``."""
    null = raw[raw.hypothesis == "H0"]
    q = null.groupby("design", sort=False)["T"].apply(
        lambda t: float(np.nanquantile(np.abs(t), 0.95)))
    rows = [dict(design=d, hypothesis="H0", null_quantile=v) for d, v in q.items()]
    for (d, hyp), h in raw[raw.hypothesis != "H0"].groupby(["design", "hypothesis"],
                                                         sort=False):
        rows.append(dict(design=d, hypothesis=hyp, null_quantile=q[d],
                         t_ceiling=float(np.mean(np.abs(h["T"]) > q[d])),
                         one_threshold=float(np.mean(np.abs(h["T"]) > q.max()))))
    thresholds = pd.DataFrame(rows)
    T = raw["T"].to_numpy()
    rho = np.clip(np.nan_to_num(raw.coupling.to_numpy()), -1.0, 1.0)
    ceiling = {(d, hyp): c for d, hyp, c in thresholds.dropna(subset=["t_ceiling"])[
        ["design", "hypothesis", "t_ceiling"]].itertuples(index=False)}
    out = []
    for c in np.round(np.arange(0.0, 0.501, 0.05), 2):
        for phi in (0.25, 0.5):
            z = T / np.sqrt(np.maximum(1.0 - c * rho * T, phi))
            rej = 2 * stats.t.sf(np.abs(z), raw.df_nuV.to_numpy()) < 0.05
            rate = pd.Series(rej).groupby([raw.design, raw.hypothesis], sort=False).mean()
            sizes = [v for (d, hyp), v in rate.items() if hyp == "H0"]
            gaps = [v - ceiling[(d, hyp)] for (d, hyp), v in rate.items() if hyp != "H0"]
            out.append(dict(c=c, phi=phi, worst_size=max(sizes), worst_gap=min(gaps)))
    return thresholds, pd.DataFrame(out)


def main(argv=None) -> int:
    ap = pooled_runs_parser(__doc__, reps=400, seed=3602, combine_help="pool raw files")
    ap.add_argument("--alt-reps", type=int, default=200)
    ap.add_argument("--multiple", type=float, default=3.0)
    ap.add_argument("--designs", nargs="+", default=list(COMPARE_DESIGNS))
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--g", type=int, default=10)
    args = ap.parse_args(argv)
    out = output_dir(args.out)
    if args.combine:
        raw = pd.concat([pd.read_csv(p) for p in args.combine], ignore_index=True)
    else:
        parts = []
        for name in args.designs:
            t0 = time.perf_counter()
            parts.append(run_design(name, args.n, args.g, args.reps, args.alt_reps,
                                    args.multiple, args.seed))
            pd.concat(parts).to_csv(out / f"cv_compare_raw_s{args.seed}.csv", index=False)
            print(f"{name}: {time.perf_counter() - t0:.0f} s", flush=True)
        raw = pd.concat(parts, ignore_index=True)
    table = summarise(raw)
    table.to_csv(out / "cv_compare.csv", index=False)
    with pd.option_context("display.width", 220, "display.max_columns", 40):
        print(table.round(3).to_string(index=False))
        choice, score = choose_test(table)
        print(score.round(3).to_string(index=False))
        print(f"rule's choice: {choice}")
        thresholds, family = frontier(raw)
        thresholds.to_csv(out / "cv_compare_thresholds.csv", index=False)
        family.to_csv(out / "cv_compare_frontier.csv", index=False)
        print(thresholds.round(3).to_string(index=False))
        print(family.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
