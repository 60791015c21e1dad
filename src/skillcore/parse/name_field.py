"""The ``name`` field: the spec's rules for a skill name, what makes a name unusable in any
mode, and its match with the directory (compared in Unicode form NFKC)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from skillcore._escaping import INVISIBLE, find_invisible, single_line
from skillcore.diagnostics import Code, Severity
from skillcore.parse.context import ParseContext, ParseResult, ValidationMode, fail
from skillcore.parse.frontmatter_caps import MAX_NAME, MAX_NAME_USABLE
from skillcore.parse.values import char_name, type_name

_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Characters that would break a prompt entry, a path or a tool enum even in lenient mode.
_FORBIDDEN_NAME = re.compile(r"[\s/\\<>&\"'`\x00-\x1f\x7f]")
#: A name that needs no check beyond the spec's pattern (``fullmatch``: ``$`` would also
#: accept a final newline).
_PLAIN_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def read_name_field(fm: dict[str, Any], ctx: ParseContext) -> str | ParseResult:
    """The skill's name from its field (or its directory), or the skip result."""
    name = fm.get("name")
    directory_name = ctx.directory_name
    if (
        type(name) is str
        and len(name) <= MAX_NAME
        and _PLAIN_NAME.fullmatch(name) is not None
        and (name == directory_name or name == unicodedata.normalize("NFKC", directory_name))
    ):
        # The usual name (lowercase ASCII letters, digits, single hyphens, within the spec
        # limit) matching its directory: nothing to trim or normalise, no problem to report.
        return name
    return _check_name_field(name, fm, ctx)


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
    if (bad is None or not bad.group().isspace()) and (
        not name.isprintable() or (not name.isascii() and any(find_invisible(name)))
    ):
        # Cc, Cf (zero-width, bidi), Cs, Co, Cn, Zl, Zp, and the invisible letters and marks
        # (Hangul fillers, variation selectors): invisible or control characters.
        char = next(c for c in name if not c.isprintable() or INVISIBLE.fullmatch(c))
        return False, (
            f"name {single_line(repr(name))} contains {char_name(char)}, an invisible or "
            "control character; use lowercase letters, digits and hyphens"
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


def _check_name_field(name: object, fm: dict[str, Any], ctx: ParseContext) -> str | ParseResult:
    """The ``name`` field checked in full: the stored name, or the skip result."""
    directory_name = ctx.directory_name
    diags = ctx.diags
    if name is None and "name" not in fm:
        if ctx.strict:
            return fail(ctx, Code.MISSING_FIELD, "required field 'name' is missing", "name")
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
        return fail(
            ctx,
            Code.INVALID_TYPE,
            f"'name' must be a string, got {type_name(name)} ({str(name)[:60]!r}); quote it "
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
        return fail(ctx, Code.INVALID_NAME, problem or "invalid name", "name")
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
