"""A bounded memory of recent entries (what an adapter remembers between the hooks of a run,
a memo per catalog, a ledger's heads, a store's turns): the least recently used entry is
dropped first. Not locked: callers that share one across threads hold their own lock."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most ``size`` entries; setting one (or reading it with ``refresh=True``) makes it
    the most recent. ``size`` is a number or a function giving it, read on every set (for a
    bound its owner lets users change, e.g. ``lambda: self.max_turns``)."""

    def __init__(self, size: int | Callable[[], int]) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    @property
    def size(self) -> int:
        """The bound now."""
        return self._size() if callable(self._size) else self._size

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[K]:
        """The keys, least recent first."""
        return iter(list(self._items))

    def set(self, key: K, value: V) -> list[V]:
        """Remember ``value`` under ``key``, dropping the oldest entries over the size;
        the dropped values are returned (oldest first), for owners that must let go of
        what they hold."""
        self._items[key] = value
        self._items.move_to_end(key)
        return self._trim(self.size)

    def get(self, key: K, *, refresh: bool = False) -> V | None:
        """The value under ``key``, or None; ``refresh``: a hit becomes the most recent."""
        value = self._items.get(key)
        if refresh and key in self._items:
            self._items.move_to_end(key)
        return value

    def pop(self, key: K) -> bool:
        """Forget ``key``; True if it was there."""
        return self._items.pop(key, _MISSING) is not _MISSING

    def take(self, key: K) -> V | None:
        """Forget ``key`` and return its value (None if it was not there)."""
        return self._items.pop(key, None)

    def _trim(self, size: int) -> list[V]:
        dropped = []
        while len(self._items) > max(size, 0):
            dropped.append(self._items.popitem(last=False)[1])
        return dropped


_MISSING = object()

__all__ = ["Recent"]
