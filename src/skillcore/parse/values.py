"""Frontmatter values as skillcore keeps them: type names for messages, scalars as text,
unknown values as JSON, lists of text, and the cleaning of unsafe characters."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from skillcore._escaping import escape_char, find_invisible

if TYPE_CHECKING:
    from datetime import date

#: Removed from kept text: C0/C1 controls but tab and newline, bidi overrides, isolates, marks.
UNSAFE_TEXT = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if is_date(value):
        return "date"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return type(value).__name__


def str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            if type(v) is not str:
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    raise TypeError("list of non-strings")
                v = str(v)
            v = v.strip()
            if v:
                out.append(v)
        return out
    raise TypeError(type_name(value))


def invisible_warning(text: str, where: str = "the frontmatter") -> str | None:
    """What a warning says about the invisible characters in ``text``, a frontmatter or (with
    ``where``) one of its values (None: there are none; the rule is
    :func:`skillcore._escaping.find_invisible`)."""
    if text.isascii():  # the common case: one C-level scan
        return None
    found = find_invisible(text)
    first = next(found, None)
    if first is None:
        return None
    char = first.group()
    count = 1 + sum(1 for _ in found)
    line = ""
    if where == "the frontmatter":  # (+2: it starts on the line after the opening ---)
        line = f", line {text.count(chr(10), 0, first.start()) + 2}"
    return (
        f"{where} contains {count} invisible character(s) (first: {char_name(char)}{line}): "
        "text a reader cannot see but a model reads; shown escaped (as "
        f"{escape_char(char)}) wherever skillcore shows it"
    )


def char_name(char: str) -> str:
    """``U+200B ZERO WIDTH SPACE`` (or the category for unnamed code points)."""
    name = unicodedata.name(char, "") or _UNNAMED.get(unicodedata.category(char), "")
    return f"U+{ord(char):04X} {name}".rstrip()


_UNNAMED = {"Cc": "(control character)", "Cn": "(unassigned)", "Co": "(private use)"}


#: Cleans one text value of a field: ``clean(text, field) -> text``.
Clean = Callable[[str, str], str]


def unchanged(text: str, field: str) -> str:
    return text


class Cleaner:
    """Removes control and bidi characters from kept text, remembering what it removed."""

    def __init__(self) -> None:
        self.found: dict[str, tuple[int, str]] = {}

    def __call__(self, text: str, field: str) -> str:
        if UNSAFE_TEXT.search(text) is None:  # the common case: one C-level scan
            return text
        removed = UNSAFE_TEXT.findall(text)
        count, first = self.found.get(field, (0, removed[0]))
        self.found[field] = (count + len(removed), first)
        return UNSAFE_TEXT.sub("", text)


def is_date(value: Any) -> TypeGuard[date]:
    # A date value exists only once ``datetime`` is loaded (YAML loads it for timestamps), so
    # a cold start from the parse cache need not import it.
    dt = sys.modules.get("datetime")
    return dt is not None and isinstance(value, (dt.date, dt.datetime))


def scalar_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_date(value):
        return value.isoformat()
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode("ascii")  # !!binary, as written
    return str(value)


def jsonable(value: Any, clean: Clean) -> Any:
    """Unknown frontmatter values as JSON-native data (dates become ISO text, text cleaned).

    Its size is bounded by the expansion check done before the values were built.
    """
    if isinstance(value, str):
        return clean(value, "extra")
    if isinstance(value, Mapping):
        return {clean(scalar_text(k), "extra"): jsonable(v, clean) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v, clean) for v in value), key=repr)  # deterministic order
    if isinstance(value, (list, tuple)):
        return [jsonable(v, clean) for v in value]
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return clean(scalar_text(value), "extra")
