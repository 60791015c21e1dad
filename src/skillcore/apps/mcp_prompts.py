"""The MCP server's prompts: each skill a user may invoke (``user-invocable``, not hidden)
is a prompt, with its ``argument-hint`` and its arguments; ``prompts/get`` is the user's own
invocation (``/name args``) on the client's conversation, and returns the skill's expanded
instructions as the user message the host puts in the conversation.

A skill that declares named arguments (``arguments: [issue, branch]``) takes them as prompt
arguments of those names (joined, in order, shell-quoted, as its argument text); every skill
also takes ``arguments``, the argument text as a user would type it after ``/name``.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from skillcore._escaping import folded
from skillcore.apps.mcp_files import LIST_TTL_MS, PAGE_SIZE, page_start
from skillcore.model import SkillMetadata
from skillcore.state import argument_names, user_skills

if TYPE_CHECKING:
    from skillcore.apps.mcp_server import SkillMCPServer

import mcp_types as types
from mcp.shared.exceptions import MCPError

#: The prompt argument holding the whole argument text.
ARGUMENTS = "arguments"
#: Longest description shown for a prompt or an argument.
_DESCRIPTION = 1_024


def _names(meta: SkillMetadata) -> tuple[str, ...]:
    return tuple(n for n in argument_names(meta.extra.get("arguments")) if n != ARGUMENTS)


def prompt_of(meta: SkillMetadata) -> types.Prompt:
    """The prompt of a user-invocable skill."""
    hint = meta.argument_hint
    whole = folded(
        f"The arguments, as typed after /{meta.name}" + (f": {hint}" if hint else ""), _DESCRIPTION
    )
    args = [
        types.PromptArgument(name=n, description=f"Argument {n}.", required=False)
        for n in _names(meta)
    ]
    args.append(types.PromptArgument(name=ARGUMENTS, description=whole, required=False))
    description = folded(meta.description, _DESCRIPTION)
    return types.Prompt(name=meta.name, description=description, arguments=args)


async def list_prompts(server: SkillMCPServer, ctx: Any, params: Any) -> types.ListPromptsResult:
    """``prompts/list``: the user-invocable skills, a page at a time."""
    skills = user_skills(server.catalog())
    start = page_start(getattr(params, "cursor", None), len(skills))
    page = skills[start : start + PAGE_SIZE]
    more = str(start + PAGE_SIZE) if start + PAGE_SIZE < len(skills) else None
    return types.ListPromptsResult(
        prompts=[prompt_of(m) for m in page],
        next_cursor=more,
        ttl_ms=LIST_TTL_MS,
        cache_scope="private",
    )


def argument_text(meta: SkillMetadata, given: dict[str, str] | None) -> str:
    """The argument text of a ``prompts/get``: the named arguments, shell-quoted in order
    (empty ones kept as ``''`` while a later one is set), then ``arguments``."""
    given = given or {}
    values = [given.get(n, "") for n in _names(meta)]
    while values and not values[-1]:
        values.pop()
    parts = [shlex.quote(v) for v in values]
    rest = given.get(ARGUMENTS, "")
    if isinstance(rest, str) and rest.strip():
        parts.append(rest.strip())
    return " ".join(parts)


async def get_prompt(
    server: SkillMCPServer, ctx: Any, params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    """``prompts/get``: the user's invocation of the skill, on the client's conversation."""
    meta = server.catalog().get(params.name)
    if meta is None or not meta.user_invocable:
        raise MCPError(types.INVALID_PARAMS, f"no prompt named {params.name[:200]!r}")
    text = argument_text(meta, params.arguments)
    state = server.state_for(ctx)
    message = f"/{meta.name} {text}" if text else f"/{meta.name}"
    result = await server.toolkit.ainvoke(state, message)
    if result is None or not result.ok:
        reason = result.text if result is not None else f"no prompt named {params.name[:200]!r}"
        raise MCPError(types.INVALID_PARAMS, reason)
    content = types.TextContent(type="text", text=result.text)
    return types.GetPromptResult(
        description=folded(meta.description, _DESCRIPTION),
        messages=[types.PromptMessage(role="user", content=content)],
    )


__all__ = ["ARGUMENTS", "argument_text", "get_prompt", "list_prompts", "prompt_of"]
