"""The decorator every public result function wears: ``name=``, the call, the warnings.

:func:`named_result` gives a function a keyword-only ``name=`` (the section title in
reports), records the call as R's ``match.call`` does — the function's own parameters
with the values passed, plus the values the function resolved for itself (a drawn seed)
— and re-issues the warnings raised inside evalstats at the caller's line.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ._result import CallRecord
from ._warnings import run_attributed

__all__ = ["named_result", "record_call", "ArgumentSummary"]

#: lists and tuples up to this length are kept in the call as they are
_SHORT = 20


class ArgumentSummary:
    """Stands in the call for an argument too large to keep (an array, a model, a
    function); its repr is a short description such as ``<1797 values>``."""

    #: shown as it is in a call (never shortened)
    is_summary = True

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArgumentSummary) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def _plain(v: Any) -> bool:
    if v is None or isinstance(v, bool | int | float | str | np.number | np.bool_):
        return True
    if isinstance(v, list | tuple) and len(v) <= _SHORT:
        return all(_plain(t) for t in v)
    return False


def _kept(v: Any) -> Any:
    """``v`` itself when it is small and plain, else an :class:`ArgumentSummary`."""
    if _plain(v):
        return v
    from ._render.words import short_value

    if isinstance(v, Mapping) and len(v) <= 6:
        inner = ", ".join(f"{k!r}: {_kept(x)!r}" for k, x in v.items())
        return ArgumentSummary("{" + inner + "}")
    if callable(v) and not hasattr(v, "fit"):
        return ArgumentSummary(f"<function {getattr(v, '__name__', type(v).__name__)}>")
    text = short_value(v)
    if " at 0x" in text:                      # a default repr: the address says nothing
        text = f"<{type(v).__name__}>"
    return ArgumentSummary(text)


def record_call(function: str, sig: inspect.Signature, args: tuple, kwargs: Mapping,
                own: Mapping[str, Any]) -> CallRecord:
    """The call: ``function``, then each parameter in signature order that was passed or
    that the function recorded itself (a plain recorded value wins: it is the resolved
    one, e.g. the seed drawn for ``rng=None``), then the other keys of ``own``."""
    try:
        bound = sig.bind_partial(*args, **kwargs).arguments
    except TypeError:                    # an alias the signature does not list
        bound = dict(kwargs)
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD and p.name in bound:
            bound.update(bound.pop(p.name))
    rec: dict[str, Any] = {"function": own.get("function", function)}
    for pname in list(sig.parameters) + [k for k in bound if k not in sig.parameters]:
        if pname in own and _plain(own[pname]):
            rec[pname] = own[pname]
        elif pname in bound:
            rec[pname] = _kept(bound[pname])
    rec.update({k: v for k, v in own.items() if k not in rec})
    return CallRecord(rec, parameters=tuple(k for k in rec if k in sig.parameters
                                            or k in bound))


def named_result(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: a keyword-only ``name=``, the recorded call and warnings at the caller.

    ``f(..., name="Pilot F1")`` returns ``f(...).with_name("Pilot F1")``: the section title
    of the result in :func:`evalstats.report` and ``summary()``. The argument appears in
    the signature so that ``help()`` and IDEs show it.
    """
    sig = inspect.signature(func)
    params = list(sig.parameters.values())
    if "name" in sig.parameters:
        raise TypeError(f"named_result: {func.__qualname__} already has `name`.")
    extra = inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation="str | None")
    at = next((i for i, q in enumerate(params) if q.kind == inspect.Parameter.VAR_KEYWORD),
              len(params))
    params.insert(at, extra)
    full = sig.replace(parameters=params)

    @functools.wraps(func)
    def wrapper(*args, name: str | None = None, **kwargs):
        result = run_attributed(func, *args, **kwargs)
        if hasattr(result, "call") and hasattr(result, "with_name"):
            passed = dict(kwargs, **({"name": name} if name is not None else {}))
            call = record_call(func.__name__, full, args, passed, result.call)
            result = result._with_call(call)
        return result if name is None else result.with_name(name)

    wrapper.__signature__ = full  # type: ignore[attr-defined]
    return wrapper
