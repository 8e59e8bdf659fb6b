"""Performance measures as generalized risks ``G = E[w·ℓ] / E[w]`` (Sawade et al., NIPS 2010).

Every measure is a pair (loss ``ℓ(f, y)``, weight ``w(f, y)``) of the prediction ``f`` and
the true label ``y``:

=============  =========================  ==================================
measure        ℓ(f, y)                    w(f, y)
=============  =========================  ==================================
accuracy       1[f = y]                   1
error          1[f ≠ y]                   1  (zero-one risk)
F_α            1[f = y]                   α·f + (1 − α)·y   (binary 0/1)
squared        (f − y)²                   1
=============  =========================  ==================================

F_α is precision for α = 1, recall for α = 0 and F1 for α = ½; F_β is α = 1/(1 + β²).
(The NIPS paper's "F₁" is α = 1, i.e. precision; here ``"f1"`` always means α = ½.)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import check_option, check_scalar, fail

MEASURES = ("f1", "precision", "recall", "fbeta", "accuracy", "error", "squared")


@dataclass(frozen=True)
class MeasureSpec:
    """A named generalized risk: ``kind`` in {"f", "accuracy", "error", "squared"}."""

    name: str
    kind: str
    alpha: float | None = None

    @property
    def binary_only(self) -> bool:
        return self.kind == "f"

    def loss_weight(self, f: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-draw loss ``ℓ`` and weight ``w`` for predictions ``f`` and labels ``y``."""
        f = np.asarray(f, dtype=float)
        y = np.asarray(y, dtype=float)
        if self.kind == "squared":
            return (f - y) ** 2, np.ones_like(f)
        correct = (f == y).astype(float)
        if self.kind == "accuracy":
            return correct, np.ones_like(f)
        if self.kind == "error":
            return 1.0 - correct, np.ones_like(f)
        return correct, self.alpha * f + (1.0 - self.alpha) * y


def measure_spec(measure: str, beta: float = 1.0, alpha: float | None = None) -> MeasureSpec:
    """Validate ``measure`` (and ``beta``/``alpha``) and return its :class:`MeasureSpec`.

    ``alpha`` (in [0, 1]) overrides the F-type measures and names the term ``f_alpha=<α>``;
    ``beta`` other than 1 is for ``measure="fbeta"`` only (elsewhere it would be ignored).
    """
    check_option(measure, "measure", MEASURES)
    if measure != "fbeta" and not (isinstance(beta, numbers.Real) and beta == 1.0):
        raise fail("beta", "1 (the default) unless `measure` is 'fbeta'", value=beta,
                   remedy=f"`measure` is {measure!r}; use measure='fbeta' for F_beta.")
    if alpha is not None:
        alpha = check_scalar(alpha, "alpha", 0.0, 1.0)
        if measure not in ("f1", "fbeta", "precision", "recall"):
            raise fail("alpha", "None unless `measure` is an F-type measure",
                       value=alpha, remedy=f"`measure` is {measure!r}.")
        return MeasureSpec(f"f_alpha={alpha:g}", "f", alpha)
    if measure == "f1":
        return MeasureSpec("f1", "f", 0.5)
    if measure == "precision":
        return MeasureSpec("precision", "f", 1.0)
    if measure == "recall":
        return MeasureSpec("recall", "f", 0.0)
    if measure == "fbeta":
        beta = check_scalar(beta, "beta", 0.0, low_inclusive=False)
        return MeasureSpec(f"f_beta={beta:g}", "f", 1.0 / (1.0 + beta ** 2))
    return MeasureSpec(measure, measure)


def companion_specs(headline: MeasureSpec, binary: bool) -> list[MeasureSpec]:
    """The headline measure followed by every other measure a sample can estimate."""
    if headline.kind == "squared":
        return [headline]
    others = [MeasureSpec("accuracy", "accuracy")]
    if binary:
        others += [MeasureSpec("precision", "f", 1.0), MeasureSpec("recall", "f", 0.0),
                   MeasureSpec("f1", "f", 0.5)]
    return [headline] + [s for s in others if s.name != headline.name]
