"""The allowed-tools policy: tool patterns, aliases, gating and the decision."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # ``skillcore.policy`` was one module (kept importable for one release); its names now
    # live in ``skillcore.policy.rules``.
    import importlib

    module = importlib.import_module("skillcore.policy.rules")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module 'skillcore.policy' has no attribute {name!r}") from None
