"""Null replications of ``compare_learners`` with every statistic its test is built from.

A small companion of ``cv_coverage.py --design compare``: one design, one cell, no
baselines; each row records Θ̂, se, V̂, V̂₁, the Monte-Carlo terms, df, γ̂₁, ρ̂ and the
cross-half jackknife moments (``diagnostics["jackknife"]``), so that any rule for the
variance and the test can be evaluated afterwards from the same data sets (used to choose
the jackknife floor and the score-type default, issue 13; ``benchmarks/README.md``).

Usage: ``python benchmarks/cv_compare_probe.py DESIGN N G REPS SEED [MU]`` with DESIGN
one of ``mean``, ``clf``, ``clf_asym`` (``cv_coverage._compare_setup``; MU defaults to the
design's null value). Writes ``results/cv_compare_probe_<design>_n<N>_g<G>_s<SEED>.csv``.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd
from cv_coverage import ASYM_B, RESULTS, _compare_setup

from evalstats.cv_variance import compare_learners


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    design, n, g, reps, seed = argv[0], int(argv[1]), int(argv[2]), int(argv[3]), int(argv[4])
    mu = (float(argv[5]) if len(argv) > 5 else ASYM_B[g] if design == "clf_asym"
          else np.sqrt(3 / g))
    rows = []
    for gen in np.random.default_rng(seed).spawn(reps):
        X, y, a, b, loss = _compare_setup(n, mu, gen, design)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            r = compare_learners(a, b, X, y, train_size=g, loss=loss, rng=gen, progress=False)
        rows.append(dict(
            estimate=r.estimate, std_error=r.std_error, variance_estimate=r.variance_estimate,
            leading_variance=r.leading_variance, variance_mc_se=r.variance_mc_se,
            mc_se=r.mc_se, df=r.df, p_ustat=r.p_value, p_ustat_t=r.diagnostics["p_value_t"],
            skewness=r.skewness, coupling=r.coupling,
            data_df_estimated=r.diagnostics["data_df_estimated"],
            fallback=bool(r.variance_fallback), draws=r.n_draws,
            seconds=time.perf_counter() - t0,
            **{f"jk_{k}": v for k, v in r.diagnostics["jackknife"].items()}))
    out = pd.DataFrame(rows).assign(design=design, n=n, g=g, mu=mu, hypothesis="H0",
                                    true_difference=0.0, seed=seed)
    path = RESULTS / f"cv_compare_probe_{design}_n{n}_g{g}_s{seed}.csv"
    out.to_csv(path, index=False)
    print(out[["estimate", "std_error", "variance_estimate", "jk_var_theta"]].describe())
    return out


if __name__ == "__main__":
    main()
