"""How much power can a test of θ_A(g) = θ_B(g) have at n = 40? A ceiling from the df of V̂.

Issue 13 asks for power ≥ 0.8 at a difference of 3 standard errors. A two-sided 5 % test
that knows the variance has power Φ(3 − 1.96) + Φ(−3 − 1.96) = 0.851 there. A test that
estimates the variance cannot: if ``se²/σ² ~ χ²_d/d`` (a variance estimate with ``d``
degrees of freedom, exactly the right df and no bias), the statistic is noncentral t with
``d`` df and noncentrality ``δ`` (the difference in true standard errors), and the best
such test has power ``P(|t_d(δ)| > t_{d, 0.975})``. This script evaluates that ceiling at
the df that ``compare_learners`` recorded for V̂_{A−B} (its ``df`` column, one per data
set, in the committed raw files) and at the realised alternatives of the benchmark, and
sets it beside the measured power of the default. No simulation: scipy's ``nct``.

    python benchmarks/cv_compare_power_ceiling.py       # prints the table, writes the CSV
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

RESULTS = Path(__file__).resolve().parent / "results"

#: raw files of the jackknife-floor runs (recorded df per data set) and the cells they hold
RAW = {("40", "below"): "cv_compare_jk_below_seed9102_raw.csv",
       ("100", "below"): "cv_compare_jk_below_seed9102_raw.csv",
       ("40", "above"): "cv_compare_jk_above_seed9105_raw.csv"}
MULTIPLES = (2.5, 2.7, 3.0, 3.5, 4.0)


def t_power(df: np.ndarray | float, delta: float, level: float = 0.95) -> np.ndarray:
    """Power of the two-sided t test with ``df`` degrees of freedom at noncentrality
    ``delta`` (the variance estimate unbiased, ``χ²_df/df``-distributed)."""
    df = np.asarray(df, dtype=float)
    crit = stats.t.ppf(0.5 + level / 2, df)
    return stats.nct.sf(crit, df, delta) + stats.nct.cdf(-crit, df, delta)


def z_power(delta: float, level: float = 0.95) -> float:
    crit = stats.norm.ppf(0.5 + level / 2)
    return float(stats.norm.sf(crit - delta) + stats.norm.cdf(-crit - delta))


def ceiling_table() -> pd.DataFrame:
    summary = pd.read_csv(RESULTS / "cv_compare_jk_summary.csv")
    rows = []
    for (n, side), name in RAW.items():
        raw = pd.read_csv(RESULTS / name)
        raw = raw[raw["n"] == int(n)]
        df = raw["df"].to_numpy(float)
        df = df[np.isfinite(df) & (df > 0)]
        alt = summary[(summary["n"] == int(n)) & (summary["method"] == "ustat")
                      & (summary["design"] == "mean")
                      & (summary["hypothesis"] != "H0")]
        alt = alt[(alt["true_difference"] < 0) == (side == "below")]
        realised = float(alt["difference_in_se"].iloc[0]) if len(alt) else np.nan
        measured = float(alt["rejection_rate"].iloc[0]) if len(alt) else np.nan
        for mult in sorted({*MULTIPLES, round(realised, 2)} - {np.nan}):
            rows.append(dict(n=int(n), side=side, data_sets=df.size,
                             median_df=float(np.median(df)), difference_in_se=mult,
                             z_test_power=z_power(mult),
                             t_power_at_recorded_df=float(np.mean(t_power(df, mult))),
                             t_power_at_median_df=float(t_power(np.median(df), mult)),
                             default_measured=measured if mult == round(realised, 2)
                             else np.nan))
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    table = ceiling_table()
    out = RESULTS / "cv_compare_power_ceiling.csv"
    table.to_csv(out, index=False)
    with pd.option_context("display.width", 160, "display.float_format", "{:.3f}".format):
        print(table.to_string(index=False))
    print(f"\nwritten: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
