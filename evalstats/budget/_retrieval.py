"""Guided retrieval of minority-class examples (Valizadegan et al. 2012, Section 4) and
its result, :class:`RetrievalResult`."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from .._naming import named_result
from .._result import Reportable, _get_ax
from .._validation import (
    check_array,
    check_binary_labels,
    check_int,
    check_option,
    check_rng,
    fail,
    plain_value,
    rng_alias,
)

__all__ = ["RetrievalResult", "guided_sample"]


@dataclass(frozen=True, kw_only=True, repr=False, eq=False)
class RetrievalResult(Reportable):
    """Labels collected by :func:`guided_sample` (a record of what was labeled, not an
    estimate).

    ``tidy()`` has one row per round of labeling: ``round`` (0 for the random seed),
    ``step`` (``"random seed"``, ``"guided"`` or ``"random"``), ``labels`` and
    ``positives`` of the round, and ``labels_cumulative`` and ``positives_cumulative``
    after it (the data of the paper's Figure 4 at round resolution; :meth:`positives_curve`
    has it label by label). ``glance()`` is one row about the whole collection:
    ``strategy``, ``n_labels``, ``n_seed``, ``batch_size``, ``n_rounds`` (guided rounds
    after the seed), ``n_positive``, ``n_negative``, ``pool_prevalence`` and ``n_notes``.

    Attributes
    ----------
    indices : ndarray of int
        Pool indices in labeling order.
    labels : ndarray of {0, 1}
        Their oracle labels.
    n_seed : int
        Size of the random seed set (0 for random labeling).
    batch_size : int or None
        Labels per guided round (None for random labeling).
    strategy : {"guided", "random"}
    pool_prevalence : float or None
        Prevalence of the pool when the oracle was an array of labels (simulation).
    n_labels, n_positive : int
        Labels collected and positives among them (properties).
    diagnostics : mapping
        ``n_fits``: the rounds in which the surrogate was refitted (a round whose labels
        so far hold one class only is drawn at random instead).
    """

    indices: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    n_seed: int = 0
    batch_size: int | None = None
    strategy: str = "guided"
    pool_prevalence: float | None = None

    _default_title = "Labels collected by retrieval"

    @property
    def n_labels(self) -> int:
        return int(len(self.labels))

    @property
    def n_positive(self) -> int:
        return int(self.labels.sum())

    @property
    def estimate(self) -> float:
        """Deprecated: the fraction of positives among the labels (not a pool estimate)."""
        import warnings

        warnings.warn("RetrievalResult.estimate is deprecated: the labels are not a "
                      "probability sample; use n_positive / n_labels.", FutureWarning,
                      stacklevel=2)
        return self.n_positive / max(self.n_labels, 1)

    def _rounds(self) -> list[tuple[str, int, int]]:
        """``(step, first, stop)`` of each round: the seed, then batches of ``batch_size``."""
        if self.strategy != "guided":
            return [("random", 0, self.n_labels)]
        out = [("random seed", 0, self.n_seed)]
        step = max(int(self.batch_size or 1), 1)
        out += [("guided", i, min(i + step, self.n_labels))
                for i in range(self.n_seed, self.n_labels, step)]
        return out

    def _tidy_rows(self):
        rows, total = [], 0
        for i, (step, first, stop) in enumerate(self._rounds()):
            found = int(self.labels[first:stop].sum())
            total += found
            rows.append(dict(round=i, step=step, labels=stop - first, positives=found,
                             labels_cumulative=stop, positives_cumulative=total))
        return rows

    def _glance_extra(self):
        return dict(strategy=self.strategy, n_labels=self.n_labels, n_seed=self.n_seed,
                    batch_size=self.batch_size, n_rounds=len(self._rounds()) - 1,
                    n_positive=self.n_positive, n_negative=self.n_labels - self.n_positive,
                    pool_prevalence=self.pool_prevalence)

    def _header(self):
        hdr = {"Labels": self.n_labels, "Positives among them": self.n_positive}
        if self.pool_prevalence is not None:
            hdr["Prevalence of the pool"] = self.pool_prevalence
        if self.strategy == "guided":
            hdr["Guided rounds"] = f"{len(self._rounds()) - 1:,} of {self.batch_size:,} labels"
        hdr.update(super()._header())
        return hdr

    def _main_table(self):
        td = self.tidy()
        by = td.groupby("step", sort=False)[["labels", "positives"]].sum().reset_index()
        by.insert(1, "rounds", td.groupby("step", sort=False).size().to_numpy())
        by["positive rate"] = by["positives"] / by["labels"].clip(lower=1)
        return ("Labels collected, by step", by)

    def _finding(self) -> str:
        how = "Guided retrieval" if self.strategy == "guided" else "Random labeling"
        rate = self.n_positive / max(self.n_labels, 1)
        pool = ("" if self.pool_prevalence is None
                else f", against {100 * self.pool_prevalence:.2g}% in the pool")
        if self.strategy == "guided":
            use = ("the labels are not a probability sample, so they bound the measures of "
                   "any rule (deterministic range) but give no design-based interval")
        else:
            use = "the labels are a simple random sample of the pool"
        return (f"{how} found {self.n_positive:,} positives in {self.n_labels:,} labels "
                f"({100 * rate:.2g}%{pool}); {use}.")

    def _repr_body(self) -> str:
        return (f"{self.strategy}: {self.n_positive} positives in {self.n_labels} labels "
                f"(seed {self.n_seed})")

    def positives_curve(self) -> np.ndarray:
        """Cumulative positives found after each label."""
        return np.cumsum(self.labels)

    def plot(self, ax=None, **kwargs):
        """Cumulative positives found against labels spent (Figure 4 of the paper)."""
        ax = _get_ax(ax)
        n = np.arange(1, len(self.labels) + 1)
        ax.plot(n, self.positives_curve(), label=self.strategy, **kwargs)
        if self.pool_prevalence is not None:
            ax.plot(n, n * self.pool_prevalence, ":", color="grey", label="random (expected)")
        ax.set_xlabel("labels spent")
        ax.set_ylabel("positives found")
        ax.set_title("Positives found against labels spent")
        ax.legend(loc="upper left")
        return ax


#: random labels before the first refit of the guided strategy (fewer when the budget is)
DEFAULT_SEED = 100


@rng_alias
@named_result
def guided_sample(X, oracle, n_labels: int, *, strategy: str = "guided",
                  n_seed: int | None = None,
                  batch_size: int = 5, estimator=None,
                  rng: None | int | np.random.Generator = None) -> RetrievalResult:
    """Collect labels by guided retrieval of minority-class examples, or at random.

    Parameters
    ----------
    X : array-like (N, p)
        Features of the pool.
    oracle : array-like (N,) of 0/1, or callable
        The expert: an array of pool labels (simulation) or a function mapping an array of
        pool indices to their labels (called once per round).
    n_labels : int
        Total labels to collect.
    strategy : {"guided", "random"}
        ``"guided"``: ``n_seed`` random labels, then rounds that refit ``estimator`` on all
        labels and label ``batch_size`` examples it predicts positive (the paper's second
        scheme, Section 4; decision tree, 100 seeds and 5 per round in Section 5).
        ``"random"``: uniformly random labels.
    n_seed, batch_size : int
        Random labels before the first refit (default ``min(100, n_labels)``) and labels
        per round.
    estimator : scikit-learn classifier, optional
        Surrogate (cloned each round). Default ``DecisionTreeClassifier``. Needs the
        ``ml`` extra (scikit-learn), imported lazily.
    rng : None, int or Generator
        ``random_state=`` (scikit-learn's spelling) is accepted as an alias.

    Returns
    -------
    RetrievalResult

    Notes
    -----
    The labels are *not* a probability sample: which examples get labeled depends on the
    labels seen so far, so no design-based variance exists, and :func:`evaluate_rules`
    refuses them (the result, its ``labels`` array, and blind labeling alike). What they
    do support is the deterministic range of each measure of any rule, which needs only
    the labeled positives and the pool's positive count:
    ``bernstein_bound(..., rule_hits_positive=..., rule_hits_negative=...)`` returns it
    (its ``deterministic_range``; with hits that are not those of a random rule, as a
    real classifier's are, its interval too). The Bernstein interval of that function
    holds only for random rules, never for a classifier evaluated on these labels. For
    estimates with intervals, fix a surrogate score first and draw labels at random
    within its strata (:meth:`LabelDesign.stratified`) or with known probabilities
    (:meth:`LabelDesign.poisson`). :func:`plan_labels` with ``scores=`` forecasts the
    labels needed to find a given number of positives in score order.

    See Also
    --------
    plan_labels, evaluate_rules

    Examples
    --------
    >>> import numpy as np
    >>> from evalstats.budget import guided_sample
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 2)); y = (X[:, 0] > 1.8).astype(int)
    >>> res = guided_sample(X, y, 200, n_seed=50, batch_size=10, rng=1)
    >>> bool(res.labels.sum() > 4 * 200 * y.mean())
    True
    """
    from ._sampling import default_estimator, guided_order, random_order

    x, oracle, prev, n_labels, strategy, gen = _guided_sample_iv(X, oracle, n_labels,
                                                                 strategy, rng)
    n_pool = x.shape[0]
    if strategy == "guided":
        n_seed = (min(DEFAULT_SEED, n_labels) if n_seed is None
                  else check_int(n_seed, "n_seed", low=1, high=n_labels))
        batch_size = check_int(batch_size, "batch_size", low=1)
        if estimator is not None and not (hasattr(estimator, "fit")
                                          and hasattr(estimator, "predict_proba")):
            raise fail("estimator", "a scikit-learn classifier with fit and predict_proba "
                       "(e.g. DecisionTreeClassifier())",
                       got=f"{plain_value(estimator)!r}" if isinstance(estimator, str)
                       else f"an object of type {type(estimator).__name__}", exc=TypeError)
        est = default_estimator(int(gen.integers(2**31))) if estimator is None else estimator
        order, lab, n_fits = guided_order(x, oracle, n_pool, n_labels, n_seed, batch_size,
                                            est, gen)
    else:
        order, lab, n_fits = random_order(oracle, n_pool, n_labels, gen)
        n_seed = 0
    res = RetrievalResult(
        call=dict(function="guided_sample", n_labels=n_labels, strategy=strategy,
                  n_seed=n_seed, batch_size=batch_size),
        diagnostics=dict(n_fits=n_fits), indices=order, labels=lab, n_seed=n_seed,
        batch_size=batch_size if strategy == "guided" else None, strategy=strategy,
        pool_prevalence=prev)
    if strategy == "guided":
        remember_guided(res.labels)
    return res


#: the ``labels`` arrays of guided samples alive in this session (by identity), so that
#: :func:`evaluate_rules` can refuse one declared as a probability sample
_GUIDED: dict[int, weakref.ref] = {}


def remember_guided(labels: np.ndarray) -> None:
    """Record a guided sample's labels array (weakly: it is forgotten with the result)."""
    key = id(labels)
    _GUIDED[key] = weakref.ref(labels, lambda _, key=key: _GUIDED.pop(key, None))


def is_guided(labels) -> bool:
    """Whether ``labels`` is the labels array of a guided sample of this session."""
    ref = _GUIDED.get(id(labels))
    return ref is not None and ref() is labels



def _guided_sample_iv(X, oracle, n_labels, strategy, rng):
    """Normalised arguments of :func:`guided_sample`."""
    x = check_array(X, "X", ndim=2)
    n_pool = x.shape[0]
    strategy = check_option(strategy, "strategy", ("guided", "random"))
    n_labels = check_int(n_labels, "n_labels", low=1, high=n_pool)
    prev = None
    if not callable(oracle):
        yy = check_binary_labels(oracle, "oracle")
        if len(yy) != n_pool:
            raise fail("oracle", f"one label per row of `X` ({n_pool})", got=f"{len(yy)}")
        oracle, prev = yy, float(yy.mean())
    return x, oracle, prev, n_labels, strategy, check_rng(rng)
