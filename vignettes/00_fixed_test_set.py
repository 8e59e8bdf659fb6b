# %% [markdown]
# # A fixed test set: binomial and t intervals
#
# The simplest honest statement about a *fitted* classifier (Fuchs 2014, slides 4-8):
# on n independent test cases the number of errors is Binomial(n, θ), so an exact
# (Clopper–Pearson) interval is R's `binom.test`; a mean of per-case losses gets a
# t interval, as R's `t.test`. Data: the bundled `digits_pool` (out-of-fold
# logistic-regression probabilities on scikit-learn's digits).

# %%
import os
from pathlib import Path

import numpy as np

import evalstats as es

OUT = Path(os.environ.get("EVALSTATS_VIGNETTE_OUT", "."))
pool = es.datasets.load("digits_pool")
y, pred = pool["label"].to_numpy(), pool["pred"].to_numpy()

# %%
err = es.error_ci(y, pred, method="exact")
print(err.summary())
print("Clopper-Pearson (exact):", err.conf_int())
print("Wilson:                 ", err.conf_int(method="wilson"))
print("Clopper-Pearson at 99%: ", err.conf_int(0.99))

# %% [markdown]
# The plot shows the binomial likelihood of the error rate with the interval shaded.

# %%
err.plot()

# %% [markdown]
# The log loss of each case is a bounded-below, skewed quantity; with n = 1797 the
# t interval is fine.

# %%
probs = pool[[f"prob_{j}" for j in range(10)]].to_numpy()
loss = es.loss_ci(-np.log(np.clip(probs[np.arange(len(y)), y], 1e-15, 1)))
print(loss.summary())

# %% [markdown]
# Both results go into one report with their plots.

# %%
es.report([err, loss], title="Digits: fixed test set", path=OUT / "fixed_test_set.html")
