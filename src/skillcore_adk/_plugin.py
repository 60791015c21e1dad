"""``SkillPolicyPlugin``: app-wide RESTRICT enforcement for every agent with a SkillToolset."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.adk.plugins.base_plugin import BasePlugin

from skillcore_adk._profiles import ProfiledSkillToolset
from skillcore_adk._toolset import SkillToolset

if TYPE_CHECKING:
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.tool_context import ToolContext


class SkillPolicyPlugin(BasePlugin):
    """Blocks tool calls that the loaded skills' ``allowed-tools`` do not cover (RESTRICT),
    and runs the loaded skills' hooks (before and after tools, at agent start).

    ``App(root_agent=..., plugins=[SkillPolicyPlugin()])``. With no arguments it enforces the
    :class:`SkillToolset` found in the calling agent's ``tools``, whichever agent of the app
    calls; pass toolsets explicitly to enforce only those. Each toolset decides with its own
    policy (RECOMMEND never blocks) and the caller's own loaded skills.
    """

    def __init__(
        self, *toolsets: SkillToolset | ProfiledSkillToolset, name: str = "skillcore_policy"
    ) -> None:
        super().__init__(name=name)
        self.toolsets: tuple[SkillToolset | ProfiledSkillToolset, ...] = toolsets

    def _toolsets_for(
        self, tool_context: ToolContext
    ) -> tuple[SkillToolset | ProfiledSkillToolset, ...]:
        if self.toolsets:
            return self.toolsets
        agent = tool_context.get_invocation_context().agent
        kinds = (SkillToolset, ProfiledSkillToolset)
        return tuple(t for t in getattr(agent, "tools", ()) or () if isinstance(t, kinds))

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        """With ``hide_blocked_tools``: hide the tools the caller's skills block."""
        agent = callback_context._invocation_context.agent
        kinds = (SkillToolset, ProfiledSkillToolset)
        toolsets = self.toolsets or tuple(
            t for t in getattr(agent, "tools", ()) or () if isinstance(t, kinds)
        )
        for toolset in toolsets:
            await toolset.before_model_callback(callback_context, llm_request)
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Return an error response for a blocked call; ``None`` lets it run."""
        for toolset in self._toolsets_for(tool_context):
            blocked = await toolset.before_tool_callback(tool, tool_args, tool_context)
            if blocked is not None:
                return blocked
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Run the loaded skills' ``PostToolUse`` hooks; the result is unchanged."""
        for toolset in self._toolsets_for(tool_context):
            await toolset.after_tool_callback(tool, tool_args, tool_context, result)
        return None

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> Any:
        """Run the loaded skills' ``SessionStart`` hooks of the agent starting; apply a user
        invocation (``user_invocation``), returning a refusal as the agent's reply."""
        kinds = (SkillToolset, ProfiledSkillToolset)
        toolsets = self.toolsets or tuple(
            t for t in getattr(agent, "tools", ()) or () if isinstance(t, kinds)
        )
        for toolset in toolsets:
            reply = await toolset.before_agent_callback(callback_context)
            if reply is not None:  # a refused user invocation: the agent's answer
                return reply
        return None
