"""Renamed names, kept working for one release with a warning that names the new one.

Every adapter renames through these helpers, so the warning (its category, its text, where it
points) is written once. The warning category is :class:`SkillcoreDeprecationWarning`, a
``DeprecationWarning``, so ``-W error::DeprecationWarning`` catches it too.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "SkillcoreDeprecationWarning",
    "renamed_attributes",
    "renamed_keywords",
    "renamed_value",
    "warn_renamed",
]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class SkillcoreDeprecationWarning(DeprecationWarning):
    """A skillcore name that still works for one release under its old spelling."""


def warn_renamed(old: str, new: str, *, stacklevel: int = 2) -> None:
    """Warn that ``old`` is deprecated in favour of ``new``. ``stacklevel`` counts from the
    caller of this function (2: the caller's caller, the user code that used the old name)."""
    warnings.warn(
        f"{old} is deprecated; use {new} (the old name is removed in the next release)",
        SkillcoreDeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def renamed_value(where: str, old: str, new: str, old_value: T, new_value: T) -> T:
    """The value of keyword ``new``, or the one given under its old name ``old`` (not
    None); both given is a ``TypeError``. No warning: the caller decides whether the old
    spelling is deprecated (see :func:`renamed_keywords`)."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise TypeError(f"{where}() got both {new}= and its old name {old}=")
    return old_value


def renamed_keywords(**renamed: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A decorator for a function whose keyword arguments were renamed (``old="new"``):
    a call with an old keyword warns and passes the value under the new one; a call with
    both is a ``TypeError``."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        where = function.__qualname__.removesuffix(".__init__")

        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            for old, new in renamed.items():
                if old in kwargs:
                    warn_renamed(f"{where}({old}=...)", f"{new}=", stacklevel=2)
                    given = kwargs.pop(old)
                    kwargs[new] = renamed_value(where, old, new, given, kwargs.get(new))
            return function(*args, **kwargs)

        return wrapper

    return decorate


def renamed_attributes(
    module: str,
    renamed: Mapping[str, str],
    fallback: Callable[[str], Any] | None = None,
) -> Callable[[str], Any]:
    """A module ``__getattr__`` giving each old name in ``renamed`` (old -> new) the new name's
    value, with a warning; other names go to ``fallback`` (or are an ``AttributeError``)."""

    def __getattr__(name: str) -> Any:
        new = renamed.get(name)
        if new is not None:
            warn_renamed(f"{module}.{name}", f"{module}.{new}", stacklevel=2)
            return getattr(importlib.import_module(module), new)
        if fallback is not None:
            return fallback(name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
