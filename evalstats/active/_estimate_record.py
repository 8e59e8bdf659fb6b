"""The per-measure estimate record both designs' samples return: one typed, frozen shape."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["RatioEstimate"]

_NAN = float("nan")


@dataclass(frozen=True)
class RatioEstimate:
    """One measure ``G = A/B`` of one model estimated from a labeled sample.

    Every design fills the first block; the successive (πps) design also fills the
    ingredients of its score interval (:func:`~._aipw.score_interval`), which stay at
    their defaults with replacement.

    Attributes
    ----------
    estimate, std_error : float
        ``Ĝ`` and its standard error (NaN where undefined).
    defined : bool
        Whether the estimated denominator is positive.
    n_draws : int
        Random draws the estimate uses (with replacement, repeats included).
    ess : float
        Effective sample size (``Ĝ(1 − Ĝ)/SE²`` for πps, Kish's for with replacement;
        infinite for a census).
    zero_width : bool
        Defined with a zero standard error.
    max_weight_share : float
        Largest single weight share.
    census : bool
        Every pool item is labeled: the value is exact.
    reason : str
        Why the estimate is undefined ("" when defined).
    std_error_realised, std_error_model : float
        πps: the standard errors from the realised and from the model-expected variance.
    variance : str
        πps: the variance ``std_error`` uses (one of ``_aipw.VARIANCES``; "" otherwise).
    A, B, a : ndarray or None
        πps: per-draw linear parts ``A_t``, ``B_t`` and the weights ``a_t``.
    a_hat, b_hat : float
        πps: ``Â = Σ a_t A_t`` and ``B̂ = Σ a_t B_t``.
    W : tuple of float
        πps: ``Σ a_t² w_t`` of the two group totals (NaN where unknown).
    coef : tuple
        πps: ``((a₁, a₀, a_c), (b₁, b₀, b_c))`` of :func:`~._aipw.ratio_coefficients`.
    projected : bool
        πps: a group total's estimate fell outside the values the labels allow and was
        set to the nearest one (:func:`~._aipw.projected_totals`).
    """

    estimate: float
    std_error: float
    defined: bool
    n_draws: int
    ess: float = _NAN
    zero_width: bool = False
    max_weight_share: float = _NAN
    census: bool = False
    reason: str = ""
    std_error_realised: float = _NAN
    std_error_model: float = _NAN
    variance: str = ""
    A: np.ndarray | None = None  # noqa: N815 (the formulas' names)
    B: np.ndarray | None = None  # noqa: N815
    a: np.ndarray | None = None
    a_hat: float = _NAN
    b_hat: float = _NAN
    W: tuple[float, float] = (_NAN, _NAN)  # noqa: N815
    coef: tuple = ()
    projected: bool = False
