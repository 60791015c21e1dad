"""The tools the model sees: specs, the toolkit, replies, binary resources, preload and
redelivery."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # ``skillcore.tools`` was one module (kept importable for one release); its names now
    # live in ``skillcore.tools.toolkit``.
    import importlib

    module = importlib.import_module("skillcore.tools.toolkit")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module 'skillcore.tools' has no attribute {name!r}") from None
