"""Every public exception skillcore raises derives from ``SkillcoreError``, so one ``except``
catches them all."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import skillcore
from skillcore.errors import SkillcoreError


def _public_exceptions() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(skillcore.__path__, "skillcore."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        for name, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseException)
                # Warning categories are for filters, never raised for a caller to catch.
                and not issubclass(obj, Warning)
                and obj.__module__ == module.__name__
                and not name.startswith("_")
            ):
                found.append(obj)
    return found


EXCEPTIONS = _public_exceptions()


def test_the_walk_finds_the_source_errors() -> None:
    names = {exc.__name__ for exc in EXCEPTIONS}
    assert {"ReadError", "SourceUnavailable", "SourceError", "StateError"} <= names


@pytest.mark.parametrize("exc", EXCEPTIONS, ids=lambda e: f"{e.__module__}.{e.__name__}")
def test_public_exception_derives_from_skillcore_error(exc: type[BaseException]) -> None:
    assert issubclass(exc, SkillcoreError), f"{exc.__module__}.{exc.__name__}: {exc.__mro__}"
