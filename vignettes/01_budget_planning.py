# %% [markdown]
# # How many labels to buy to evaluate rules that do not exist yet
#
# A team will evaluate classifiers ("rules") that flag about 5 % of a pool, and wants the
# precision, recall and specificity of each to within ±0.02. Labels cost money. How many
# must be bought, and which ones?
#
# `plan_labels` answers in **labels to buy**: a plan that labels positives pays for the
# search that finds them, and a plan holds for *any* rule of the given size (informative
# classifiers included), for all requested measures at once. The pool here is UCI
# Statlog Shuttle (positive = class 5, 5.6 %), which played no part in choosing any of
# the planner's defaults; the last sections check the plans on it.
#
# Set `EVALSTATS_VIGNETTE_FAST=1` for a small run (CI).

# %%
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evalstats import datasets, report
from evalstats.budget import (
    LabelDesign,
    bernstein_bound,
    evaluate_rules,
    guided_sample,
    plan_labels,
)

FAST = os.environ.get("EVALSTATS_VIGNETTE_FAST") == "1"
OUT = Path(os.environ.get("EVALSTATS_VIGNETTE_OUT", "."))
rng = np.random.default_rng(2026)
t0 = time.time()

if datasets.find_shared_datasets() is not None:
    df = datasets.load("shuttle")
    y = (df["target"] == 5).to_numpy()
    X = df.drop(columns="target").to_numpy(float)
    DATA = "UCI Statlog Shuttle, positive = class 5"
else:
    print("../shared/datasets not found: using a synthetic pool with ~5.6 % positives.")
    X = rng.normal(size=(58_000, 4))
    y = rng.random(58_000) < 1 / (1 + np.exp(-(2.5 * X[:, 0] - 4.6)))
    DATA = "synthetic logistic pool (shared datasets missing)"
N = len(y)
RATE, H = 0.05, 0.02
print(f"{DATA}: a pool of {N:,} items, {y.sum():,} positives ({y.mean():.4f})")

# %% [markdown]
# ## 1. A pilot, and a plan in labels to buy
#
# Nobody knows the prevalence before labeling. A pilot of 1,000 random labels gives a count,
# and a model fitted on it gives scores for the whole pool.

# %%
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

pilot = rng.choice(N, 1_000, replace=False)
k0 = int(y[pilot].sum())
scaler = StandardScaler().fit(X[pilot])
model = LogisticRegression(max_iter=2_000).fit(scaler.transform(X[pilot]), y[pilot])
scores = model.predict_proba(scaler.transform(X))[:, 1]
print(f"pilot: {k0} positives in 1,000 labels")

plan = plan_labels(N, None, RATE, half_width=H, pilot=(k0, 1_000))
print(plan.summary())

# %% [markdown]
# The headline is the number of labels to buy. Labeling positives would need the pool's
# positive count to within a few dozen (the deterministic range of every rule is only as
# narrow as that count is known); the pilot leaves it uncertain by hundreds, so that plan
# is a census and random labels win. The guarantee is joint (Bonferroni over the measures
# that still need labels): `joint=False` gives each measure its own 95 %, and planning
# values (`expected=`, as statsmodels' `samplesize_confint_proportion` takes) give the
# plan for a measure expected far from 1/2, beside the worst case.

# %%
print(repr(plan.replan(joint=False)))
planning = plan.replan(expected={"precision": 0.9, "recall": 0.9})
print(planning.planning.to_string(index=False))

# %% [markdown]
# ## 2. When the positive count is known: searching in score order
#
# If the number of positives is known (say from a census count kept elsewhere), the
# deterministic plan needs only the labeled positives, and the pilot model's scores make
# them cheap to find. The search cost is computed from the scores as calibrated
# probabilities, given the known count (only their odds ratios matter then).

# %%
known = plan_labels(N, y.mean(), RATE, half_width=H, scores=scores)
print(repr(known))
cols = ["measure", "bound", "strategy", "n_positive", "n_total", "n_total_mean"]
print(known.table[cols].to_string(index=False))
blind = plan_labels(N, y.mean(), RATE, half_width=H)            # no scores: random search
print(repr(blind))

# %% [markdown]
# The plan's plot shows why labeling positives can pay: the half-width of each measure
# (one colour each) against the positives labeled. For any rule (solid) it is the
# deterministic range, which reaches the target only when most positives of the pool are
# labeled; for random rules (dashed and dotted, the paper's analysis) it starts below
# the target, which is why that analysis asks for so few labels.

# %%
known.plot();

# %% [markdown]
# ## 3. Checking the plans on this pool
#
# **Random labels.** Buy the planned labels at random many times; each time, every
# measure of an informative rule (the top 5 % of the pilot model's scores) must be within
# ±0.02 of its value on the whole pool, jointly (a measure pinned by the feasibility
# bounds is reported at the midpoint of its range).

# %%
REPS = 200 if FAST else 1000
rule = np.zeros(N, bool)
rule[np.argsort(-scores, kind="stable")[:round(RATE * N)]] = True
tp = (y & rule).sum()
truth = np.array([tp / rule.sum(), tp / y.sum(), (~y & ~rule).sum() / (~y).sum()])
n_buy = plan.n_total
names = ("precision", "recall", "specificity")
pinned = {}
for j, m in enumerate(names):
    lo, hi = bernstein_bound(m, n_pool=N, n_pool_positive=int(y.sum()),
                             n_rule_positive=int(rule.sum())).deterministic_range
    if (hi - lo) / 2 <= H:
        pinned[j] = (lo + hi) / 2
hits = np.zeros((REPS, 3), bool)
for i in range(REPS):
    idx = rng.choice(N, n_buy, replace=False)
    yl, rl = y[idx], rule[idx]
    est = np.array([(yl & rl).sum() / rl.sum(), (yl & rl).sum() / yl.sum(),
                    (~yl & ~rl).sum() / (~yl).sum()])
    for j, mid in pinned.items():
        est[j] = mid
    hits[i] = np.abs(est - truth) <= H
cov = hits.all(axis=1).mean()
print(f"{n_buy:,} random labels, {REPS} draws: all three measures within +/-{H} in "
      f"{cov:.3f} of draws (SE {np.sqrt(cov * (1 - cov) / REPS):.3f}); per measure "
      f"{np.round(hits.mean(axis=0), 3)}")

# %% [markdown]
# **Search in score order.** On this pool the labels the score-order search needs are
# fixed once the scores are: compare them with the forecast. And the random-order search
# (no scores) over many random orders.

# %%
k = known.n_positive if known.strategy == "positives" else int(
    known.table.query("bound == 'deterministic'")["n_positive"].max())
order = np.argsort(-scores, kind="stable")
need_scores = int(np.searchsorted(np.cumsum(y[order]), k) + 1)
det = known.table.query("bound == 'deterministic'")
print(f"score order: {need_scores:,} labels found the {k:,} positives; forecast "
      f"{int(det['n_total'].max()):,} (95 %), mean {det['n_total_mean'].max():,.0f}")
det_r = blind.table.query("bound == 'deterministic'")
need_random = [int(np.searchsorted(np.cumsum(y[rng.permutation(N)]), k) + 1)
               for _ in range(50 if FAST else 300)]
print(f"random order: {np.quantile(need_random, 0.95):,.0f} labels (95 %), mean "
      f"{np.mean(need_random):,.0f}; forecast {int(det_r['n_total'].max()):,} (95 %), "
      f"mean {det_r['n_total_mean'].max():,.0f}")

# %% [markdown]
# **Guided retrieval** (Valizadegan et al., Section 4: a tree refitted on the labels so
# far proposes the next batch) also finds positives, but adaptively: its cost is not
# forecast by the planner. Here is how many labels it took to find the same positives.

# %%
g_budget = min(N, 3 * k + 2_000) if FAST else N
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    g = guided_sample(X, y.astype(int), g_budget, n_seed=100, batch_size=50 if FAST else 25,
                      rng=1)
c = np.cumsum(g.labels)
found = int(np.searchsorted(c, k) + 1) if c[-1] >= k else None
print(f"guided_sample: {found if found else f'more than {g_budget:,}'} labels for {k:,} "
      "positives")

# %% [markdown]
# ## 4. The paper's random-rule analysis, and what it misses
#
# Valizadegan, Amizadeh & Hauskrecht (SDM 2012) analyse rules whose predictions are
# independent of the labels. For such rules the plug-in means are already within the
# target with few or no labels; for an informative classifier they are not, and the
# plan says so. `bernstein_bound` flags a rule whose hits on the labels are not those of
# a random rule and returns the deterministic range instead of its interval.

# %%
paper = blind.replan(rules="random", joint=False)
print(repr(paper))
for note in paper.notes[:1]:
    print(note)
pos_idx = np.flatnonzero(y)[:200]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    b = bernstein_bound("precision", n_pool=N, n_pool_positive=int(y.sum()),
                        n_rule_positive=int(rule.sum()), n_labeled_positive=200,
                        rule_hits_positive=int(rule[pos_idx].sum()))
print(repr(b), "random-rule model:", b.random_rule)

# %% [markdown]
# ## 5. Design-based estimates with intervals from an enriched sample
#
# Guided labels are not a probability sample. To get unbiased estimates *and* intervals
# from an enriched sample, fix a score first, stratify the pool by it and sample each
# stratum at its own rate; `evaluate_rules` undoes the enrichment (Horvitz-Thompson) for
# many rules at once. Its variance gives each (stratum, prediction) cell's label rate a
# Jeffreys prior, so a stratum whose sample missed rare labels still counts.

# %%
stratum = (scores > np.quantile(scores, 1 - 2 * y.mean())).astype(int)
sizes = {h: int((stratum == h).sum()) for h in (0, 1)}
n_h = {0: 200, 1: 100}
lab = np.concatenate([rng.choice(np.flatnonzero(stratum == h), n_h[h], replace=False)
                      for h in (0, 1)])
rules = {f"top {q:.0%}": scores >= np.quantile(scores, 1 - q) for q in (0.03, 0.05, 0.08)}
ev = evaluate_rules(y[lab].astype(int), {k_: r[lab].astype(int) for k_, r in rules.items()},
                    LabelDesign.stratified(stratum[lab], sizes))
td = ev.tidy()
true = {}
for name, r in rules.items():
    tp_r = (y & r).sum()
    true[name] = dict(precision=tp_r / r.sum(), recall=tp_r / y.sum(),
                      specificity=(~y & ~r).sum() / (~y).sum())
td["truth"] = [true[r][m] for r, m in zip(td["rule"], td["measure"], strict=True)]
print(td[["rule", "measure", "estimate", "conf_low", "conf_high", "truth"]].round(4)
      .to_string(index=False))

# %% [markdown]
# ## What to take away
#
# * **Count labels, not positives.** Finding positives costs the negatives met on the
#   way: about ``k / prevalence`` labels in random order, far fewer in the order of a good
#   pilot model's scores. The planner compares every way of buying labels on that scale.
# * **Know what the plan assumes.** Plans that label positives rest on the positive count
#   of the pool; an uncertain count (an interval, or a pilot) widens every range and often
#   makes random labels the cheaper plan. Score-order forecasts assume calibrated scores
#   (up to a shift of their logits); overconfident scores make them optimistic.
# * **Random-rule plans do not cover classifiers.** Use the default `rules="any"`.
# * **One guarantee for all measures.** The default level holds for all measures of all
#   rules at once; `joint=False` is per measure.

# %%
report([plan, known, ev], title="Labels to buy on Statlog Shuttle", path=OUT / "budget.html")
print(f"vignette finished in {time.time() - t0:.1f} s")
