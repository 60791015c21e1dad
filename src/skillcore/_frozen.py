"""A small hashable, read-only mapping so frozen values stay hashable all the way down."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from operator import attrgetter
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


# attrs inspects each converter's signature when it builds a class. For a builtin such as
# ``tuple`` that means parsing its text signature with ``tokenize``, whose first use compiles
# a large regular expression: several milliseconds of every cold start. These Python
# functions have a signature to read and the same effect.
# They take ``Iterable[Any]``: mypy's attrs plugin copies a converter's parameter type into
# ``__init__`` without solving a type variable, so a generic converter would demand a bare
# ``T``; the field's own annotation still types the attribute.


def to_tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    """``tuple(value)``, as an attrs converter."""
    return tuple(value)


def to_frozenset(value: Iterable[Any]) -> frozenset[Any]:
    """``frozenset(value)``, as an attrs converter."""
    return frozenset(value)


class FrozenDict(Mapping[K, V], Generic[K, V]):
    """An immutable mapping. Equal to any mapping with the same items; hashable if values are."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[K, V] | None = None) -> None:
        self._data: dict[K, V] = dict(data or {})
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        # Mapping's equality copies both sides into new dicts; two FrozenDicts compare
        # their dicts directly (the same result).
        if type(other) is FrozenDict:
            return self._data == other._data
        return Mapping.__eq__(self, other)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset((k, _hashable(v)) for k, v in self._data.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"


_DATA = attrgetter("_data")
_new_frozen = object.__new__


def dicts_of(mappings: Iterable[FrozenDict[K, V]]) -> Iterator[dict[K, V]]:
    """The dicts behind ``mappings`` (read-only to the caller), taken in C: no Python call
    per mapping, as its ``len`` or ``in`` would be, for loops over every skill."""
    return map(_DATA, mappings)


def adopt(data: dict[K, V]) -> FrozenDict[K, V]:
    """``FrozenDict(data)`` keeping ``data`` itself instead of a copy: for a dict its maker
    built and hands over (no other reference changes it afterwards)."""
    frozen: FrozenDict[K, V] = _new_frozen(FrozenDict)
    frozen._data = data
    frozen._hash = None
    return frozen


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return frozenset((k, _hashable(v)) for k, v in value.items())
    return value


def freeze(value: Any) -> Any:
    """Deep-convert lists to tuples and dicts to FrozenDicts."""
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


_EMPTY: FrozenDict[Any, Any] = FrozenDict()


def to_frozen(value: Mapping[Any, Any] | None) -> FrozenDict[Any, Any]:
    """attrs converter: any mapping to a deep-frozen FrozenDict."""
    if isinstance(value, FrozenDict):
        return value
    if not value:
        return _EMPTY
    return freeze(value)  # type: ignore[no-any-return]


def thaw(value: Any) -> Any:
    """Inverse of :func:`freeze` for JSON output."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value
