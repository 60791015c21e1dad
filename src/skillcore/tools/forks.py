"""Forked skills at the tool layer: a ``load_skill`` of a skill with ``context: fork`` becomes a
:class:`ForkRequest` (the subagent, its task, where its skill session starts and the
:class:`~skillcore.state.subagents.ForkGuard` its tool calls pass), and the subagent's final
answer becomes the tool reply. Every text of a fork is here.

The parent's session never changes by a fork: the forked skill is not loaded into it, and
what the child loads stays in the child's own session.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import attrs

from skillcore import events
from skillcore._escaping import single_line
from skillcore.codes import DecisionCode, OutcomeCode
from skillcore.limits import Limits
from skillcore.model import Catalog, SkillDocument, SkillMetadata
from skillcore.names import ToolNames
from skillcore.policy import ToolDecision, ToolPolicy
from skillcore.sources import ReadError
from skillcore.state import LoadRequest, Restorer, SkillSession
from skillcore.state.subagents import ForkGuard, SubagentRules, fork_agent, scoped_catalog
from skillcore.tools import calls, replies
from skillcore.tools.calls import ToolResult
from skillcore.tools.specs import ArgumentError

if TYPE_CHECKING:
    from skillcore.tools.toolkit import SkillToolkit

__all__ = [
    "MAX_FORK_ANSWER",
    "MAX_FORK_ARGUMENTS",
    "ForkRequest",
    "Forks",
    "fork_task",
    "not_started",
    "outside_fork",
]

#: The longest arguments text a fork's task takes (characters); longer is cut.
MAX_FORK_ARGUMENTS = 10_000
#: The longest subagent answer passed back as the tool reply (characters); longer is cut.
MAX_FORK_ANSWER = 100_000


def not_started(meta: SkillMetadata, agent: str) -> str:
    """The reply to a load of a forked skill where no subagent runs it (code ``FORK``)."""
    return replies.error(
        f"Skill {single_line(meta.name)!r} runs as a task of subagent "
        f"{single_line(agent)!r} (context: fork), which this agent cannot start. It was not "
        "loaded; continue without it."
    )


def unknown_subagent(meta: SkillMetadata, agent: str, known: Collection[str]) -> str:
    """The reply to a forked skill naming a subagent the agent does not have."""
    names = ", ".join(single_line(n) for n in sorted(known)[:20]) or "none"
    return replies.error(
        f"Skill {single_line(meta.name)!r} runs in subagent {single_line(agent)!r}, which "
        f"this agent does not have (its subagents: {names}). It was not run; continue "
        "without it."
    )


def outside_fork(tool: str, agent: str) -> ToolDecision:
    """The refusal of every plain tool of subagent ``agent``'s skill layer run outside a
    fork: without the fork's rule it cannot know what is allowed, so nothing is."""
    reason = (
        f"Tool {single_line(tool)!r} is blocked: this skill layer serves forked skills of "
        f"subagent {single_line(agent)!r} and no fork is running."
    )
    return ToolDecision(False, DecisionCode.TOOL_BLOCKED, reason, tool)


def fork_task(document: SkillDocument, arguments: str | None = None) -> str:
    """The task a subagent gets: the skill's instructions, then its arguments when given
    (as ``ARGUMENTS: ...``, cut at :data:`MAX_FORK_ARGUMENTS`)."""
    body = document.body.strip()
    if not arguments:
        return body
    return f"{body}\n\nARGUMENTS: {arguments[:MAX_FORK_ARGUMENTS]}"


def fork_reply(request: ForkRequest, answer: str) -> str:
    """The tool reply carrying the subagent's final answer (cut at :data:`MAX_FORK_ANSWER`)."""
    text = answer if len(answer) <= MAX_FORK_ANSWER else answer[:MAX_FORK_ANSWER] + "\n[cut]"
    return (
        f"Skill {single_line(request.skill.name)!r} ran in subagent "
        f"{single_line(request.agent)!r}; its answer:\n\n{text}"
    )


@attrs.frozen
class ForkRequest:
    """A forked skill to run: in ``agent``, with ``task``, its skill session starting at
    ``session`` and its tool calls passing ``guard``."""

    skill: SkillMetadata
    agent: str
    task: str
    session: SkillSession
    guard: ForkGuard


class Forks:
    """An adapter's forked-skill handling: its subagent names and the host's
    :class:`SubagentRules` over one toolkit."""

    def __init__(
        self, toolkit: SkillToolkit, rules: SubagentRules, agents: Collection[str]
    ) -> None:
        self.toolkit, self.rules, self.agents = toolkit, rules, frozenset(agents)
        self._catalogs: dict[str, tuple[Catalog, Catalog]] = {}

    def catalog_for(self, agent: str, catalog: Catalog) -> Catalog:
        """Subagent ``agent``'s view of ``catalog`` (memoized per catalog object: adapters
        ask on every model call)."""
        cached = self._catalogs.get(agent)
        if cached is not None and cached[0] is catalog:
            return cached[1]
        scoped = scoped_catalog(catalog, self.rules.agent_keep(agent, catalog))
        self._catalogs[agent] = (catalog, scoped)
        return scoped

    def restorer(
        self, agent: str, limits: Limits, policy: ToolPolicy, names: ToolNames
    ) -> Restorer:
        """How subagent ``agent``'s skill layer reads its saved state: over its own catalog."""
        library = self.toolkit.library
        return Restorer(lambda: self.catalog_for(agent, library.catalog), limits, policy, names)

    def skill_name(self, arguments: Any) -> str:
        """The skill a ``load_skill`` call names, as the toolkit reads it (stripped); "" when
        the arguments name none."""
        try:
            name = self.toolkit.parse_arguments(self.toolkit.names.load, arguments)["skill_name"]
        except ArgumentError:
            return ""
        return name if isinstance(name, str) else ""

    def _start(self, parent: SkillSession, name: str) -> tuple[SkillMetadata, str] | ToolResult:
        meta = parent.catalog.get(name)
        tool = self.toolkit.names.load
        if meta is None or meta.disable_model_invocation or not meta.forked:
            # Only a forked skill the model may use gets here (the toolkit's FORK result);
            # anything else is refused, never run.
            text = replies.error(f"No forked skill named {single_line(name)!r}.")
            return ToolResult(parent, text, OutcomeCode.SKILL_NOT_FOUND, tool)
        agent = fork_agent(meta) or ""
        if agent not in self.agents:
            text = unknown_subagent(meta, agent, self.agents)
            return ToolResult(parent, text, OutcomeCode.SUBAGENT_UNKNOWN, tool)
        return meta, agent

    def _request(
        self,
        parent: SkillSession,
        meta: SkillMetadata,
        agent: str,
        data: Any,
        arguments: str | None,
    ) -> ForkRequest | ToolResult:
        if isinstance(data, ReadError):
            outcome = parent.fail_load(meta.name, data.code, data.message)
            return ToolResult(
                parent, replies.refusal(outcome), outcome.code, self.toolkit.names.load
            )
        assert isinstance(data, SkillDocument)
        catalog = self.catalog_for(agent, self.toolkit.library.catalog)
        session = self.rules.child_session(agent, parent, catalog)
        guard = ForkGuard.of(meta, agent, parent, self.rules)
        return ForkRequest(meta, agent, fork_task(data, arguments), session, guard)

    def request(
        self, parent: SkillSession, name: str, arguments: str | None = None
    ) -> ForkRequest | ToolResult:
        """The fork of skill ``name`` (:meth:`skill_name` of a call the toolkit answered with
        ``FORK``) from ``parent``, or the reply refusing it (unknown subagent, unreadable
        skill)."""
        start = self._start(parent, name)
        if isinstance(start, ToolResult):
            return start
        meta, agent = start
        data = calls.read(self.toolkit.library, LoadRequest(name), parent)
        return self._request(parent, meta, agent, data, arguments)

    async def arequest(
        self, parent: SkillSession, name: str, arguments: str | None = None
    ) -> ForkRequest | ToolResult:
        """Async :meth:`request`."""
        start = self._start(parent, name)
        if isinstance(start, ToolResult):
            return start
        meta, agent = start
        data = await calls.aread(self.toolkit.library, LoadRequest(name), parent)
        return self._request(parent, meta, agent, data, arguments)

    def result(self, parent: SkillSession, request: ForkRequest, answer: str) -> ToolResult:
        """The parent's tool result of a finished fork: its session unchanged, the reply the
        subagent's answer."""
        text = fork_reply(request, answer)
        fields = {"skill": request.skill.name, "subagent": request.agent}
        events.emit("skill.forked", {**fields, "answer_chars": len(answer)})
        return ToolResult(parent, text, OutcomeCode.FORKED, self.toolkit.names.load)
