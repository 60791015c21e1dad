"""Skills for the OpenAI Agents SDK (``openai-agents``): ``FunctionTool``s for the skill tools,
dynamic instructions with the catalog, and RESTRICT through tool input guardrails on function
tools, MCP tools and handed-off agents (:meth:`AgentSkills.guard_agent`).

Where the session lives: :meth:`AgentSkills.conversation` gives the
:class:`SkillConversation` of one conversation (keyed by an id or an Agents SDK ``Session``,
saved in a state store, next to a ``SQLiteSession``'s history when that is the session); pass
it as the run ``context``, or as the ``skill_state`` attribute (or key) of your context object.
Runs that carry none use :attr:`AgentSkills.state`, one shared conversation, which is refused
once per-conversation state is in use (a second user must never inherit the first user's
skills).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from skillcore import Limits, SkillConfig, SkillToolkit, StateStore, ToolPolicy
from skillcore.runtime import Reinjection, Sources, check_toolkit_options, require, with_gated_tools
from skillcore_openai._agents_state import SkillConversation

require("agents", "agents", "skillcore_openai.agents_sdk (OpenAI Agents SDK tools)")

from agents import (  # noqa: E402 - after the friendly dependency check
    FunctionTool,
    RunContextWrapper,
    function_tool,
)

from skillcore_openai._agents_guard import _SkillsGuardrail  # noqa: E402 - needs the SDK
from skillcore_openai._agents_guarding import (  # noqa: E402
    UNORDERED_WARNING as UNORDERED_WARNING,
)
from skillcore_openai._agents_guarding import AgentGuarding  # noqa: E402
from skillcore_openai._agents_instructions import (  # noqa: E402
    AgentInstructions,
)
from skillcore_openai._agents_instructions import Instructions as Instructions  # noqa: E402

__all__ = ["AgentSkills", "SkillConversation"]


class AgentSkills(AgentInstructions, AgentGuarding):
    """Skill tools, instructions and the RESTRICT guardrail for ``agents.Agent``::

    skills = AgentSkills(library, policy=ToolPolicy(PolicyMode.RESTRICT))
    agent = skills.guard_agent(
        Agent(
            name="assistant",
            instructions=skills.instructions("You are a helpful assistant."),
            tools=[*skills.tools(), read_file, write_file],
            mcp_servers=[my_mcp_server],
        )
    )
    await Runner.run(agent, text, session=session, context=skills.conversation(session))
    """

    def __init__(
        self,
        skills: Sources | SkillToolkit | None = None,
        config: SkillConfig | None = None,
        *,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        state_from: Callable[[RunContextWrapper[Any] | None], SkillConversation] | None = None,
        states: StateStore | None = None,
        require_conversation: bool | None = None,
        tools: Sequence[FunctionTool | Callable[..., Any]] = (),
        **options: Any,
    ) -> None:
        """``skills``: paths/URLs, a :class:`SkillLibrary` or a ready :class:`SkillToolkit`
        (None: ``SKILLCORE_SOURCES`` or the settings file, see :mod:`skillcore.runtime.settings`);
        ``config`` (a :class:`skillcore.SkillConfig`) or its fields as keyword ``options``
        (``limits`` among them) are the knobs every adapter takes.

        ``states`` is where :meth:`conversation` keeps each conversation's state (default: in
        memory, or a side table of the ``SQLiteSession`` you pass it). ``require_conversation``
        refuses runs that carry no state of their own instead of using the shared
        :attr:`state`; by default it turns on with ``states=`` or the first
        :meth:`conversation` call.

        ``tools``: skill-gated tools (``FunctionTool`` objects or functions): :meth:`tools`
        includes them, enabled for the model (``is_enabled``) and allowed by the guardrail
        only while a loaded skill names them in ``metadata.include_tools`` (or
        ``metadata.adk_additional_tools``).
        """
        config, self.toolkit = _configured(skills, config, limits, options)
        self.config = config
        self.limits = config.session_limits()
        gated = [t if isinstance(t, FunctionTool) else function_tool(t) for t in tools]
        names = [t.name for t in gated]
        self.policy = with_gated_tools(
            policy or config.policy(framework="agents_sdk"), names, self.toolkit.names
        )
        # Each conversation's state (the shared :attr:`state` among them): see AgentConversations.
        self._init_states(states, state_from, require_conversation)
        self.reinjection = Reinjection(self.toolkit)
        self._start_turns()
        self.guardrail = _SkillsGuardrail(self._check, name="skillcore_allowed_tools")
        #: The gated tools, guarded and enabled only while unlocked (part of :meth:`tools`).
        self.gated_tools = [self._offer(self._guard_tool(t)) for t in gated]


def _configured(
    skills: Sources | SkillToolkit | None,
    config: SkillConfig | None,
    limits: Limits | None,
    options: dict[str, Any],
) -> tuple[SkillConfig, SkillToolkit]:
    """The config and toolkit of an :class:`AgentSkills` (a toolkit takes only ``limits``)."""
    if isinstance(skills, SkillToolkit):
        check_toolkit_options(config, options)
        return SkillConfig(limits=limits), skills
    if limits is not None:
        options["limits"] = limits
    built = SkillConfig.build(config, **options)  # + the settings
    return built, built.toolkit(built.library(skills))
