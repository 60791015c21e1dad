"""The decision a tool call will get when it runs, known before it runs.

Human approval flows (LangChain's ``HumanInTheLoopMiddleware`` in batched mode) ask about all
the calls of a model turn before any of them runs. Asking a human to approve a call that the
allowed-tools policy then blocks wastes the approval and misleads them, so the approval step
asks :func:`preview_decision` first and skips the calls that will be blocked.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from skillcore.policy import PolicyMode, ToolDecision
from skillcore.state import SkillSession, removes_tools
from skillcore.tools.toolkit import SkillToolkit


def preview_decision(
    toolkit: SkillToolkit,
    session: SkillSession,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    index: int,
    *,
    available: Collection[str] | None = None,
) -> ToolDecision:
    """The policy decision call ``calls[index]`` of one model turn will get when it runs.

    The skill calls before it in the turn are applied in call order to ``session`` by
    :meth:`SkillToolkit.replay`, the code the real calls run (pinned skills, available tools,
    documents read as the real loads read them), so a call after a ``load_skill`` of a
    restricting skill is previewed as blocked, as it will be, and an ``unload_skill`` of a
    pinned skill lifts nothing. The decision is :meth:`SkillToolkit.check_tool`'s. Nothing is
    stored and no event is reported. ``available``: the agent's tool names, as the adapter
    passes them to the real calls.
    """
    current = session
    if session.policy.mode is not PolicyMode.RECOMMEND or removes_tools(session.catalog):
        for name, args in calls[:index]:
            if toolkit.is_skill_tool(name):
                current = toolkit.replay(current, name, args, available=available)
    name, args = calls[index]
    return toolkit.check_tool(current, name, arguments=args)
