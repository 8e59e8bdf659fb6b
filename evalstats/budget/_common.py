"""Validation and vocabulary shared by the public functions of :mod:`evalstats.budget`.

* measure names: ``"precision"``, ``"recall"`` (canonical; ``"sensitivity"`` is accepted
  as its alias and kept as the internal name of the model's formulas) and
  ``"specificity"``;
* :func:`pool_iv` / :func:`delta_iv` / :func:`costs_iv`: the pool, failure probability and
  cost arguments, normalised;
* :func:`deprecated_positional` and :func:`renamed_keyword`: old call forms keep working
  with a ``FutureWarning`` (public names are a contract).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence

from .._validation import check_confidence_level, check_int, check_option, check_scalar, fail

#: the measures of the model, by their internal names (formulas of the paper)
MEASURES = ("precision", "sensitivity", "specificity")
#: accepted spellings -> internal name ("recall" is the package's canonical name)
MEASURE_ALIASES = {"precision": "precision", "recall": "sensitivity",
                   "sensitivity": "sensitivity", "specificity": "specificity"}


def check_measure(value, name: str = "measure") -> str:
    """Internal name of one measure (``"recall"`` and ``"sensitivity"`` both accepted)."""
    key = check_option(value, name, tuple(MEASURE_ALIASES))
    return MEASURE_ALIASES[key]


#: the largest pool the planners accept (their searches are exact in float64 up to here;
#: a pool of 1e18 ran for minutes)
MAX_POOL = 10 ** 12


def pool_iv(n_pool, prevalence, n_pool_positive, rule_rate, n_rule_positive):
    """``(n_pool, |S_O+|, |S_R+|)`` from a prevalence/rule rate or counts (exactly one each).

    ``n_pool`` may be as large as 1e12 and is accepted as a float with an integer value
    (``1e12``). Rates are rounded to whole examples, and each must leave at least one
    example on either side (a rule flagging 0.4 examples gave an exact bound of zero width).
    """
    if isinstance(n_pool, float) and n_pool.is_integer():
        n_pool = int(n_pool)
    n_pool = check_int(n_pool, "n_pool", low=2, high=MAX_POOL)
    if (prevalence is None) == (n_pool_positive is None):
        raise fail("prevalence", "given, or `n_pool_positive` given instead (exactly one)",
                   got=f"prevalence={prevalence!r}, n_pool_positive={n_pool_positive!r}")
    if prevalence is not None:
        prevalence = check_scalar(prevalence, "prevalence", 0, 1, low_inclusive=False,
                                  high_inclusive=False)
        n_pos = int(round(prevalence * n_pool))
        if not 0 < n_pos < n_pool:
            raise fail("prevalence", f"large enough that the pool of {n_pool} holds at least "
                       "one positive and one negative", value=prevalence)
    else:
        n_pos = check_int(n_pool_positive, "n_pool_positive", low=1, high=n_pool - 1)
    if (rule_rate is None) == (n_rule_positive is None):
        raise fail("rule_rate", "given, or `n_rule_positive` given instead (exactly one)",
                   got=f"rule_rate={rule_rate!r}, n_rule_positive={n_rule_positive!r}")
    if rule_rate is not None:
        rule_rate = check_scalar(rule_rate, "rule_rate", 0, 1, low_inclusive=False,
                                 high_inclusive=False)
        n_rpos = float(round(rule_rate * n_pool))
        if not 0 < n_rpos < n_pool:
            raise fail("rule_rate", f"large enough that the rule flags at least one of the "
                       f"{n_pool} examples and leaves at least one", value=rule_rate)
    else:
        n_rpos = float(check_int(n_rule_positive, "n_rule_positive", low=1, high=n_pool - 1))
    return n_pool, n_pos, n_rpos


def delta_iv(delta, confidence_level, n_rules):
    """``(confidence_level, n_rules)``; ``delta`` (= 1 - level) wins when given."""
    n_rules = check_int(n_rules, "n_rules", low=1)
    if delta is not None:
        level = 1.0 - check_scalar(delta, "delta", 0, 1, low_inclusive=False,
                                   high_inclusive=False)
    else:
        level = check_confidence_level(confidence_level)
    return level, n_rules


def costs_iv(costs) -> dict[str, float]:
    """Cost weight per internal measure name (default 1 each)."""
    out = {m: 1.0 for m in MEASURES}
    if costs is None:
        return out
    if not isinstance(costs, Mapping):
        raise fail("costs", "a mapping from measure name to a positive weight",
                   got=f"an object of type {type(costs).__name__}", exc=TypeError)
    for k, v in costs.items():
        m = check_measure(k, "costs key")
        out[m] = check_scalar(v, f"costs[{k!r}]", 0, None, low_inclusive=False)
    return out


def public_name(measure: str) -> str:
    """The package's canonical spelling of an internal measure name."""
    return "recall" if measure == "sensitivity" else measure


def deprecated_positional(n_positional: int, since: str = "0.2") -> Callable:
    """Let a function whose arguments became keyword-only still take old positional calls.

    The wrapped function's first ``n_positional`` parameters stay positional; extra
    positional arguments are mapped, in the old order (the order of the signature), onto
    the keyword-only parameters with a ``FutureWarning``.
    """

    def wrap(func):
        sig = inspect.signature(func)
        names: Sequence[str] = [p.name for p in sig.parameters.values()
                                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

        @functools.wraps(func)
        def inner(*args, **kwargs):
            if len(args) > n_positional:
                extra = names[n_positional:len(args)]
                if len(args) > len(names):
                    raise TypeError(f"{func.__name__}() takes at most {len(names)} "
                                    f"arguments ({len(args)} given)")
                dup = [n for n in extra if n in kwargs]
                if dup:
                    raise TypeError(f"{func.__name__}() got multiple values for {dup[0]!r}")
                warnings.warn(
                    f"passing {', '.join(map(repr, extra))} of {func.__name__}() by position "
                    f"is deprecated since {since}; pass them by keyword "
                    f"({', '.join(f'{n}=...' for n in extra)}).", FutureWarning, stacklevel=2)
                kwargs.update(zip(extra, args[n_positional:], strict=True))
                args = args[:n_positional]
            return func(*args, **kwargs)

        return inner

    return wrap


def renamed(old: str, new: str, value, new_value, default=None):
    """Resolve a renamed keyword: warn when ``old`` was used; refuse both at once."""
    if value is None:
        return new_value
    if new_value is not default:
        raise fail(new, f"given once (not together with its old name `{old}`)",
                   got=f"{new}={new_value!r}, {old}={value!r}", exc=TypeError)
    warnings.warn(f"`{old}` is deprecated; use `{new}`.", FutureWarning, stacklevel=3)
    return value


def measure_pairs(values, name: str = "measures") -> tuple[tuple[str, str], ...]:
    """``((spelling given, internal name), ...)`` for a measure or a sequence of them."""
    if isinstance(values, str):
        values = (values,)
    if values is None or not hasattr(values, "__iter__"):
        raise fail(name, "a measure name or a sequence of them (precision, recall, "
                   "specificity)", value=values, exc=TypeError)
    pairs = tuple(dict.fromkeys(
        (m, MEASURE_ALIASES[check_option(m, name, tuple(MEASURE_ALIASES))]) for m in values))
    if not pairs:
        raise fail(name, "a non-empty subset of precision, recall, specificity", value=values)
    return pairs


def first_true(pred: Callable[[int], bool], lo: int, hi: int) -> int:
    """Smallest integer in [lo, hi] where the monotone ``pred`` holds (``hi`` if none
    below it): bisection."""
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
