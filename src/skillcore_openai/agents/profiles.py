"""``ProfiledAgentSkills``: several skill profiles for an OpenAI Agents SDK agent, one selected
per run from the run context (``RunContextWrapper.context``).

Translation only: the profiles and the selection rule are :class:`skillcore.SkillProfiles`;
each profile is a complete :class:`AgentSkills` built once (its conversation states kept
under keys of its own), and every tool, instructions call and guardrail check of a run is
handed to the one the run's context selects.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agents import (
    Agent,
    FunctionTool,
    RunContextWrapper,
    Tool,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    UserError,
)

from skillcore import (
    MemoryStateStore,
    ProfileChoice,
    SkillConfig,
    SkillLibrary,
    SkillProfiles,
    SkillSession,
    StateStore,
)
from skillcore.runtime import DEFAULT_CONTEXT_KEY, ProfileStateStore, Sources, read_selector
from skillcore_openai.agents.adapter import AgentSkills, Instructions
from skillcore_openai.agents.conversations import SkillConversation
from skillcore_openai.agents.guard import _SkillsGuardrail

if TYPE_CHECKING:
    from agents import AgentBase

__all__ = ["DEFAULT_CONVERSATION_KEY", "ProfiledAgentSkills"]

#: The run-context key (or attribute) holding the conversation: an id or an SDK ``Session``.
DEFAULT_CONVERSATION_KEY = "conversation"


class ProfiledAgentSkills:
    """Skills for an Agents SDK agent serving several profiles (tenants)::

        skills = ProfiledAgentSkills({"acme": "./skills/acme", "beta": "./skills/beta"})
        agent = skills.guard_agent(
            Agent(name="a", instructions=skills.instructions("..."), tools=[*skills.tools(), ...])
        )
        await Runner.run(agent, text, session=session,
                         context={"skill_profile": "acme", "conversation": session})

    The run context (a dict, or any object with those attributes) names the profile and the
    conversation. Each profile's tools are enabled only in its runs (``is_enabled``), the
    instructions and the allowed-tools guardrail follow the selected profile, and a
    conversation keeps one state per profile. A missing selection gets ``default`` (or no
    skills); an unknown or malformed one gets no skills. A run without a conversation is
    refused (``agents.UserError``): tenants never share one state.
    """

    def __init__(
        self,
        profiles: Mapping[str, Any],
        skills: Sources | None = None,
        config: SkillConfig | None = None,
        *,
        select: str | Callable[[Any], object] = DEFAULT_CONTEXT_KEY,
        conversation: str | Callable[[Any], object] = DEFAULT_CONVERSATION_KEY,
        default: str | None = None,
        states: StateStore | None = None,
        tools: Sequence[FunctionTool | Callable[..., Any]] = (),
        **options: Any,
    ) -> None:
        """``profiles``: name -> a :class:`~skillcore.SkillConfig` (over ``skills``), skill
        sources (with ``config``, or its fields as ``options``), or ``(sources, config)``.
        ``select``/``conversation``: the context keys (or functions of the context) giving
        the profile name and the conversation. ``states`` is shared by the profiles, each
        under its own keys (default: in memory). ``tools``: skill-gated tools (as for
        :class:`AgentSkills`), in every profile, unlocked only by a skill of the run's own
        profile."""
        store: StateStore = states if states is not None else MemoryStateStore()
        base = SkillConfig.build(config, **options)

        def make(name: str | None, library: SkillLibrary, cfg: SkillConfig) -> AgentSkills:
            made: AgentSkills

            def state_from(ctx: RunContextWrapper[Any] | None) -> SkillConversation:
                return self._state(made, ctx)

            made = AgentSkills(
                library,
                cfg,
                states=ProfileStateStore(store, name),
                state_from=state_from,
                tools=tools,
            )
            return made

        self.select, self.conversation = select, conversation
        self.profiles: SkillProfiles[AgentSkills] = SkillProfiles(
            profiles, make, sources=skills, config=base, default=default
        )
        self.guardrail = _SkillsGuardrail(self._check, name="skillcore_allowed_tools")
        # Guarding (which tools get the guardrail) is the same for every profile: the skill
        # tool names are shared; the fail-closed parts do it with the dispatching guardrail.
        self._guarding = self.profiles.closed
        self._guarding.guardrail = self.guardrail
        # The hooks guard_agent installs report each run's turns to the run's profile.
        self._guarding._route = self.agent_skills

    # -- selection -------------------------------------------------------------------------

    def choose(self, ctx: RunContextWrapper[Any] | None) -> ProfileChoice[AgentSkills]:
        """The profile of the run behind ``ctx``."""
        return self.profiles.select(read_selector(getattr(ctx, "context", None), self.select))

    def agent_skills(self, ctx: RunContextWrapper[Any] | None) -> AgentSkills:
        """The :class:`AgentSkills` of the profile of the run behind ``ctx``."""
        return self.choose(ctx).item

    def session_for(self, ctx: RunContextWrapper[Any] | None) -> SkillSession:
        """The skill session of the run behind ``ctx``, in its profile (see
        :meth:`AgentSkills.session_for`)."""
        return self.agent_skills(ctx).session_for(ctx)

    def _state(self, skills: AgentSkills, ctx: RunContextWrapper[Any] | None) -> SkillConversation:
        found = read_selector(getattr(ctx, "context", None), self.conversation)
        key = found if isinstance(found, str) else getattr(found, "session_id", None)
        if not isinstance(key, str) or not key:
            raise UserError(
                "this run carries no conversation: pass context={..., "
                f"{self.conversation!r}: <conversation id or SDK session>}} so each "
                "conversation (and tenant) keeps its own skill state"
            )
        return skills.conversation(key)

    # -- what the agent gets ---------------------------------------------------------------

    def tools(self) -> list[FunctionTool]:
        """Every profile's skill tools, each enabled only in runs of its profile."""
        out: list[FunctionTool] = []
        for name, skills in self.profiles.items():
            for t in skills.tools():
                out.append(dataclasses.replace(t, is_enabled=self._enabled_for(name, t)))
        return out

    def _enabled_for(
        self, name: str, tool: FunctionTool
    ) -> Callable[[RunContextWrapper[Any], Any], Awaitable[bool]]:
        # Enabled in runs of its profile, and only when the tool's own rule (a gated tool:
        # while a loaded skill unlocks it) agrees.
        own = tool.is_enabled

        async def enabled(ctx: RunContextWrapper[Any], agent: Any) -> bool:
            if self.choose(ctx).name != name:
                return False
            if not callable(own):
                return bool(own)
            on = own(ctx, agent)
            return bool(await on) if inspect.isawaitable(on) else bool(on)

        return enabled

    def instructions(
        self, base: Instructions = ""
    ) -> Callable[[RunContextWrapper[Any], AgentBase[Any]], Awaitable[str]]:
        """Dynamic ``instructions=``: ``base`` followed by the run's profile's catalog."""

        async def render(ctx: RunContextWrapper[Any], agent: AgentBase[Any]) -> str:
            return await self.agent_skills(ctx).instructions(base)(ctx, agent)

        return render

    def guard(self, *tools: Tool) -> list[Tool]:
        """Your function tools with the allowed-tools guardrail of the run's profile (see
        :meth:`AgentSkills.guard`)."""
        return self._guarding.guard(*tools)

    def guard_agent(self, agent: Agent[Any]) -> Agent[Any]:
        """A copy of ``agent`` whose tool calls pass the run's profile's allowed-tools check
        (see :meth:`AgentSkills.guard_agent`)."""
        return self._guarding.guard_agent(agent)

    async def _check(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        return await self.agent_skills(data.context)._check(data)
