"""A bounded memory of recent entries (what an adapter remembers between the hooks of a run,
a memo per catalog, a ledger's heads): the least recently set entry is dropped first. Not
locked: callers that share one across threads hold their own lock."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most ``size`` entries; setting one makes it the most recent."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def set(self, key: K, value: V) -> None:
        """Remember ``value`` under ``key``, dropping the oldest entries over the size."""
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def get(self, key: K) -> V | None:
        """The value under ``key``, or None."""
        return self._items.get(key)

    def pop(self, key: K) -> bool:
        """Forget ``key``; True if it was there."""
        return self._items.pop(key, _MISSING) is not _MISSING


_MISSING = object()

__all__ = ["Recent"]
