# %% [markdown]
# # Planning a labeling budget for rules that do not exist yet
#
# Valizadegan, Amizadeh & Hauskrecht (SDM 2012) ask how to pick the examples to label in a
# pool S so that the precision (Pr), sensitivity (Se) and specificity (Sp) of *future*
# rules can be estimated when positives are rare. Their answer: label the minority class
# (retrieve positives with a surrogate classifier), and add "blind" negatives. This
# vignette reruns their experiment (Section 5) on UCI connect-4 (positive = "draw",
# 9.55 %; covtype is not available here) and compares what the bounds ask for with the
# labels actually needed.
#
# Set `EVALSTATS_VIGNETTE_FAST=1` for a small run (CI).

# %%
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from evalstats import datasets, report
from evalstats.budget import bernstein_bound, guided_sample, plan_labels, tradeoff
from evalstats.budget.simulation import (
    empirical_positives_needed,
    error_curve,
    labels_to_reach,
    random_rules,
    true_measures,
)

FAST = os.environ.get("EVALSTATS_VIGNETTE_FAST") == "1"
OUT = Path(os.environ.get("EVALSTATS_VIGNETTE_OUT", "."))
rng = np.random.default_rng(2012)
t0 = time.time()

if datasets.find_shared_datasets() is not None:
    df = datasets.load("connect4")
    y = (df["class"] == "draw").to_numpy().astype(int)
    X = pd.get_dummies(df.drop(columns="class")).to_numpy(np.float32)
    DATA = "UCI connect-4, positive = draw"
else:
    print("../shared/datasets not found: using a synthetic pool with 9.5 % positives instead.")
    X = rng.normal(size=(20_000, 6)).astype(np.float32)
    y = (X[:, 0] + 0.5 * X[:, 1] > 1.75).astype(int)
    DATA = "synthetic pool (shared datasets missing)"
if FAST:  # a random quarter of the pool keeps CI fast
    keep = rng.choice(len(y), size=len(y) // 4, replace=False)
    X, y = X[keep], y[keep]
N, eps_s = len(y), y.mean()
print(f"{DATA}: |S| = {N}, prevalence = {eps_s:.4f}")

# %% [markdown]
# ## 1. What the bounds ask for
#
# A plan for rules that flag 10 % of the pool, each measure to ±0.025 at 95 %, for 100
# rules at once (union bound). By default the guarantee holds for **any** rule of that
# size (informative classifiers included): labeled positives confine every rule's
# measures to a deterministic range, random labels give subset estimates whose worst case
# is planned for. `rules="random"` gives the paper's analysis (rules independent of the
# labels), listed for every bound (exact hypergeometric quantiles, exact Bernstein
# inversion, the paper's constant-4 form) in the appendix table.

# %%
plan = plan_labels(N, eps_s, 0.10, half_width=0.025, n_rules=100,
                   bounds=("exact", "bernstein", "bernstein_paper"))
print(plan.summary())
paper_plan = plan.replan(rules="random")
print(repr(paper_plan))
cols = ["rules", "measure", "bound", "strategy", "n_positive", "n_negative", "n_total"]
print(plan.table[cols].to_string(index=False))

# %% [markdown]
# The paper's equal-bound points (eqs 3.22, 3.25, 3.29) for the same problem. They are
# crossings of two bounds, not optima: under the exact model every measure's error falls
# as positives are labeled, as the plan's curves show.

# %%
print(tradeoff(eps_s, 0.10, n_pool=N, n_labels=2000).tidy()[
    ["pair", "prevalence_ratio", "eps_unlabeled", "n_positive"]])
one = bernstein_bound("specificity", n_pool=N, prevalence=eps_s, rule_rate=0.1,
                      variance="paper", bound="bernstein_paper")
exact = bernstein_bound("specificity", n_pool=N, prevalence=eps_s, rule_rate=0.1)
print(f"Sp half-width, no labels: paper variance + constant 4 = {one.half_width:.4f}, "
      f"exact hypergeometric + Bernstein = {exact.half_width:.4f}")

# %% [markdown]
# ## 2. Guided retrieval vs random sampling
#
# Guided: 100 random seeds, then a decision tree retrained each round proposes 5
# predicted-positive examples (as in the paper). Random: uniformly random labels.

# %%
N_LABELS = 300 if FAST else 2000
N_RANDOM = 1500 if FAST else 8000
N_SEEDS = 1 if FAST else 3
BATCH = 25 if FAST else 5
guided = [guided_sample(X, y, N_LABELS, n_seed=100, batch_size=BATCH, rng=s)
          for s in range(N_SEEDS)]
randoms = [guided_sample(X, y, N_RANDOM, strategy="random", rng=100 + s)
           for s in range(N_SEEDS)]
for g in guided:
    print(f"guided: {g.labels.sum()} positives in {N_LABELS} labels "
          f"(random would find ~{N_LABELS * eps_s:.0f})")

# %% [markdown]
# ## 3. Estimation error of Pr, Se, Sp for random rules
#
# For each rule size, random rules flag that many examples. The error is
# |measure on S − estimate|, averaged over rules and sampling seeds, for
#
# * `random/subset`: measures computed on the random labeled set (the paper's baseline);
# * `guided/subset`: measures computed on the guided labeled set as it is;
# * `guided/blind`: guided set plus blind negatives to restore the prevalence (eq 4.30);
# * `guided/plugin`: the plug-in means E(·) of eqs 3.4-3.10 with the prevalence known.

# %%
N_RULES = 20 if FAST else 100
RATES = (0.05, 0.15) if FAST else (0.05, 0.10, 0.15, 0.20, 0.30)
grid_g = np.unique(np.linspace(100, N_LABELS, 6 if FAST else 20).astype(int))
grid_r = np.unique(np.geomspace(100, N_RANDOM, 8 if FAST else 20).astype(int))
curves = []
for rate in RATES:
    rules = random_rules(N, int(rate * N), N_RULES, rng)
    for s in range(N_SEEDS):
        for est in ("subset", "blind", "plugin"):
            c = error_curve(y, rules, guided[s].indices, grid_g, est, rng)
            curves.append(c.assign(rule_rate=rate, seed=s, scheme=f"guided/{est}"))
        for est in ("subset", "plugin"):
            c = error_curve(y, rules, randoms[s].indices, grid_r, est, rng)
            curves.append(c.assign(rule_rate=rate, seed=s, scheme=f"random/{est}"))
curves = pd.concat(curves, ignore_index=True)
avg = curves.groupby(["scheme", "rule_rate", "measure", "n_labels"], as_index=False)[
    "mean_error"].mean()
at = avg[avg["n_labels"].isin([grid_g[-1], grid_r[-1]])]
print(at.pivot_table(index=["scheme", "n_labels"], columns=["measure", "rule_rate"],
                     values="mean_error").round(4).to_string())

# %%
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharey=True)
sub = avg[avg["rule_rate"] == RATES[0]]
for ax, m in zip(axes, ("precision", "sensitivity", "specificity"), strict=True):
    for scheme, d in sub[sub["measure"] == m].groupby("scheme"):
        ax.plot(d["n_labels"], d["mean_error"], marker=".", label=scheme)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(f"{m}, rule rate {RATES[0]:g}")
    ax.set_xlabel("labels")
axes[0].set_ylabel("mean |error| over rules")
axes[0].legend(fontsize="small")
fig.tight_layout()
fig.savefig(OUT / "budget_error_curves.png", dpi=90)

# %% [markdown]
# ## 4. Label reduction at equal error, and how tight each bound is
#
# Labels needed to bring the mean precision error of the smallest rules to 0.025 (the
# paper's headline), and for the plug-in estimator the positives actually needed so that
# 95 % of random rules (rate 0.05) are within ±0.005, next to what each bound asked for.

# %%
target = 0.025
rows = []
for rate in RATES:
    a = avg[avg["rule_rate"] == rate]
    n_rand = labels_to_reach(a[a["scheme"] == "random/subset"], "precision", target)
    for scheme in ("guided/subset", "guided/blind", "guided/plugin", "random/plugin"):
        n_g = labels_to_reach(a[a["scheme"] == scheme], "precision", target)
        rows.append(dict(rule_rate=rate, scheme=scheme, labels_guided=n_g,
                         labels_random=n_rand, reduction=1 - n_g / n_rand))
print(pd.DataFrame(rows).to_string(index=False))

h_tight = 0.005
k_grid = np.unique(np.linspace(0, int(y.sum()), 40 if FAST else 160).astype(int))
needed = empirical_positives_needed(y, 0.05, "precision", h_tight, 0.95, N_RULES * 2,
                                    k_grid, rng)
p5 = plan_labels(N, eps_s, 0.05, half_width=h_tight, measures=("precision",), rules="random")
tight = p5.table[(p5.table["strategy"] == "positives") & (p5.table["rules"] == "random")][
    ["bound", "n_positive"]]
print(f"positives actually needed (95% of rules within ±{h_tight}): {needed:g}")
print(tight.assign(ratio_to_needed=tight["n_positive"] / max(needed, 1)).to_string(index=False))

# %% [markdown]
# ## 5. Design-based estimates with intervals, many rules at once
#
# Guided labels are not a probability sample. To get unbiased estimates *and* intervals
# from an enriched sample, fix a surrogate (here a tree fitted on half of the guided
# labels), stratify the pool by its prediction and sample each stratum at its own rate;
# `evaluate_rules` undoes the enrichment with Horvitz–Thompson weights. Coverage is
# checked over the random rules.

# %%
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from evalstats.budget import LabelDesign, evaluate_rules  # noqa: E402

seed_idx = guided[0].indices[:N_LABELS // 2]  # any fixed surrogate defines valid strata
tree = DecisionTreeClassifier(min_samples_leaf=5, class_weight="balanced", random_state=0)
tree.fit(X[seed_idx], y[seed_idx])
stratum = tree.predict(X)
sizes = {int(h): int((stratum == h).sum()) for h in np.unique(stratum)}
n_per = {h: min(sizes[h], 150 if FAST else 500) for h in sizes}
lab_idx = np.concatenate([rng.choice(np.flatnonzero(stratum == h), n_per[h], replace=False)
                          for h in sizes])
rules = random_rules(N, int(0.1 * N), N_RULES, rng)
ev = evaluate_rules(y[lab_idx], rules[lab_idx].astype(int),
                    LabelDesign.stratified(stratum[lab_idx], sizes))
td = ev.tidy()
truth = dict(zip(("precision", "recall", "specificity"), true_measures(y, rules),
                 strict=True))
td["truth"] = [truth[m][int(r.split("_")[1])] for r, m in zip(td["rule"], td["measure"],
                                                              strict=True)]
td["covered"] = (td["conf_low"] <= td["truth"]) & (td["truth"] <= td["conf_high"])
print(f"{len(lab_idx)} labels, strata sizes {sizes}, labels per stratum {n_per}")
print(td.groupby("measure")[["covered"]].mean().rename(columns={"covered": "coverage"}))

# %% [markdown]
# ## What holds and what does not
#
# * **Random-rule plans are not guarantees for real classifiers.** The paper's analysis
#   (and `rules="random"`) assumes predictions independent of the labels; the plug-in
#   means then shrink an informative rule's unlabeled part toward the prevalence, and a
#   0-label random-rule plan can be off by several times the target for thresholds of a
#   real classifier (`benchmarks/budget_label_reduction.py`, informative-rule coverage).
#   The default plan (`rules="any"`) covers every rule of the given size.
#
# Numbers below are from the full run of 2026-11-23 (connect-4, 3 seeds, 100 rules per
# rule rate, 2,000 guided and 8,000 random labels, 16 min on one core); the fast run only
# shows the same pattern.
#
# * **Guided retrieval finds positives** (Figure 4 of the paper), but less strongly than
#   on covtype: 316-350 positives in 2,000 labels vs 191 expected at random (×1.7-1.8).
# * **The subset estimator on a guided sample is biased** for random rules: precision on
#   an enriched labeled set estimates the enriched positive rate, not the pool's; its mean
#   error stays at ~0.068 for every rule size and never reaches 0.025. The paper's
#   headline (~95 % fewer labels for 0.025 precision error) does **not** reproduce with it.
# * **Blind labeling (eq 4.30) removes most of that bias**: guided + blind reaches 0.025
#   with 37-60 % fewer labels than random sampling (200-1,100 vs 502-2,004 labels).
# * **The plug-in means of Section 3 (prevalence known) meet 0.025 at the first grid point
#   (100 labels) whatever the sampling**: random + plug-in gives exactly the same
#   "reduction" (80-95 %) as guided + plug-in, and the mean errors agree (0.0036 vs
#   0.0037 for rules of rate 0.05). The paper's ~95 % then measures the knowledge of the
#   prevalence, not the sampling scheme (the notes' sanity flag); the benchmark finds the
#   same on letter-A.
# * **Design-based estimates work on an enriched sample**: with 500 labels from each
#   stratum of a fixed tree surrogate (15 % of the pool predicted positive), the 95 %
#   intervals of `evaluate_rules` covered the truth for 98 % / 96 % / 92 % of the 100
#   rules (Pr / Se / Sp; SE ≈ 2.2 %, one shared sample, so not independent replications;
#   `tests/test_budget_estimates.py` has a seeded 400-replication coverage check).
# * **Specificity is cheap** under skew: its denominator |S_O−| is large, and every bound
#   meets ±0.025 with no labels. The paper's Sp variance (eq 3.11, n = |U_R−|) overstates
#   it (constant-4 half-width 0.0046 vs 0.0010 for exact Bernstein here).
# * **Bounds vs need**: for ±0.005 on precision (rules of rate 0.05) 4,786 positives were
#   actually needed; the exact hypergeometric plan asked for 4,942 (×1.03), exact
#   Bernstein inversion 5,746 (×1.20) and the paper's constant-4 form 6,060 (×1.27). The
#   ratios grow where few labels are needed (up to ×9-12 for the Bernstein forms in
#   `benchmarks/budget_label_reduction.py`). Blind labeling adds many negatives whose
#   expected mislabel count |B|·ε_O+(U) is *not* small unless ε_O+(U) is (plan table).

# %%
report([plan, guided[0]], title="Budget planning on connect-4", path=OUT / "budget.html")
print(f"vignette finished in {time.time() - t0:.1f} s")
