"""Input validation with one message template.

Every check raises ``ValueError`` (bad value) or ``TypeError`` (bad type) with
the message ``"`name` must be <expected>; got <received>."``, e.g.

    `y_score` must contain probabilities in [0, 1]; got values in [-0.2, 1.3].

Public functions validate in a private ``_<func>_iv`` helper built from these
functions and receive normalised numpy arrays back.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "fail",
    "check_rng",
    "check_confidence_level",
    "check_option",
    "check_int",
    "check_scalar",
    "check_array",
    "check_probability",
    "check_probability_matrix",
    "check_binary_labels",
    "check_consistent_length",
    "plain_value",
    "rng_alias",
]

F = TypeVar("F", bound=Callable[..., Any])


def _fmt(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    text = repr(plain_value(value))
    return text if len(text) <= 60 else text[:57] + "..."


def fail(name: str, expected: str, got: str | None = None, *, value: Any = None,
         remedy: str | None = None, exc: type[Exception] = ValueError,
         verb: str = "must be") -> Exception:
    """Build (not raise) the error ``"`name` must be <expected>; got <got>."``.

    ``verb`` replaces "must be" (e.g. ``"must"`` for "must contain ...").
    """
    received = got if got is not None else _fmt(value)
    msg = f"`{name}` {verb} {expected}; got {received}."
    if remedy:
        msg += f" {remedy}"
    return exc(msg)


def check_rng(rng: None | int | np.random.Generator, name: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from ``None``, an int seed or a Generator."""
    if rng is None or isinstance(rng, np.random.Generator):
        return np.random.default_rng(rng)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise fail(name, "None, a non-negative int seed or a numpy Generator", value=rng)
        return np.random.default_rng(int(rng))
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    raise fail(name, "None, a non-negative int seed or a numpy Generator",
               got=f"an object of type {type(rng).__name__}", exc=TypeError)


def seeded_rng(rng: Any, name: str = "rng") -> tuple[np.random.Generator, Any]:
    """A generator and the seed to record in a result's Call: ``rng`` itself for an int,
    ``"Generator"`` for a Generator, and for ``None`` a fresh seed drawn here, so that a run
    with ``rng=None`` can still be repeated."""
    if rng is None:
        seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        return np.random.default_rng(seed), seed
    if isinstance(rng, np.random.Generator):
        return rng, "Generator"
    gen = check_rng(rng, name)
    return gen, int(rng) if isinstance(rng, numbers.Integral) else type(rng).__name__


def check_confidence_level(level: Any, name: str = "confidence_level") -> float:
    """A confidence level strictly between 0 and 1."""
    if isinstance(level, bool) or not isinstance(level, numbers.Real):
        raise fail(name, "a number strictly between 0 and 1",
                   got=f"an object of type {type(level).__name__}", exc=TypeError)
    level = float(level)
    if not 0.0 < level < 1.0:
        hint = " (use 0.95, not 95)" if 1.0 < level <= 100.0 else ""
        raise fail(name, f"a number strictly between 0 and 1{hint}", value=level)
    return level


def check_option(value: Any, name: str, options: Iterable[str],
                 remedy: str | None = None) -> str:
    """``value`` must be one of ``options`` (strings); ``remedy`` is added to the error."""
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise fail(name, f"one of {listed}", value=value, remedy=remedy)
    return value


def check_int(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """An integer in ``[low, high]`` (either bound optional)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise fail(name, "an integer", got=f"{_fmt(value)} of type {type(value).__name__}",
                       exc=TypeError)
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise fail(name, f"an integer {_range_text(low, high, True, True)}", value=value)
    return value


def _range_text(low, high, low_incl, high_incl) -> str:
    if low is not None and high is not None:
        lb = "[" if low_incl else "("
        rb = "]" if high_incl else ")"
        return f"in {lb}{low}, {high}{rb}"
    if low is not None:
        return (">= " if low_incl else "> ") + str(low)
    if high is not None:
        return ("<= " if high_incl else "< ") + str(high)
    return ""


def check_scalar(value: Any, name: str, low: float | None = None, high: float | None = None,
                 *, low_inclusive: bool = True, high_inclusive: bool = True) -> float:
    """A finite real number in the given range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise fail(name, "a real number", got=f"an object of type {type(value).__name__}",
                   exc=TypeError)
    value = float(value)
    bad = not np.isfinite(value)
    if low is not None:
        bad |= value < low if low_inclusive else value <= low
    if high is not None:
        bad |= value > high if high_inclusive else value >= high
    if bad:
        rng_text = _range_text(low, high, low_inclusive, high_inclusive)
        raise fail(name, f"a finite number {rng_text}".rstrip(), value=value)
    return value


def plain_value(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (messages show 3674, not np.int64(3674))."""
    return value.item() if isinstance(value, np.generic) else value


TEXT_REMEDY = "Convert the column to numbers first (e.g. `pd.to_numeric`)."


def is_text(arr: np.ndarray) -> bool:
    """Whether an array holds text: a string dtype, or objects among whose first 10,000
    any is a ``str``/``bytes`` (a column read as text is a data error, not numbers)."""
    return arr.dtype.kind in "US" or (arr.dtype.kind == "O" and any(
        isinstance(v, str | bytes) for v in arr.ravel()[:10_000]))


def check_array(x: Any, name: str, *, ndim: int | Sequence[int] = 1, finite: bool = True,
                dtype: Any = float, min_len: int = 1) -> np.ndarray:
    """Convert to a numpy array of ``dtype`` and check dimensions and finiteness; text is
    refused for a numeric ``dtype`` (``"0.1"`` would convert silently: a column read as
    text is a data error, not a number)."""
    raw = None
    if np.dtype(dtype).kind in "fiu":
        try:
            raw = np.asarray(x)
        except (TypeError, ValueError):
            raw = None                  # ragged input: reported by the conversion below
        if raw is not None and is_text(raw):
            raise fail(name, "array-like of numbers", got="text (strings)", exc=TypeError,
                       remedy=TEXT_REMEDY)
        if raw is not None and raw.dtype.kind == "c":    # numpy would drop the imaginary part
            raise fail(name, "array-like of real numbers", got="complex numbers",
                       exc=TypeError)
    try:                                # numbers converted once (objects as numpy would)
        arr = (raw.astype(dtype, copy=False) if raw is not None and raw.dtype.kind in "biuf"
               else np.asarray(x, dtype=dtype))
    except OverflowError:               # a Python int beyond the float range
        raise fail(name, "finite numbers", got="an integer too large for a float",
                   remedy="Rescale the values first.") from None
    except (TypeError, ValueError) as err:
        raise fail(name, "array-like of numbers",
                   got=f"an object of type {type(x).__name__} ({err})", exc=TypeError) from None
    ndims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in ndims:
        want = " or ".join(f"{d}-dimensional" for d in ndims)
        raise fail(name, want, got=f"an array with {arr.ndim} dimensions, shape {arr.shape}")
    if arr.shape[0] < min_len:
        raise fail(name, f"of length >= {min_len}", got=f"length {arr.shape[0]}")
    if finite and arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        n_bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise fail(name, "finite (no NaN or infinity)", got=f"{n_bad} non-finite values",
                   remedy="Drop or impute them first (e.g. with `pd.isna`).")
    return arr


def check_probability(x: Any, name: str, *, ndim: int | Sequence[int] = 1,
                      remedy: str | None = None) -> np.ndarray:
    """Probabilities in [0, 1]; NaN is rejected (``remedy``: what the error suggests)."""
    arr = check_array(x, name, ndim=ndim)
    if arr.size and (arr.min() < 0.0 or arr.max() > 1.0):
        raise fail(name, "contain probabilities in [0, 1]", verb="must",
                   got=f"values in [{arr.min():.4g}, {arr.max():.4g}]", remedy=remedy)
    return arr


def check_probability_matrix(x: Any, name: str, *, atol: float = 1e-6) -> np.ndarray:
    """An (n, K) matrix of probabilities whose rows sum to one."""
    arr = check_probability(x, name, ndim=2)
    sums = arr.sum(axis=1)
    bad = np.abs(sums - 1.0) > atol
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        remedy = (f"A single column of scores? Pass it as a 1-D array "
                  f"(`{name}.ravel()`)." if arr.shape[1] == 1 else None)
        raise fail(name, "a probability matrix whose rows sum to 1",
                   got=f"{int(bad.sum())} rows that do not (row {i} sums to {sums[i]:.6g})",
                   remedy=remedy)
    return arr


def check_binary_labels(y: Any, name: str) -> np.ndarray:
    """Labels coded 0/1 (booleans accepted); returned as int array. Text is refused, as
    in :func:`check_array` (``"1"``/``"0"`` would convert silently: a column read as text
    is a data error)."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise fail(name, "1-dimensional", got=f"shape {arr.shape}")
    if arr.dtype == bool:
        return arr.astype(int)
    if is_text(arr):
        raise fail(name, "binary labels coded 0/1", got="text (strings)", exc=TypeError,
                   remedy=TEXT_REMEDY)
    try:
        num = arr.astype(float)
    except OverflowError:               # a Python int beyond the float range: not 0 or 1
        raise fail(name, "binary labels coded 0/1", got="an integer too large for a float",
                   ) from None
    except (TypeError, ValueError):
        raise fail(name, "binary labels coded 0/1",
                   got=f"values of dtype {arr.dtype}", exc=TypeError) from None
    uniq = np.unique(num[~np.isnan(num)]) if num.size else num
    if np.isnan(num).any() or not np.isin(uniq, (0.0, 1.0)).all():
        shown = ", ".join(f"{u:g}" for u in np.unique(num)[:6])
        raise fail(name, "binary labels coded 0/1", got=f"values {{{shown}}}")
    return num.astype(int)


def check_consistent_length(**arrays: Any) -> int:
    """All arrays share their first dimension; returns it."""
    lengths = {}
    for k, v in arrays.items():
        if v is None:
            continue
        shape = getattr(v, "shape", None)
        if shape is not None and len(shape):
            lengths[k] = int(shape[0])
        elif shape is None and hasattr(v, "__len__") and not isinstance(v, str | bytes):
            lengths[k] = len(v)
        else:
            raise fail(k, "array-like (with a length)",
                       got=f"an object of type {type(v).__name__}", exc=TypeError)
    if len(set(lengths.values())) > 1:
        names = " and ".join(f"`{k}`" for k in lengths)
        got = " and ".join(str(v) for v in lengths.values())
        raise ValueError(f"{names} must have the same length; got {got}.")
    return next(iter(lengths.values())) if lengths else 0


def rng_alias(func: F) -> F:
    """Decorator: accept ``random_state=`` (scikit-learn's spelling) as an alias of ``rng=``.

    The decorated function must have a parameter named ``rng``. A call with
    ``random_state=value`` is forwarded as ``rng=value``; giving both raises ``TypeError``.
    The alias appears in the signature (keyword-only, after the other keyword arguments)
    so that ``help()`` and IDEs show it. Works on functions and on ``__init__`` methods.

    Examples
    --------
    >>> @rng_alias
    ... def draw(n, *, rng=None):
    ...     return check_rng(rng).integers(0, 10, n)
    >>> draw(3, random_state=1).tolist() == draw(3, rng=1).tolist()
    True
    """
    sig = inspect.signature(func)
    params = list(sig.parameters.values())
    names = [p.name for p in params]
    if "rng" not in names:
        raise TypeError(f"rng_alias: {func.__qualname__} has no `rng` parameter.")
    if "random_state" in names:
        raise TypeError(f"rng_alias: {func.__qualname__} already has `random_state`.")
    rng_param = sig.parameters["rng"]
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    rng_pos = names.index("rng") if rng_param.kind in positional else None

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if "random_state" in kwargs:
            value = kwargs.pop("random_state")
            if "rng" in kwargs or (rng_pos is not None and len(args) > rng_pos):
                raise TypeError(
                    f"{func.__name__}() got both `rng` and `random_state`; `random_state` is "
                    "an alias of `rng`: give only one of them.")
            kwargs["rng"] = value
        return func(*args, **kwargs)

    alias = inspect.Parameter("random_state", inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation=rng_param.annotation)
    var_kw = [p for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    rest = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD]
    wrapper.__signature__ = sig.replace(parameters=[*rest, alias, *var_kw])  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
