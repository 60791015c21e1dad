"""The decision a tool call will get when it runs, known before it runs.

Human approval flows (LangChain's ``HumanInTheLoopMiddleware`` in batched mode) ask about all
the calls of a model turn before any of them runs. Asking a human to approve a call that the
allowed-tools policy then blocks wastes the approval and misleads them, so the approval step
asks :func:`preview_decision` first and skips the calls that will be blocked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from skillcore.policy import PolicyMode, ToolDecision
from skillcore.session import LoadRequest, SkillSession
from skillcore.sources import ReadError
from skillcore.tools import SkillToolkit


def preview_decision(
    toolkit: SkillToolkit,
    session: SkillSession,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    index: int,
) -> ToolDecision:
    """The policy decision call ``calls[index]`` of one model turn will get when it runs.

    The skill calls before it in the turn (``load_skill``, ``unload_skill``) are applied in
    call order to ``session`` -- reading the documents a load reads, as the real calls will --
    so a call after a ``load_skill`` of a restricting skill is previewed as blocked, as it
    will be (invariant 8). Nothing is stored and no event is reported. A load that cannot be
    read is previewed as refused, as it will be.
    """
    names = toolkit.names
    current = session
    if session.policy.mode is not PolicyMode.RECOMMEND:
        for name, args in calls[:index]:
            skill = args.get("skill_name") if isinstance(args, Mapping) else None
            if not isinstance(skill, str):
                continue
            if name == names.load:
                step = current.begin_load(skill)
                if isinstance(step, LoadRequest):
                    try:
                        document = toolkit.library.read_document(skill)
                    except ReadError:
                        continue
                    current = current.finish_load(document)[0]
            elif name == names.unload:
                current = current.unload(skill)[0]
    return current.check_tool(calls[index][0], arguments=calls[index][1])
