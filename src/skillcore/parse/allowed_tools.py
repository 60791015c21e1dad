"""The ``allowed-tools`` field: its spellings (spec string, YAML list, comma-separated text)
and its bounds. A value that cannot be read fails closed: the skill allows no tools beyond
the always-allowed ones."""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from skillcore.diagnostics import Code
from skillcore.parse.context import ParseContext
from skillcore.parse.frontmatter_caps import MAX_LIST_ITEM, MAX_LIST_ITEMS
from skillcore.parse.values import char_name, type_name

#: A space-separated token whose parenthesised groups may contain spaces.
_SPACE_TOKENS = re.compile(r"(?:[^\s(]|\([^)]*\))+")


def split_tools(text: str) -> list[str]:
    """Split an allowed-tools string on spaces or commas, never inside parentheses."""
    if "," not in text:
        if "(" not in text:
            return text.split()  # the common case, without the character walk
        if text.count("(") == text.count(")"):
            return _SPACE_TOKENS.findall(text)  # "Bash(git log:*) Read": groups keep spaces
    sep_is_comma = any(ch == "," and top for ch, top in _at_top_level(text))
    items: list[str] = []
    buf: list[str] = []
    for ch, top in _at_top_level(text):
        if top and (ch == "," if sep_is_comma else ch.isspace()):
            items.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    items.append("".join(buf))
    return [i.strip() for i in items if i.strip()]


def _at_top_level(text: str) -> Iterator[tuple[str, bool]]:
    """Each character of ``text`` and whether it stands outside parentheses (a stray ``)``
    closes nothing)."""
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        yield ch, depth == 0


def parse_allowed_tools(value: Any) -> tuple[str, ...] | None:
    """Spec string (space-separated), YAML list, or comma-separated text -> tuple of entries.

    ``None`` (no value) gives None; anything else that is not text or a list of text raises
    ``TypeError`` naming what it got, so the caller can fail closed.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(split_tools(value))
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for item in value:
            if not isinstance(item, str):
                raise TypeError(f"a list containing a {type_name(item)}")
            if item.strip():
                out.append(item.strip())
        return tuple(out)
    raise TypeError(type_name(value))


def read_allowed_tools(value: Any) -> tuple[tuple[str, ...] | None, str | None]:
    """``(entries, problem)``; a problem means the value cannot be read and must fail closed."""
    if value is None:
        return None, "has no value"
    try:
        tools = parse_allowed_tools(value)
    except TypeError as exc:
        return None, f"must be a string or a list of strings, got {exc}"
    assert tools is not None
    if len(tools) > MAX_LIST_ITEMS:
        return None, f"has {len(tools)} entries (limit {MAX_LIST_ITEMS})"
    if not "".join(tools).isprintable():  # one check for the common, clean case
        char = next(c for c in "".join(tools) if not c.isprintable())
        return None, f"has an entry containing {char_name(char)}"
    longest = max(map(len, tools), default=0)
    if longest > MAX_LIST_ITEM:
        return None, f"has an entry of {longest} characters (limit {MAX_LIST_ITEM})"
    return tools, None


def read_allowed_tools_field(
    fm: dict[str, Any], ctx: ParseContext, duplicated: AbstractSet[str], kwargs: dict[str, Any]
) -> None:
    """``allowed_tools`` of the metadata from the ``allowed-tools`` field, failing closed."""
    if "allowed-tools" not in fm:
        return
    if "allowed-tools" in duplicated:
        kwargs["allowed_tools"] = ()  # already reported with the duplicate key
        return
    tools, why = read_allowed_tools(fm["allowed-tools"])
    if why is not None:
        # Fail closed: an unreadable list must not make the skill unrestricted.
        ctx.diags.append(
            ctx.problem(
                Code.INVALID_TYPE,
                f"'allowed-tools' {why}; the skill allows no tools beyond the always-allowed ones",
                "allowed-tools",
            )
        )
        tools = ()
    kwargs["allowed_tools"] = tools
