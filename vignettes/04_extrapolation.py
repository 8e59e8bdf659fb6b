# %% [markdown]
# # Extrapolating multi-class accuracy to more classes
#
# A face-identification or OCR pilot sees k1 classes; the deployed system will see
# k2 >> k1. For a *marginal* classifier (each class's score depends on that class's own
# training data: 1-NN or nearest centroid on a fixed embedding) Zheng, Achanta & Benjamini
# (JMLR 2018) show that the expected accuracy on k random classes is
#
# $$\mathrm{AGA}_k = E[U^{*\,k-1}] = 1 - (k-1)\int_0^1 D(u)\,u^{k-2}\,du,$$
#
# with $U^*$ the chance that a random wrong class scores below the true one. For
# k <= k1 the curve has an unbiased estimate (`average_accuracy`); beyond k1 we fit a
# model of $D$ to that curve (`extrapolate_accuracy`).

# %%
import os
from pathlib import Path

import numpy as np
import pandas as pd

import evalstats as es
from evalstats.extrapolate import average_accuracy, extrapolate_accuracy
from evalstats.extrapolate.scores import nearest_neighbour_scores, omniglot_scores

FAST = os.environ.get("EVALSTATS_VIGNETTE_FAST") == "1"
OUT = Path(os.environ.get("EVALSTATS_VIGNETTE_OUT", "."))
rng = np.random.default_rng(2026)

# %% [markdown]
# ## 1. The Gaussian simulation of the JMLR paper
# Class centres $\mu_y \sim N(0, I_{10})$, one training point per class,
# $x \mid y \sim N(\mu_y, \sigma^2 I)$, 1-NN (score = minus the squared distance to the
# class's training point). We observe k1 classes with 3 test points each.


# %%
def simulate(k, per_class, sigma, g, d=10):
    """Scores of the 1-NN rule on k freshly drawn classes (the model of data/make_datasets.py)."""
    mu = g.standard_normal((k, d))
    x_tr = mu + sigma * g.standard_normal((k, d))
    y = np.repeat(np.arange(k), per_class)
    x_te = mu[y] + sigma * g.standard_normal((k * per_class, d))
    return nearest_neighbour_scores(x_tr, np.arange(k), x_te, k), y


sigma, k1 = 0.6, (50 if FAST else 100)
scores, y = simulate(k1, 3, sigma, rng)
curve = average_accuracy(scores, y)              # unbiased ATA_k, k = 2..k1
print(curve.iloc[[0, 3, 8, -1]].to_string(index=False))

# %% [markdown]
# The truth for larger k, by brute force: draw k new classes, measure the 1-NN accuracy,
# average over replicates (it does not use the theory above).

# %%
targets = [2 * k1, 4 * k1, 10 * k1]
n_rep = 4 if FAST else 20
truth = [np.mean([np.mean(np.argmax(s, 1) == yy)
                  for s, yy in (simulate(k, 3, sigma, rng) for _ in range(n_rep))])
         for k in targets]

fits = {m: extrapolate_accuracy(scores, y, method=m, k_target=targets, rng=1,
                                n_subsamples=10 if FAST else 40)
        for m in ["regression", "two_param", "polynomial", "pseudolikelihood", "hd", "kde",
                  "naive"]}
table = pd.DataFrame({"k": targets, "truth (simulated)": np.round(truth, 3)})
for m, f in fits.items():
    table[m] = f.predict(targets).accuracy.round(3).to_numpy()
print(table.to_string(index=False))

# %% [markdown]
# The default, `"regression"`, is the authors' ClassExReg: $\Phi^{-1}(U^*)$ a non-negative
# mixture of normals of width $h$ (plus a share of test points recognised at every k),
# fitted by non-negative least squares to the unbiased curve; $h$ is weighted by a
# back-test that fits half of the classes and predicts the observed k1-class accuracy.
# `"two_param"` is the two-parameter family of the JMLR paper's last section,
# $\Phi^{-1}(U^*) \sim N(\mu, \tau^2)$; `"hd"` fixes $\tau = 1$.
# `"pseudolikelihood"` is the paper's model as the 2016 draft wrote it: $D(u)$ a monotone
# polynomial in $u$, fitted by the rank pseudolikelihood, its degree a multiple of the
# number of wrong classes chosen by the same back-test; `"polynomial"` is the package's
# extension, a polynomial in a probit-stretched $u$ with a roughness penalty.
# `benchmarks/README.md` compares them on a development family and on a fresh family of
# other class geometries, scorers and real data sets; the default was chosen there.
#
# The default fit, with its band combining half-samples of the classes with the spread
# over the bandwidths, and the back-test (fit on k1/2 classes, predict the observed k1
# accuracy):

# %%
print(fits["regression"].summary())

# %% [markdown]
# Class labels need not be column indices: give the class of each score column.

# %%
names = np.array([f"id{j:03d}" for j in range(k1)])
named = extrapolate_accuracy(scores, names[y], classes=names, method="hd", k_target=targets,
                             rng=1, n_subsamples=4)
assert named.estimate == extrapolate_accuracy(scores, y, method="hd", k_target=targets,
                                              rng=1, n_subsamples=4).estimate

# %% [markdown]
# ## 2. A real many-class problem: Omniglot (242 handwritten characters)
# Pixel 1-NN with drawers 1-5 as the gallery (marginal: a class's score uses only its own
# gallery). We pretend to know only 24 random classes, predict 48, 96 and 242 classes, and
# compare with the unbiased accuracy of all 242 classes.

# %%
results = [fits["regression"]]
if es.datasets.find_shared_datasets() is None:
    print("Shared datasets not found (../shared/datasets): skipping the Omniglot part.")
else:
    om_scores, om_y = omniglot_scores(es.datasets.load("omniglot"))
    full_truth = average_accuracy(om_scores, om_y, [48, 96, 242])
    cls = np.sort(rng.choice(242, 24, replace=False))
    rows = np.isin(om_y, cls)
    sub_s, sub_y = om_scores[np.ix_(rows, cls)], np.searchsorted(cls, om_y[rows])
    om_fit = extrapolate_accuracy(sub_s, sub_y, k_target=[48, 96, 242], rng=2,
                                  n_subsamples=10 if FAST else 40)
    pred = om_fit.predict([48, 96, 242])
    pred.insert(1, "truth (242 classes)", full_truth.round(3))
    print(pred.round(3).to_string(index=False))
    results.append(om_fit)

# %% [markdown]
# Caveats: keep k2/k1 below about 10 (a warning is raised beyond); accuracy near the
# resolution limit 1 - 1/(r k1) cannot be extrapolated; classifiers trained jointly on
# all classes (softmax networks, logistic regression) are *not* marginal and usually lose
# more accuracy than predicted.

# %%
es.report(results, title="Accuracy extrapolation", path=OUT / "extrapolation.html")
