"""Forked skills (``context: fork``) on LangChain: the subagent is a LangGraph agent run as
deepagents' ``task`` tool runs one (the task as its only message, its last AI text as the
reply), built once per subagent name with its own :class:`ForkedSkillsMiddleware`.

Translation only: which skill forks, the task, where the child's session starts and the
rule its tool calls pass come from :class:`skillcore.runtime.Forks`.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from skillcore import SkillSession
from skillcore.runtime import ForkRequest, Forks, fork_decision, replies, running_fork
from skillcore_langchain._calls import policy_arguments, reply
from skillcore_langchain._messages import tool_message
from skillcore_langchain._state import SEED_KEY
from skillcore_langchain.middleware import SkillsMiddleware

__all__ = ["ForkedSkillsMiddleware", "Subagents"]

#: How a subagent is given: ``factory(skills_middleware) -> agent`` (e.g.
#: ``lambda skills: create_agent(model, tools, middleware=[skills])``) or a deepagents
#: ``SubAgent`` spec (a mapping with ``model``, ``tools``, ...), compiled by deepagents with
#: the skills middleware added to its ``middleware``.
SubagentSpec = Callable[[Any], Any] | Mapping[str, Any]

#: The config of a subagent run (as deepagents' task tool stamps one).
_CONFIG = {"configurable": {"ls_agent_type": "subagent"}}


def _check_spec(agent: str, spec: Any) -> None:
    if isinstance(spec, Mapping):
        if "runnable" in spec:
            raise TypeError(
                f"subagent {agent!r}: a compiled subagent cannot get the forked skill's rules; "
                "pass a SubAgent spec (model, tools, ...) or a factory taking the skills "
                "middleware"
            )
        return
    if not callable(spec):
        raise TypeError(
            f"subagent {agent!r}: expected a factory or a SubAgent spec, got {spec!r:.80}"
        )


def _unchanged(_session: SkillSession) -> dict[str, Any]:
    """No state update: a fork never changes the parent's session."""
    return {}


def _answer(result: Any) -> str:
    """The subagent's final answer: its last AI message with text (as deepagents takes it)."""
    messages = result.get("messages", []) if isinstance(result, Mapping) else []
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            text = message.text.strip() if message.text else ""
            if text:
                return text
    return ""


class ForkedSkillsMiddleware(SkillsMiddleware):
    """The skill layer of one subagent, built by :meth:`Subagents.middleware`: its catalog is
    the subagent's scope of the library; every plain tool call also passes the running
    fork's rule, and without a fork of this subagent running none is allowed."""

    #: The subagent this layer serves.
    fork_agent: str = ""

    def _fork_block(self, request: ToolCallRequest) -> ToolMessage | None:
        call = request.tool_call
        # The skill tools never run a tool, except the script tool, which the fork judges.
        if self.toolkit.is_skill_tool(call["name"]) and call["name"] != self.names.script:
            return None
        arguments = policy_arguments(request.tool, call.get("args"))
        decision = fork_decision(self.fork_agent, call["name"], arguments)
        if decision is None:
            return None
        text = replies.blocked(decision)
        return tool_message(text, replies.blocked_code(decision), call["id"], call["name"])

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """The fork's rule, then :meth:`SkillsMiddleware.wrap_tool_call`."""
        blocked = self._fork_block(request)
        return blocked if blocked is not None else super().wrap_tool_call(request, handler)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        blocked = self._fork_block(request)
        if blocked is not None:
            return blocked
        return await super().awrap_tool_call(request, handler)


class Subagents:
    """A :class:`SkillsMiddleware`'s subagents by name, built on first use."""

    def __init__(self, parent: SkillsMiddleware, specs: Mapping[str, SubagentSpec]) -> None:
        for agent, spec in specs.items():
            _check_spec(agent, spec)
        self.parent, self.specs = parent, dict(specs)
        self.forks = Forks(parent.toolkit, parent.config.subagent_rules(), self.specs)
        self._graphs: dict[str, Any] = {}
        self._lock = threading.Lock()

    def middleware(self, agent: str) -> SkillsMiddleware:
        """A new skill layer for subagent ``agent`` (same library and options, no configured
        skills: a forked child starts as its scope says)."""
        parent = self.parent
        config = parent.config.subagent_config()
        child = ForkedSkillsMiddleware(parent.library, config, refresh=False)
        child.fork_agent = agent
        child.restore = self.forks.restorer(agent, child.limits, child.policy, child.names)
        return child

    def graph(self, agent: str) -> Any:
        """Subagent ``agent``'s runnable (built once)."""
        with self._lock:
            graph = self._graphs.get(agent)
            if graph is None:
                graph = self._graphs[agent] = self._build(agent)
            return graph

    def _build(self, agent: str) -> Any:
        spec, skills = self.specs[agent], self.middleware(agent)
        if not isinstance(spec, Mapping):
            return spec(skills)
        from deepagents.middleware.subagents import create_sub_agent

        declared = {**spec, "middleware": [*spec.get("middleware", ()), skills]}
        declared.setdefault("name", agent)
        return create_sub_agent(declared)  # type: ignore[arg-type]

    def _input(self, request: ForkRequest) -> dict[str, Any]:
        state: dict[str, Any] = {"messages": [HumanMessage(content=request.task)]}
        if request.session.loaded:  # inherited skills: the child starts with them
            state[SEED_KEY] = request.session.to_state()
        return state

    def run(
        self, parent: SkillSession, request: ForkRequest, call_id: str | None
    ) -> ToolMessage | Command[Any]:
        """Run the fork's subagent and reply with its answer (the parent's session as is)."""
        graph = self.graph(request.agent)
        with running_fork(request.guard):
            result = graph.invoke(self._input(request), _CONFIG)
        return reply(self.forks.result(parent, request, _answer(result)), call_id, _unchanged)

    async def arun(
        self, parent: SkillSession, request: ForkRequest, call_id: str | None
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`run`."""
        graph = self.graph(request.agent)
        with running_fork(request.guard):
            result = await graph.ainvoke(self._input(request), _CONFIG)
        return reply(self.forks.result(parent, request, _answer(result)), call_id, _unchanged)
