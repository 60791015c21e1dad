"""Forked skills (``context: fork``) on Google ADK: the subagent runs through ADK's own
``AgentTool`` (a nested runner with its own session; the task is its request, its last text
the reply), built once per subagent name with its own :class:`ForkedSkillToolset`.

Translation only: which skill forks, the task, where the child's session starts and the
rule its tool calls pass come from :class:`skillcore.runtime.Forks`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from google.adk.tools.agent_tool import AgentTool
from google.adk.tools.base_tool import BaseTool

from skillcore import SkillSession
from skillcore.runtime import ForkRequest, Forks, Recent, fork_decision, replies, running_fork
from skillcore_adk import _calls
from skillcore_adk._toolset import SkillToolset

if TYPE_CHECKING:
    from google.adk.tools.tool_context import ToolContext

__all__ = ["ForkedSkillToolset", "Subagents"]

#: Decisions remembered per function call (the agent callback and the plugin both ask).
_DECIDED_KEPT = 1024


class ForkedSkillToolset(SkillToolset):
    """The skill toolset of one subagent, built by :meth:`Subagents.toolset`: its catalog is
    the subagent's scope of the library; every plain tool call also passes the running fork's
    rule, and without a fork of this subagent running none is allowed. Wired into the
    subagent's ``before_tool_callback`` when the subagent is built (the plugin, inherited by
    ``AgentTool``, asks it too: one decision per call)."""

    #: The subagent this toolset serves.
    fork_agent: str = ""

    def _init_memory(self) -> None:
        super()._init_memory()
        self._decided: Recent[str, dict[str, Any] | None] = Recent(_DECIDED_KEPT)

    async def before_tool_callback(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """The fork's rule, then :meth:`SkillToolset.before_tool_callback` (once per call)."""
        # The skill tools never run a tool, except the script tool, which the fork judges.
        if self.toolkit.is_skill_tool(tool.name) and tool.name != self.names.script:
            return None
        call_id = tool_context.function_call_id
        # Remembered per call id only (a call without one is decided every time).
        key = f"{tool_context.invocation_id}\x1f{call_id}\x1f{tool.name}" if call_id else None
        if key is not None and key in self._decided:
            return self._decided.get(key)
        decision = fork_decision(self.fork_agent, tool.name, args)
        if decision is not None:
            blocked: dict[str, Any] | None = _calls.error(
                replies.blocked(decision), replies.blocked_code(decision)
            )
        elif self.toolkit.is_skill_tool(tool.name):
            blocked = None  # the script run itself is judged by the toolkit as in any agent
        else:
            blocked = await super().before_tool_callback(tool, args, tool_context)
        if key is not None:
            self._decided.set(key, blocked)
        return blocked


#: How a subagent is given: ``factory(skill_toolset) -> agent`` (an ``LlmAgent`` with the
#: toolset in its ``tools``).
SubagentFactory = Callable[[SkillToolset], Any]


class Subagents:
    """A :class:`SkillToolset`'s subagents by name, built on first use."""

    def __init__(self, parent: SkillToolset, specs: Mapping[str, SubagentFactory]) -> None:
        for agent, spec in specs.items():
            if not callable(spec):
                raise TypeError(f"subagent {agent!r}: expected a factory, got {spec!r:.80}")
        self.parent, self.specs = parent, dict(specs)
        self.forks = Forks(parent.toolkit, parent.config.subagent_rules(), self.specs)
        self._built: dict[str, tuple[ForkedSkillToolset, AgentTool]] = {}
        # Building is synchronous: a thread lock works whichever event loop runs the agent.
        self._lock = threading.Lock()

    def toolset(self, agent: str) -> ForkedSkillToolset:
        """A new skill toolset for subagent ``agent`` (same library and options, no
        configured skills, its own state keys)."""
        parent = self.parent
        config = parent.config.subagent_config()
        prefix = f"{parent.state_key_prefix}:fork:{agent}"
        child = ForkedSkillToolset(parent.library, config, refresh=False, state_key_prefix=prefix)
        child.fork_agent = agent
        child.restore = self.forks.restorer(agent, child.limits, child.policy, child.names)
        return child

    def _build(self, agent: str) -> tuple[ForkedSkillToolset, AgentTool]:
        toolset = self.toolset(agent)
        child = self.specs[agent](toolset)
        # Enforcement must not depend on how the subagent was wired: the toolset's callback
        # goes first (a plugin asking too gets the same decision).
        existing = getattr(child, "before_tool_callback", None)
        others = existing if isinstance(existing, list) else [existing] if existing else []
        if toolset.before_tool_callback not in others:
            child.before_tool_callback = [toolset.before_tool_callback, *others]
        return toolset, AgentTool(agent=child)

    def built(self, agent: str) -> tuple[ForkedSkillToolset, AgentTool]:
        """Subagent ``agent``'s toolset and ``AgentTool`` (built once)."""
        with self._lock:
            found = self._built.get(agent)
            if found is None:
                found = self._built[agent] = self._build(agent)
            return found

    async def run(
        self, parent: SkillSession, request: ForkRequest, tool_context: ToolContext
    ) -> dict[str, Any]:
        """Run the fork's subagent through ``AgentTool`` and reply with its answer; the
        parent's session is as it was."""
        toolset, tool = self.built(request.agent)
        key = toolset.state_key(tool.agent.name)
        # AgentTool copies the caller's state into the child's session and forwards the
        # child's writes back: the child's key is set to where it starts, and cleared after,
        # so no fork starts from another's loads.
        tool_context.state[key] = request.session.to_state() if request.session.loaded else None
        try:
            with running_fork(request.guard):
                answer = await tool.run_async(
                    args={"request": request.task}, tool_context=tool_context
                )
        finally:
            tool_context.state[key] = None
        result = self.forks.result(
            parent, request, answer if isinstance(answer, str) else str(answer)
        )
        return _calls.reply(result, tool_context, self.parent.state_key(tool_context.agent_name))
