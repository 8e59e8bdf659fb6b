"""Pool families for active estimation: simulated pools with a known truth, by member.

Every pool is a fixed finite population: each item has a true probability ``p`` (its law),
a label ``y ~ Bernoulli(p)`` drawn once, the score the user's model shows (``p`` itself or a
distortion of it) and a 0/1 prediction made from that score by a stated rule. The truth of a
measure is the pool's own (its realised labels), so runs of an estimator on one pool differ
only by the sampling seed.

True laws (``law=``), each with mean exactly ``prevalence``:

* ``logit_normal`` — ``logit p ~ N(μ, spread²)``, ``μ`` solved by adaptive quadrature;
* ``beta`` — ``p ~ Beta(prevalence·κ, (1 − prevalence)·κ)`` with concentration ``κ = spread``;
* ``two_group`` — a group of share ``prevalence`` with ``logit p ~ N(1, spread²)`` and the rest
  with ``logit p ~ N(μ₀, spread²)``, ``μ₀`` solved (the shape of entity-resolution pools);
* ``logit_t`` — ``logit p = μ + spread·T`` with ``T`` Student-t on 4 degrees of freedom (heavy
  tails: more near-certain items on both sides), ``μ`` solved by adaptive quadrature.

Members (``family=``), one line each:

* ``calibrated`` — scores are ``p``;
* ``logistic`` — miscalibrated inside the logistic family: ``σ(a·logit p + b)`` (``a > 1``
  overconfident, ``a < 1`` underconfident, ``b ≠ 0`` a prior shift);
* ``distorted`` — miscalibrated outside it (``kind=``): ``fold`` (non-monotone: log-odds above
  ``knee`` reflected, ``σ(2·knee − ℓ)``, so the surest positives score low), ``wiggle``
  (non-monotone: ``σ(ℓ + 1.5 sin ℓ)``), ``quantized`` (piecewise constant: the midpoint of
  ten equal-width probability bins), ``steps`` (piecewise constant on the log-odds scale:
  ``σ(2·round(ℓ/2))``, a few tied levels, most of them near 0), ``plateau`` (piecewise:
  0.5 for ``|ℓ| ≤ 2``, ``σ(ℓ)`` elsewhere), ``probit`` (another link: ``Φ(ℓ)``), ``cloglog``
  (``1 − exp(−eˡ)``);
* ``segment`` — a random sub-population of share ``share`` has uninformative scores
  (``kind=``): ``shuffled`` (its scores permuted among its items) or ``constant`` (all equal
  to ``prevalence``); the rest is calibrated;
* ``blind_spot`` — exactly ``round(hidden_share · n_items)`` items are positives hidden at
  low scores (``shape=``): ``uniform`` (log-odds uniform on ``[logit 1e-4,
  logit 1e-2)``), ``tied`` (all at 0.004, tied with the negatives there), ``deep`` (log-odds
  uniform on ``[logit 1e-6, logit 1e-4)``) or ``band`` (log-odds uniform on ``[logit 0.02,
  logit 0.2)``: positives at middling-low scores the model calls unlikely, not near-certain);
  the other items follow the calibrated law with the prevalence that keeps the pool's
  expected prevalence at ``prevalence``;
* ``margins`` — raw SVM-like margins, not probabilities (``kind=``): ``linear``
  (``scale·ℓ``) or ``saturating`` (``scale·tanh(ℓ/scale)``); predictions are ``margin > 0``.

Predictions: ``threshold=t`` (score > t; margins: margin > 0) or ``top_k=r`` (the
``round(r · prevalence · n_items)`` highest scores, ties broken at random). A few cells
place the rule badly on purpose (far too many or too few predicted positives).

Scores are clipped to ``[1e-7, 1 − 1e-7]`` (margins are not clipped). Pools of
``LARGE = 2·10⁶`` items or more hold float32 scores and are generated in chunks; labels and
predictions are int8.

**Development and fresh families — fixed before anything was run on them.** The
development family (``DEV_FAMILY``) is for building and tuning; the fresh family
(``FRESH_FAMILY``) is for the decision only and differs in law and geometry, not in seeds:

=====================  ===============================  =================================
dimension              development                      fresh
=====================  ===============================  =================================
true law               logit-normal                     beta, two-group
prediction rule        threshold 0.5 (one at 0.05)      top-k mostly (two badly placed)
inside logistic        a=2.5; a=0.6,b=+1; b=-1.5        a=3,b=-1; a=0.4
outside logistic       fold, quantized, probit          wiggle, plateau, cloglog
uninformative segment  shuffled, 20 %                   constant, 30 %
blind spot             uniform 1e-4..1e-2: 0.2, 0.03 %  tied at 0.004: 0.8 %; deep: 0.1 %
margins                linear, scale 0.4                saturating, scale 1.5
prevalence             0.05 %–10 %                      0.03 %–8 %
pool size              2·10⁴–10⁶                        2·10⁴–10⁷
=====================  ===============================  =================================

**Second fresh family** (``FRESH2_FAMILY``), fixed before anything was run on it, for a
later decision: the heavy-tailed ``logit_t`` law (in neither family above), a calibrated rare
pool (0.05 %), a blind spot of another shape (``band``: positives at scores 0.02–0.2), a
strongly overconfident pool (``a = 5``), scores quantised on the log-odds scale (``steps``),
an underconfident, shifted 3-million pool and a small, common-positive calibrated pool.

**Third fresh family** (``FRESH3_FAMILY``), fixed before anything was run on it, for the
decision on the model-expected variance of the first batch: laws paired with members as in
no earlier family (a dispersed beta law at 10⁶ items, an underconfident two-group pool, an
overconfident shifted rare pool, quantised logit-t scores, a probit link on a beta law, a
small shuffled segment, a uniform blind spot under a beta law, linear margins of a logit-t
law).

**Fourth fresh family** (``FRESH4_FAMILY``), fixed before anything was run on it, for the
decision on the ratio's bias correction: a blind spot of 0.4 % of the items hidden at
scores 10⁻⁴–10⁻² under a 1 % pool, a calibrated 0.1 % logit-t pool, an overconfident
two-group pool, an underconfident beta pool, a cloglog link and a plateau, a constant
segment in a 0.3 % pool and saturating margins of a beta law.

**Real pools** (``REAL_FAMILY``, ``--families real``): the two scored pools of
``../shared/datasets`` as published, read through ``evalstats.datasets.load`` (skipped with
a message where the folder is absent) — Abt-Buy entity resolution (53,753 pairs, 0.09 %
positives) with its calibrated probabilities and with its raw SVM margins, and tweets100k
sentiment (20,000 tweets, balanced) with raw SVM margins; predictions as published; and
one pool scored here (``--families real_letter_a_lr``, not in ``real``): UCI letter, "A"
against the rest, a standardised logistic regression (scikit-learn, default
regularisation) fitted on the first half of the rows and scoring the second (10,000 items,
4 % positives), predictions ``p > 0.5`` — as in vignette 03. Their labels are one
realisation, not a law; they were no part of any decision.

Each pool is generated from a seed fixed by its cell name (:func:`cell_seed`), so every
harness run sees the same pool. Only the engineer deciding a default runs a fresh family,
once.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
from scipy import integrate, optimize, special, stats

#: pools of this many items or more hold float32 scores and are generated in chunks
LARGE = 2_000_000
#: items per generation chunk (fixed: the random stream of a pool must not depend on it)
CHUNK = 1 << 20
#: scores are clipped into [CLIP, 1 - CLIP]
CLIP = 1e-7
#: the score below which blind-spot positives hide
BLIND_BELOW = 0.01
BLIND_SHAPES = {"uniform": (1e-4, 1e-2), "deep": (1e-6, 1e-4), "band": (0.02, 0.2)}
BLIND_TIED = 0.004
LAWS = ("logit_normal", "beta", "two_group", "logit_t")
#: degrees of freedom of the ``logit_t`` law's Student-t log-odds
T_DF = 4
FAMILIES = ("calibrated", "logistic", "distorted", "segment", "blind_spot", "margins")
DISTORTIONS = ("fold", "wiggle", "quantized", "plateau", "probit", "cloglog", "steps")

# -- the cells -----------------------------------------------------------------------------------

def _cell(name: str, family: str, n_items: int, prevalence: float, **kw: Any) -> tuple:
    return family, dict(name=name, n_items=n_items, prevalence=prevalence, **kw)


#: development family: logit-normal laws, threshold rules (see the module docstring)
DEV_FAMILY: list[tuple[str, dict[str, Any]]] = [
    _cell("dev_cal_2pct", "calibrated", 50_000, 0.02, spread=3.5),
    _cell("dev_cal_rare", "calibrated", 200_000, 0.0005, spread=5.0),
    _cell("dev_cal_badthr", "calibrated", 20_000, 0.02, spread=3.0, threshold=0.05),
    _cell("dev_over", "logistic", 50_000, 0.01, spread=3.5, a=2.5, b=0.0),
    _cell("dev_under_up", "logistic", 20_000, 0.10, spread=3.0, a=0.6, b=1.0),
    _cell("dev_shift_down", "logistic", 100_000, 0.003, spread=4.0, a=1.0, b=-1.5),
    _cell("dev_fold", "distorted", 20_000, 0.05, spread=4.0, kind="fold", knee=2.0),
    _cell("dev_quantized", "distorted", 50_000, 0.01, spread=3.5, kind="quantized"),
    _cell("dev_probit_1m", "distorted", 1_000_000, 0.02, spread=3.0, kind="probit"),
    _cell("dev_segment", "segment", 50_000, 0.01, spread=3.5, kind="shuffled", share=0.2),
    _cell("dev_blind", "blind_spot", 50_000, 0.01, spread=3.5, shape="uniform",
          hidden_share=0.002),
    _cell("dev_blind_rare", "blind_spot", 200_000, 0.002, spread=4.0, shape="uniform",
          hidden_share=0.0003),
    _cell("dev_margins", "margins", 20_000, 0.03, spread=3.0, kind="linear", scale=0.4),
]

#: fresh family: beta and two-group laws, mostly top-k rules (see the module docstring)
FRESH_FAMILY: list[tuple[str, dict[str, Any]]] = [
    _cell("fr_cal_beta", "calibrated", 30_000, 0.03, law="beta", spread=1.0, top_k=1.0),
    _cell("fr_cal_rare", "calibrated", 300_000, 0.0003, law="two_group", spread=1.5,
          top_k=1.0),
    _cell("fr_over_shift", "logistic", 80_000, 0.005, law="beta", spread=2.0, a=3.0, b=-1.0,
          top_k=1.0),
    _cell("fr_under", "logistic", 20_000, 0.07, law="beta", spread=0.5, a=0.4, b=0.0,
          threshold=0.5),
    _cell("fr_topk_many", "calibrated", 40_000, 0.015, law="beta", spread=2.0, top_k=4.0),
    _cell("fr_topk_few", "calibrated", 60_000, 0.004, law="two_group", spread=1.5,
          top_k=0.25),
    _cell("fr_wiggle", "distorted", 50_000, 0.02, law="beta", spread=1.0, kind="wiggle",
          top_k=1.0),
    _cell("fr_plateau", "distorted", 20_000, 0.08, law="beta", spread=0.5, kind="plateau",
          threshold=0.5),
    _cell("fr_cloglog_10m", "distorted", 10_000_000, 0.01, law="two_group", spread=1.5,
          kind="cloglog", top_k=1.0),
    _cell("fr_segment", "segment", 25_000, 0.04, law="beta", spread=1.0, kind="constant",
          share=0.3, top_k=1.0),
    _cell("fr_blind_tied", "blind_spot", 30_000, 0.03, law="beta", spread=1.0, shape="tied",
          hidden_share=0.008, top_k=1.0),
    _cell("fr_blind_deep", "blind_spot", 500_000, 0.005, law="two_group", spread=1.5,
          shape="deep", hidden_share=0.001, top_k=1.0),
    _cell("fr_margins", "margins", 20_000, 0.06, law="beta", spread=1.0, kind="saturating",
          scale=1.5),
]

#: second fresh family: the heavy-tailed logit-t law, other shapes (see the module docstring)
FRESH2_FAMILY: list[tuple[str, dict[str, Any]]] = [
    _cell("f2_cal_rare", "calibrated", 400_000, 0.0005, law="logit_t", spread=2.0,
          threshold=0.3),
    _cell("f2_blind_band", "blind_spot", 60_000, 0.02, law="logit_t", spread=1.5,
          shape="band", hidden_share=0.004, threshold=0.5),
    _cell("f2_over", "logistic", 40_000, 0.04, law="logit_t", spread=1.5, a=5.0, b=0.0,
          top_k=2.0),
    _cell("f2_steps", "distorted", 80_000, 0.01, law="logit_t", spread=2.0, kind="steps",
          threshold=0.5),
    _cell("f2_under_3m", "logistic", 3_000_000, 0.002, law="logit_t", spread=2.0, a=0.5,
          b=-1.0, top_k=1.0),
    _cell("f2_cal_small", "calibrated", 20_000, 0.08, law="logit_t", spread=1.5,
          threshold=0.5),
]


#: third fresh family: law and member paired as in no earlier family (see the module docstring)
FRESH3_FAMILY: list[tuple[str, dict[str, Any]]] = [
    _cell("f3_cal_beta_1m", "calibrated", 1_000_000, 0.005, law="beta", spread=0.5,
          top_k=1.0),
    _cell("f3_under_shift", "logistic", 50_000, 0.03, law="two_group", spread=1.0, a=0.7,
          b=0.5, threshold=0.5),
    _cell("f3_over_rare", "logistic", 150_000, 0.001, spread=3.0, a=2.0, b=1.0,
          threshold=0.5),
    _cell("f3_quant_t", "distorted", 40_000, 0.05, law="logit_t", spread=1.5,
          kind="quantized", threshold=0.5),
    _cell("f3_probit_beta", "distorted", 60_000, 0.02, law="beta", spread=2.0, kind="probit",
          top_k=1.0),
    _cell("f3_segment_small", "segment", 15_000, 0.06, law="two_group", spread=1.5,
          kind="shuffled", share=0.1, threshold=0.5),
    _cell("f3_blind_beta", "blind_spot", 80_000, 0.01, law="beta", spread=1.0,
          shape="uniform", hidden_share=0.001, top_k=1.0),
    _cell("f3_margins_t", "margins", 30_000, 0.04, law="logit_t", spread=1.5, kind="linear",
          scale=2.0),
]


#: fourth fresh family: rare and tail-heavy pools for the decision on the ratio's bias
FRESH4_FAMILY: list[tuple[str, dict[str, Any]]] = [
    _cell("f4_blind_low", "blind_spot", 100_000, 0.01, spread=3.0, shape="uniform",
          hidden_share=0.004, threshold=0.5),
    _cell("f4_cal_t_rare", "calibrated", 250_000, 0.001, law="logit_t", spread=2.5,
          top_k=1.0),
    _cell("f4_two_group_over", "logistic", 100_000, 0.005, law="two_group", spread=1.2,
          a=1.8, b=0.0, threshold=0.5),
    _cell("f4_beta_under", "logistic", 40_000, 0.02, law="beta", spread=1.5, a=0.5, b=-0.5,
          top_k=1.5),
    _cell("f4_cloglog_t", "distorted", 60_000, 0.03, law="logit_t", spread=2.0,
          kind="cloglog", threshold=0.5),
    _cell("f4_plateau_ln", "distorted", 30_000, 0.05, spread=2.5, kind="plateau",
          threshold=0.5),
    _cell("f4_segment_const", "segment", 120_000, 0.003, law="two_group", spread=1.5,
          kind="constant", share=0.15, top_k=1.0),
    _cell("f4_margins_sat", "margins", 50_000, 0.01, law="beta", spread=0.8,
          kind="saturating", scale=3.0),
]


#: real pools: (name, dataset, score column); see the module docstring
REAL_FAMILY: list[tuple[str, dict[str, Any]]] = [
    ("real", dict(name="real_abt_prob", dataset="er_abt_buy", column="prob")),
    ("real", dict(name="real_abt_margin", dataset="er_abt_buy", column="score")),
    ("real", dict(name="real_tweets_margin", dataset="tweets100k", column="score")),
]


#: a real pool scored here by a model fitted on half of a public dataset (see the docstring)
SCORED_POOLS: list[tuple[str, dict[str, Any]]] = [
    ("scored", dict(name="real_letter_a_lr", dataset="letter", target="A")),
]


def scored_pool(name: str, dataset: str, target: str) -> dict[str, Any] | None:
    """``dataset``'s second half scored by a logistic regression of ``target`` against the
    rest fitted on its first half; None, with a message, without the shared datasets."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from evalstats import datasets

    try:
        frame = datasets.load(dataset)
    except datasets.DatasetNotFoundError as err:
        print(f"skipping {name}: {err}", flush=True)
        return None
    x = frame.drop(columns=dataset).to_numpy(np.float64)
    y = (frame[dataset] == target).to_numpy().astype(np.int8)
    half = len(y) // 2
    scaler = StandardScaler().fit(x[:half])
    clf = LogisticRegression(max_iter=2000).fit(scaler.transform(x[:half]), y[:half])
    scores = clf.predict_proba(scaler.transform(x[half:]))[:, 1]
    labels = y[half:]
    pred = (scores > 0.5).astype(np.int8)
    meta = dict(family="real", dataset=dataset, column=f"logistic regression, {target} vs rest",
                rule="p > 0.5", n_positives=int(labels.sum(dtype=np.int64)),
                **pool_truth(pred, labels))
    return dict(scores=scores, predictions=pred, labels=labels, name=name, meta=meta)


def real_pool(name: str, dataset: str, column: str) -> dict[str, Any] | None:
    """A published scored pool (labels and predictions as published); None, with a
    message, where the shared datasets folder does not hold it."""
    from evalstats import datasets

    try:
        frame = datasets.load(dataset)
    except datasets.DatasetNotFoundError as err:
        print(f"skipping {name}: {err}", flush=True)
        return None
    scores = frame[column].to_numpy(np.float64)
    pred = frame["pred"].to_numpy(np.int8)
    labels = frame["label"].to_numpy(np.int8)
    margins = bool(scores.min() < 0)
    meta = dict(family="margins" if margins else "real", dataset=dataset, column=column,
                rule="as published", n_positives=int(labels.sum(dtype=np.int64)),
                **pool_truth(pred, labels))
    return dict(scores=scores, predictions=pred, labels=labels, name=name, meta=meta)


def list_families() -> dict[str, list[str]]:
    """The cell names of each family: ``{"dev": [...], "fresh": [...], "fresh2": [...]}``."""
    return {"dev": [kw["name"] for _, kw in DEV_FAMILY],
            "fresh": [kw["name"] for _, kw in FRESH_FAMILY],
            "fresh2": [kw["name"] for _, kw in FRESH2_FAMILY],
            "fresh3": [kw["name"] for _, kw in FRESH3_FAMILY],
            "fresh4": [kw["name"] for _, kw in FRESH4_FAMILY],
            "real": [kw["name"] for _, kw in REAL_FAMILY]}


def cells(which: str | list[str]) -> list[tuple[str, dict[str, Any]]]:
    """A family of :data:`FAMILY_NAMES` (``"all"``: the development and first fresh
    families; ``"real"``: the published pools) or a list of cell names -> their
    ``(family, kwargs)``."""
    every = DEV_FAMILY + FRESH_FAMILY
    if isinstance(which, str) and which in FAMILY_NAMES:
        return {"dev": DEV_FAMILY, "fresh": FRESH_FAMILY, "fresh2": FRESH2_FAMILY,
                "fresh3": FRESH3_FAMILY, "fresh4": FRESH4_FAMILY, "real": REAL_FAMILY,
                "all": every}[which]
    names = [which] if isinstance(which, str) else list(which)
    known = {kw["name"]: (fam, kw)
             for fam, kw in every + FRESH2_FAMILY + FRESH3_FAMILY + FRESH4_FAMILY
             + REAL_FAMILY + SCORED_POOLS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown pool cells {unknown}; known: {sorted(known)}")
    return [known[n] for n in names]


FAMILY_NAMES = ("dev", "fresh", "fresh2", "fresh3", "fresh4", "real", "all")


def seeded_pools(which: str, reps: int, seed: int):
    """Each pool of ``which`` (a family name or comma-separated cell names) with the
    seeds of its runs: ``reps`` children of ``SeedSequence([seed, cell_seed(name)])``
    (``reps // 5``, at least 10, for pools of ``LARGE`` items or more). Prints each pool."""
    for cell in cells(which if which in FAMILY_NAMES else which.split(",")):
        pool = build_cell(cell)
        if pool is None:
            continue
        print(describe(pool), flush=True)
        n = reps if pool["labels"].size < LARGE else max(reps // 5, 10)
        yield pool, np.random.SeedSequence([seed, cell_seed(pool["name"])]).spawn(n)


def runs_parser(doc: str, families: str, reps: int):
    """The options every pool-family benchmark takes."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--families", default=families,
                    help=f"{', '.join(FAMILY_NAMES)} or comma-separated cell names")
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--labels", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None, help="tag of the results files")
    ap.add_argument("--summarise", nargs="+", default=None, metavar="RAW",
                    help="re-read raw files instead of running")
    return ap


def default_run(pool: dict[str, Any], seed, n_labels: int):
    """``es.active_evaluate`` with default arguments on ``pool`` (warnings silenced)."""
    import warnings

    import evalstats as es

    lab = pool["labels"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return es.active_evaluate(pool["scores"], lambda i: lab[i], n_labels=n_labels,
                                  predictions=pool["predictions"],
                                  rng=np.random.default_rng(seed), progress=False)


def raw_rows(args, results, stem: str, run, suffix: str = ".csv"):
    """The raw rows of a pool-family benchmark: re-read (``--summarise``) or run now
    (``run(families, reps, labels, path, seed)``, writing ``<stem>_<tag>_raw<suffix>``);
    with the tag of the results files."""
    import pandas as pd

    tag = args.out or args.families
    results.mkdir(exist_ok=True)
    if args.summarise:
        return pd.concat([pd.read_csv(f) for f in args.summarise]), tag
    path = results / f"{stem}_{tag}_raw{suffix}"
    out = run(args.families, args.reps, args.labels, path, args.seed)
    return (pd.read_csv(path) if out is None else out), tag


def cell_seed(name: str) -> int:
    """The fixed seed of a cell's pool (CRC-32 of its name)."""
    return zlib.crc32(name.encode())


def build_cell(cell: tuple[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The pool of one ``(family, kwargs)`` cell, from its fixed seed (a real pool as
    published; None where its dataset is absent)."""
    family, kw = cell
    if family == "real":
        return real_pool(**kw)
    if family == "scored":
        return scored_pool(**kw)
    return make_pool(family, rng=cell_seed(kw["name"]), **kw)


# -- true laws -----------------------------------------------------------------------------------

def _mean_logit_normal(mu: float, spread: float) -> float:
    """``E σ(μ + spread·Z)`` by adaptive quadrature, split where the logistic turns."""
    def f(z):
        return special.expit(mu + spread * z) * stats.norm.pdf(z)
    return integrate.quad(f, -14, 14, points=[float(np.clip(-mu / spread, -13, 13))],
                          epsabs=1e-15, epsrel=1e-11, limit=200)[0]


def _mean_logit_t(mu: float, spread: float) -> float:
    """``E σ(μ + spread·T)``, ``T ~ t(T_DF)``, by adaptive quadrature on both half-lines."""
    def f(z):
        return special.expit(mu + spread * z) * stats.t.pdf(z, T_DF)
    c = -mu / spread
    kw = dict(epsabs=1e-15, epsrel=1e-11, limit=200)
    return integrate.quad(f, -np.inf, c, **kw)[0] + integrate.quad(f, c, np.inf, **kw)[0]


def _solve_mu(target: float, spread: float, mean=_mean_logit_normal) -> float:
    """``μ`` with ``mean(μ, spread) = target`` (default: ``E σ(μ + spread·Z)``)."""
    return optimize.brentq(lambda m: mean(m, spread) - target, -60, 60, xtol=1e-12)


class _Law:
    """Draws true probabilities of one law in chunks (mean exactly ``prevalence``)."""

    def __init__(self, law: str, prevalence: float, spread: float) -> None:
        if law not in LAWS:
            raise ValueError(f"`law` must be one of {LAWS}; got {law!r}")
        self.law, self.prevalence, self.spread = law, prevalence, spread
        if law == "logit_normal":
            self.mu = _solve_mu(prevalence, spread)
        elif law == "logit_t":
            self.mu = _solve_mu(prevalence, spread, _mean_logit_t)
        elif law == "two_group":
            rest = prevalence - prevalence * _mean_logit_normal(1.0, spread)
            self.mu = _solve_mu(rest / (1 - prevalence), spread)

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        if self.law == "beta":
            k = self.spread
            return rng.beta(self.prevalence * k, (1 - self.prevalence) * k, n)
        if self.law == "logit_t":
            return special.expit(self.mu + self.spread * rng.standard_t(T_DF, n))
        z = rng.standard_normal(n)
        if self.law == "logit_normal":
            return special.expit(self.mu + self.spread * z)
        high = rng.random(n) < self.prevalence
        return special.expit(np.where(high, 1.0, self.mu) + self.spread * z)


# -- score maps ----------------------------------------------------------------------------------

def _logit(p: np.ndarray) -> np.ndarray:
    return special.logit(np.clip(p, 1e-300, 1 - 1e-16))


def _distort(p: np.ndarray, kind: str, knee: float) -> np.ndarray:
    """The ``distorted`` member's score map (outside the logistic family)."""
    ell = _logit(p)
    if kind == "fold":
        return special.expit(np.where(ell > knee, 2 * knee - ell, ell))
    if kind == "wiggle":
        return special.expit(ell + 1.5 * np.sin(ell))
    if kind == "quantized":
        return (np.minimum(np.floor(p * 10), 9) + 0.5) / 10
    if kind == "plateau":
        return np.where(np.abs(ell) <= 2, 0.5, p)
    if kind == "probit":
        return special.ndtr(ell)
    if kind == "cloglog":
        return -np.expm1(-np.exp(np.minimum(ell, 50)))
    if kind == "steps":
        return special.expit(2.0 * np.round(ell / 2.0))
    raise ValueError(f"`kind` must be one of {DISTORTIONS}; got {kind!r}")


def _score_map(family: str, kw: dict[str, Any]):
    """A function ``p -> scores`` of an element-wise member (``None`` for the others)."""
    if family in ("calibrated", "segment", "blind_spot"):
        return lambda p: p
    if family == "logistic":
        a, b = float(kw.get("a", 1.0)), float(kw.get("b", 0.0))
        return lambda p: special.expit(a * _logit(p) + b)
    if family == "distorted":
        kind, knee = kw.get("kind", "fold"), float(kw.get("knee", 2.0))
        _distort(np.array([0.5]), kind, knee)                  # validates kind early
        return lambda p: _distort(p, kind, knee)
    if family == "margins":
        kind, scale = kw.get("kind", "linear"), float(kw.get("scale", 0.4))
        if kind == "linear":
            return lambda p: scale * _logit(p)
        if kind == "saturating":
            return lambda p: scale * np.tanh(_logit(p) / scale)
        raise ValueError(f"`kind` must be 'linear' or 'saturating'; got {kind!r}")
    raise ValueError(f"`family` must be one of {FAMILIES}; got {family!r}")


# -- the generator -------------------------------------------------------------------------------

def _draw_pool(law: _Law, score_of, n: int, rng: np.random.Generator, dtype, clip: bool):
    """Scores, labels and the expected positive count ``Σ p``, generated in chunks."""
    scores = np.empty(n, dtype=dtype)
    labels = np.empty(n, dtype=np.int8)
    expected = 0.0
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        p = law.draw(m, rng)
        labels[start:start + m] = rng.random(m) < p
        s = score_of(p)
        scores[start:start + m] = np.clip(s, CLIP, 1 - CLIP) if clip else s
        expected += float(p.sum())
    return scores, labels, expected


def _hide(scores: np.ndarray, labels: np.ndarray, k: int, shape: str,
          rng: np.random.Generator) -> np.ndarray:
    """Make ``k`` random items positives hidden at low scores (``shape``); their positions."""
    idx = np.sort(rng.choice(scores.size, size=k, replace=False))
    if shape == "tied":
        scores[idx] = BLIND_TIED
    elif shape in BLIND_SHAPES:
        lo, hi = (special.logit(v) for v in BLIND_SHAPES[shape])
        scores[idx] = special.expit(rng.uniform(lo, hi, size=k))
    else:
        raise ValueError(f"`shape` must be one of {sorted(BLIND_SHAPES) + ['tied']}; "
                         f"got {shape!r}")
    labels[idx] = 1
    return idx


def _segment(scores: np.ndarray, share: float, kind: str, prevalence: float,
             rng: np.random.Generator) -> int:
    """Give a random sub-population of share ``share`` uninformative scores; its size."""
    idx = np.flatnonzero(rng.random(scores.size) < share)
    if kind == "shuffled":
        scores[idx] = scores[rng.permutation(idx)]
    elif kind == "constant":
        scores[idx] = prevalence
    else:
        raise ValueError(f"`kind` must be 'shuffled' or 'constant'; got {kind!r}")
    return idx.size


def _predict(scores: np.ndarray, family: str, threshold: float | None, top_k: float | None,
             prevalence: float, rng: np.random.Generator) -> tuple[np.ndarray, str]:
    """0/1 predictions by the stated rule, and the rule in words."""
    if top_k is not None:
        k = min(scores.size, max(1, round(top_k * prevalence * scores.size)))
        tiebreak = rng.permutation(scores.size)
        order = np.lexsort((tiebreak, -scores.astype(np.float64)))
        pred = np.zeros(scores.size, dtype=np.int8)
        pred[order[:k]] = 1
        return pred, f"top {k} scores ({top_k:g} x expected positives)"
    t = 0.0 if family == "margins" else (0.5 if threshold is None else float(threshold))
    return (scores > t).astype(np.int8), f"score > {t:g}"


def _check(n_items: int, prevalence: float, kw: dict[str, Any]) -> None:
    if not isinstance(n_items, (int, np.integer)) or n_items < 100:
        raise ValueError(f"`n_items` must be an integer >= 100; got {n_items!r}")
    if not 0 < prevalence < 0.5:
        raise ValueError(f"`prevalence` must lie in (0, 0.5); got {prevalence!r}")
    if kw.get("threshold") is not None and kw.get("top_k") is not None:
        raise ValueError("give `threshold` or `top_k`, not both")


def make_pool(family: str, *, n_items: int, prevalence: float,
              rng: None | int | np.random.Generator, name: str | None = None,
              law: str = "logit_normal", spread: float = 2.0, threshold: float | None = None,
              top_k: float | None = None, **kw: Any) -> dict[str, Any]:
    """One pool of a family member (see the module docstring for members and parameters).

    Returns ``{"scores", "predictions", "labels", "name", "meta"}``: scores as the user's
    model shows them (float64, float32 from ``LARGE`` items), int8 0/1 predictions and labels,
    and ``meta`` with the parameters, the prediction rule, ``expected_positives`` (``Σ p``),
    ``n_positives``, ``n_hidden`` (blind spots) and the pool's true ``tp``/``fp``/``fn``/``tn``
    with ``f1``, ``precision``, ``recall`` and ``accuracy``.
    """
    _check(n_items, prevalence, dict(kw, threshold=threshold, top_k=top_k))
    gen = np.random.default_rng(rng)
    n_hidden = round(float(kw.get("hidden_share", 0.0)) * n_items) if family == "blind_spot" else 0
    if n_hidden and n_hidden >= prevalence * n_items:
        raise ValueError("`hidden_share` must be below `prevalence`")
    base = (prevalence * n_items - n_hidden) / (n_items - n_hidden)
    dtype = np.float32 if n_items >= LARGE else np.float64
    scores, labels, expected = _draw_pool(_Law(law, base, spread), _score_map(family, kw),
                                          n_items, gen, dtype, clip=family != "margins")
    meta = dict(family=family, law=law, spread=spread, prevalence=prevalence, **kw)
    if family == "blind_spot":
        # the hidden items replace random draws of the base law: their expected share
        # of the base law's positives is removed from Σ p
        idx = _hide(scores, labels, n_hidden, kw.get("shape", "uniform"), gen)
        expected = expected * (n_items - n_hidden) / n_items + n_hidden
        meta.update(n_hidden=n_hidden, hidden_ids=idx)
    if family == "segment":
        meta["n_segment"] = _segment(scores, float(kw.get("share", 0.2)),
                                     kw.get("kind", "shuffled"), prevalence, gen)
    pred, rule = _predict(scores, family, threshold, top_k, prevalence, gen)
    meta.update(rule=rule, expected_positives=expected, n_positives=int(labels.sum(dtype=np.int64)),
                **pool_truth(pred, labels))
    return dict(scores=scores, predictions=pred, labels=labels,
                name=name or f"{family}_{n_items}_{prevalence:g}", meta=meta)


def pool_truth(predictions: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """The pool's confusion counts and F1, precision, recall and accuracy (NaN where a
    denominator is 0)."""
    f, y = predictions.astype(bool), labels.astype(bool)
    tp, fp = int(np.sum(f & y)), int(np.sum(f & ~y))
    fn = int(np.sum(~f & y))
    tn = f.size - tp - fp - fn
    nan = float("nan")
    return dict(tp=tp, fp=fp, fn=fn, tn=tn,
                f1=2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else nan,
                precision=tp / (tp + fp) if tp + fp else nan,
                recall=tp / (tp + fn) if tp + fn else nan, accuracy=(tp + tn) / f.size)


def describe(pool: dict[str, Any]) -> str:
    """One line: name, size, positives, predicted positives and true F1."""
    m = pool["meta"]
    return (f"{pool['name']}: {pool['labels'].size:,} items, {m['n_positives']:,} positives "
            f"({m['n_positives'] / pool['labels'].size:.3%}), {m['tp'] + m['fp']:,} predicted "
            f"positive ({m['rule']}), F1 {m['f1']:.4f}")
