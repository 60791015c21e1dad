"""The payload of a parse cache file: parse results as JSON columns, written and read back
with a strict type check of every value (the layout is below). Objects are rebuilt column by
column without running their constructors, which checked the values when they were first
made."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from functools import cache, partial
from itertools import accumulate, chain, groupby, islice, repeat
from typing import TYPE_CHECKING, Any

from skillcore._frozen import FrozenDict, thaw, to_frozen

if TYPE_CHECKING:
    from skillcore.parse.context import ParseResult

_new = object.__new__
#: Runs an iterator to its end, keeping nothing (a C-level loop over ``map``).
_drain: partial[deque[Any]] = partial(deque, maxlen=0)
#: The slots of a FrozenDict: the cache wraps the dicts it decoded instead of copying them.
_FROZEN_DATA = FrozenDict.__dict__["_data"].__set__
_FROZEN_HASH = FrozenDict.__dict__["_hash"].__set__


def _same(value: Any) -> Any:
    return value


class _BadPayload(Exception):
    """A cache file whose payload does not have the expected shape."""


# -- the payload ---------------------------------------------------------------------------
#
# One JSON object of columns, so that JSON decodes a few tokens per entry and every check and
# constructor runs over a whole column in C (``map``, ``set``, ``min``), not per entry:
#
#   key          the rules key
#   dirs         [directory] * n          stamps  [stamp] * n          offsets  [body offset] * n
#   parsed       m: entries 0..m-1 have metadata, the others were skipped (metadata None)
#   name         [name] * m               description  [description] * m
#   <field>      the other metadata fields, only for the entries whose value is not the
#                default: [steps, [number in table], table of distinct values] for text and
#                lists of text, [steps, [value]] for ``priority``, ``metadata`` and ``extra``
#   <flag>       steps: the entries whose flag is not the default
#   diagnostics  [entry steps, [severity], [code], [message], [source], [path],
#                 [steps, [number in table], table]] (the last: the fields that are set)
#
# Entries are listed by steps from the previous one, the first from -1: [1, 1, 1] is entries
# 0, 1, 2 and [3, 2] entries 2, 4. Steps of at least 1 summing to at most m are exactly the
# strictly increasing numbers in 0..m-1 (``min`` and ``sum`` check them); m steps are every
# entry in order. The diagnostics' steps start from 0 and may be 0 (one entry, several).
#
# A value of any other type anywhere rejects the whole file. No position accepts two types
# (no ``null`` for "not set": unset is "not listed"), so a value whose type was changed can
# never pass as another valid one; and a restriction (``allowed-tools``) cannot be dropped by
# changing one value.

_TEXT, _STRS, _INT, _MAP, _JSON, _FLAG = range(6)
#: The kinds stored as a table of distinct values (licenses, versions, tool lists repeat).
_TABLED = (_TEXT, _STRS)

#: The ``SkillMetadata`` fields stored sparsely, with their kind and default. The others are
#: ``name`` and ``description`` (dense), and ``location`` and ``stamp`` (from the entry).
_SPARSE: tuple[tuple[str, int, Any], ...] = (
    ("license", _TEXT, None),
    ("compatibility", _TEXT, None),
    ("metadata", _MAP, FrozenDict()),
    ("allowed_tools", _STRS, None),
    ("version", _TEXT, None),
    ("triggers", _STRS, ()),
    ("file_patterns", _STRS, ()),
    ("priority", _INT, 0),
    ("dependencies", _STRS, ()),
    ("disable_model_invocation", _FLAG, False),
    ("user_invocable", _FLAG, True),
    ("argument_hint", _TEXT, None),
    ("hooks", _JSON, FrozenDict()),
    ("extra", _JSON, FrozenDict()),
    ("headings", _STRS, ()),
)

_DUMP: dict[int, Callable[[Any], Any]] = {
    _TEXT: _same, _STRS: list, _INT: _same, _MAP: dict, _JSON: thaw,
}  # fmt: skip


def encode(key: str, stamps: Mapping[str, str], parsed: Mapping[str, ParseResult]) -> Any:
    """The payload object of these entries (see the layout above)."""
    rows = sorted(stamps.items(), key=lambda row: parsed[row[0]].metadata is None)  # stable
    results = [parsed[d] for d, _ in rows]
    metas = [r.metadata for r in results if r.metadata is not None]
    doc: dict[str, Any] = {
        "key": key,
        "dirs": [d for d, _ in rows],
        "stamps": [s for _, s in rows],
        "offsets": [r.body_offset for r in results],
        "parsed": len(metas),
        "name": [m.name for m in metas],
        "description": [m.description for m in metas],
    }
    for field, kind, default in _SPARSE:
        values = [getattr(m, field) for m in metas]
        at = [i for i, v in enumerate(values) if v != default]
        doc[field] = _sparse_dump(at, [values[i] for i in at], kind)
    entry: list[int] = []
    cols: tuple[list[str], ...] = ([], [], [], [], [])
    field_at: list[int] = []
    fields: list[str] = []
    for i, r in enumerate(results):
        for d in r.diagnostics:
            if d.field is not None:
                field_at.append(len(entry))
                fields.append(d.field)
            entry.append(i)
            texts = (d.severity.value, d.code.value, d.message, d.source, d.path)
            for col, text in zip(cols, texts):
                col.append(text)
    entry_steps = [b - a for a, b in zip([0, *entry], entry)]
    doc["diagnostics"] = [entry_steps, *cols, _sparse_dump(field_at, fields, _TEXT)]
    return doc


def _sparse_dump(at: list[int], values: list[Any], kind: int) -> Any:
    """One sparse field (see the layout above)."""
    steps = [b - a for a, b in zip([-1, *at], at)]
    if kind == _FLAG:
        return steps
    dump = _DUMP[kind]
    if kind not in _TABLED:
        return [steps, [dump(v) for v in values]]
    table: dict[Any, int] = {}  # text or tuples of text: equal values are identical values
    numbers = [table.setdefault(v, len(table)) for v in values]
    return [steps, numbers, [dump(v) for v in table]]


def decode(
    doc: Any, key: str, source: str, url_for: Callable[[str], str]
) -> tuple[list[str], list[str], list[ParseResult]] | None:
    """``(directories, stamps, results)`` of a payload; None when it is not this cache's;
    raises (``_BadPayload``, ``KeyError``, ...) when anything is odd."""
    from skillcore.model import SkillLocation, SkillMetadata
    from skillcore.parse.context import ParseResult

    if type(doc) is not dict or doc.get("key") != key:
        return None
    dirs = _column(doc["dirs"], str)
    n = len(dirs)
    stamps = _column(doc["stamps"], str, n)
    offsets = _column(doc["offsets"], int, n)
    m = doc["parsed"]
    if not all(stamps) or (offsets and min(offsets) < 0) or type(m) is not int or not 0 <= m <= n:
        raise _BadPayload
    here = dirs if m == n else dirs[:m]
    location: dict[str, list[Any] | repeat[Any]] = {
        "source": repeat(source),
        "directory": here,
        "url": list(map(url_for, here)),
    }
    columns: dict[str, Any] = {
        "name": _column(doc["name"], str, m),
        "description": _column(doc["description"], str, m),
        "location": build_objects(SkillLocation, m, location),
        "stamp": stamps if m == n else stamps[:m],
    }
    for field, kind, default in _SPARSE:
        columns[field] = _sparse(doc[field], kind, default, m)
    metas: list[Any] = build_objects(SkillMetadata, m, columns)
    if m < n:
        metas += [None] * (n - m)
    result = {
        "metadata": metas,
        "diagnostics": _diagnostics(doc["diagnostics"], n),
        "need_more": repeat(False),
        "body_offset": offsets,
    }
    return dirs, stamps, build_objects(ParseResult, n, result)


def _column(value: Any, of: type, length: int | None = None) -> list[Any]:
    """``value`` when it is a list of ``of`` (of ``length`` items); else raises ``_BadPayload``."""
    # ``type`` is exact: ``True`` is not an int here, nor a str subclass a str.
    if type(value) is not list or not set(map(type, value)) <= {of}:
        raise _BadPayload
    if length is not None and len(value) != length:
        raise _BadPayload
    return value


def _positions(value: Any, m: int) -> list[int]:
    """The steps of strictly increasing entry numbers in ``0..m-1`` (see the layout above)."""
    steps = _column(value, int)
    if steps and (min(steps) < 1 or sum(steps) > m):
        raise _BadPayload
    return steps


def _sparse(raw: Any, kind: int, default: Any, m: int) -> list[Any] | repeat[Any]:
    """The column of ``m`` values of one sparse field (see the layout above)."""
    if kind == _FLAG:
        steps = _positions(raw, m)
        values: Any = repeat(not default)
    elif kind in _TABLED:
        if type(raw) is not list or len(raw) != 3:
            raise _BadPayload
        steps = _positions(raw[0], m)
        numbers = _column(raw[1], int, len(steps))
        table = _VALUES[kind](raw[2])  # checked and converted once per distinct value
        if numbers and (min(numbers) < 0 or max(numbers) >= len(table)):
            raise _BadPayload
        values = list(map(table.__getitem__, numbers))
    else:
        if type(raw) is not list or len(raw) != 2:
            raise _BadPayload
        steps = _positions(raw[0], m)
        values = _VALUES[kind](_column(raw[1], _TYPE[kind], len(steps)))
    if not steps:
        return repeat(default)
    if len(steps) == m:  # every entry, in order
        return values if type(values) is list else list(islice(values, m))
    column = [default] * (m + 1)  # accumulated steps are the entry numbers + 1
    _drain(map(column.__setitem__, accumulate(steps), values))
    del column[0]
    return column


def _texts(raw: Any) -> list[str]:
    return _column(raw, str)


def _str_lists(raw: Any) -> list[tuple[str, ...]]:
    # Fail closed: allowed-tools that is not a list of strings rejects the file, so a damaged
    # entry can never lift a restriction.
    if not set(map(type, chain.from_iterable(_column(raw, list)))) <= {str}:
        raise _BadPayload
    return list(map(tuple, raw))


def _ints(raw: list[int]) -> list[int]:
    return raw


def _str_maps(maps: list[dict[str, Any]]) -> list[FrozenDict[str, str]]:
    # The keys of a decoded JSON object are always strings: only the values need a check.
    if not set(map(type, chain.from_iterable(map(dict.values, maps)))) <= {str}:
        raise _BadPayload
    # Flat str -> str: no deep freeze needed, and each dict is ours (no copy needed).
    made = list(map(_new, repeat(FrozenDict, len(maps))))
    _drain(map(_FROZEN_DATA, made, maps))
    _drain(map(_FROZEN_HASH, made, repeat(None)))
    return made


def _json_maps(maps: list[dict[str, Any]]) -> list[FrozenDict[str, Any]]:
    for value in maps:
        _json_native(value)
    return list(map(to_frozen, maps))


_VALUES: dict[int, Callable[[Any], list[Any]]] = {
    _TEXT: _texts, _STRS: _str_lists, _INT: _ints, _MAP: _str_maps, _JSON: _json_maps,
}  # fmt: skip
#: The JSON type of each value of the kinds stored without a table.
_TYPE: dict[int, type] = {_INT: int, _MAP: dict, _JSON: dict}


def _json_native(value: Any, depth: int = 0) -> None:
    if depth > 64:
        raise _BadPayload
    t = type(value)
    if t is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise _BadPayload
            _json_native(v, depth + 1)
    elif t is list:
        for v in value:
            _json_native(v, depth + 1)
    elif value is not None and t not in (str, int, float, bool):
        raise _BadPayload


def _diagnostics(raw: Any, n: int) -> list[tuple[Any, ...]] | repeat[tuple[Any, ...]]:
    """The column of ``n`` diagnostics tuples."""
    from skillcore.diagnostics import Code, Diagnostic, Severity

    if type(raw) is not list or len(raw) != 7:
        raise _BadPayload
    steps = _column(raw[0], int)
    k = len(steps)
    if not k:
        return repeat(())
    if min(steps) < 0 or sum(steps) >= n:  # non-decreasing entry numbers in 0..n-1
        raise _BadPayload
    entry = accumulate(steps)
    severities = map(_members(Severity).__getitem__, _column(raw[1], str, k))
    codes = map(_members(Code).__getitem__, _column(raw[2], str, k))
    texts = [_column(raw[i], str, k) for i in (3, 4, 5)]
    fields = _sparse(raw[6], _TEXT, None, k)  # the field of each diagnostic, or None
    made = list(map(Diagnostic, severities, codes, *texts, fields))
    column: list[tuple[Any, ...]] = [()] * n
    start = 0
    for i, group in groupby(entry):
        end = start + sum(1 for _ in group)
        column[i] = tuple(made[start:end])
        start = end
    return column


@cache
def _members(enum: type) -> dict[str, Any]:
    """An enum's members by value (an unknown value is a ``KeyError``: a miss)."""
    return {member.value: member for member in enum}  # type: ignore[attr-defined]


@cache
def _setters(cls: type) -> tuple[tuple[str, Callable[[Any, Any], None]], ...]:
    """The slot setters of an attrs class, every field in order, then its cached hash."""
    import attrs

    found = [(a.name, cls.__dict__[a.name].__set__) for a in attrs.fields(cls)]
    if "_attrs_cached_hash" in cls.__dict__:
        found.append(("", cls.__dict__["_attrs_cached_hash"].__set__))
    return tuple(found)


def build_objects(cls: type, n: int, columns: Mapping[str, list[Any] | repeat[Any]]) -> list[Any]:
    """``n`` instances of a slotted attrs class from one column per field, set slot by slot.

    Only for values that already have the exact types the converters produce (checked
    above): it skips ``__init__``, converters and validators, and sets each field of every
    instance in one C-level pass, a third of the cost of a constructor call per instance.
    ``tests/core/parse/test_cache_format.py`` holds the instances equal to ``__init__``'s.
    """
    made: list[Any] = list(map(_new, repeat(cls, n)))
    for name, set_slot in _setters(cls):
        column = columns[name] if name else repeat(None)  # "" is the cached hash: not computed
        if type(column) is list:
            if len(column) != n:  # a short column would leave slots unset
                raise _BadPayload
        elif type(column) is not repeat:
            raise TypeError(f"column {name!r} is a {type(column).__name__}")
        _drain(map(set_slot, made, column))
    return made
