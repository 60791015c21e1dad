"""The readers of the other fields: description, license and compatibility, version, the
list fields, priority, the flags and argument-hint. Each adds its value to the keyword
arguments of ``SkillMetadata`` and its findings to the context."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillcore.diagnostics import Code, Severity
from skillcore.parse.context import ParseContext, ParseResult, fail
from skillcore.parse.frontmatter_caps import (
    MAX_COMPATIBILITY,
    MAX_DESCRIPTION,
    MAX_DESCRIPTION_STORED,
    MAX_TEXT,
    MAX_VERSION,
)
from skillcore.parse.truncation import cap_list, cap_text
from skillcore.parse.values import is_date, scalar_text, str_list, type_name

_TEXT_FIELDS = ("license", "compatibility")
LIST_FIELDS = (
    ("triggers", "triggers"),
    ("file-patterns", "file_patterns"),
    ("dependencies", "dependencies"),
)
FLAG_FIELDS = (
    ("disable-model-invocation", "disable_model_invocation"),
    ("user-invocable", "user_invocable"),
)


def read_description(fm: dict[str, Any], ctx: ParseContext) -> str | ParseResult:
    """The description as written (less unsafe characters), or the skip result."""
    description = fm.get("description")
    if description is None:
        what = "missing" if "description" not in fm else "empty (null)"
        return fail(ctx, Code.MISSING_FIELD, f"'description' is {what}", "description")
    if not isinstance(description, str):
        return fail(
            ctx,
            Code.INVALID_TYPE,
            f"'description' must be a string, got {type_name(description)}",
            "description",
        )
    # Kept as YAML gives it (line breaks of a block scalar included), less unsafe characters;
    # the catalog renderer folds whitespace and shortens, so the author's text is not rewritten.
    if ctx.cleaner is not None:
        description = ctx.cleaner(description, "description")
    if not description or description.isspace():  # what ``not description.strip()`` says
        return fail(ctx, Code.MISSING_FIELD, "'description' is empty", "description")
    if len(description) > MAX_DESCRIPTION:
        if len(description) <= MAX_DESCRIPTION_STORED:
            ctx.diags.append(
                ctx.problem(
                    Code.FIELD_TOO_LONG,
                    f"description is {len(description)} characters long (limit "
                    f"{MAX_DESCRIPTION})"
                    + (
                        f"; kept whole, the catalog shortens it to {MAX_DESCRIPTION} characters"
                        if not ctx.strict
                        else ""
                    ),
                    "description",
                )
            )
        else:
            description = cap_text(description, "description", MAX_DESCRIPTION_STORED, ctx)
    if description[:5].upper() == "TODO:":
        # A placeholder tells the model nothing about when to use the skill.
        ctx.diags.append(
            ctx.problem(
                Code.PLACEHOLDER_DESCRIPTION,
                "the description is a placeholder (starts with 'TODO:'); say what the skill "
                "does and when to use it",
                "description",
            )
        )
    return description


def read_text_fields(fm: dict[str, Any], ctx: ParseContext, kwargs: dict[str, Any]) -> None:
    """``license`` and ``compatibility``: text, capped."""
    for field in _TEXT_FIELDS:
        value = fm.get(field)
        if value is None:
            continue
        if type(value) is not str:
            if isinstance(value, (list, tuple, Mapping)):
                ctx.diags.append(
                    ctx.problem(
                        Code.INVALID_TYPE,
                        f"'{field}' must be a string, got {type_name(value)}; ignored",
                        field,
                    )
                )
                continue
            if not isinstance(value, str):
                ctx.diags.append(
                    ctx.problem(
                        Code.INVALID_TYPE,
                        f"'{field}' must be a string, got {type_name(value)}",
                        field,
                    )
                )
                value = scalar_text(value)
        if ctx.cleaner is not None:
            value = ctx.cleaner(value, field)
        if not value.strip():  # ``license: ''`` is not set, as the peers read it
            continue
        if len(value) > MAX_COMPATIBILITY:
            if field == "compatibility" and len(value) <= MAX_TEXT:
                ctx.diags.append(
                    ctx.problem(
                        Code.FIELD_TOO_LONG,
                        f"{field} is {len(value)} characters long (limit {MAX_COMPATIBILITY})",
                        field,
                    )
                )
            value = cap_text(value, field, MAX_TEXT, ctx)
        kwargs[field] = value


def read_version(fm: dict[str, Any], ctx: ParseContext, kwargs: dict[str, Any]) -> None:
    """``version``: text (a number or a date is read as text, with a warning), capped."""
    version = fm.get("version")
    if version is None:
        return
    if (isinstance(version, (str, int, float)) and not isinstance(version, bool)) or (
        is_date(version)
    ):
        if not isinstance(version, str):
            # ``version: 1.10`` is the number 1.1: kept as text, but the author is told.
            ctx.diags.append(
                ctx.diag(
                    Severity.WARNING,
                    Code.INVALID_TYPE,
                    f"'version' should be a string, got {type_name(version)}; read as "
                    f"{scalar_text(version)[:40]!r} (quote it to keep it exactly)",
                    "version",
                )
            )
        text = ctx.clean(scalar_text(version), "version")
        if text.strip():
            kwargs["version"] = cap_text(text, "version", MAX_VERSION, ctx)
    else:
        ctx.diags.append(
            ctx.problem(Code.INVALID_TYPE, "'version' must be a string; ignored", "version")
        )


def read_list_fields(fm: dict[str, Any], ctx: ParseContext, kwargs: dict[str, Any]) -> None:
    """``triggers``, ``file-patterns``, ``dependencies``: lists of text, capped."""
    for field, attr in LIST_FIELDS:
        value = fm.get(field)
        if value is None:
            continue
        try:
            items = str_list(value)
        except TypeError:
            ctx.diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'{field}' must be a list of strings or comma-separated text; ignored",
                    field,
                )
            )
            continue
        kwargs[attr] = cap_list(items, field, ctx, ctx.cleaner)


def read_priority(fm: dict[str, Any], ctx: ParseContext, kwargs: dict[str, Any]) -> None:
    """``priority``: an integer (0 when unreadable)."""
    prio = fm.get("priority")
    if prio is not None:
        if isinstance(prio, int) and not isinstance(prio, bool):
            kwargs["priority"] = prio
        else:
            ctx.diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'priority' must be an integer, got {type_name(prio)}; using 0",
                    "priority",
                )
            )


def read_flags(fm: dict[str, Any], ctx: ParseContext, kwargs: dict[str, Any]) -> None:
    """``disable-model-invocation`` (fails closed) and ``user-invocable``: booleans."""
    for field, attr in FLAG_FIELDS:
        if field not in fm:
            continue
        flag = fm[field]
        if isinstance(flag, bool):
            kwargs[attr] = flag
        elif attr == "disable_model_invocation":
            # Fails closed, like allowed-tools: an unreadable value keeps the skill user-only.
            kwargs[attr] = True
            ctx.diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'{field}' must be true or false, got {type_name(flag)}; the skill is "
                    "treated as disabled for the model",
                    field,
                )
            )
        elif flag is not None:
            ctx.diags.append(
                ctx.problem(Code.INVALID_TYPE, f"'{field}' must be true or false; ignored", field)
            )


def read_metadata_version(
    meta: dict[str, str] | None, ctx: ParseContext, kwargs: dict[str, Any]
) -> None:
    """A version under ``metadata`` when the field itself gave none."""
    if meta and "version" not in kwargs:
        meta_version = meta.get("version")
        if meta_version:
            # A common convention: metadata: {version: ...}
            kwargs["version"] = cap_text(meta_version, "version", MAX_VERSION, ctx)


def read_argument_hint(fm: dict[str, Any], ctx: ParseContext, kwargs: dict[str, Any]) -> None:
    """``argument-hint``: text, capped."""
    hint = fm.get("argument-hint")
    if hint is not None:
        if type(hint) is not str and isinstance(hint, (list, tuple, Mapping)):
            ctx.diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'argument-hint' must be a string, got {type_name(hint)}; ignored",
                    "argument-hint",
                )
            )
        else:
            text = ctx.clean(scalar_text(hint), "argument-hint")
            if text.strip():
                kwargs["argument_hint"] = cap_text(text, "argument-hint", MAX_TEXT, ctx)
