"""The tools of LangChain's ``ModelRequest`` as the model may see them now (translation of
the core's :meth:`~skillcore.SkillSession.offered_tools`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.tools import BaseTool

from skillcore import SkillConfig, SkillSession


def offer(
    tools: Iterable[Any],
    session: SkillSession,
    shown: Mapping[str, BaseTool],
    ours: Iterable[str],
    config: SkillConfig,
) -> tuple[list[BaseTool | dict[str, Any]], frozenset[str]]:
    """``tools`` to bind for this model call, and the names of all of them.

    The skill tools (``ours``) become ``shown``'s copies, whose schema lists this catalog's
    skill names (none when ``shown`` is empty: no skills); locked gated tools (and, with
    ``hide_blocked_tools``, blocked ones) are left out."""
    tools = list(tools)
    names = [tool_name(t) for t in tools]
    known = [n for n in names if n is not None]
    offered = set(session.offered_tools(known, hide_blocked=config.hide_blocked_tools))
    skill_tools = frozenset(ours)
    out: list[BaseTool | dict[str, Any]] = []
    for t, name in zip(tools, names):
        if isinstance(t, BaseTool) and t.name in skill_tools:
            if shown:
                out.append(shown.get(t.name, t))
        elif name is None or name in offered:
            out.append(t)
    return out, frozenset(known)


def tool_name(tool: Any) -> str | None:
    """A bound tool's name: a ``BaseTool``, or a provider dict (OpenAI function shape or a
    plain ``name``); None when it has none."""
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        return name if isinstance(name, str) else None
    return None
