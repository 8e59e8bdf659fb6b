"""Probe: the calibrated (GREG) estimator at 30 and 100 labels under the settings of its slope.

The calibrated estimator regresses each prediction group's residuals on the model
(``evalstats.active._ht.calibration_fit``) when the group has at least ``MIN_CALIBRATION``
labeled non-certainty items in a batch (package: 5), with a ridge of ``CALIBRATION_RIDGE``
pseudo-observations at the identity (package: 2) and the slope shrunk by its HC3
signal-to-noise ratio (``SLOPE_SHRINKAGE``, package: on since the seventh session). The
small-sample bed of ``active_edge_rule.py --bed small`` showed the unshrunk fit
under-covering on a near-separable pool with the passive proposal. This probe reruns three
of that bed's pools (``good_clf``, ``mid``, ``rare_over``; :func:`active_edge_rule.small_pool`)
with the passive and the default optimal proposal at 30 and 100 labels: ``base`` (the
package), ``unshrunk`` (the package before), the unshrunk fit with a ridge of 30 or a
threshold of 40, and no slope at all (an infinite ridge); it reports coverage of the
package's 95 % intervals, F1/precision/recall/accuracy RMSE and mean width. It changes
module constants for the run only.

    python benchmarks/active_calibration_probe.py --reps 400      # ~5 min, 1 core
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from active_benchmark import measures_of
from active_edge_rule import RESULTS, small_pool

from evalstats.active import _ht, active_evaluate

VARIANTS = {"base": {}, "unshrunk": dict(SLOPE_SHRINKAGE=False),
            "unshrunk_ridge30": dict(SLOPE_SHRINKAGE=False, CALIBRATION_RIDGE=30.0),
            "unshrunk_minc40": dict(SLOPE_SHRINKAGE=False, MIN_CALIBRATION=40),
            "no_slope": dict(CALIBRATION_RIDGE=np.inf)}
POOLS = ("good_clf", "mid", "rare_over")
DESIGNS = {"passive": dict(proposal="passive"), "optimal": {}}


def run_variant(name: str, reps: int, seed: int) -> pd.DataFrame:
    """Coverage, RMSE and width per (pool, design, labels, measure) under one variant."""
    saved = {k: getattr(_ht, k) for k in VARIANTS[name]}
    for k, v in VARIANTS[name].items():
        setattr(_ht, k, v)
    rows = []
    try:
        for kind in POOLS:
            s, y, f = small_pool(kind)
            truth = measures_of(f, y)
            for design, kw in DESIGNS.items():
                for n in (30, 100):
                    for rep in range(reps):
                        res = active_evaluate(s, lambda ids, y=y: y[ids], n_labels=n,
                                              measure="f1", predictions=f, rng=seed + rep, **kw)
                        m = res.measures().set_index("measure")
                        for meas, t in truth.items():
                            e, lo, hi = m.loc[meas, ["estimate", "conf_low", "conf_high"]]
                            rows.append(dict(pool=kind, design=design, n=n, measure=meas,
                                             err2=(e - t) ** 2, cov=lo <= t <= hi, w=hi - lo))
    finally:
        for k, v in saved.items():
            setattr(_ht, k, v)
    d = pd.DataFrame(rows)
    g = d.groupby(["pool", "design", "n", "measure"])
    return pd.DataFrame({"coverage": g["cov"].mean(), "rmse": np.sqrt(g["err2"].mean()),
                         "mean_width": g["w"].mean(), "reps": g.size()}).reset_index().assign(
        variant=name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7000)
    args = ap.parse_args(argv)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in VARIANTS:
            t0 = time.perf_counter()
            out.append(run_variant(name, args.reps, args.seed))
            print(f"{name}: {time.perf_counter() - t0:.0f} s", flush=True)
    table = pd.concat(out, ignore_index=True)
    table.to_csv(RESULTS / "active_calibration_probe.csv", index=False)
    for col in ("coverage", "rmse"):
        print(table.pivot_table(index=["pool", "design", "n", "measure"], columns="variant",
                                values=col)[list(VARIANTS)].round(3).to_string())
    print(f"wrote {RESULTS / 'active_calibration_probe.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
