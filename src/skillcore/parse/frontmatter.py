"""Pure parsing and validation of ``SKILL.md`` bytes: no I/O, never raises for bad input.

Frontmatter is bounded *before* it reaches a YAML parser (:mod:`skillcore.parse.nesting`);
any failure while loading or converting one file's frontmatter becomes that file's
diagnostic. The caps are in :mod:`skillcore.parse.frontmatter_caps` (each defined once, with a
table);
the file's text in :mod:`~skillcore.parse.document`; each field has its reader
(:mod:`~skillcore.parse.name_field`, :mod:`~skillcore.parse.fields`,
:mod:`~skillcore.parse.metadata`, :mod:`~skillcore.parse.allowed_tools`) and
:mod:`~skillcore.parse.build` puts them together.

An ``allowed-tools`` value that cannot be read (wrong type, non-string items, over a cap, a
duplicated key) fails closed: the skill allows no tools beyond the always-allowed ones.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from skillcore.diagnostics import Code, Severity
from skillcore.limits import GUIDANCE_BYTES
from skillcore.model import SkillLocation
from skillcore.parse.allowed_tools import parse_allowed_tools
from skillcore.parse.build import build
from skillcore.parse.context import ParseContext, ParseResult, ValidationMode, skip
from skillcore.parse.document import _closing_line, body_of, decode_text, split_frontmatter
from skillcore.parse.frontmatter_caps import (
    FRONTMATTER_HEAD_BYTES,
    MAX_COMPATIBILITY,
    MAX_DESCRIPTION,
    MAX_DESCRIPTION_STORED,
    MAX_FRONTMATTER_BYTES,
    MAX_LIST_ITEM,
    MAX_LIST_ITEMS,
    MAX_METADATA_ENTRIES,
    MAX_METADATA_KEY,
    MAX_NAME,
    MAX_NAME_USABLE,
    MAX_NESTING,
    MAX_TEXT,
    MAX_VERSION,
)
from skillcore.parse.headings import body_headings
from skillcore.parse.length import length_problem
from skillcore.parse.metadata import TYPED_METADATA
from skillcore.parse.name_field import check_name
from skillcore.parse.nesting import _event_depth, depth_problem, too_deep
from skillcore.parse.reader_common import FrontmatterRefused
from skillcore.parse.values import UNSAFE_TEXT, Cleaner, invisible_warning

__all__ = [
    "FRONTMATTER_HEAD_BYTES",
    "MAX_COMPATIBILITY",
    "MAX_DESCRIPTION",
    "MAX_DESCRIPTION_STORED",
    "MAX_FRONTMATTER_BYTES",
    "MAX_LIST_ITEM",
    "MAX_LIST_ITEMS",
    "MAX_METADATA_ENTRIES",
    "MAX_METADATA_KEY",
    "MAX_NAME",
    "MAX_NAME_USABLE",
    "MAX_NESTING",
    "MAX_TEXT",
    "MAX_VERSION",
    "TYPED_METADATA",
    "ParseResult",
    "ValidationMode",
    "_closing_line",
    "_event_depth",
    "_too_deep",
    "body_of",
    "check_name",
    "decode_text",
    "parse_allowed_tools",
    "parse_skill_file",
    "scan_frontmatter",
    "split_frontmatter",
]

#: ``too_deep`` under its former name.
_too_deep = too_deep

_TOP_KEY_LINE = re.compile(r"^([A-Za-z0-9_-]+):[ \t]+(.+?)\s*$")
#: The message prefix of the safety net around conversion (tests assert it never fires).
_UNCONVERTIBLE = "frontmatter could not be converted"


def _warn_if_long(
    ctx: ParseContext, data: bytes, text: str, complete: bool, size: int | None
) -> None:
    """Warn about a body past the spec's length guidance: the guidance is about the
    instructions, not the frontmatter before them."""
    body_offset = ctx.body_offset
    whole = complete and (size is None or size == len(data))
    total = len(data) if size is None and complete else size
    if total is not None and total > GUIDANCE_BYTES:  # else no body is past it: no encoding
        total -= len(text[:body_offset].encode())
    too_long = length_problem(total, text.count("\n", body_offset) + 1 if whole else None)
    if too_long is not None:
        ctx.diags.append(ctx.diag(Severity.WARNING, Code.SKILL_TOO_LONG, too_long))


def parse_skill_file(
    data: bytes,
    *,
    directory_name: str,
    location: SkillLocation,
    path: str,
    mode: ValidationMode = ValidationMode.LENIENT,
    complete: bool = True,
    stamp: str = "",
    size: int | None = None,
    headings: tuple[str, ...] | None = None,
) -> ParseResult:
    """Parse and validate one ``SKILL.md`` (its head or all of it).

    ``complete`` says whether ``data`` is the whole file; if it is only a head and the
    frontmatter does not end inside it, the result has ``need_more=True``. ``size``: the
    file's size in bytes when known (a file past the spec's length guidance is warned about).
    ``headings``: the body's headings when the caller read them (a local scan keeps only
    the frontmatter; see ``skillcore.parse.headings.scanned_headings``).
    """
    ctx = ParseContext(location, path, mode, directory_name, stamp)
    found = _frontmatter_text(data, ctx, complete)
    if isinstance(found, ParseResult):
        return found
    yaml_text, body_offset, text = found
    # The frontmatter is what the catalog and search show; the body reaches a model only
    # when loaded, escaped there (scanning all of it would cost every non-ASCII skill).
    # ASCII has no invisible (nor, once scanned, unsafe) characters: one check, no calls.
    ascii_text = yaml_text.isascii()
    invisible = None if ascii_text else invisible_warning(yaml_text)
    if invisible is not None:
        ctx.diags.append(ctx.diag(Severity.WARNING, Code.INVISIBLE_CHARACTERS, invisible))
    # What the fast scanner accepts nests two levels at most, so only text it declines needs
    # the depth check before a YAML parser sees it.
    fast = scan_frontmatter(yaml_text)
    too_deep = None if fast is not None else depth_problem(yaml_text)
    if too_deep is not None:
        return skip(ctx, Code.YAML_TOO_COMPLEX, too_deep)
    if fast is not None:
        raw: Any = fast
        dropped: list[tuple[str, int, bool]] = []
    else:
        loaded = _load_slow(yaml_text, ctx)
        if isinstance(loaded, ParseResult):
            return loaded
        raw, dropped = loaded
    if type(raw) is not dict and not isinstance(raw, Mapping):  # ABC checks cost
        kind = "empty" if raw is None else type(raw).__name__
        return skip(ctx, Code.NOT_A_MAPPING, f"frontmatter must be a YAML mapping, got {kind}")
    try:
        if not (ascii_text and fast is not None) and _needs_cleaning(yaml_text, fast is not None):
            ctx.cleaner = ctx.clean = Cleaner()
        ctx.body_offset = body_offset
        ctx.headings = body_headings(text, complete, body_offset) if headings is None else headings
        _warn_if_long(ctx, data, text, complete, size)
        return build(raw, dropped, ctx)
    except Exception as exc:  # a safety net: one file never breaks discovery
        return skip(
            ctx, Code.YAML_ERROR, f"{_UNCONVERTIBLE}: {type(exc).__name__}: {str(exc)[:200]}"
        )


def _frontmatter_text(
    data: bytes, ctx: ParseContext, complete: bool
) -> tuple[str, int, str] | ParseResult:
    """``(yaml_text, body_offset, text)`` of a file whose frontmatter is whole and within its
    size cap; otherwise the skip result (or ``need_more`` for a head cut too short)."""
    if not data or data.isspace():  # what ``not data.strip()`` says, without a copy
        return skip(ctx, Code.EMPTY_FILE, "SKILL.md is empty")
    text, err, msg = decode_text(data)
    if text is None:
        assert err is not None
        return skip(ctx, err, msg)
    yaml_text, body_offset, terminated = split_frontmatter(text, complete=complete)
    if yaml_text is None:
        return skip(
            ctx,
            Code.NO_FRONTMATTER,
            "SKILL.md must start with a '---' line opening YAML frontmatter",
        )
    if not terminated:
        if not complete and len(yaml_text.encode()) < MAX_FRONTMATTER_BYTES:
            return ParseResult(None, (), need_more=True)
        if len(yaml_text.encode()) >= MAX_FRONTMATTER_BYTES:
            return skip(
                ctx,
                Code.YAML_TOO_COMPLEX,
                f"frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes",
            )
        return skip(ctx, Code.UNTERMINATED_FRONTMATTER, "frontmatter has no closing '---' line")
    # UTF-8 takes at most 4 bytes a character: short text needs no encoding to be measured.
    if len(yaml_text) > MAX_FRONTMATTER_BYTES // 4 and (
        len(yaml_text.encode()) > MAX_FRONTMATTER_BYTES
    ):
        return skip(
            ctx, Code.YAML_TOO_COMPLEX, f"frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes"
        )
    return yaml_text, body_offset, text


def _load_slow(
    yaml_text: str, ctx: ParseContext
) -> tuple[Any, list[tuple[str, int, bool]]] | ParseResult:
    """The bounded PyYAML load of what the fast scanner declined; in lenient mode, text that
    fails is tried again with its colon values quoted (with a warning)."""
    try:
        return _load_full(yaml_text)
    except FrontmatterRefused as exc:
        return skip(ctx, Code.YAML_TOO_COMPLEX, str(exc))
    except Exception as exc:  # any failure is this file's problem, not discovery's
        first_error = _locate_error(yaml_text, exc)
    if ctx.strict:
        return skip(ctx, Code.YAML_ERROR, f"invalid YAML: {first_error}")
    fixed = _quote_colon_values(yaml_text)
    # Quoting can turn text that sat inside a string into structure: check depth again.
    too_deep = depth_problem(fixed)
    if too_deep is not None:
        return skip(ctx, Code.YAML_TOO_COMPLEX, too_deep)
    try:
        loaded = load_yaml(fixed)
    except FrontmatterRefused as exc2:
        return skip(ctx, Code.YAML_TOO_COMPLEX, str(exc2))
    except Exception:  # report the error of the file as written
        return skip(ctx, Code.YAML_ERROR, f"invalid YAML: {first_error}")
    ctx.diags.append(
        ctx.diag(
            Severity.WARNING,
            Code.YAML_FALLBACK,
            "YAML parsed only after quoting values that contain ': '; quote them in the file",
        )
    )
    return loaded


def _needs_cleaning(yaml_text: str, scanned: bool) -> bool:
    """Whether values loaded from ``yaml_text`` may carry characters ``UNSAFE_TEXT`` removes.

    Values can only carry unsafe characters that the text has, or that an escape makes. The
    fast scanner (``scanned``) builds values from the text as written, without escapes, and
    accepts ASCII text only when every line is printable: then no value has any.
    """
    if scanned and yaml_text.isascii():
        return False
    return "\\" in yaml_text or UNSAFE_TEXT.search(yaml_text) is not None


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


def load_yaml(yaml_text: str) -> tuple[Any, list[tuple[str, int, bool]]]:
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
    from skillcore.parse import yamlload

    return yamlload.load_yaml(yaml_text)


def _locate_error(yaml_text: str, exc: Exception) -> str:
    """A short message for a load failure, with the line when it can be found."""
    from skillcore.parse.yamlload import locate_error

    return locate_error(yaml_text, exc)
