"""Forked skills (``context: fork``) on the OpenAI Agents SDK: the subagent runs through the
SDK's own ``Agent.as_tool`` (a nested run; the task is its input, its final output the
reply), built once per subagent name and guarded by its own :class:`ForkedAgentSkills`,
whose conversation is a fresh one per fork (never the run context's).

Translation only: which skill forks, the task, where the child's session starts and the
rule its tool calls pass come from :class:`skillcore.runtime.Forks`.
"""

from __future__ import annotations

import contextvars
import dataclasses
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    RunContextWrapper,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
)

from skillcore import Catalog, SkillSession, ToolResult
from skillcore.runtime import ForkRequest, Forks, ToolSpec, fork_decision, replies, running_fork
from skillcore_openai.agents.adapter import AgentSkills
from skillcore_openai.agents.conversations import AgentConversations, SkillConversation

__all__ = ["ForkedAgentSkills", "Subagents"]


class ForkedAgentSkills(AgentSkills):
    """The skills of one subagent, built by :meth:`Subagents.skills`: its catalog is the
    subagent's scope of the library, its conversation the running fork's own; every plain
    tool call also passes the running fork's rule, and without a fork of this subagent
    running none is allowed."""

    #: The subagent these skills serve.
    fork_agent: str = ""

    async def _check(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        if not self.toolkit.is_skill_tool(ctx.tool_name):
            arguments = getattr(ctx, "tool_arguments", None)
            decision = fork_decision(self.fork_agent, ctx.tool_name, arguments)
            if decision is not None:
                return ToolGuardrailFunctionOutput.reject_content(
                    replies.blocked(decision), output_info=decision
                )
        return await super()._check(data)

    def _tool(self, spec: ToolSpec) -> FunctionTool:
        # The skill tools carry no guardrail; the script tool runs code, so the fork judges it.
        tool = super()._tool(spec)
        if spec.name != self.toolkit.names.script:
            return tool
        inner = tool.on_invoke_tool

        async def invoke(ctx: Any, arguments: str) -> Any:
            decision = fork_decision(self.fork_agent, spec.name, arguments)
            if decision is not None:
                return replies.blocked(decision)
            return await inner(ctx, arguments)

        return dataclasses.replace(tool, on_invoke_tool=invoke)


#: How a subagent is given: ``factory(agent_skills) -> Agent`` (with ``agent_skills.tools()``
#: among its tools; it is guarded with :meth:`AgentSkills.guard_agent` when built).
SubagentFactory = Callable[[AgentSkills], Agent[Any]]


class Subagents:
    """An :class:`AgentSkills`' subagents by name, built on first use."""

    def __init__(self, parent: AgentSkills, specs: Mapping[str, SubagentFactory]) -> None:
        for agent, spec in specs.items():
            if not callable(spec):
                raise TypeError(f"subagent {agent!r}: expected a factory, got {spec!r:.80}")
        self.parent, self.specs = parent, dict(specs)
        self.forks = Forks(parent.toolkit, parent.config.subagent_rules(), self.specs)
        self._built: dict[str, tuple[ForkedAgentSkills, FunctionTool]] = {}
        self._lock = threading.Lock()
        # The conversation of the fork running in this context, per subagent.
        self._running: contextvars.ContextVar[SkillConversation | None] = contextvars.ContextVar(
            "skillcore_fork_conversation", default=None
        )

    def skills(self, agent: str) -> ForkedAgentSkills:
        """New skills for subagent ``agent`` (same library and options, no configured
        skills), whose conversation is the running fork's."""
        parent = self.parent
        config = parent.config.subagent_config()
        child = ForkedAgentSkills(
            parent.toolkit.library, config, policy=parent.policy, state_from=self._state
        )
        child.fork_agent = agent
        library = parent.toolkit.library
        child.conversations = AgentConversations(
            child.toolkit,
            child.limits,
            child.policy,
            None,
            self._state,
            None,
            lambda: self.forks.catalog_for(agent, library.catalog),
        )
        return child

    def _state(self, _ctx: RunContextWrapper[Any] | None) -> SkillConversation:
        found = self._running.get()
        # Outside a fork: an empty conversation (and every plain tool is blocked anyway).
        return found if found is not None else SkillConversation(SkillSession(Catalog()))

    def _build(self, agent: str) -> tuple[ForkedAgentSkills, FunctionTool]:
        skills = self.skills(agent)
        child = skills.guard_agent(self.specs[agent](skills))
        tool = child.as_tool(tool_name=f"subagent_{agent}", tool_description=f"Subagent {agent}.")
        return skills, tool

    def built(self, agent: str) -> tuple[ForkedAgentSkills, FunctionTool]:
        """Subagent ``agent``'s skills and ``as_tool`` tool (built once)."""
        with self._lock:
            found = self._built.get(agent)
            if found is None:
                found = self._built[agent] = self._build(agent)
            return found

    async def fork(self, result: ToolResult, arguments: Any, ctx: Any) -> ToolResult:
        """The reply to a forked skill's load (``result``: the toolkit's ``FORK`` result):
        its subagent's answer, or the refusal (unknown subagent, unreadable skill)."""
        parent = result.session
        request = await self.forks.arequest(parent, self.forks.skill_name(arguments))
        if not isinstance(request, ForkRequest):
            return request
        skills, tool = self.built(request.agent)
        conversation = skills.conversations.new_state(request.session.to_state())
        token = self._running.set(conversation)
        try:
            with running_fork(request.guard):
                answer = await tool.on_invoke_tool(ctx, json.dumps({"input": request.task}))
        finally:
            self._running.reset(token)
        return self.forks.result(
            parent, request, answer if isinstance(answer, str) else str(answer)
        )
