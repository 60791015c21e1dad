"""Checks and the capabilities they need: declaring them, and running one check with a driver
(skipped, naming what is missing, when the driver lacks one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from skillcore.testing.driver import AdapterDriver, Capability

Check = Callable[[AdapterDriver, Path], None]
_CheckT = TypeVar("_CheckT", bound=Check)


#: The capabilities each check declared with :func:`requires`.
_REQUIRED: dict[Check, frozenset[Capability]] = {}


def requires(*needed: Capability) -> Callable[[_CheckT], _CheckT]:
    """Declare the capabilities a check needs (read back by :func:`missing`)."""

    def mark(check: _CheckT) -> _CheckT:
        _REQUIRED[check] = frozenset(needed)
        return check

    return mark


def required(check: Check) -> frozenset[Capability]:
    """The capabilities ``check`` needs (none when it declares none)."""
    return _REQUIRED.get(check, frozenset())


def missing(check: Check, driver: AdapterDriver) -> frozenset[Capability]:
    """The capabilities ``check`` needs that ``driver`` lacks (empty: it applies)."""
    return required(check) - driver.capabilities


def applicable(check: Check, driver: AdapterDriver) -> bool:
    """Whether ``driver`` has every capability ``check`` needs."""
    return not missing(check, driver)


def skip_reason(check: Check, driver: AdapterDriver) -> str | None:
    """Why ``check`` does not apply to ``driver`` (None when it does)."""
    gone = missing(check, driver)
    if not gone:
        return None
    names = ", ".join(sorted(c.name for c in gone))
    return f"{type(driver).__name__} lacks capability {names} needed by {check.__name__}"


def run_check(check: Check, driver: AdapterDriver, root: Path) -> None:
    """Run one check with ``driver`` (then close it), for a test parametrized over
    :data:`CHECKS`; a check the driver lacks a capability for is skipped through
    ``pytest.skip``, naming what is missing."""
    try:
        reason = skip_reason(check, driver)
        if reason is not None:
            import pytest  # only here: this module is used without pytest too

            pytest.skip(reason)
        check(driver, root)
    finally:
        driver.close()
