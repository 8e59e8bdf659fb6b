"""What the default's model class costs: the batch model against more flexible ones and an oracle.

The default design's batch model is a two-parameter logistic recalibration of the
score's log-odds (or of the raw margin) with a weakly informative prior at the identity
(``_successive_design.recalibrate``); the model changes only the design's sizes and the
interval's model-expected variance, never the estimator's mean. This benchmark asks how
much a better model could buy and whether a more flexible one does, on the same seeds:

* ``logistic`` — the default;
* ``oracle`` — the isotonic regression of the *pool's own labels* on the score, used from
  the first batch on (not available to a user: the ceiling of any monotone model);
* ``oracle_later`` — the same from the second batch on (the first batch as the default:
  what the first batch's model, the scores as given, costs);
* ``isotonic`` — isotonic regression (pool-adjacent violators) of the labels so far;
* ``isotonic_beta`` — the same, each block's rate shrunk by one pseudo-label at the
  logistic fit's block mean (no zero rates);
* ``rank_logit`` — the default's logistic recalibration on the logit of the mid-rank of
  the score instead of the score (scale-free, for scores whose scale means nothing);
* ``logistic_rank`` — one logistic fit on both covariates, ``a + b·s + c·r`` (``s`` the
  default's, ``r`` the logit of the mid-rank) with the default's priors and ``c ~ N(0,
  2.5²)``: centred on the default's "the scores are calibrated";
* ``prequential`` — before each batch, the one of ``logistic`` and ``rank_logit`` whose
  fits to earlier batches predicted each later batch's labels better (summed log score;
  Dawid 1984, prequential model choice);
* ``flat_first`` — the first batch sized under a constant model (no use of the scores
  before the first label), the default after it;

with adaptive OASIS beside them (``active_families.run_oasis``). Reported per pool: F1
RMSE with a bootstrap interval, bias ± SE, and coverage ± binomial SE of the default
95 % interval at 500 labels. Failed runs count as misses and are listed.

The variants are installed by replacing ``SuccessiveDesign.model``/``predict`` inside the
worker that runs them (a private part of the package); none of them is an option of the
package.

    python benchmarks/active_model_class.py --reps 60        # about 15 minutes, 2 cores

Writes ``results/active_model_class.csv`` (the table) and ``..._raw.csv`` (one row per
run and variant).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import active_families  # noqa: E402  (sibling scripts)
import active_pools  # noqa: E402
from _runs import output_dir, pooled_runs_parser  # noqa: E402

#: margins of four laws, two calibrated rare pools and the three real pools
CELLS = ("dev_margins", "fr_margins", "f3_margins_t", "f4_margins_sat", "dev_cal_rare",
         "f4_cal_t_rare", "real_abt_prob", "real_abt_margin", "real_tweets_margin")
VARIANTS = ("logistic", "oracle", "oracle_later", "isotonic", "isotonic_beta", "rank_logit",
            "logistic_rank", "prequential", "flat_first")


def _design_class():
    from evalstats.active import _successive_design
    return _successive_design


def _rank_feature(design) -> np.ndarray:
    if getattr(design, "_rank_feature", None) is None:
        x = np.asarray(design.feature, dtype=float)
        design._rank_feature = special.logit((stats.rankdata(x) - 0.5) / x.size)
    return design._rank_feature


def _sorted_labels(design, lab_idx, lab_y):
    order = np.argsort(lab_idx, kind="stable")
    return lab_idx[order], np.asarray(lab_y, dtype=float)[order]


def _step_fit(x: np.ndarray, y: np.ndarray, shrink_to: np.ndarray | None = None):
    """Isotonic fit of ``y`` on ``x`` (``shrink_to``: one pseudo-label per block at its mean)."""
    o = np.argsort(x, kind="stable")
    xs, ys = x[o], y[o]
    fit = optimize.isotonic_regression(ys).x
    if shrink_to is not None:
        block = np.concatenate(([0], np.cumsum(np.diff(fit) != 0)))
        n = np.bincount(block)
        prior = np.bincount(block, shrink_to[o]) / n
        fit = ((np.bincount(block, ys) + prior) / (n + 1))[block]
    return ("step", xs, fit)


def _joint_fit(x: np.ndarray, y: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Posterior mode of ``logit P(y=1) = x·c`` under ``c ~ N(prior, 2.5²)`` (Newton)."""
    scale = _design_class().PRIOR_SCALE
    c = prior.astype(float).copy()
    for _ in range(100):
        p = special.expit(x @ c)
        hess = x.T @ (x * (p * (1 - p))[:, None]) + np.eye(c.size) / scale ** 2
        step = np.linalg.solve(hess, x.T @ (y - p) - (c - prior) / scale ** 2)
        c += step
        if np.max(np.abs(step)) < 1e-10:
            break
    return c


def _prequential_choice(design, li, ly, feats) -> int:
    sd = _design_class()
    batch_of = dict(zip(design.rows["item"], design.rows["batch"], strict=True))
    bt = np.array([batch_of[i] for i in li])
    score = []
    for f in feats:
        s = 0.0
        for j in range(1, int(bt.max()) + 1):
            a, b = sd.recalibrate(f[li[bt < j]], ly[bt < j])
            g = np.clip(special.expit(a + b * f[li[bt == j]]), 1e-12, 1 - 1e-12)
            s += float(ly[bt == j] @ np.log(g) + (1 - ly[bt == j]) @ np.log1p(-g))
        score.append(s)
    return int(np.argmax(score))


def _variant_methods(name: str, pool_labels: np.ndarray):
    """``(model, predict)`` replacing ``SuccessiveDesign``'s for the variant ``name``."""
    sd = _design_class()
    base_model, base_predict = sd.SuccessiveDesign.model, sd.SuccessiveDesign.predict

    def model(self, lab_idx, lab_y):
        coef = base_model(self, lab_idx, lab_y)
        if name == "oracle" or (name == "oracle_later" and coef is not None):
            return _step_fit(np.asarray(self.feature, dtype=float), pool_labels.astype(float))
        if coef is None or name in ("logistic", "flat_first"):
            return coef
        li, ly = _sorted_labels(self, lab_idx, lab_y)
        x = np.asarray(self.feature, dtype=float)[li]
        if name == "isotonic":
            return _step_fit(x, ly)
        if name == "isotonic_beta":
            return _step_fit(x, ly, special.expit(coef[0] + coef[1] * x))
        feats = [np.asarray(self.feature, dtype=float), _rank_feature(self)]
        if name == "logistic_rank":
            design = np.column_stack([np.ones(li.size), feats[0][li], feats[1][li]])
            return ("joint", _joint_fit(design, ly, np.array([0.0, 1.0, 0.0])))
        k = 1 if name == "rank_logit" else _prequential_choice(self, li, ly, feats)
        return ("logit", k, sd.recalibrate(feats[k][li], ly))

    def predict(self, coef, idx):
        if coef is None and name == "flat_first":
            return np.full(len(idx), 0.5)
        if coef is None or not isinstance(coef[0], str):
            return base_predict(self, coef, idx)
        if coef[0] == "step":
            g = np.interp(np.asarray(self.feature, dtype=float)[idx], coef[1], coef[2])
        elif coef[0] == "joint":
            c = coef[1]
            g = special.expit(c[0] + c[1] * np.asarray(self.feature, dtype=float)[idx]
                              + c[2] * _rank_feature(self)[idx])
        else:
            f = np.asarray(self.feature, dtype=float) if coef[1] == 0 else _rank_feature(self)
            g = special.expit(coef[2][0] + coef[2][1] * f[idx])
        return np.clip(g, 1e-12, 1 - 1e-12)

    return model, predict


@contextlib.contextmanager
def variant(name: str, pool_labels: np.ndarray):
    """Install the variant's batch model for the duration of the block."""
    cls = _design_class().SuccessiveDesign
    saved = cls.model, cls.predict
    cls.model, cls.predict = _variant_methods(name, pool_labels)
    try:
        yield
    finally:
        cls.model, cls.predict = saved


def one_seed(pool: dict, seed: np.random.SeedSequence, n_labels: int,
             variants: tuple[str, ...]) -> list[dict]:
    """Every variant (same seed) and OASIS on one pool."""
    truth = pool["meta"]["f1"]
    rows = []
    for name in variants:
        row = dict(cell=pool["name"], variant=name, truth=truth, error="")
        try:
            with variant(name, pool["labels"]), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = active_pools.default_run(pool, seed, n_labels)
            lo, hi = est.conf_int()
            row.update(estimate=float(est.estimate), conf_low=float(lo), conf_high=float(hi))
        except Exception as err:  # noqa: BLE001 (a failed run is a row, counted as a miss)
            row.update(estimate=np.nan, conf_low=np.nan, conf_high=np.nan,
                       error=f"{type(err).__name__}: {err}"[:200])
        rows.append(row)
    oasis = active_families.run_oasis(pool, [n_labels], seed)[0]["estimate"]
    rows.append(dict(cell=pool["name"], variant="oasis", truth=truth, estimate=oasis,
                     conf_low=np.nan, conf_high=np.nan, error=""))
    return rows


def summarise(raw: pd.DataFrame, n_boot: int = 1000) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for (cell, name), grp in raw.groupby(["cell", "variant"], sort=False):
        e = (grp["estimate"] - grp["truth"]).to_numpy()
        ok = np.isfinite(e)
        boot = np.sqrt(np.mean(e[ok][rng.integers(0, ok.sum(), (n_boot, ok.sum()))] ** 2, 1))
        covered = ((grp["conf_low"] <= grp["truth"]) & (grp["truth"] <= grp["conf_high"]))
        cov = float(covered.mean()) if name != "oasis" else np.nan
        rows.append(dict(cell=cell, variant=name, reps=len(grp), failed=int((~ok).sum()),
                         f1_rmse=float(np.sqrt(np.mean(e[ok] ** 2))),
                         rmse_low=float(np.quantile(boot, 0.025)),
                         rmse_high=float(np.quantile(boot, 0.975)),
                         bias=float(e[ok].mean()),
                         bias_se=float(e[ok].std(ddof=1) / np.sqrt(ok.sum())),
                         coverage=cov,
                         coverage_se=float(np.sqrt(cov * (1 - cov) / len(grp)))
                         if name != "oasis" else np.nan))
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    from joblib import Parallel, delayed

    ap = pooled_runs_parser(__doc__, reps=60, seed=2026,
                            combine_help="re-read raw CSVs instead of running")
    ap.add_argument("--labels", type=int, default=500)
    ap.add_argument("--cells", default=",".join(CELLS))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args(argv)
    out = output_dir(args.out)
    if args.combine:
        raw = pd.concat([pd.read_csv(c) for c in args.combine], ignore_index=True)
    else:
        variants = tuple(args.variants.split(","))
        rows = []
        for pool, seeds in active_pools.seeded_pools(args.cells, args.reps, args.seed):
            done = Parallel(n_jobs=args.n_jobs)(
                delayed(one_seed)(pool, s, args.labels, variants) for s in seeds)
            rows += [r for part in done for r in part]
        raw = pd.DataFrame(rows)
        raw.to_csv(out / "active_model_class_raw.csv", index=False)
    table = summarise(raw)
    table.to_csv(out / "active_model_class.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_rows", 500):
        print(table.round(4).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
