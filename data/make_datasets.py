"""Generate the small datasets shipped inside evalstats (``evalstats/datasets/data``).

Run from the project root:  python data/make_datasets.py
Requires scikit-learn (for ``digits_pool`` only). Deterministic: fixed seeds.
Provenance and column descriptions: ``data/README.md``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

OUT = Path(__file__).resolve().parents[1] / "evalstats" / "datasets" / "data"


def make_sim_pool(seed: int = 20261121, n: int = 20_000) -> pd.DataFrame:
    """Imbalanced binary pool: true P(y=1|x) known, labels drawn from it."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    logit = -6.5 + 3.0 * x                       # prevalence about 3 %, F1 about 0.5
    prob = special.expit(logit)
    label = rng.binomial(1, prob)
    return pd.DataFrame({
        "id": np.arange(n),
        "prob": np.round(prob, 8),                            # calibrated
        "prob_overconfident": np.round(special.expit(2.0 * logit + 1.0), 8),
        "pred": (prob >= 0.35).astype(int),            # decision threshold 0.35
        "label": label,
    })


def _nn_truth(sigma: float, d: int, ks: np.ndarray, rng, n_mc: int = 200_000) -> np.ndarray:
    """E[u^(k-1)] for the 1-NN Gaussian model (class centres N(0, I_d), one training
    point per class, x | y ~ N(mu_y, sigma^2 I)). u = P(a random other class's training
    point is farther than the own one | test point), a noncentral chi-square tail."""
    mu = rng.standard_normal((n_mc, d))
    x_tr = mu + sigma * rng.standard_normal((n_mc, d))
    x_te = mu + sigma * rng.standard_normal((n_mc, d))
    d0 = np.sum((x_te - x_tr) ** 2, axis=1)
    v = 1.0 + sigma**2                            # other training points ~ N(0, v I)
    u = stats.ncx2.sf(d0 / v, d, np.sum(x_te**2, axis=1) / v)
    logu = np.log(np.clip(u, 1e-300, 1.0))
    return np.array([np.mean(np.exp((k - 1) * logu)) for k in ks])


def make_sim_multiclass(seed: int = 7, k1: int = 100, per_class: int = 3, d: int = 10,
                        sigma: float = 0.6):
    """Score matrix (negative squared distances) of a 1-NN classifier with one training
    point per class, plus the true expected accuracy curve."""
    rng = np.random.default_rng(seed)
    mu = rng.standard_normal((k1, d))
    x_tr = mu + sigma * rng.standard_normal((k1, d))
    y = np.repeat(np.arange(k1), per_class)
    x_te = mu[y] + sigma * rng.standard_normal((k1 * per_class, d))
    scores = -((x_te[:, None, :] - x_tr[None, :, :]) ** 2).sum(axis=2)
    df = pd.DataFrame(np.round(scores, 5), columns=[f"class_{j}" for j in range(k1)])
    df.insert(0, "label", y)
    ks = np.unique(np.round(np.geomspace(2, 10_000, 60)).astype(int))
    truth = pd.DataFrame({"k": ks, "accuracy": _nn_truth(sigma, d, ks, rng)})
    meta = dict(description=(
        "1-NN on a Gaussian model: class centres N(0, I_10), one training point and "
        f"{per_class} test points per class, x | y ~ N(mu_y, {sigma}^2 I). Scores are negative "
        "squared distances to each class's training point. `truth` is the expected accuracy "
        "on k random classes, E[u^(k-1)], by 200,000-draw Monte Carlo of the exact "
        "noncentral chi-square tail (Monte-Carlo s.e. < 0.002)."),
        k1=k1, per_class=per_class, d=d, sigma=sigma, seed=seed)
    return df, truth, meta


def make_digits_pool(seed: int = 0) -> pd.DataFrame:
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=5000))
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    proba = cross_val_predict(model, X, y, cv=cv, method="predict_proba")
    proba = np.round(proba, 6)
    proba /= proba.sum(axis=1, keepdims=True)
    df = pd.DataFrame(proba, columns=[f"prob_{j}" for j in range(10)])
    df.insert(0, "label", y)
    df["pred"] = proba.argmax(axis=1)
    return df


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    make_sim_pool().to_csv(OUT / "sim_pool.csv.gz", index=False)
    scores, truth, meta = make_sim_multiclass()
    scores.to_csv(OUT / "sim_multiclass_scores.csv.gz", index=False)
    truth.to_csv(OUT / "sim_multiclass_truth.csv", index=False, float_format="%.6f")
    (OUT / "sim_multiclass_meta.json").write_text(json.dumps(meta, indent=1))
    make_digits_pool().to_csv(OUT / "digits_pool.csv.gz", index=False, float_format="%.6g")
    for f in sorted(OUT.iterdir()):
        print(f"{f.name:36s} {f.stat().st_size / 1024:8.1f} KiB")


if __name__ == "__main__":
    main()
