# %% [markdown]
# # Active estimation of F1, precision and recall from few labels
#
# A deployed model scores a large unlabeled pool; every label costs money. Sawade et al.
# (ICML 2010, NIPS 2010) draw the items to label from a *variance-optimal* proposal and
# correct with importance weights. The default here keeps their sizes and makes the
# estimate design-based from end to end:
#
# * labels are bought in **batches** (100 at a time); before each batch a model of
#   `P(y=1|x)` is refitted on the earlier labels (a recalibration of the scores whose prior
#   says "the scores are calibrated");
# * items whose inclusion probability would be one are labeled **with certainty**; the rest
#   are drawn **one at a time without replacement** with probability proportional to
#   Sawade's size for the model's residual, mixed with a 10 % uniform share;
# * each draw gives an **AIPW** pseudo-outcome for every pool total (the labels seen, the
#   model's prediction for the items left, and the drawn item's residual over its draw
#   probability): its mean is the true total *exactly*, whatever the model — the model only
#   changes the variance; F1, precision, recall and accuracy are ratios of such totals;
# * the default interval inverts the **score statistic** of the ratio with the larger of
#   two variances of the martingale of draws (Hall & Heyde 1980, ch. 3): the *realised*
#   one (the spread of the residuals drawn so far, right whatever the model) and the
#   *predictable* one the batch model expects before each draw (right when the model is
#   calibrated, even for rare items no draw has reached yet) — conservative if either
#   holds, with no constant to tune; `interval="score_realised"` / `"score_model"` give
#   one alone, and `interval="anytime"` gives a **confidence sequence** that stays valid
#   when you stop labeling because the interval looks narrow enough.
#
# We compare, on real data:
#
# * **passive** (uniform) sampling vs the papers' **static F1 proposal** (with replacement)
#   vs the **default** on a skewed problem (letter one-vs-rest);
# * the same under **distribution shift** (Enron spam: train on mailboxes 1–3, evaluate on 4–6);
# * the **extremely imbalanced** `er_abt_buy` entity-resolution pool (0.09 % matches);
# * error against labels, the proposal over the model's log-odds, and interval coverage.
#
# The interval uses the delta-method variance of the ratio estimator; the variance printed
# in the NIPS paper drops a factor 1/E[w]² and would be far too narrow for precision,
# recall and F (see `tests/test_active_theory.py`).

# %%
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evalstats as es
from evalstats.active import active_budget, active_evaluate, optimal_proposal

FAST = os.environ.get("EVALSTATS_VIGNETTE_FAST") == "1"
OUT = Path(os.environ.get("EVALSTATS_VIGNETTE_OUT", "."))
REPS = 15 if FAST else 300
BUDGETS = (50, 100, 200) if FAST else (100, 200, 500, 1000)
HAVE_SHARED = es.datasets.find_shared_datasets() is not None
if not HAVE_SHARED:
    print("The shared datasets folder (../shared/datasets) was not found: "
          "this vignette falls back to the bundled simulated pool.")


def true_measures(pred, label):
    tp = np.sum((pred == 1) & (label == 1))
    fp = np.sum((pred == 1) & (label == 0))
    fn = np.sum((pred == 0) & (label == 1))
    return dict(f1=2 * tp / (2 * tp + fp + fn), precision=tp / max(tp + fp, 1),
                recall=tp / max(tp + fn, 1), accuracy=np.mean(pred == label))


def compare(name, prob, pred, label, reps=REPS, budgets=BUDGETS, seed=0):
    """RMSE and coverage of F1 (and precision, recall) for the three designs."""
    truth = true_measures(pred, label)
    rows = []
    designs = {"passive": dict(proposal="passive", measure="f1", design="with_replacement"),
               "papers' F1 proposal": dict(proposal="optimal", measure="f1",
                                           design="with_replacement"),
               "default (successive πps)": dict(measure="f1")}
    for r in range(reps):
        for design, kw in designs.items():
            for b in budgets:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = active_evaluate(prob, lambda i: label[i], b, predictions=pred,
                                          rng=seed + r, **kw)
                for _, m in res.measures().iterrows():
                    if m["measure"] not in ("f1", "precision", "recall"):
                        continue
                    t = truth[m["measure"]]
                    rows.append(dict(pool=name, design=design, budget=b, measure=m["measure"],
                                     err=m["estimate"] - t,
                                     covered=bool(m["conf_low"] <= t <= m["conf_high"]),
                                     width=m["conf_high"] - m["conf_low"]))
    df = pd.DataFrame(rows)
    out = df.groupby(["pool", "design", "budget", "measure"]).agg(
        rmse=("err", lambda e: float(np.sqrt(np.nanmean(e ** 2)))),
        undefined=("err", lambda e: int(np.isnan(e).sum())),
        coverage=("covered", "mean"), mean_width=("width", "mean")).reset_index()
    out["coverage_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / reps)
    return out, truth


def plot_rmse(table, title, ax):
    sub = table[table.measure == "f1"]
    for design, g in sub.groupby("design"):
        ax.plot(g["budget"], g["rmse"], "o-", label=design)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("distinct labels")
    ax.set_ylabel("RMSE of F1")
    ax.set_title(title)
    ax.legend(fontsize="small")


# %% [markdown]
# ## 1. A skewed problem: letter "A" against the rest
#
# A logistic regression is trained on the first half of UCI letter and scores the other
# half (about 4 % positives). The sizes for F1 concentrate on items whose label the model
# is unsure of and keep a 10 % uniform defensive share everywhere else.

# %%
if HAVE_SHARED:
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    letter = es.datasets.load("letter")
    x = letter.drop(columns="letter").to_numpy(float)
    y = (letter["letter"] == "A").to_numpy().astype(int)
    half = len(y) // 2
    scaler = StandardScaler().fit(x[:half])
    clf = LogisticRegression(max_iter=2000).fit(scaler.transform(x[:half]), y[:half])
    skew_prob = clf.predict_proba(scaler.transform(x[half:]))[:, 1]
    skew_label = y[half:]
    skew_name = "letter A vs rest"
else:
    sim = es.datasets.load("sim_pool")
    skew_prob, skew_label = sim["prob"].to_numpy(), sim["label"].to_numpy()
    skew_name = "simulated pool"
skew_pred = (skew_prob > 0.5).astype(int)
skew_table, skew_truth = compare(skew_name, skew_prob, skew_pred, skew_label)
print(skew_name, {k: round(float(v), 4) for k, v in skew_truth.items()})
print(skew_table.round(4).to_string(index=False))

# %% [markdown]
# The expected gain can be read off *before* labeling anything: the model-expected
# variance of the F1 estimator under the optimal proposal against uniform sampling.

# %%
plan = active_budget(skew_prob, "f1", predictions=skew_pred, half_width=0.05)
print(plan.summary())

# %% [markdown]
# ## 2. Distribution shift: Enron spam, trained on mailboxes 1–3, evaluated on 4–6
#
# The spam rate moves from about 27 % to 74 % and the ham comes from other employees: the
# model's probabilities are miscalibrated on the new mailboxes. The defensive share keeps
# the active estimator no worse than 1/ε times passive; between batches the default refits
# its model of p(y|x) on the labels, so later batches are drawn where the labels say the
# uncertainty is, and the estimated totals behind F1 stay unbiased whatever that model is.

# %%
if HAVE_SHARED:
    from sklearn.feature_extraction.text import HashingVectorizer

    enron = es.datasets.load("enron_spam")
    if FAST:
        enron = enron.groupby("user").sample(n=500, random_state=0)
    text = (enron["subject"].fillna("") + " " + enron["body"].fillna("").str[:3000])
    vec = HashingVectorizer(n_features=2 ** 18, alternate_sign=False, norm="l2")
    xt = vec.transform(text)
    train = enron["user"].isin(["enron1", "enron2", "enron3"]).to_numpy()
    spam = enron["is_spam"].to_numpy().astype(int)
    nb = LogisticRegression(max_iter=2000, C=10).fit(xt[train], spam[train])
    shift_prob = nb.predict_proba(xt[~train])[:, 1]
    shift_label = spam[~train]
    shift_name = "enron 1-3 -> 4-6"
else:
    shift_prob = sim["prob_overconfident"].to_numpy()
    shift_label = sim["label"].to_numpy()
    shift_name = "simulated, overconfident"
shift_pred = (shift_prob > 0.5).astype(int)
shift_table, shift_truth = compare(shift_name, shift_prob, shift_pred, shift_label,
                                   reps=max(REPS // 2, 10))
print(shift_name, {k: round(float(v), 4) for k, v in shift_truth.items()})
print(shift_table[shift_table.measure == "f1"].round(4).to_string(index=False))

# %%
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    recal = active_evaluate(shift_prob, lambda i: shift_label[i], BUDGETS[-1], "f1",
                            predictions=shift_pred, batch_size=BUDGETS[-1] // 5, rng=1)
print(recal.summary())

# %% [markdown]
# ## 3. Extreme imbalance: the Abt-Buy entity-resolution pool (0.09 % matches)
#
# Passive sampling mostly sees non-matches: with a few hundred labels, precision and recall
# are often *undefined* (no predicted or true match drawn). The F proposal draws the
# predicted and probable matches.

# %%
if HAVE_SHARED:
    er = es.datasets.load("er_abt_buy")
    er_prob, er_pred, er_label = (er["prob"].to_numpy(), er["pred"].to_numpy(),
                                  er["label"].to_numpy())
    er_name = "er_abt_buy"
    if FAST:                                   # keep every match, a subsample of the rest
        keep = (er_label == 1) | (er_pred == 1) | (
            np.random.default_rng(0).random(len(er_label)) < 0.3)
        er_prob, er_pred, er_label = er_prob[keep], er_pred[keep], er_label[keep]
else:
    er_prob, er_pred, er_label = skew_prob, skew_pred, skew_label
    er_name = skew_name + " (again)"
er_table, er_truth = compare(er_name, er_prob, er_pred, er_label, reps=max(REPS // 2, 10))
print(er_name, {k: round(float(v), 4) for k, v in er_truth.items()})
print(er_table.round(4).to_string(index=False))

# %% [markdown]
# ## 4. Error against labels, the proposal, and one run in detail
#
# On a pool this imbalanced the false negatives among the low scores are rare events: a
# few hundred labels usually draw none of them (the estimate is then a little high) and
# now and then draw one at a large weight (then much lower). The totals behind the
# estimate stay unbiased over the design — their mean is the truth — but their
# distribution is skewed; a draw whose weight would carry a total past what the labels
# allow (more positives than the group holds) is held at that bound, so no measure leaves
# [0, 1] and no run moves away from the truth by it. An interval
# that trusted only the spread of the labels it has seen would cover less than 95 % on
# such pools; the default also takes the spread the recalibrated model expects for the
# items not drawn yet, which covers them as long as the model is roughly right there.
# Where the model is wrong *and* the missed positives sit where no draw has reached, no
# fixed-size interval can cover (section 5). The confidence sequence of
# `interval="anytime"` does not rely on either: it is valid at any number of labels, but
# wide where errors could hide among items the model is sure of.

# %%
import matplotlib.pyplot as plt  # noqa: E402

fig, axes = plt.subplots(1, 3, figsize=(15, 4))
plot_rmse(skew_table, skew_name, axes[0])
plot_rmse(shift_table, shift_name, axes[1])
plot_rmse(er_table, er_name, axes[2])
fig.tight_layout()
fig.savefig(OUT / "active_rmse.png", dpi=80)

prop = optimal_proposal(er_prob, "f1", predictions=er_pred)
ax = prop.plot()
ax.figure.savefig(OUT / "active_proposal.png", dpi=80)
print(prop)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    one = active_evaluate(er_prob, lambda i: er_label[i], BUDGETS[-1], "f1",
                          predictions=er_pred, rng=7)
print(one.summary())
print("anytime-valid 95 % sequence at the end:", np.round(one.conf_int(method="anytime"), 3))
ax = one.plot()
ax.figure.savefig(OUT / "active_run.png", dpi=80, bbox_inches="tight")
plt.close("all")

# %% [markdown]
# ## 5. Coverage of the 95 % intervals, and labeling until the interval is narrow
#
# Undefined estimates count as misses. Coverage below 95 % is reported, not hidden. The
# default's fixed-size interval falls short where positives hide among items the model is
# sure are negative *and* the model under-counts them there: each of those items is
# drawn with a small probability, many runs draw none of their positives, the estimate
# is then a little high, and neither variance — the realised one, blind to residuals
# not drawn, nor the model's, which expects the model's count — sees the excess. The letter pool is such a case (printed below for the pool in use: the
# positives among the items scored below 0.01 against the model's expectation). The
# anytime sequence makes no such bet and covers, at a much larger width.
#
# Labeling "until the interval is narrower than w" is optional stopping: a fixed-size
# interval watched after every batch loses its coverage. `ActiveEvaluator.run(oracle,
# n_labels, half_width=w)` allows it only with `interval="anytime"`, whose coverage holds
# at the stopping time. That guarantee has a price: the sequence cannot rule out
# positives hiding among the items the model is sure of until the defensive share has
# drawn enough of them (the floor in the docstring of `evalstats.active._confseq`), so on
# the letter pool (10,000 items) it reaches a half-width of 0.15 only after a few
# thousand labels — far more than the fixed-size interval would need to *look* that
# narrow. (Fast mode stops at a small budget first.)

# %%
from evalstats.active import ActiveEvaluator  # noqa: E402

cap = BUDGETS[-1] if FAST else 3000
ev = ActiveEvaluator(skew_prob, "f1", predictions=skew_pred, interval="anytime", rng=3)
stopped = ev.run(lambda i: skew_label[i], cap, half_width=0.15, progress=False)
why = "the budget was reached" if stopped.n_labels >= cap else "the sequence was narrow enough"
print(stopped, "true F1", round(float(skew_truth["f1"]), 4))
print(f"stopped at {stopped.n_labels} labels: {why}")
print(stopped.running().round(3).tail(5).to_string(index=False))

# %%
low = skew_prob < 0.01
print(f"{skew_name}: {int(low.sum())} items scored below 0.01 hold "
      f"{int(skew_label[low].sum())} positives; the scores expect {skew_prob[low].sum():.1f}")
cov = pd.concat([skew_table, shift_table, er_table])
print(cov.pivot_table(index=["pool", "design", "measure"], columns="budget",
                      values="coverage").round(3).to_string())
cov.to_csv(OUT / "active_vignette_summary.csv", index=False)
es.report([one, prop, plan, recal], title="Active estimation", path=OUT / "active.html")
