"""A loaded frontmatter made into ``SkillMetadata``: its keys sorted into the known fields and
the extra ones (duplicates reported), then each field read by its reader, in a fixed order
(the order of the diagnostics)."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import parsed_metadata
from skillcore.parse.allowed_tools import read_allowed_tools_field
from skillcore.parse.context import ParseContext, ParseResult, parse_result
from skillcore.parse.fields import (
    FLAG_FIELDS,
    LIST_FIELDS,
    read_argument_hint,
    read_description,
    read_flags,
    read_list_fields,
    read_metadata_version,
    read_priority,
    read_text_fields,
    read_version,
)
from skillcore.parse.hooks import read_hooks
from skillcore.parse.metadata import metadata_extensions, read_metadata_field
from skillcore.parse.name_field import read_name_field
from skillcore.parse.reader_common import ACTED_ON_EXTRA_FIELDS, KNOWN_FIELDS, SPEC_FIELDS
from skillcore.parse.values import Cleaner, char_name, invisible_warning, jsonable

#: Duplicated keys whose safe reading is not "the first one": allowed-tools fails closed.
_FAIL_CLOSED_ON_DUPLICATE = {"allowed-tools"}
#: Raw frontmatter keys already seen to name a known field, and the field they name
#: (``file_patterns`` -> ``file-patterns``); bounded in entries and key length, as keys come
#: from files.
_KNOWN_SPELLINGS: dict[str, str] = {}
_MAX_SPELLINGS = 1024
#: No duplicated field (the usual case), shared instead of a new set per skill.
_NONE: frozenset[str] = frozenset()
#: The list and flag fields, by their normal spelling.
_LIST_KEYS = frozenset(field for field, _ in LIST_FIELDS)
_FLAG_KEYS = frozenset(field for field, _ in FLAG_FIELDS)
#: The extensions a strict-mode error names, as the user would write them.
_EXTENSIONS = (KNOWN_FIELDS - SPEC_FIELDS) | {
    f for f in ACTED_ON_EXTRA_FIELDS if f == f.lower() and "_" not in f
}


def build(
    raw: Mapping[Any, Any], dropped: list[tuple[str, int, bool]], ctx: ParseContext
) -> ParseResult:
    """The parse result of a frontmatter as the YAML loader gave it: ``raw``, its top-level
    mapping, and ``dropped``, the keys it dropped as repeats (``(key, line, top_level)``).
    ``ctx`` holds the findings so far, the body's offset and the cleaner, if any."""
    duplicated = _report_duplicates(dropped, ctx) if dropped else _NONE
    fm, extra = _sort_keys(raw, ctx)
    name = read_name_field(fm, ctx)
    if isinstance(name, ParseResult):
        return name
    description = read_description(fm, ctx)
    if isinstance(description, ParseResult):
        return description
    kwargs: dict[str, Any] = {}
    # Each reader does nothing for an absent field; asking first spares the call (this runs
    # for every skill discovered, and most fields are absent from most files).
    if "license" in fm or "compatibility" in fm:
        read_text_fields(fm, ctx, kwargs)
    meta = read_metadata_field(fm, ctx, kwargs) if "metadata" in fm else None
    if meta:
        extensions = metadata_extensions(meta, fm)
        if extensions:
            fm = {**fm, **extensions}
    if "allowed-tools" in fm:
        read_allowed_tools_field(fm, ctx, duplicated, kwargs)
    if "version" in fm:
        read_version(fm, ctx, kwargs)
    if not _LIST_KEYS.isdisjoint(fm):
        read_list_fields(fm, ctx, kwargs)
    if "priority" in fm:
        read_priority(fm, ctx, kwargs)
    if not _FLAG_KEYS.isdisjoint(fm):
        read_flags(fm, ctx, kwargs)
    if meta:
        read_metadata_version(meta, ctx, kwargs)
    if "argument-hint" in fm:
        read_argument_hint(fm, ctx, kwargs)
    if "hooks" in fm:
        read_hooks(fm, ctx, kwargs)
    if ctx.headings:
        kwargs["headings"] = ctx.headings
    diags = ctx.diags
    if not description.isascii():
        _escaped_invisibles(description, ctx)
    if ctx.cleaner is not None:
        diags.extend(_cleaning_diagnostics(ctx.cleaner, ctx))
    if ctx.strict and any(d.severity is Severity.ERROR for d in diags):
        return ParseResult(None, tuple(diags), body_offset=ctx.body_offset)
    if extra:  # else the default: an empty mapping, as ``to_frozen({})`` gives
        kwargs["extra"] = extra
    metadata = parsed_metadata(
        name=name, description=description, location=ctx.location, stamp=ctx.stamp, **kwargs
    )
    return parse_result(metadata, tuple(diags), body_offset=ctx.body_offset)


def _report_duplicates(dropped: list[tuple[str, int, bool]], ctx: ParseContext) -> AbstractSet[str]:
    """Report each repeated key; the known fields among them."""
    diags = ctx.diags
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
    return duplicated


def _sort_keys(raw: Mapping[Any, Any], ctx: ParseContext) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(fields, extra)``: the known fields by their normal spelling, the others as JSON
    values (an error each in strict mode, which also notes the extensions used)."""
    diags, clean, strict = ctx.diags, ctx.clean, ctx.strict
    fm: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    acted_on: list[str] = []
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
            extra[safe_key] = jsonable(value, clean)
            if strict and key in ACTED_ON_EXTRA_FIELDS:
                acted_on.append(key)
            elif strict:
                # As the reference validator: a field the spec does not define is an error.
                # Lenient keeps it in ``extra`` silently (skills written for other clients).
                diags.append(
                    ctx.diag(
                        Severity.ERROR,
                        Code.UNKNOWN_FIELD,
                        f"field {safe_key[:60]!r} is not part of the Agent Skills spec (allowed: "
                        f"{', '.join(sorted(SPEC_FIELDS))}, and the extensions "
                        f"{', '.join(sorted(_EXTENSIONS))})",
                        safe_key[:60],
                    )
                )
    if strict:
        for key in sorted((set(fm) - SPEC_FIELDS).union(acted_on)):
            diags.append(
                ctx.diag(
                    Severity.INFO,
                    Code.UNKNOWN_FIELD,
                    f"field {key!r} is a known extension, not part of the spec",
                    key,
                )
            )
    return fm, extra


def _escaped_invisibles(description: str, ctx: ParseContext) -> None:
    """Warn about invisible characters written as YAML escapes (``"\\u200b"``): the scan of
    the file's text (see ``parse_skill_file``) does not see those."""
    if any(d.code is Code.INVISIBLE_CHARACTERS for d in ctx.diags):
        return
    found = invisible_warning(description, "the description")
    if found is not None:
        warning = ctx.diag(Severity.WARNING, Code.INVISIBLE_CHARACTERS, found, "description")
        ctx.diags.append(warning)


def _cleaning_diagnostics(cleaner: Cleaner, ctx: ParseContext) -> list[Diagnostic]:
    """A warning per field the cleaner removed characters from."""
    return [
        ctx.diag(
            Severity.WARNING,
            Code.UNSAFE_CHARACTERS,
            f"{field} contained {count} control or bidirectional-formatting character(s) "
            f"(first: {char_name(first)}); removed",
            field,
        )
        for field, (count, first) in cleaner.found.items()
    ]
