"""Score matrices for extrapolation examples (vignette, benchmark, tests): Omniglot 1-NN."""

from __future__ import annotations

import numpy as np


def nearest_neighbour_scores(X_gallery: np.ndarray, y_gallery: np.ndarray,
                             X_query: np.ndarray, n_classes: int) -> np.ndarray:
    """Marginal 1-NN scores: minus the smallest squared distance to each class's gallery.

    Each column depends only on that class's gallery images, so the classifier is marginal
    in the sense of Zheng et al. (adding classes adds columns, never changes old ones).
    """
    sq_q = (X_query**2).sum(axis=1)[:, None]
    sq_g = (X_gallery**2).sum(axis=1)[None, :]
    d2 = np.maximum(sq_q + sq_g - 2.0 * X_query @ X_gallery.T, 0.0)
    scores = np.full((len(X_query), n_classes), -np.inf)
    for c in range(n_classes):
        scores[:, c] = -d2[:, y_gallery == c].min(axis=1)
    return scores


def omniglot_scores(data: dict, gallery_drawers: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Pixel 1-NN on Omniglot (242 classes): drawers ``1..gallery_drawers`` form the gallery,
    the other drawers are queries. Returns ``(scores, labels)``."""
    drawer = data["meta"]["drawer"].to_numpy()
    y = np.asarray(data["y"], int)
    gal = drawer <= gallery_drawers
    scores = nearest_neighbour_scores(data["X"][gal], y[gal], data["X"][~gal], int(y.max()) + 1)
    return scores, y[~gal]
