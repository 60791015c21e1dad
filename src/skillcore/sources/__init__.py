"""Where skills live: the source type, the reader protocol and one reader per kind of storage."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # ``skillcore.sources`` was one module (kept importable for one release); its names now
    # live in ``skillcore.sources.base``.
    import importlib

    module = importlib.import_module("skillcore.sources.base")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module 'skillcore.sources' has no attribute {name!r}") from None
