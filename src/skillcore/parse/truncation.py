"""Text and lists over their caps: shortened or dropped, with the diagnostic saying so."""

from __future__ import annotations

from skillcore.diagnostics import Code
from skillcore.parse.context import ParseContext, ValidationMode
from skillcore.parse.frontmatter_caps import MAX_LIST_ITEM, MAX_LIST_ITEMS
from skillcore.parse.values import Cleaner


def cap_text(value: str, field: str, cap: int, ctx: ParseContext) -> str:
    """Truncate text over ``cap`` with a diagnostic (an error in strict mode)."""
    if len(value) <= cap:
        return value
    lenient = ctx.mode is ValidationMode.LENIENT
    ctx.diags.append(
        ctx.problem(
            Code.FIELD_TOO_LONG,
            f"{field} is {len(value)} characters long (limit {cap})"
            + ("; truncated" if lenient else ""),
            field,
        )
    )
    return value[: cap - 1] + "…"


def cap_list(
    items: list[str], field: str, ctx: ParseContext, cleaner: Cleaner | None
) -> tuple[str, ...]:
    """Clean list items, drop over-long ones and keep at most MAX_LIST_ITEMS.

    ``items`` come from ``str_list``: stripped and not empty, so only cleaning can empty one.
    """
    out = items if cleaner is None else [v for v in (cleaner(i, field) for i in items) if v]
    if out and max(map(len, out)) > MAX_LIST_ITEM:
        long_items = [v for v in out if len(v) > MAX_LIST_ITEM]
        ctx.diags.append(
            ctx.problem(
                Code.FIELD_TOO_LONG,
                f"{field}: dropped {len(long_items)} item(s) longer than {MAX_LIST_ITEM} "
                "characters",
                field,
            )
        )
        out = [v for v in out if len(v) <= MAX_LIST_ITEM]
    if len(out) > MAX_LIST_ITEMS:
        ctx.diags.append(
            ctx.problem(
                Code.FIELD_TOO_LONG,
                f"{field} has {len(out)} items (limit {MAX_LIST_ITEMS}); kept the first "
                f"{MAX_LIST_ITEMS}",
                field,
            )
        )
        out = out[:MAX_LIST_ITEMS]
    return tuple(out)
