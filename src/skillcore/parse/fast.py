"""A checked fast path for the common, flat ``SKILL.md`` frontmatter.

:func:`scan_frontmatter` reads the shapes nearly every skill uses — top-level ``key: scalar``
lines, plain / single-quoted / double-quoted (escape-free) one-line scalars, ``|``/``>``
block scalars with one indentation level, ``key:`` followed by ``- item`` lines, one-line flow
lists of scalars (``[a, "b"]``), and one level of ``key:`` + indented ``k: scalar`` lines
(``metadata:``) — and returns exactly the value PyYAML's safe loader returns for that text.
Whenever it is not sure, it returns None and the caller runs the full loader (which also
reports errors): anchors, aliases, tags, nested or multi-line flow collections, multi-line or
escaped scalars, tabs, CR without LF, non-printable characters, duplicate keys (also keys
that ``_build`` would read as one field), long integers, anything unusual. Plain scalars are
typed by PyYAML's own YAML 1.1 implicit resolvers and built by its own constructors, so
``yes``, ``1.0``, ``0o7``, ``2024-01-01`` or ``~`` come out as libyaml would give them. A
differential Hypothesis test holds it equal to ``CSafeLoader``.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

__all__ = ["scan_frontmatter"]

#: Integers longer than this are left to the full loader (which caps them with a diagnostic).
_MAX_INT_CHARS = 20

# Characters YAML accepts in a stream, minus the ones this scanner does not handle (tab, CR,
# NEL, LS, PS, BOM): anything else sends the text to the full loader. This class is only
# needed for non-ASCII text and compiled on first use (its ranges cost ms of import time).
_UNHANDLED_RANGES = (
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_unhandled: list[re.Pattern[str]] = []
#: Characters that cannot start a plain scalar (or start one only in ways left to libyaml).
_NOT_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
#: ``key: value``: the key, then either a plain value with no ':' or '#' at all (group 2:
#: only its trailing blanks to strip before it is resolved), or the rest after ': ' (group 3)
#: for ``_inline`` to read.
_KEY_LINE = re.compile(
    r"([A-Za-z_][A-Za-z0-9_-]*):(?: +([^ "
    + "".join(sorted(map(re.escape, _NOT_PLAIN_START)))
    + r"][^:#]*)$| (.*))?$"
)
_DIGITS = frozenset("0123456789")

_STR = "tag:yaml.org,2002:str"
_RESOLVERS: dict[str, list[tuple[str, Any]]] = {
    k: list(v) for k, v in Resolver.yaml_implicit_resolvers.items()
}
_CONSTRUCTOR = SafeConstructor()
_BUILDERS = {
    "tag:yaml.org,2002:bool": SafeConstructor.construct_yaml_bool,
    "tag:yaml.org,2002:int": SafeConstructor.construct_yaml_int,
    "tag:yaml.org,2002:float": SafeConstructor.construct_yaml_float,
    "tag:yaml.org,2002:timestamp": SafeConstructor.construct_yaml_timestamp,
}


class _Decline(Exception):
    """Not sure: let the full loader decide."""


_EMPTY = object()  # "key:" with nothing after it on the line
_BLOCK_STYLES = {"|": ("\n", "\n"), "|-": ("\n", ""), ">": (" ", "\n"), ">-": (" ", "")}


def scan_frontmatter(text: str) -> dict[str, Any] | None:
    """The mapping the safe YAML loader builds from ``text``, or None when not sure."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    lines = text.split("\n")
    if text.isascii():
        # For ASCII, str.isprintable is exactly 0x20-0x7E: no tab, CR or control character
        # (one check of the lines joined, not one per line).
        if not "".join(lines).isprintable():
            return None
    else:
        if not _unhandled:
            _unhandled.append(re.compile(_UNHANDLED_RANGES))
        if _unhandled[0].search(text) is not None:
            return None
    try:
        return _scan(lines)
    except Exception:  # _Decline, or any surprise: the full loader decides
        return None


def _scan(lines: list[str]) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    seen: set[str] = set()
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        c = line[:1]
        if not c or c == "#":
            continue  # blank, or a comment in column 0
        if c == " ":
            if line.strip(" "):
                raise _Decline  # indentation where none is expected
            continue
        m = _KEY_LINE.match(line)
        if m is None:
            raise _Decline  # '---', '- item', '? ', ...
        key, plain, rest = m.groups()
        # Keys that differ only by case or '_' / '-' are one field downstream: the full
        # loader reports them as duplicates.
        norm = _KEY_NORMS.get(key) or _key_norm(key)  # raises for 'yes', 'null', '<<'
        if norm in seen:
            raise _Decline
        seen.add(norm)
        if plain is not None:  # the common case, without _inline's checks
            out[key] = _resolve(plain.rstrip(" ") if plain[-1] == " " else plain)
            continue
        value = _inline(rest or "")
        if value is _EMPTY:
            value, i = _nested(lines, i)
        elif type(value) is tuple:
            value, i = _block_scalar(lines, i, value[0])
        out[key] = value
    return out or None


def _inline(text: str) -> Any:
    """The scalar after ``key: `` or ``- ``: its value, ``_EMPTY`` or ``(block style,)``."""
    v = text.lstrip(" ")
    if not v:
        return _EMPTY
    c = v[0]
    # ('-5', a negative priority, is a plain scalar: common enough to keep)
    if c in _NOT_PLAIN_START and not (c == "-" and v[1:2] in _DIGITS):
        return _special(v, c)
    cut = v.find(" #")
    if cut != -1:
        v = v[:cut]
    v = v.rstrip(" ")
    if ": " in v or v[-1] == ":":
        raise _Decline  # a nested mapping, or an error
    return _resolve(v)


def _special(v: str, c: str) -> Any:
    """``_inline`` for a value that starts with a YAML indicator ``c`` (quotes, a block or
    flow start, a comment), or declines."""
    if c == "#":
        return _EMPTY  # only a comment follows the key
    if c == "'":
        end = 1
        while True:
            end = v.find("'", end)
            if end == -1:
                raise _Decline  # continues on the next line
            if v[end + 1 : end + 2] == "'":
                end += 2
                continue
            break
        if end + 1 != len(v):
            _rest(v, end + 1)
        return v[1:end].replace("''", "'")
    if c == '"':
        end = v.find('"', 1)
        if end == -1 or v.find("\\", 1, end) != -1:
            raise _Decline  # multi-line or escapes
        if end + 1 != len(v):
            _rest(v, end + 1)
        return v[1:end]
    if c in "|>":
        style = v.split(" #", 1)[0].rstrip(" ")
        if style not in _BLOCK_STYLES or v[len(style) :].strip(" ")[:1] not in ("", "#"):
            raise _Decline
        return (style,)
    if c == "[":
        return _flow_list(v)
    raise _Decline


def _flow_list(v: str) -> list[Any]:
    """``[a, "b: c", 'd']`` on one line: plain or escape-free quoted items, no nesting."""
    items: list[Any] = []
    pos, n = 1, len(v)
    while True:
        while pos < n and v[pos] == " ":
            pos += 1
        if pos >= n:
            raise _Decline  # continues on the next line
        c = v[pos]
        if c == "]" and not items:
            pos += 1
            break
        if c in "\"'":
            end = v.find(c, pos + 1)
            if end == -1 or v[end + 1 : end + 2] == c or (c == '"' and "\\" in v[pos:end]):
                raise _Decline
            items.append(v[pos + 1 : end])
            pos = end + 1
        else:
            end = pos
            while end < n and v[end] not in ",]":
                end += 1
            raw = v[pos:end].rstrip(" ")
            if not raw or c in _NOT_PLAIN_START or any(ch in raw for ch in ":#[]{}"):
                raise _Decline
            items.append(_resolve(raw))
            pos = end
        while pos < n and v[pos] == " ":
            pos += 1
        if pos < n and v[pos] == ",":
            pos += 1
            continue
        if pos < n and v[pos] == "]":
            pos += 1
            break
        raise _Decline
    _rest(v, pos)
    return items


def _rest(v: str, start: int) -> None:
    """After a quoted scalar only blanks and a comment may follow."""
    rest = v[start:]
    if rest and (rest[0] != " " or rest.strip(" ")[:1] not in ("", "#")):
        raise _Decline


def _resolve(v: str) -> Any:
    """A plain scalar typed by PyYAML's implicit resolvers and built by its constructors."""
    for tag, regexp in _RESOLVERS.get(v[:1], ()):
        if regexp.match(v):
            if tag == "tag:yaml.org,2002:null":
                return None
            build = _BUILDERS.get(tag)
            if build is None or (tag == "tag:yaml.org,2002:int" and len(v) > _MAX_INT_CHARS):
                raise _Decline  # merge key, '=', or an integer the full loader caps
            try:
                return build(_CONSTRUCTOR, ScalarNode(tag, v))
            except Exception:
                raise _Decline from None  # e.g. a timestamp that is no real date
    return v


#: Plain keys that resolve to text, and the field name they stand for downstream (case and
#: '_' / '-' folded): memoised, as keys repeat from file to file (bounded).
_KEY_NORMS: dict[str, str] = {}


def _key_norm(key: str) -> str:
    """The folded name of the plain scalar ``key``; declines a key that is not text."""
    if _resolve(key) is not key:
        raise _Decline  # a key such as 'yes', 'null' or '<<'
    norm: str = key.lower().replace("_", "-")  # (the identity test above made ``key`` Any)
    if len(_KEY_NORMS) < 4096 and len(key) <= 64:  # bounded memory, whatever the files say
        _KEY_NORMS[key] = norm
    return norm


def _plain_key(key: str) -> bool:
    """True when the plain scalar ``key`` resolves to a string."""
    if key in _KEY_NORMS:
        return True
    try:
        _key_norm(key)
    except _Decline:
        return False
    return True


def _nested(lines: list[str], i: int) -> tuple[Any, int]:
    """``key:`` followed by ``- item`` lines or indented ``k: scalar`` lines (or nothing)."""
    n = len(lines)
    if i >= n:
        return None, i
    first = lines[i]
    # The block is the run of indented lines (and of '- ' lines when it is a list at column
    # 0); every line of it must have the first line's shape, or the scanner declines. A
    # whitespace-only line fails the indentation checks below (or indexes past its end,
    # which scan_frontmatter turns into a decline).
    if first[:1] == " ":
        indent = len(first) - len(first.lstrip(" "))
        pad = first[:indent]
    elif first.startswith("- "):
        indent, pad = 0, ""
    else:
        return None, i
    if first.startswith("- ", indent):
        items = []
        while i < n:
            line = lines[i]
            if line[:1] != " " and (indent or not line.startswith("- ")):
                break  # the end of the block
            if not line.startswith(pad) or not line.startswith("- ", indent):
                raise _Decline
            item = _inline(line[indent + 2 :])
            if item is _EMPTY or type(item) is tuple:
                raise _Decline
            items.append(item)
            i += 1
        return items, i
    mapping: dict[str, Any] = {}
    while i < n:
        line = lines[i]
        if line[:1] != " ":
            break  # the end of the block
        if not line.startswith(pad) or line[indent] == " ":
            raise _Decline
        m = _KEY_LINE.match(line, indent)
        if m is None:
            raise _Decline
        key, plain, rest = m.groups()
        if key in mapping or (key not in _KEY_NORMS and not _plain_key(key)):
            raise _Decline
        if plain is not None:
            mapping[key] = _resolve(plain.rstrip(" ") if plain[-1] == " " else plain)
            i += 1
            continue
        value = _inline(rest or "")
        if value is _EMPTY:
            value = None
        elif type(value) is tuple:
            raise _Decline
        mapping[key] = value
        i += 1
    return mapping, i


def _block_scalar(lines: list[str], i: int, style: str) -> tuple[str, int]:
    """A ``|``/``>`` scalar whose lines share one indentation (no blank or deeper lines)."""
    n = len(lines)
    start = i
    while i < n and lines[i][:1] == " ":
        i += 1
    block = lines[start:i]
    # No content, a whitespace-only line, or the text ending without a final newline: each
    # changes the result in ways left to libyaml.
    if not block or i >= n or (lines[i] and not lines[i].strip(" ")):
        raise _Decline
    first = block[0]
    indent = len(first) - len(first.lstrip(" "))
    if indent == 0:
        raise _Decline
    pad = " " * indent
    parts = []
    for line in block:
        if not line.startswith(pad) or line[indent] == " " or line[-1] == " ":
            raise _Decline
        parts.append(line[indent:])
    joiner, end = _BLOCK_STYLES[style]
    return joiner.join(parts) + end, i
