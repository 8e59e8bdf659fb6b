"""Every advertised top-level name resolves to the object in its capability module."""

from __future__ import annotations

import importlib

import pytest

import evalstats as es


@pytest.mark.parametrize("name", sorted(es._LAZY))
def test_lazy_exports_resolve(name):
    module = importlib.import_module(f"evalstats.{es._LAZY[name]}")
    assert getattr(es, name) is getattr(module, name)
    assert name in module.__all__


def test_all_is_complete_and_unknown_names_fail():
    for name in es.__all__:
        assert hasattr(es, name), name
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        es.nope  # noqa: B018


def test_docstring_examples_run():
    import doctest
    import pkgutil

    failures = []
    for info in pkgutil.walk_packages(es.__path__, prefix="evalstats."):
        if info.name == "evalstats.__main__":
            continue
        m = importlib.import_module(info.name)
        res = doctest.testmod(m, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        if res.failed:
            failures.append(f"{info.name}: {res.failed} of {res.attempted}")
    assert not failures, failures
