"""Pure parsing and validation of ``SKILL.md`` bytes: no I/O, never raises for bad input.

Frontmatter is bounded *before* it reaches a YAML parser: libyaml's C loader can crash the
process on deeply nested input and the pure-Python loader raises ``RecursionError``. Any
failure while loading or converting one file's frontmatter becomes that file's diagnostic.

Caps (each defined once, below):

=============================  ===========  ====================================================
what                           value        when exceeded
=============================  ===========  ====================================================
frontmatter size               65,536 B     skill skipped (``YAML_TOO_COMPLEX``)
bytes to read for frontmatter  65,600 B     ``FRONTMATTER_HEAD_BYTES``: a head this long holds
                                            any frontmatter under the size cap
nesting depth                  32           skill skipped (``YAML_TOO_COMPLEX``)
expanded size (aliases)        131,072      characters plus one per collection item, counted
                                            on the node graph before any value is built;
                                            skill skipped (``YAML_TOO_COMPLEX``)
integer literal                100 chars    skill skipped (``YAML_ERROR``)
name                           64 / 128     spec limit (warning; error in strict) / unusable
description                    1,024 /      spec limit (warning; error in strict) / truncated
                               16,384       (lenient) / error (strict); kept as written,
                                            rendering shortens (see ``skillcore.catalog.render``)
compatibility                  500 / 1,024  spec limit (warning) / truncated
license, argument-hint         1,024        truncated (lenient) / error (strict)
version                        128          truncated (lenient) / error (strict)
metadata key / value           128 / 1,024  truncated (lenient) / error (strict)
metadata entries               100          first 100 kept (lenient) / error (strict)
list item                      256          triggers, file-patterns, dependencies: item dropped;
                                            allowed-tools entry: the whole list unreadable
list items                     100          first 100 kept; allowed-tools: unreadable
=============================  ===========  ====================================================

An ``allowed-tools`` value that cannot be read (wrong type, non-string items, over a cap, a
duplicated key) fails closed: the skill allows no tools beyond the always-allowed ones.
"""

from __future__ import annotations

import enum
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

import attrs

from skillcore._frozen import FrozenDict
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import SkillLocation, SkillMetadata
from skillcore.parse.bounds import (
    KNOWN_FIELDS,
    SPEC_FIELDS,
    FrontmatterRefused,
)

if TYPE_CHECKING:
    from datetime import date

#: The spec's name limit (a warning in lenient mode) and the longest name usable at all.
MAX_NAME = 64
MAX_NAME_USABLE = 2 * MAX_NAME
#: The spec's description limit: longer is a warning (an error in strict mode). The text is
#: kept whole; only a catalog entry folds and shortens it (``skillcore.catalog.render``).
MAX_DESCRIPTION = 1024
#: The longest description kept at all (a bound on memory and on search work); longer text is
#: truncated in lenient mode.
MAX_DESCRIPTION_STORED = 16 * 1024
#: The spec's compatibility limit (a warning); ``MAX_TEXT`` truncates.
MAX_COMPATIBILITY = 500
#: Hard cap of every other kept text value (license, compatibility, argument-hint, metadata
#: values); longer text is truncated in lenient mode and refused in strict mode.
MAX_TEXT = 1024
MAX_VERSION = 128
MAX_METADATA_KEY = 128
MAX_METADATA_ENTRIES = 100
#: Each trigger, file pattern, dependency and allowed-tools entry.
MAX_LIST_ITEM = 256
#: Items of each list field (triggers, file-patterns, dependencies, allowed-tools).
MAX_LIST_ITEMS = 100
#: Frontmatter larger than this is refused before parsing.
MAX_FRONTMATTER_BYTES = 64 * 1024
#: How many bytes of a ``SKILL.md`` to read so that any frontmatter under the cap fits whole,
#: whatever the size of the body: BOM, ``---`` lines with CRLF and trailing blanks included.
FRONTMATTER_HEAD_BYTES = MAX_FRONTMATTER_BYTES + 64
#: Bracket / indentation nesting deeper than this is refused before parsing.
MAX_NESTING = 32

_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Characters that would break a prompt entry, a path or a tool enum even in lenient mode.
_FORBIDDEN_NAME = re.compile(r"[\s/\\<>&\"'`\x00-\x1f\x7f]")
_TOP_KEY_LINE = re.compile(r"^([A-Za-z0-9_-]+):[ \t]+(.+?)\s*$")
#: Removed from kept text: C0/C1 controls but tab and newline, bidi overrides, isolates, marks.
_UNSAFE_TEXT = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
_LONE_CR = re.compile(r"\r(?!\n)")


class ValidationMode(str, enum.Enum):
    """LENIENT follows the agentskills client guide; STRICT applies the spec to the letter."""

    LENIENT = "lenient"
    STRICT = "strict"


@attrs.frozen
class ParseResult:
    """The outcome of parsing one ``SKILL.md``: metadata (None when skipped) and diagnostics."""

    metadata: SkillMetadata | None
    diagnostics: tuple[Diagnostic, ...] = ()
    #: True when the head ended before the frontmatter did; the caller should read more.
    need_more: bool = False
    body_offset: int = 0


class _Ctx:
    """Where a diagnostic comes from (one per file: a plain class, cheaper to make than attrs)."""

    __slots__ = ("mode", "path", "source")

    def __init__(self, source: str, path: str, mode: ValidationMode) -> None:
        self.source = source
        self.path = path
        self.mode = mode

    def diag(self, sev: Severity, code: Code, message: str, field: str | None = None) -> Diagnostic:
        return Diagnostic(sev, code, message, self.source, self.path, field)

    def problem(self, code: Code, message: str, field: str | None = None) -> Diagnostic:
        """An error in strict mode, a warning in lenient mode."""
        sev = Severity.ERROR if self.mode is ValidationMode.STRICT else Severity.WARNING
        return self.diag(sev, code, message, field)


def decode_text(data: bytes) -> tuple[str | None, Code | None, str]:
    """Decode UTF-8 (BOM tolerated). Returns ``(text, error_code, message)``."""
    if data.find(b"\x00", 0, 8192) != -1:  # no slice: a copy of 8 KiB per file
        return None, Code.BINARY_FILE, "file contains NUL bytes; it looks binary, not Markdown"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # A head cut in the middle of a multi-byte character is not an error.
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            text = data[: exc.start].decode("utf-8-sig")
        else:
            line = data[: exc.start].count(b"\n") + 1
            return (
                None,
                Code.DECODE_ERROR,
                f"not valid UTF-8 at byte {exc.start} (line {line}): {exc.reason}; "
                "save the file as UTF-8",
            )
    return text, None, ""


def split_frontmatter(text: str, *, complete: bool = True) -> tuple[str | None, int, bool]:
    """Find the frontmatter. Returns ``(yaml_text, body_offset, terminated)``.

    ``yaml_text`` is None when the file does not start with a ``---`` line. Lone CR line
    endings (old Mac style) are read as newlines; offsets stay valid for ``text`` because the
    replacement keeps its length. With ``complete=False`` (a head of the file), a closing line
    that ends the head without a newline may continue past it, so it does not count.
    """
    if "\r" in text:
        text = _LONE_CR.sub("\n", text)
    if not text.startswith("---"):
        return None, 0, False
    first_nl = text.find("\n")
    if first_nl == -1 or text[:first_nl].strip() != "---":
        return None, 0, False
    found = _closing_line(text, first_nl)
    if found is None or (not complete and found[1] == len(text)):
        return text[first_nl + 1 :], len(text), False
    start, end = found
    body_offset = end + 1 if end < len(text) else end
    return text[first_nl + 1 : start], body_offset, True


def _closing_line(text: str, nl: int) -> tuple[int, int] | None:
    """Start and end of the first line after the newline at ``nl`` that closes the
    frontmatter: ``---`` or ``...`` with optional trailing blanks (spaces, tabs, CR).

    The same as searching ``^(?:---|\\.\\.\\.)[ \\t\\r]*$`` (multi-line) from ``nl + 1``,
    with ``str.find``: a regular expression tries every position of the text.
    """
    dashes = text.find("\n---", nl)
    dots = text.find("\n...", nl)
    while dashes != -1 or dots != -1:
        at = dashes if dots == -1 or (dashes != -1 and dashes < dots) else dots
        end = text.find("\n", at + 4)
        if end == -1:
            end = len(text)
        if not text[at + 4 : end].strip(" \t\r"):
            return at + 1, end
        # Each candidate is passed once: linear in the text, however many there are.
        if at == dashes:
            dashes = text.find("\n---", at + 1)
        else:
            dots = text.find("\n...", at + 1)
    return None


def _nesting_depth(yaml_text: str) -> int:
    """A cheap upper bound on YAML nesting: flow brackets plus block indentation levels."""
    if (
        yaml_text.count("[") + yaml_text.count("{") <= MAX_NESTING
        and "\n" + " " * 24 not in yaml_text
        and "- - - -" not in yaml_text
    ):
        # Fewer brackets than the limit, indentation under 24 and no long "- - -" runs:
        # the exact walk below cannot exceed the limit, so skip it (hot path of discovery).
        return 0
    flow = 0
    max_flow = 0
    for ch in yaml_text:
        if ch in "[{":
            flow += 1
            max_flow = max(max_flow, flow)
        elif ch in "]}" and flow:
            flow -= 1
    return max(max_flow, _block_depth(yaml_text, ("-",)))


def _block_depth(yaml_text: str, openers: tuple[str, ...]) -> int:
    """The deepest line's block level: its indentation levels plus the ``openers`` (``-``,
    ``?``) that start it, each opening one more level."""
    stack: list[int] = []
    deepest = 0
    for raw in yaml_text.splitlines():
        stripped = raw.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(stripped)
        while stack and stack[-1] >= indent:
            stack.pop()
        stack.append(indent)
        opened = 0
        while stripped in openers or (stripped[1:2] == " " and stripped[:1] in openers):
            opened += 1
            stripped = stripped[2:].lstrip(" ")
        deepest = max(deepest, len(stack) + opened)
    return deepest


def _indicator_count(yaml_text: str) -> int:
    """How many characters could each open a nesting level without a new indented line."""
    return (
        yaml_text.count("[")
        + yaml_text.count("{")
        + yaml_text.count("?")
        + yaml_text.count("- ")
        + yaml_text.count("-\t")
        + yaml_text.count(": -")
    )


def _event_depth(yaml_text: str, limit: int) -> int:
    """Nesting depth reached in the parser's event stream (see ``_yamlload.event_depth``)."""
    from skillcore.parse.yamlload import event_depth

    return event_depth(yaml_text, limit)[0]


def _depth_problem(yaml_text: str) -> str | None:
    """Why the frontmatter is refused for nesting, or None when it is proven shallow enough.

    The cheap scan proves the common case shallow. It can be fooled (``]`` inside quotes,
    ``? `` chains), so anything it cannot prove shallow gets the event-stream check. When the
    parser stops before it could check (a syntax error, or a parser version with a nesting
    limit of its own), skillcore's own bound decides: over the limit by the cheap count is
    refused, whatever the installed parser would have said.
    """
    from skillcore.parse.yamlload import event_depth

    half = MAX_NESTING // 2  # the two cheap counts add up to a bound on the real depth
    if _nesting_depth(yaml_text) < half and _indicator_count(yaml_text) < half:
        return None
    depth, complete = event_depth(yaml_text, MAX_NESTING)
    if depth > MAX_NESTING:
        return _TOO_DEEP
    if not complete:
        bound = _depth_upper_bound(yaml_text)
        if bound > MAX_NESTING:
            return _MAYBE_TOO_DEEP.format(levels=bound)
    return None


def _depth_upper_bound(yaml_text: str) -> int:
    """A bound no YAML reading of the text can nest past, with no parser involved: every flow
    bracket (quotes can hide closers, so none is subtracted) plus the deepest line's block
    levels and the ``- `` / ``? `` indicators that open it."""
    return yaml_text.count("[") + yaml_text.count("{") + _block_depth(yaml_text, ("-", "?"))


def _too_deep(yaml_text: str) -> bool:
    """True when the frontmatter is refused for nesting (see ``_depth_problem``)."""
    return _depth_problem(yaml_text) is not None


def _quote_colon_values(yaml_text: str) -> str:
    """The agentskills fallback: quote top-level scalar values that contain an unquoted colon."""
    out = []
    for line in yaml_text.splitlines():
        m = _TOP_KEY_LINE.match(line)
        if m and ": " in m.group(2) and m.group(2)[0] not in "\"'[{|>&*!":
            value = m.group(2).replace("\\", "\\\\").replace('"', '\\"')
            line = f'{m.group(1)}: "{value}"'
        out.append(line)
    return "\n".join(out) + "\n"


_TOO_DEEP = (
    f"frontmatter nests more than {MAX_NESTING} levels deep; refused before parsing "
    "(flatten the YAML)"
)
_MAYBE_TOO_DEEP = (
    "frontmatter may nest more than " + str(MAX_NESTING) + " levels deep (its brackets and "
    "indentation reach {levels} levels and the YAML parser stopped before it could check); "
    "refused before parsing (flatten the YAML)"
)


def _load_yaml(yaml_text: str) -> tuple[Any, list[tuple[str, int, bool]]]:
    """Load one frontmatter: ``(data, dropped duplicate keys)``.

    Flat frontmatter goes through the checked fast scanner; PyYAML is imported only when the
    scanner declines (a cold start from the parse cache never needs it). Raises
    ``FrontmatterRefused`` for alias bombs and whatever the loader raises for bad YAML.
    """
    fast = scan_frontmatter(yaml_text)  # flat frontmatter: exact, or None when unsure
    if fast is not None:
        return fast, []
    return _load_full(yaml_text)


def scan_frontmatter(yaml_text: str) -> dict[str, Any] | None:
    """:func:`skillcore.parse.fast.scan_frontmatter`, imported on first use (it builds on
    PyYAML's resolvers, and a cold start from the parse cache parses nothing)."""
    from skillcore.parse.fast import scan_frontmatter as scan

    globals()["scan_frontmatter"] = scan  # later calls go straight to it
    return scan(yaml_text)


def _load_full(yaml_text: str) -> tuple[Any, list[tuple[str, int, bool]]]:
    """The bounded PyYAML load (see ``_yamlload.load_yaml``)."""
    from skillcore.parse.yamlload import load_yaml

    return load_yaml(yaml_text)


def _locate_error(yaml_text: str, exc: Exception) -> str:
    """A short message for a load failure, with the line when it can be found."""
    from skillcore.parse.yamlload import locate_error

    return locate_error(yaml_text, exc)


def parse_skill_file(
    data: bytes,
    *,
    directory_name: str,
    location: SkillLocation,
    path: str,
    mode: ValidationMode = ValidationMode.LENIENT,
    complete: bool = True,
    stamp: str = "",
) -> ParseResult:
    """Parse and validate one ``SKILL.md`` (its head or all of it).

    ``complete`` says whether ``data`` is the whole file; if it is only a head and the
    frontmatter does not end inside it, the result has ``need_more=True``.
    """
    ctx = _Ctx(location.source, path, mode)
    if not data or data.isspace():  # what ``not data.strip()`` says, without a copy
        return _skip(ctx, Code.EMPTY_FILE, "SKILL.md is empty")
    text, err, msg = decode_text(data)
    if text is None:
        assert err is not None
        return _skip(ctx, err, msg)
    yaml_text, body_offset, terminated = split_frontmatter(text, complete=complete)
    if yaml_text is None:
        return _skip(
            ctx,
            Code.NO_FRONTMATTER,
            "SKILL.md must start with a '---' line opening YAML frontmatter",
        )
    if not terminated:
        if not complete and len(yaml_text.encode()) < MAX_FRONTMATTER_BYTES:
            return ParseResult(None, (), need_more=True)
        if len(yaml_text.encode()) >= MAX_FRONTMATTER_BYTES:
            return _skip(
                ctx,
                Code.YAML_TOO_COMPLEX,
                f"frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes",
            )
        return _skip(ctx, Code.UNTERMINATED_FRONTMATTER, "frontmatter has no closing '---' line")
    # UTF-8 takes at most 4 bytes a character: short text needs no encoding to be measured.
    if len(yaml_text) > MAX_FRONTMATTER_BYTES // 4 and (
        len(yaml_text.encode()) > MAX_FRONTMATTER_BYTES
    ):
        return _skip(
            ctx, Code.YAML_TOO_COMPLEX, f"frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes"
        )
    # What the fast scanner accepts nests two levels at most, so only text it declines needs
    # the depth check before a YAML parser sees it.
    fast = scan_frontmatter(yaml_text)
    too_deep = None if fast is not None else _depth_problem(yaml_text)
    if too_deep is not None:
        return _skip(ctx, Code.YAML_TOO_COMPLEX, too_deep)
    diags: list[Diagnostic] = []
    try:
        raw, dropped = (fast, []) if fast is not None else _load_full(yaml_text)
    except FrontmatterRefused as exc:
        return _skip(ctx, Code.YAML_TOO_COMPLEX, str(exc))
    except Exception as exc:  # any failure is this file's problem, not discovery's
        first_error = _locate_error(yaml_text, exc)
        if mode is ValidationMode.STRICT:
            return _skip(ctx, Code.YAML_ERROR, f"invalid YAML: {first_error}")
        fixed = _quote_colon_values(yaml_text)
        # Quoting can turn text that sat inside a string into structure: check depth again.
        too_deep = _depth_problem(fixed)
        if too_deep is not None:
            return _skip(ctx, Code.YAML_TOO_COMPLEX, too_deep)
        try:
            raw, dropped = _load_yaml(fixed)
        except FrontmatterRefused as exc2:
            return _skip(ctx, Code.YAML_TOO_COMPLEX, str(exc2))
        except Exception:  # report the error of the file as written
            return _skip(ctx, Code.YAML_ERROR, f"invalid YAML: {first_error}")
        diags.append(
            ctx.diag(
                Severity.WARNING,
                Code.YAML_FALLBACK,
                "YAML parsed only after quoting values that contain ': '; quote them in the file",
            )
        )
    if not isinstance(raw, Mapping):
        kind = "empty" if raw is None else type(raw).__name__
        return _skip(ctx, Code.NOT_A_MAPPING, f"frontmatter must be a YAML mapping, got {kind}")
    try:
        needs_cleaning = _needs_cleaning(yaml_text, fast is not None)
        return _build(
            raw, ctx, diags, dropped, needs_cleaning, directory_name, location, stamp, body_offset
        )
    except Exception as exc:  # a safety net: one file never breaks discovery
        return _skip(
            ctx, Code.YAML_ERROR, f"{_UNCONVERTIBLE}: {type(exc).__name__}: {str(exc)[:200]}"
        )


def _needs_cleaning(yaml_text: str, scanned: bool) -> bool:
    """Whether values loaded from ``yaml_text`` may carry characters ``_UNSAFE_TEXT`` removes.

    Values can only carry unsafe characters that the text has, or that an escape makes. The
    fast scanner (``scanned``) builds values from the text as written, without escapes, and
    accepts ASCII text only when every line is printable: then no value has any.
    """
    if scanned and yaml_text.isascii():
        return False
    return "\\" in yaml_text or _UNSAFE_TEXT.search(yaml_text) is not None


#: The message prefix of the safety net around conversion (tests assert it never fires).
_UNCONVERTIBLE = "frontmatter could not be converted"


def _skip(ctx: _Ctx, code: Code, message: str, field: str | None = None) -> ParseResult:
    return ParseResult(None, (ctx.diag(Severity.ERROR, code, f"skipped: {message}", field),))


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if _is_date(value):
        return "date"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return type(value).__name__


#: A space-separated token whose parenthesised groups may contain spaces.
_SPACE_TOKENS = re.compile(r"(?:[^\s(]|\([^)]*\))+")


def _split_tools(text: str) -> list[str]:
    """Split an allowed-tools string on spaces or commas, never inside parentheses."""
    if "," not in text:
        if "(" not in text:
            return text.split()  # the common case, without the character walk
        if text.count("(") == text.count(")"):
            return _SPACE_TOKENS.findall(text)  # "Bash(git log:*) Read": groups keep spaces
    sep_is_comma = False
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            sep_is_comma = True
            break
    items: list[str] = []
    buf: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        is_sep = (ch == "," if sep_is_comma else ch.isspace()) and depth == 0
        if is_sep:
            items.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    items.append("".join(buf))
    return [i.strip() for i in items if i.strip()]


def parse_allowed_tools(value: Any) -> tuple[str, ...] | None:
    """Spec string (space-separated), YAML list, or comma-separated text -> tuple of entries.

    ``None`` (no value) gives None; anything else that is not text or a list of text raises
    ``TypeError`` naming what it got, so the caller can fail closed.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(_split_tools(value))
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for item in value:
            if not isinstance(item, str):
                raise TypeError(f"a list containing a {_type_name(item)}")
            if item.strip():
                out.append(item.strip())
        return tuple(out)
    raise TypeError(_type_name(value))


def _str_list(value: Any) -> list[str]:
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
    raise TypeError(_type_name(value))


def _char_name(char: str) -> str:
    """``U+200B ZERO WIDTH SPACE`` (or the category for unnamed code points)."""
    name = unicodedata.name(char, "") or _UNNAMED.get(unicodedata.category(char), "")
    return f"U+{ord(char):04X} {name}".rstrip()


_UNNAMED = {"Cc": "(control character)", "Cn": "(unassigned)", "Co": "(private use)"}


def check_name(name: str, mode: ValidationMode) -> tuple[bool, str | None]:
    """Validate a skill name. Returns ``(usable, problem)``.

    A name is unusable in any mode if it is empty, longer than 128 characters or contains
    whitespace, invisible, format or control characters, path separators or markup; otherwise
    spec violations are problems (fatal only in strict mode).
    """
    if not name:
        return False, "name is empty"
    if len(name) > MAX_NAME_USABLE:
        return False, f"name is {len(name)} characters long (at most {MAX_NAME_USABLE} are usable)"
    bad = _FORBIDDEN_NAME.search(name)
    if (bad is None or not bad.group().isspace()) and not name.isprintable():
        # Cc, Cf (zero-width, bidi), Cs, Co, Cn, Zl, Zp: invisible or control characters.
        char = next(c for c in name if not c.isprintable())
        return False, (
            f"name {name!r} contains {_char_name(char)}, an invisible or control character; "
            "use lowercase letters, digits and hyphens"
        )
    if bad:
        char = bad.group()
        what = "whitespace" if char.isspace() else f"the character {char!r}"
        return False, (
            f"name {name!r} contains {what}, which cannot appear in a tool argument, a path or "
            "a prompt entry; use lowercase letters, digits and hyphens"
        )
    if unicodedata.normalize("NFKC", name) != name:
        return False, f"name {name!r} is not in Unicode normal form NFKC"
    if len(name) > MAX_NAME:
        return True, f"name is {len(name)} characters long (limit {MAX_NAME})"
    if not _NAME_RE.match(name):
        return True, (
            f"name {name!r} must be lowercase a-z, 0-9 and single hyphens, "
            "not starting or ending with a hyphen"
        )
    return True, None


#: Cleans one text value of a field: ``clean(text, field) -> text``.
_Clean = Callable[[str, str], str]


def _unchanged(text: str, field: str) -> str:
    return text


class _Cleaner:
    """Removes control and bidi characters from kept text, remembering what it removed."""

    def __init__(self) -> None:
        self.found: dict[str, tuple[int, str]] = {}

    def __call__(self, text: str, field: str) -> str:
        if _UNSAFE_TEXT.search(text) is None:  # the common case: one C-level scan
            return text
        removed = _UNSAFE_TEXT.findall(text)
        count, first = self.found.get(field, (0, removed[0]))
        self.found[field] = (count + len(removed), first)
        return _UNSAFE_TEXT.sub("", text)

    def diagnostics(self, ctx: _Ctx) -> list[Diagnostic]:
        return [
            ctx.diag(
                Severity.WARNING,
                Code.UNSAFE_CHARACTERS,
                f"{field} contained {count} control or bidirectional-formatting character(s) "
                f"(first: {_char_name(first)}); removed",
                field,
            )
            for field, (count, first) in self.found.items()
        ]


def _cap_text(value: str, field: str, cap: int, ctx: _Ctx, diags: list[Diagnostic]) -> str:
    """Truncate text over ``cap`` with a diagnostic (an error in strict mode)."""
    if len(value) <= cap:
        return value
    lenient = ctx.mode is ValidationMode.LENIENT
    diags.append(
        ctx.problem(
            Code.FIELD_TOO_LONG,
            f"{field} is {len(value)} characters long (limit {cap})"
            + ("; truncated" if lenient else ""),
            field,
        )
    )
    return value[: cap - 1] + "…"


def _cap_list(
    items: list[str], field: str, ctx: _Ctx, diags: list[Diagnostic], cleaner: _Cleaner | None
) -> tuple[str, ...]:
    """Clean list items, drop over-long ones and keep at most MAX_LIST_ITEMS.

    ``items`` come from ``_str_list``: stripped and not empty, so only cleaning can empty one.
    """
    out = items if cleaner is None else [v for v in (cleaner(i, field) for i in items) if v]
    if out and max(map(len, out)) > MAX_LIST_ITEM:
        long_items = [v for v in out if len(v) > MAX_LIST_ITEM]
        diags.append(
            ctx.problem(
                Code.FIELD_TOO_LONG,
                f"{field}: dropped {len(long_items)} item(s) longer than {MAX_LIST_ITEM} "
                "characters",
                field,
            )
        )
        out = [v for v in out if len(v) <= MAX_LIST_ITEM]
    if len(out) > MAX_LIST_ITEMS:
        diags.append(
            ctx.problem(
                Code.FIELD_TOO_LONG,
                f"{field} has {len(out)} items (limit {MAX_LIST_ITEMS}); kept the first "
                f"{MAX_LIST_ITEMS}",
                field,
            )
        )
        out = out[:MAX_LIST_ITEMS]
    return tuple(out)


def _read_allowed_tools(value: Any) -> tuple[tuple[str, ...] | None, str | None]:
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
        return None, f"has an entry containing {_char_name(char)}"
    longest = max(map(len, tools), default=0)
    if longest > MAX_LIST_ITEM:
        return None, f"has an entry of {longest} characters (limit {MAX_LIST_ITEM})"
    return tools, None


#: Duplicated keys whose safe reading is not "the first one": allowed-tools fails closed.
_FAIL_CLOSED_ON_DUPLICATE = {"allowed-tools"}


def _build(
    raw: Mapping[Any, Any],
    ctx: _Ctx,
    diags: list[Diagnostic],
    dropped: list[tuple[str, int, bool]],
    needs_cleaning: bool,
    directory_name: str,
    location: SkillLocation,
    stamp: str,
    body_offset: int,
) -> ParseResult:
    cleaner = _Cleaner() if needs_cleaning else None
    clean: _Clean = cleaner if cleaner is not None else _unchanged
    strict = ctx.mode is ValidationMode.STRICT  # read once: enum member access is not free
    fm: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    duplicated: set[str] = set()
    for key, line, top in dropped:
        norm = key.strip().lower().replace("_", "-")
        if top and norm in KNOWN_FIELDS:
            duplicated.add(norm)
        # Keep the first: that is what a reader of the file sees, and a later repeat cannot
        # silently override a reviewed value (parsers disagree on which one wins).
        outcome = (
            "the skill allows no tools beyond the always-allowed ones"
            if top and norm in _FAIL_CLOSED_ON_DUPLICATE
            else "the first value is used"
        )
        diags.append(
            ctx.problem(
                Code.DUPLICATE_KEY,
                f"key {key[:60]!r} appears more than once (again on line {line + 2}); {outcome}",
                norm if top and norm in KNOWN_FIELDS else key[:60],
            )
        )
    for key, value in raw.items():
        # Known fields under their usual spellings skip the normalisation (hot path).
        known = _KNOWN_SPELLINGS.get(key) if type(key) is str else None
        if known is not None:
            fm[known] = value
            continue
        if not isinstance(key, str):
            diags.append(
                ctx.problem(Code.INVALID_TYPE, f"ignored non-string key {str(key)[:60]!r}")
            )
            continue
        norm = key.strip().lower().replace("_", "-")
        if norm in KNOWN_FIELDS:
            if len(_KNOWN_SPELLINGS) < _MAX_SPELLINGS and len(key) <= 64:
                _KNOWN_SPELLINGS[key] = norm
            fm[norm] = value
        else:
            safe_key = clean(key, "extra")
            extra[safe_key] = _jsonable(value, clean)
            if strict:
                # As the reference validator: a field the spec does not define is an error.
                # Lenient keeps it in ``extra`` silently (skills written for other clients).
                diags.append(
                    ctx.diag(
                        Severity.ERROR,
                        Code.UNKNOWN_FIELD,
                        f"field {safe_key[:60]!r} is not part of the Agent Skills spec (allowed: "
                        f"{', '.join(sorted(SPEC_FIELDS))}, and the extensions "
                        f"{', '.join(sorted(KNOWN_FIELDS - SPEC_FIELDS))})",
                        safe_key[:60],
                    )
                )
    if strict:
        for key in sorted(set(fm) - SPEC_FIELDS):
            diags.append(
                ctx.diag(
                    Severity.INFO,
                    Code.UNKNOWN_FIELD,
                    f"field {key!r} is a known extension, not part of the spec",
                    key,
                )
            )

    # -- name
    name = fm.get("name")
    if (
        type(name) is str
        and len(name) <= MAX_NAME
        and _PLAIN_NAME.fullmatch(name) is not None
        and (name == directory_name or name == unicodedata.normalize("NFKC", directory_name))
    ):
        # The usual name (lowercase ASCII letters, digits, single hyphens, within the spec
        # limit) matching its directory: nothing to trim or normalise, no problem to report.
        pass
    else:
        name = _check_name_field(name, fm, ctx, diags, directory_name, strict)
        if isinstance(name, ParseResult):
            return name

    # -- description
    description = fm.get("description")
    if description is None:
        what = "missing" if "description" not in fm else "empty (null)"
        return _fail(ctx, diags, Code.MISSING_FIELD, f"'description' is {what}", "description")
    if not isinstance(description, str):
        return _fail(
            ctx,
            diags,
            Code.INVALID_TYPE,
            f"'description' must be a string, got {_type_name(description)}",
            "description",
        )
    # Kept as YAML gives it (line breaks of a block scalar included), less unsafe characters;
    # the catalog renderer folds whitespace and shortens, so the author's text is not rewritten.
    if cleaner is not None:
        description = cleaner(description, "description")
    if not description or description.isspace():  # what ``not description.strip()`` says
        return _fail(ctx, diags, Code.MISSING_FIELD, "'description' is empty", "description")
    if len(description) > MAX_DESCRIPTION:
        if len(description) <= MAX_DESCRIPTION_STORED:
            diags.append(
                ctx.problem(
                    Code.FIELD_TOO_LONG,
                    f"description is {len(description)} characters long (limit "
                    f"{MAX_DESCRIPTION})"
                    + (
                        f"; kept whole, the catalog shortens it to {MAX_DESCRIPTION} characters"
                        if not strict
                        else ""
                    ),
                    "description",
                )
            )
        else:
            description = _cap_text(description, "description", MAX_DESCRIPTION_STORED, ctx, diags)
    if description[:5].upper() == "TODO:":
        # A placeholder tells the model nothing about when to use the skill.
        diags.append(
            ctx.problem(
                Code.PLACEHOLDER_DESCRIPTION,
                "the description is a placeholder (starts with 'TODO:'); say what the skill "
                "does and when to use it",
                "description",
            )
        )

    kwargs: dict[str, Any] = {}
    for field in _TEXT_FIELDS:
        value = fm.get(field)
        if value is None:
            continue
        if type(value) is not str:
            if isinstance(value, (list, tuple, Mapping)):
                diags.append(
                    ctx.problem(
                        Code.INVALID_TYPE,
                        f"'{field}' must be a string, got {_type_name(value)}; ignored",
                        field,
                    )
                )
                continue
            if not isinstance(value, str):
                diags.append(
                    ctx.problem(
                        Code.INVALID_TYPE,
                        f"'{field}' must be a string, got {_type_name(value)}",
                        field,
                    )
                )
                value = _scalar_text(value)
        if cleaner is not None:
            value = cleaner(value, field)
        if not value.strip():  # ``license: ''`` is not set, as the peers read it
            continue
        if len(value) > MAX_COMPATIBILITY:
            if field == "compatibility" and len(value) <= MAX_TEXT:
                diags.append(
                    ctx.problem(
                        Code.FIELD_TOO_LONG,
                        f"{field} is {len(value)} characters long (limit {MAX_COMPATIBILITY})",
                        field,
                    )
                )
            value = _cap_text(value, field, MAX_TEXT, ctx, diags)
        kwargs[field] = value

    meta = fm.get("metadata")
    meta_dict: dict[str, str] | None = None
    if meta is not None:
        if (
            cleaner is None
            and type(meta) is dict
            and len(meta) <= MAX_METADATA_ENTRIES
            and _plain_metadata(meta)
        ):
            # Text keys and values within the caps and nothing to clean: kept as they are.
            meta_dict = meta
            kwargs["metadata"] = FrozenDict(meta)
        elif type(meta) is dict or isinstance(meta, Mapping):
            meta_dict = _metadata(meta, ctx, diags, clean, strict)
            kwargs["metadata"] = FrozenDict(meta_dict)  # str -> str: no deep freeze needed
        else:
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'metadata' must be a mapping, got {_type_name(meta)}; ignored",
                    "metadata",
                )
            )

    if "allowed-tools" in fm:
        if "allowed-tools" in duplicated:
            kwargs["allowed_tools"] = ()  # already reported with the duplicate key
        else:
            tools, why = _read_allowed_tools(fm["allowed-tools"])
            if why is not None:
                # Fail closed: an unreadable list must not make the skill unrestricted.
                diags.append(
                    ctx.problem(
                        Code.INVALID_TYPE,
                        f"'allowed-tools' {why}; the skill allows no tools beyond the "
                        "always-allowed ones",
                        "allowed-tools",
                    )
                )
                tools = ()
            kwargs["allowed_tools"] = tools

    version = fm.get("version")
    if version is not None:
        if (isinstance(version, (str, int, float)) and not isinstance(version, bool)) or (
            _is_date(version)
        ):
            if not isinstance(version, str):
                # ``version: 1.10`` is the number 1.1: kept as text, but the author is told.
                diags.append(
                    ctx.diag(
                        Severity.WARNING,
                        Code.INVALID_TYPE,
                        f"'version' should be a string, got {_type_name(version)}; read as "
                        f"{_scalar_text(version)[:40]!r} (quote it to keep it exactly)",
                        "version",
                    )
                )
            text = clean(_scalar_text(version), "version")
            if text.strip():
                kwargs["version"] = _cap_text(text, "version", MAX_VERSION, ctx, diags)
        else:
            diags.append(
                ctx.problem(Code.INVALID_TYPE, "'version' must be a string; ignored", "version")
            )

    for field, attr in _LIST_FIELDS:
        value = fm.get(field)
        if value is None:
            continue
        try:
            items = _str_list(value)
        except TypeError:
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'{field}' must be a list of strings or comma-separated text; ignored",
                    field,
                )
            )
            continue
        kwargs[attr] = _cap_list(items, field, ctx, diags, cleaner)

    prio = fm.get("priority")
    if prio is not None:
        if isinstance(prio, int) and not isinstance(prio, bool):
            kwargs["priority"] = prio
        else:
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'priority' must be an integer, got {_type_name(prio)}; using 0",
                    "priority",
                )
            )

    for field, attr in _FLAG_FIELDS:
        if field not in fm:
            continue
        flag = fm[field]
        if isinstance(flag, bool):
            kwargs[attr] = flag
        elif attr == "disable_model_invocation":
            # Fails closed, like allowed-tools: an unreadable value keeps the skill user-only.
            kwargs[attr] = True
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'{field}' must be true or false, got {_type_name(flag)}; the skill is "
                    "treated as disabled for the model",
                    field,
                )
            )
        elif flag is not None:
            diags.append(
                ctx.problem(Code.INVALID_TYPE, f"'{field}' must be true or false; ignored", field)
            )

    if meta_dict and "version" not in kwargs:
        meta_version = meta_dict.get("version")
        if meta_version:
            # A common convention: metadata: {version: ...}
            kwargs["version"] = _cap_text(meta_version, "version", MAX_VERSION, ctx, diags)

    hint = fm.get("argument-hint")
    if hint is not None:
        if type(hint) is not str and isinstance(hint, (list, tuple, Mapping)):
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'argument-hint' must be a string, got {_type_name(hint)}; ignored",
                    "argument-hint",
                )
            )
        else:
            text = clean(_scalar_text(hint), "argument-hint")
            if text.strip():
                kwargs["argument_hint"] = _cap_text(text, "argument-hint", MAX_TEXT, ctx, diags)

    if cleaner is not None:
        diags.extend(cleaner.diagnostics(ctx))
    if strict and any(d.severity is Severity.ERROR for d in diags):
        return ParseResult(None, tuple(diags), body_offset=body_offset)
    metadata = SkillMetadata(
        name=name,
        description=description,
        location=location,
        extra=extra,
        stamp=stamp,
        **kwargs,
    )
    return ParseResult(metadata, tuple(diags), body_offset=body_offset)


#: Raw frontmatter keys already seen to name a known field, and the field they name
#: (``file_patterns`` -> ``file-patterns``); bounded in entries and key length, as keys come
#: from files.
_KNOWN_SPELLINGS: dict[str, str] = {}
_MAX_SPELLINGS = 1024
#: A name that needs no check beyond the spec's pattern (``fullmatch``: ``$`` would also
#: accept a final newline).
_PLAIN_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_TEXT_FIELDS = ("license", "compatibility")
_LIST_FIELDS = (
    ("triggers", "triggers"),
    ("file-patterns", "file_patterns"),
    ("dependencies", "dependencies"),
)
_FLAG_FIELDS = (
    ("disable-model-invocation", "disable_model_invocation"),
    ("user-invocable", "user_invocable"),
)


def _check_name_field(
    name: object,
    fm: dict[str, Any],
    ctx: _Ctx,
    diags: list[Diagnostic],
    directory_name: str,
    strict: bool,
) -> str | ParseResult:
    """The ``name`` field checked in full: the stored name, or the skip result."""
    if name is None and "name" not in fm:
        if strict:
            return _fail(ctx, diags, Code.MISSING_FIELD, "required field 'name' is missing", "name")
        diags.append(
            ctx.diag(
                Severity.WARNING,
                Code.MISSING_FIELD,
                f"field 'name' is missing; using the directory name {directory_name!r}",
                "name",
            )
        )
        name = directory_name
    if not isinstance(name, str):
        return _fail(
            ctx,
            diags,
            Code.INVALID_TYPE,
            f"'name' must be a string, got {_type_name(name)} ({str(name)[:60]!r}); quote it "
            "in YAML",
            "name",
        )
    written = name.strip(" \t\n")  # other whitespace and controls are refused, not trimmed
    # Name and directory are compared in one Unicode form, NFKC, as the reference validator
    # does: "cafe" + U+0301 (as macOS may write a directory name) equals "café". The name is
    # stored in that form, so tool arguments and lookups see one spelling. Normalising first
    # also means the checks below see what NFKC makes of look-alikes (a fullwidth solidus
    # becomes "/", which is refused).
    name = unicodedata.normalize("NFKC", written)
    if name != written:
        diags.append(
            ctx.diag(
                Severity.WARNING,
                Code.INVALID_NAME,
                f"name {written[:80]!r} is not in Unicode normal form NFKC; stored as "
                f"{name[:80]!r} (write it that way in the file)",
                "name",
            )
        )
    usable, problem = check_name(name, ctx.mode)
    if not usable:
        return _fail(ctx, diags, Code.INVALID_NAME, problem or "invalid name", "name")
    if problem:
        code = Code.FIELD_TOO_LONG if "characters long" in problem else Code.INVALID_NAME
        diags.append(ctx.problem(code, problem, "name"))
    if name != unicodedata.normalize("NFKC", directory_name):
        diags.append(
            ctx.problem(
                Code.NAME_MISMATCH,
                f"name {name!r} does not match its directory {directory_name!r}",
                "name",
            )
        )
    return name


def _plain_metadata(meta: dict[Any, Any]) -> bool:
    """True when every entry maps text to text within the caps (kept as it is)."""
    for k, v in meta.items():
        if type(k) is not str or type(v) is not str:
            return False
        if len(k) > MAX_METADATA_KEY or len(v) > MAX_TEXT:
            return False
    return True


def _metadata(
    meta: Mapping[Any, Any], ctx: _Ctx, diags: list[Diagnostic], clean: _Clean, strict: bool
) -> dict[str, str]:
    """The ``metadata`` mapping as text to text: converted, cleaned, capped."""
    clean_meta: dict[str, str] = {}
    converted = False
    for k, v in meta.items():
        if len(clean_meta) == MAX_METADATA_ENTRIES:
            diags.append(
                ctx.problem(
                    Code.FIELD_TOO_LONG,
                    f"metadata has {len(meta)} entries (limit {MAX_METADATA_ENTRIES}); "
                    f"kept the first {MAX_METADATA_ENTRIES}",
                    "metadata",
                )
            )
            break
        if not converted and (not isinstance(k, str) or not isinstance(v, str)):
            if isinstance(k, str) and _typed_metadata_ok(k, v):
                # Google ADK's own typed keys, which skillcore reads: not a problem.
                clean_meta[k] = clean(_scalar_text(v), "metadata")
                continue
            converted = True  # one diagnostic, not one per entry
            bad = k if not isinstance(k, str) else v
            outcome = "quote it in YAML" if strict else "converted to text"
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"metadata entry {_scalar_text(k)[:60]!r} should map a string to a "
                    f"string, got a {_type_name(bad)}; {outcome}",
                    "metadata",
                )
            )
        key = _cap_text(
            clean(_scalar_text(k), "metadata"), "metadata key", MAX_METADATA_KEY, ctx, diags
        )
        text = clean(_scalar_text(v), "metadata")
        clean_meta[key] = _cap_text(text, "metadata value", MAX_TEXT, ctx, diags)
    return clean_meta


#: ``metadata`` keys whose peers give them a type other than text, with the type skillcore
#: reads them as: ADK's ``adk_additional_tools`` (a list of tool names, see
#: :mod:`skillcore.gating`) and ``adk_inject_state`` (a bool).
TYPED_METADATA: Mapping[str, str] = {"adk_additional_tools": "list", "adk_inject_state": "bool"}


def _typed_metadata_ok(key: str, value: Any) -> bool:
    kind = TYPED_METADATA.get(key)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list) and all(type(v) is str for v in value)
    return False


def _fail(ctx: _Ctx, diags: list[Diagnostic], code: Code, message: str, field: str) -> ParseResult:
    diags.append(ctx.diag(Severity.ERROR, code, f"skipped: {message}", field))
    return ParseResult(None, tuple(diags))


def _is_date(value: Any) -> TypeGuard[date]:
    # A date value exists only once ``datetime`` is loaded (YAML loads it for timestamps), so
    # a cold start from the parse cache need not import it.
    dt = sys.modules.get("datetime")
    return dt is not None and isinstance(value, (dt.date, dt.datetime))


def _scalar_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_date(value):
        return value.isoformat()
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode("ascii")  # !!binary, as written
    return str(value)


def _jsonable(value: Any, clean: _Clean) -> Any:
    """Unknown frontmatter values as JSON-native data (dates become ISO text, text cleaned).

    Its size is bounded by the expansion check done before the values were built.
    """
    if isinstance(value, str):
        return clean(value, "extra")
    if isinstance(value, Mapping):
        return {clean(_scalar_text(k), "extra"): _jsonable(v, clean) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v, clean) for v in value), key=repr)  # deterministic order
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, clean) for v in value]
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return clean(_scalar_text(value), "extra")


def body_of(text: str) -> str:
    """The Markdown body of a full ``SKILL.md`` text (everything after the frontmatter)."""
    _, offset, terminated = split_frontmatter(text)
    if "\r" in text:
        text = _LONE_CR.sub("\n", text)  # same length: ``offset`` stays valid
    # "\r" too: a CRLF file would otherwise start with a blank "\r\n" line and end with "\r".
    return text[offset:].strip("\r\n") if terminated else text
