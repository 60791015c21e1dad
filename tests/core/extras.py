"""Core tests run with the core's dependencies alone: a test that needs an optional package
(an adapter's framework, an extra) is marked with :func:`needs` and skips without it."""

from __future__ import annotations

import importlib.util

import pytest


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:  # the parent package is missing
        return True


def needs(*modules: str) -> pytest.MarkDecorator:
    """Skip unless every one of ``modules`` can be imported (dotted names checked whole:
    ``tests/langchain`` is a folder of this suite, so ``langchain`` alone proves nothing)."""
    missing = [m for m in modules if _missing(m)]
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}")
