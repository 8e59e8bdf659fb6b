"""Warning and error classes shared by every evalstats module, and where warnings point.

Every degenerate statistic (an undefined estimate, a negative variance
estimate, a solver that did not converge, a sample too small for the
asymptotics) is *warned* with one of the classes below **and** recorded as a
note on the result object, so that it shows in ``summary()``. Nothing is
silently turned into NaN.

A warning points at the user's line, not at a line inside evalstats: :func:`warn` finds
the first frame outside the package (as pandas' ``find_stack_level``), and
:func:`run_attributed`, used by every public result function, re-issues the warnings
evalstats raised during the call at the line that called it.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

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
    "warn",
    "user_frame",
    "run_attributed",
]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


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

    def warn(self, category: type[Warning], message: str, stacklevel: int | None = None
             ) -> None:
        """Issue the warning at the user's line (``stacklevel`` is ignored) and keep it."""
        warn(message, category)
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


def _inside_package(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR)


def user_frame():
    """The innermost frame whose code is outside the evalstats package (the user's line)."""
    frame = sys._getframe(1)
    while frame.f_back is not None and _inside_package(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` pointing at the first line outside evalstats."""
    level, frame = 2, sys._getframe(1)          # stacklevel 2 is the caller of this function
    while frame is not None and _inside_package(frame.f_code.co_filename):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)


_IN_PUBLIC_CALL: ContextVar[bool] = ContextVar("evalstats_in_public_call", default=False)


def _reissue(caught: list[warnings.WarningMessage]) -> None:
    """Issue again, at the user's line, the warnings raised inside evalstats; others keep
    their own place (so filters on their module still apply)."""
    frame = user_frame()
    for w in caught:
        at_user = (w.filename, w.lineno) == (frame.f_code.co_filename, frame.f_lineno)
        if _inside_package(w.filename) or at_user:      # evalstats' own: at the user's line
            where: dict[str, Any] = dict(
                filename=frame.f_code.co_filename, lineno=frame.f_lineno,
                module=frame.f_globals.get("__name__", "__main__"),
                registry=frame.f_globals.setdefault("__warningregistry__", {}))
        else:
            module = _module_of(w.filename)
            where = dict(filename=w.filename, lineno=w.lineno, module=module,
                         registry=vars(sys.modules[module]).setdefault(
                             "__warningregistry__", {}) if module in sys.modules else None)
        warnings.warn_explicit(w.message, w.category, **where)


def _module_of(filename: str) -> str:
    for name, mod in list(sys.modules.items()):
        if getattr(mod, "__file__", None) == filename:
            return name
    return os.path.splitext(os.path.basename(filename))[0]


def run_attributed(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` with the warnings it raises inside evalstats re-issued at
    the caller's line (only the outermost public call does this)."""
    if _IN_PUBLIC_CALL.get():
        return func(*args, **kwargs)
    token = _IN_PUBLIC_CALL.set(True)
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return func(*args, **kwargs)
    finally:
        _IN_PUBLIC_CALL.reset(token)
        _reissue(caught)
