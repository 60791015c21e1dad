"""Values computed once per catalog and kept while the catalog lives (indexes, hints).

A foundation: the session's "did you mean" hint and the catalog's search indexes share it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from skillcore.model import Catalog

_MEMO: dict[tuple[str, int], tuple[weakref.ref[Catalog], Any]] = {}
# Reentrant: a catalog collected while the lock is held runs its ``forget`` callback in the
# same thread, which takes the lock again (a plain Lock deadlocks there).
_INDEX_LOCK = threading.RLock()


def per_catalog(catalog: Catalog, kind: str, build: Callable[[], Any]) -> Any:
    """One ``kind`` of index per catalog, built on first use and kept while it lives.

    Keyed by identity (an equal catalog from another library compares field by field, which
    costs milliseconds at 1,000 skills).
    """
    key = (kind, id(catalog))
    with _INDEX_LOCK:
        entry = _MEMO.get(key)
        if entry is not None and entry[0]() is catalog:
            return entry[1]
    index = build()

    def forget(_: object, key: tuple[str, int] = key) -> None:
        with _INDEX_LOCK:
            current = _MEMO.get(key)
            if current is not None and current[0]() is None:
                del _MEMO[key]

    with _INDEX_LOCK:
        entry = _MEMO.get(key)
        if entry is not None and entry[0]() is catalog:
            return entry[1]  # built by another thread meanwhile: keep one
        _MEMO[key] = (weakref.ref(catalog, forget), index)
    return index
