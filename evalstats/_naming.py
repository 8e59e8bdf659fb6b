"""``name=`` for every function that returns a result (the section title in reports)."""

from __future__ import annotations

__all__ = ["named_result"]


def named_result(func):
    """Decorator: give a result-returning function a keyword-only ``name=`` argument.

    ``f(..., name="Pilot F1")`` returns ``f(...).with_name("Pilot F1")``: the section title
    of the result in :func:`evalstats.report` and ``summary()``. The argument appears in
    the signature so that ``help()`` and IDEs show it.
    """
    import functools
    import inspect

    sig = inspect.signature(func)
    params = list(sig.parameters.values())
    if "name" in sig.parameters:
        raise TypeError(f"named_result: {func.__qualname__} already has `name`.")
    extra = inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation="str | None")
    at = next((i for i, q in enumerate(params) if q.kind == inspect.Parameter.VAR_KEYWORD),
              len(params))
    params.insert(at, extra)

    @functools.wraps(func)
    def wrapper(*args, name: str | None = None, **kwargs):
        result = func(*args, **kwargs)
        return result if name is None else result.with_name(name)

    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper
