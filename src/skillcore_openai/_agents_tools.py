"""The tools :class:`~skillcore_openai.agents_sdk.AgentSkills` gives the agent: a
``FunctionTool`` per skill tool (run on the run's state, in the model's call order when the
turn was announced) and the rule that enables a tool for the model only while the run's
session offers it."""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING, Any, TypeVar

from skillcore import SkillConfig
from skillcore.runtime import ToolSpec, require

require("agents", "agents", "skillcore_openai.agents_sdk (OpenAI Agents SDK tools)")

from agents import FunctionTool, RunContextWrapper, Tool, ToolOutputText  # noqa: E402

from skillcore_openai._agents_guard import _agent_tools, _binary_output  # noqa: E402
from skillcore_openai._agents_turns import TurnOrder  # noqa: E402

if TYPE_CHECKING:
    from agents import AgentBase

__all__ = ["AgentTools"]

#: A tool wrapped as the same kind of tool (a FunctionTool stays one).
_AnyTool = TypeVar("_AnyTool", bound=Tool)


class AgentTools(TurnOrder):
    """The tool part of :class:`~skillcore_openai.agents_sdk.AgentSkills` (which sets
    ``config`` and ``gated_tools``)."""

    config: SkillConfig
    gated_tools: list[FunctionTool]

    def tools(self) -> list[FunctionTool]:
        """The skill tools (empty when the catalog has no model-visible skill), then the
        gated tools (enabled only while unlocked).

        Schemas reflect the catalog now; call again after a catalog refresh.
        """
        specs = self.toolkit.specs(self.state.session)
        return [*(self._tool(spec) for spec in specs), *self.gated_tools]

    def _offer(self, tool: _AnyTool) -> _AnyTool:
        """``tool`` enabled for the model only while the run's session offers it: a gated
        tool while unlocked; with ``hide_blocked_tools``, a tool the policy does not block."""
        if not isinstance(tool, FunctionTool):
            return tool
        original, name = tool.is_enabled, tool.name

        async def enabled(ctx: RunContextWrapper[Any], agent: AgentBase[Any]) -> bool:
            if callable(original):
                on = original(ctx, agent)
                if inspect.isawaitable(on):
                    on = await on
                if not on:
                    return False
            elif not original:
                return False
            session = self.state_for(ctx).session
            return bool(session.offered_tools([name], hide_blocked=self.config.hide_blocked_tools))

        return dataclasses.replace(tool, is_enabled=enabled)

    def _tool(self, spec: ToolSpec) -> FunctionTool:
        async def invoke(ctx: Any, arguments: str) -> Any:
            state = self.state_for(ctx)
            call_id = getattr(ctx, "tool_call_id", None)
            view = self._enter(state, call_id)
            if view is None:  # no announced turn (an agent not from guard_agent)
                load = spec.name == self.toolkit.names.load
                have = _agent_tools(getattr(ctx, "agent", None)) if load else None
                result = await self.toolkit.acall(
                    state, spec.name, arguments, available=have, call_id=call_id
                )
            else:
                async with view:
                    result = await self.toolkit.acall(
                        view, spec.name, arguments, **view.context, call_id=call_id
                    )
            if result.binary is not None:
                return [ToolOutputText(text=result.text), _binary_output(result.binary)]
            return result.text

        async def needs_approval(ctx: Any, params: dict[str, Any], _call_id: str) -> bool:
            # The Agents SDK's own approval (an interruption the host resolves with
            # RunState.approve/reject), asked only for a run the session would accept.
            session = self.state_for(ctx).session
            return self.toolkit.needs_approval(session, spec.name, params)

        ask = spec.name == self.toolkit.names.script and self.toolkit.confirm_scripts
        return FunctionTool(
            name=spec.name,
            description=spec.description,
            params_json_schema=spec.json_schema(),
            on_invoke_tool=invoke,
            strict_json_schema=True,
            needs_approval=needs_approval if ask else False,
        )
