"""R-style generic functions: ``summary(res)``, ``confint(res)``, ``tidy(res)``, ``glance(res)``.

They delegate to the result's methods, so ``es.tidy(res)`` is ``res.tidy()``; other
objects can register their own implementation with ``tidy.register(MyType)``.

Examples
--------
>>> import evalstats as es
>>> res = es.error_ci([0, 1, 1, 0], [0, 1, 0, 0])
>>> es.confint(res, confidence_level=0.9) == res.conf_int(0.9)
True
>>> es.confint(res, frame=True).columns.tolist()
['conf_low', 'conf_high']
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

__all__ = ["summary", "confint", "tidy", "glance"]


def _method(obj: Any, name: str):
    meth = getattr(obj, name, None)
    if meth is None:
        raise TypeError(f"`obj` must be an evalstats result (with a `{name}()` method); got an "
                        f"object of type {type(obj).__name__}.")
    return meth


@singledispatch
def summary(obj: Any):
    """The result's report (``obj.summary()``)."""
    return _method(obj, "summary")()


@singledispatch
def confint(obj: Any, confidence_level: float | None = None, *, frame: bool = False):
    """Interval(s) at ``confidence_level``, as R's ``confint``.

    ``frame=False``: ``obj.conf_int(...)``, the ``(low, high)`` tuple of the main term.
    ``frame=True``: ``obj.conf_int_frame(...)``, every term's interval as a DataFrame
    (rows: terms; columns ``conf_low``, ``conf_high``), like statsmodels.
    """
    return _method(obj, "conf_int_frame" if frame else "conf_int")(confidence_level)


@singledispatch
def tidy(obj: Any, **kwargs: Any):
    """One row per term (``obj.tidy()``), as broom's ``tidy``."""
    return _method(obj, "tidy")(**kwargs)


@singledispatch
def glance(obj: Any):
    """One row of model-level statistics (``obj.glance()``), as broom's ``glance``."""
    return _method(obj, "glance")()
