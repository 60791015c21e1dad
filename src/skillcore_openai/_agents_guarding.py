"""How :class:`~skillcore_openai.agents_sdk.AgentSkills` makes RESTRICT hold on everything an
agent can call: the allowed-tools guardrail added to function tools, MCP servers and the
agents handed off to, the hooks that order each turn's calls, and the guardrail's check."""

from __future__ import annotations

import dataclasses
import json
import warnings
from functools import partial
from typing import Any

from skillcore.runtime import replies, require

require("agents", "agents", "skillcore_openai.agents_sdk (OpenAI Agents SDK tools)")

from agents import (  # noqa: E402 - after the friendly dependency check
    Agent,
    FunctionTool,
    Handoff,
    RunContextWrapper,
    Tool,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)

from skillcore_openai._agents_guard import _GuardedServer, _TurnHooks, _without_ours  # noqa: E402
from skillcore_openai._agents_tools import AgentTools, _AnyTool  # noqa: E402

__all__ = ["UNORDERED_WARNING", "AgentGuarding"]

#: Said once per :class:`AgentSkills` when a guarded call's turn cannot be ordered.
UNORDERED_WARNING = (
    "this agent was not built with AgentSkills.guard_agent, so the tool calls of one model "
    "turn, which the Agents SDK runs at once, are checked on the session as each finds it, "
    "not in the model's call order: a call after a restricting load_skill in the same turn "
    "can pass. Build the agent with skills.guard_agent(agent), or run one tool call at a "
    "time (RunConfig(tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1)))"
)


def _unordered(agent: Any, ctx: Any) -> bool:
    """True when ``agent`` has no hooks of :meth:`AgentSkills.guard_agent` and the run may
    run several tool calls at once."""
    if isinstance(getattr(agent, "hooks", None), _TurnHooks):
        return False
    execution = getattr(getattr(ctx, "run_config", None), "tool_execution", None)
    return getattr(execution, "max_function_tool_concurrency", None) != 1


class AgentGuarding(AgentTools):
    """The guarding part of :class:`~skillcore_openai.agents_sdk.AgentSkills` (which sets
    ``guardrail``, a guardrail running :meth:`_check`)."""

    guardrail: ToolInputGuardrail[Any]

    def guard(self, *tools: Tool) -> list[Tool]:
        """Copies of your function tools that carry the allowed-tools guardrail (the tools
        you pass are not changed; a guardrail another ``AgentSkills`` added is replaced).

        Only ``FunctionTool`` supports tool input guardrails; other tool types raise
        TypeError because RESTRICT could not block them, unless their name is always allowed.
        Skill tools are returned as they are (they are never blocked). The calls of one model
        turn are decided in call order only in an agent built with :meth:`guard_agent`.
        """
        return [self._guard_tool(tool) for tool in tools]

    def _guard_tool(self, tool: _AnyTool) -> _AnyTool:
        if isinstance(tool, FunctionTool):
            if self.toolkit.is_skill_tool(tool.name):
                return tool
            guardrails = [*_without_ours(tool.tool_input_guardrails), self.guardrail]
            guarded = dataclasses.replace(tool, tool_input_guardrails=guardrails)
            return self._offer(guarded) if self.config.hide_blocked_tools else guarded
        if getattr(tool, "name", None) in self.policy.always_allowed:
            return tool
        raise TypeError(
            f"{type(tool).__name__} has no tool input guardrails, so RESTRICT cannot "
            "block it; guard FunctionTools only (or list its name in always_allowed_tools)"
        )

    def guard_agent(self, agent: Agent[Any]) -> Agent[Any]:
        """A copy of ``agent`` whose every tool call passes the allowed-tools check: its
        function tools (as :meth:`guard`), the tools of its MCP servers (the servers are
        wrapped, not changed: connect and clean up the originals as usual), and the same for
        every agent it can hand off to, directly or through ``handoff()`` objects. Your
        agents, tools and servers are left unchanged.

        The copies carry agent hooks (wrapping yours, which still run) that see each model
        response before its tool calls run: the calls of one turn are then decided in the
        model's order, and a load of a skill whose load reply the model no longer receives
        sends its instructions again."""
        return self._guard_agent(agent, {})

    def _guard_agent(self, agent: Agent[Any], done: dict[int, Agent[Any]]) -> Agent[Any]:
        found = done.get(id(agent))
        if found is not None:
            return found
        copy = agent.clone()
        done[id(agent)] = copy  # before the handoffs: agents may hand off to each other
        copy.tools = [self._guard_tool(t) for t in agent.tools]
        copy.mcp_servers = [
            s
            if isinstance(s, _GuardedServer) and s.guardrail is self.guardrail
            else _GuardedServer(s, self.guardrail)
            for s in agent.mcp_servers
        ]
        copy.handoffs = [self._guard_handoff(h, done) for h in agent.handoffs]
        hooks = agent.hooks
        inner = hooks.inner if isinstance(hooks, _TurnHooks) else hooks
        copy.hooks = _TurnHooks(lambda ctx: self._route(ctx), inner, self)
        return copy

    def _guard_handoff(self, target: Any, done: dict[int, Agent[Any]]) -> Any:
        if isinstance(target, Agent):
            return self._guard_agent(target, done)
        if isinstance(target, Handoff):
            invoke = target.on_invoke_handoff

            async def guarded(ctx: RunContextWrapper[Any], arguments: str) -> Any:
                chosen = await invoke(ctx, arguments)
                return self._guard_agent(chosen, done) if isinstance(chosen, Agent) else chosen

            return dataclasses.replace(target, on_invoke_handoff=guarded)
        return target

    async def _check(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        # An agent without the unload tool (e.g. one the conversation was handed off to) is
        # not told to call it.
        tools = getattr(data.agent, "tools", None) or ()
        can_unload = any(getattr(t, "name", None) == self.toolkit.names.unload for t in tools)
        check = partial(
            self.toolkit.check_call,
            tool_name=ctx.tool_name,
            can_unload=can_unload,
            arguments=getattr(ctx, "tool_arguments", None),
        )
        state = self.state_for(ctx)
        guarded = self.toolkit.guards(self.policy, ctx.tool_name)
        view = self._enter(state, getattr(ctx, "tool_call_id", None)) if guarded else None
        if view is None:  # not announced, or never blocked (RECOMMEND): no need to wait
            if guarded and not self._warned and _unordered(data.agent, ctx):
                self._warned = True
                warnings.warn(UNORDERED_WARNING, UserWarning, stacklevel=2)
            refresh = getattr(state._store, "refresh", None)
            if guarded and view is None and callable(refresh):
                refresh()  # no turn announced this call: read the latest saved state for it
            session = state.session
            decision = check(session)
        else:
            async with view:  # after the earlier skill calls of its turn
                decision = check(view)
                session = view.read()
        if decision.allowed and self.toolkit.hooks.has_hooks(session):
            # The policy allowed the call: the loaded skills' hooks may still block it.
            arguments = _arguments(getattr(ctx, "tool_arguments", None))
            refused = await self.toolkit.hooks.apre_tool(
                session, ctx.tool_name, arguments, conversation=state.hook_key
            )
            decision = decision if refused is None else refused
        if decision.allowed:
            return ToolGuardrailFunctionOutput.allow(output_info=decision)
        return ToolGuardrailFunctionOutput.reject_content(
            replies.blocked(decision), output_info=decision
        )

    async def _after_tool(self, ctx: Any, tool: Any, result: Any) -> None:
        """The loaded skills' ``PostToolUse`` hooks (from the agent hooks of
        :meth:`guard_agent`); what they say reaches the next model call."""
        name = getattr(tool, "name", "")
        if not name or self.toolkit.is_skill_tool(name):
            return
        state = self.state_for(ctx)
        session = state.session
        if self.toolkit.hooks.has_hooks(session):
            arguments = _arguments(getattr(ctx, "tool_arguments", None))
            await self.toolkit.hooks.apost_tool(
                session, name, arguments, result, conversation=state.hook_key
            )

    async def _agent_start(self, ctx: Any) -> None:
        """The loaded skills' ``SessionStart`` hooks, when a guarded agent starts."""
        state = self.state_for(ctx)
        session = state.session
        if self.toolkit.hooks.has_hooks(session):
            await self.toolkit.hooks.asession_start(session, conversation=state.hook_key)


def _arguments(raw: Any) -> Any:
    """A call's JSON arguments as an object for the hooks (text that is not JSON as text)."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw
