"""Warning and error classes shared by every evalstats module.

Every degenerate statistic (an undefined estimate, a negative variance
estimate, a solver that did not converge, a sample too small for the
asymptotics) is *warned* with one of the classes below **and** recorded as a
note on the result object, so that it shows in ``summary()``. Nothing is
silently turned into NaN.
"""

from __future__ import annotations

import warnings

__all__ = [
    "EvalstatsWarning",
    "UndefinedEstimateWarning",
    "NegativeVarianceWarning",
    "ConvergenceWarning",
    "SmallSampleWarning",
    "ApproximationWarning",
    "ExtrapolationWarning",
    "InputWarning",
    "ConvergenceError",
    "Notes",
]


class EvalstatsWarning(RuntimeWarning):
    """Base class of all evalstats warnings."""


class UndefinedEstimateWarning(EvalstatsWarning):
    """An estimate is undefined on this sample (e.g. precision with no predicted positive)."""


class NegativeVarianceWarning(EvalstatsWarning):
    """An unbiased variance estimate came out negative."""


class ConvergenceWarning(EvalstatsWarning):
    """An optimiser or a stopping rule did not reach its tolerance."""


class SmallSampleWarning(EvalstatsWarning):
    """The sample is too small for the asymptotic approximation to be trusted."""


class ApproximationWarning(EvalstatsWarning):
    """An approximation was used where an exact method was requested or expected."""


class ExtrapolationWarning(EvalstatsWarning):
    """A prediction is made far outside the range of the data."""


class InputWarning(EvalstatsWarning):
    """The input is valid but looks like a mistake (e.g. predicted labels coded differently
    from the true labels, so that every case counts as an error)."""


class ConvergenceError(RuntimeError):
    """A solver failed outright (status other than optimal / optimal_inaccurate)."""


class Notes:
    """Collects notes and warnings raised during a computation.

    ``notes.warn(Cls, msg)`` issues the warning *and* keeps the message so the
    result can show it; ``notes.add(msg)`` keeps an informational note only.

    Examples
    --------
    >>> notes = Notes()
    >>> notes.add("Labels were cached: 12 repeated draws.")
    >>> notes.as_tuple()
    ('Labels were cached: 12 repeated draws.',)
    """

    def __init__(self) -> None:
        self._items: list[str] = []

    def add(self, message: str) -> None:
        if message not in self._items:
            self._items.append(message)

    def warn(self, category: type[Warning], message: str, stacklevel: int = 3) -> None:
        warnings.warn(message, category, stacklevel=stacklevel)
        self.add(f"[{category.__name__}] {message}")

    def extend(self, other) -> None:
        for m in other:
            self.add(m)

    def as_tuple(self) -> tuple[str, ...]:
        return tuple(self._items)

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)
