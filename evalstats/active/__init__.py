r"""Active estimation of F-measures, precision, recall, accuracy and risks from few labels.

**The default method** (binary pools; ``design="pps"``). Labels are bought in batches
(100 per batch in :func:`active_evaluate`). Before batch ``k``, from labels of earlier
batches only:

1. *Model.* ``ĝ = expit(a + b·logit(score))``, ``(a, b)`` the posterior mode under
   ``a, b − 1 ~ N(0, 2.5²)`` — the scale of the default weakly informative logistic prior
   (Gelman et al. 2008), here normal and on the log-odds' own unit, centred on "the
   scores are calibrated"; before any label, the scores.
2. *Sizes.* ``s* = sqrt(ĝ(1 − ĝ))·|a_i − G̃ b_i|``, the root of the model-expected squared
   residual of the item's linearised influence on the measure ``G = A/B`` (Sawade et al.
   2010, Theorem 1, for the model-assisted residual), mixed with a uniform defensive share
   ``ε = 0.1``: the variance is then at most ``1/(1 − ε)`` times the optimum and ``1/ε``
   times passive sampling's, whatever the labels. ``π ∝ s*`` is the Godambe–Joshi
   allocation: if the model is calibrated, no design-unbiased estimate of the totals from
   ``n`` labels has a smaller anticipated variance (Godambe & Joshi 1965). Where many
   items each carry a small probability (rare positives among a large pool) that bound
   is large; an estimator whose error falls below it borrows from the model and is
   biased where the model is wrong.
3. *Certainty stratum.* Items whose capped inclusion ``min(1, c·s)`` (``Σ = n_k``) is 1
   are labeled with certainty (no variance), at most ``n_k − 1`` of them.
4. *Successive draws.* The rest one at a time, item ``i`` with ``q_t(i) = s_i/Σ_{R_t} s``
   among the items ``R_t`` not labeled yet (Rosén 1972); a batch's probabilities do not
   depend on its labels, so they are asked together.
5. *Estimator.* Every measure is ``A/B`` with ``A``, ``B`` linear in the positives of each
   prediction group. Draw ``t`` gives the AIPW pseudo-outcome of each total ``T``,
   ``X_t = Σ_{L_t} y + Σ_{R_t} ĝ + (y_x − ĝ_x)/q_t`` with ``E[X_t | past] = T`` exactly
   for any model (Farquhar et al. 2021; Zrnic & Candès 2024); ``T̂ = Σ a_t X_t`` with equal
   weight per label (predictable, summing to one) is exactly unbiased. ``Ĝ = Â/B̂``
   from the totals projected onto the values the labels allow (at least the positives
   labeled in the group, at most its size less the negatives labeled in it): the truth
   lies there, so no sample's error grows, and no measure leaves ``[0, 1]`` (a 1/q-weighted
   residual of one rare positive can otherwise carry a total past its group's size).
6. *Interval.* The score interval ``{g : (Σ a_t D_t(g))² ≤ z² V(g)}``,
   ``D_t(g) = A_t − g B_t`` (mean 0 under ``G = g``: a Fieller/Wilson construction). The
   martingale CLT holds with either estimate of the variance of ``Σ a_t D_t(g)`` (Hall &
   Heyde 1980, ch. 3): the realised quadratic variation ``Σ a_t² D_t(g)²``, consistent
   whatever the model but blind to rare residuals not drawn yet, or the predictable one
   ``Σ a_t² (c₁(g)² w₁ₜ + c₀(g)² w₀ₜ)`` (``c_j(g) = a_j − g b_j``), where ``w_t`` is the
   conditional variance of draw ``t``'s residual expected under the batch model,
   ``Σ_{R_t ∩ G} ĝ(1 − ĝ)(1/q_t − 1)``, recorded before the draw: exact under a
   calibrated model and not dependent on catching the rare items. ``V(g)`` is the larger
   of the two (the union of the two sets): no constant is added, and the interval is
   conservative under either assumption (``interval="score_realised"``,
   ``"score_model"`` give one alone). Where the model is wrong *and* positives hide
   among items it calls near-certain negatives that no draw reached, neither variance
   sees them, the estimate is too high and no fixed-``n`` interval can cover (a note
   says so).
7. *Anytime-valid sequence* (``interval="anytime"``). Betting confidence sequences
   (Waudby-Smith & Ramdas 2024; Waudby-Smith et al. 2022) on the same draws: for each
   side of each total, the average of the capitals of the doubly robust pseudo-outcome
   (bounded by the recorded largest ``ĝ/q`` and ``(1 − ĝ)/q``) and of the nonnegative
   importance-weighted count, under a union bound; valid at any stopping time, so
   ``ActiveEvaluator.run(..., half_width=w)`` may label until it is narrow. It is wide
   where errors could hide among confidently scored items, within a small factor of
   the floor no valid sequence escapes (``_confseq``); it is not always wider than
   the fixed-``n`` interval, which is conservative where the model overstates the
   variance.

Everything reported is design-based; the model only changes the variance. The papers'
with-replacement design (``design="with_replacement"``; multi-class and squared-loss
pools) keeps their self-normalised estimator and a logit interval.

This package only re-exports; the code lives in private modules: ``_successive_design``
(steps 1–4), ``_aipw`` (5–6), ``_confseq`` (7), ``_successive_sample`` and
``_design_table`` (the design as a table; every route estimates from it),
``_estimate_record`` (the per-measure record both designs return), ``_estimators``
(:class:`ActiveEstimate`), ``_evaluator`` / ``_loop`` (:class:`ActiveEvaluator`, which
talks to its design through the ``_design_protocol``: ``_pps_session``,
``_wr_session``; ``_pool_inputs`` reads its scores once), ``_offline``, ``_proposal_mix`` /
``_optimal_proposal`` (the papers' proposals), ``_forecast``, ``_state`` (sessions),
``_sealed_design`` / ``_labels_io``.

References
----------
Sawade, Landwehr, Bickel & Scheffer, ICML 2010; Sawade, Landwehr & Scheffer, NIPS 2010;
Rosén, Ann. Math. Stat. 43, 1972; Särndal, Swensson & Wretman, *Model Assisted Survey
Sampling*, 1992; Farquhar, Gal & Rainforth, ICLR 2021; Zrnic & Candès, ICML 2024;
Waudby-Smith & Ramdas, JRSSB 86(1), 2024; Waudby-Smith, Wu, Ramdas, Karampatziakis &
Mineiro, arXiv 2210.10768, 2022; Gelman, Jakulin, Pittau & Su, Ann. Appl. Stat. 2, 2008;
Hall & Heyde, *Martingale Limit Theory and Its Application*, 1980; Isaki & Fuller, JASA
77, 1982; Godambe & Joshi, Ann. Math. Stat. 36, 1965.
"""

from ._estimators import ActiveEstimate
from ._evaluator import ActiveEvaluator
from ._forecast import BudgetForecast, active_budget
from ._labels_io import check_labels
from ._offline import active_design, active_evaluate, estimate_from_labels
from ._optimal_proposal import Proposal
from ._proposal_mix import optimal_proposal
from ._sealed_design import design_columns, read_design
from ._skipping import SkippedItemsWarning

__all__ = [
    "optimal_proposal",
    "active_evaluate",
    "active_design",
    "estimate_from_labels",
    "ActiveEvaluator",
    "active_budget",
    "ActiveEstimate",
    "Proposal",
    "BudgetForecast",
    "read_design",
    "check_labels",
    "design_columns",
    "SkippedItemsWarning",
]
