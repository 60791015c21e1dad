"""``ProfiledSkillToolset``: one ADK agent, several skill profiles, one selected per run from the
session state.

Translation only: the profiles and the selection rule are :class:`skillcore.SkillProfiles`;
each profile is a complete :class:`SkillToolset` built once, with its own state keys, and
every call is handed to the one the session state selects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset, ToolPredicate

from skillcore import ProfileChoice, SkillConfig, SkillLibrary, SkillProfiles, SkillSession
from skillcore.runtime import Sources, read_selector
from skillcore_adk._toolset import DEFAULT_STATE_KEY_PREFIX, SkillToolset

if TYPE_CHECKING:
    from google.adk.agents.readonly_context import ReadonlyContext
    from google.adk.models.llm_request import LlmRequest
    from google.adk.tools.tool_context import ToolContext

__all__ = ["DEFAULT_PROFILE_KEY", "ProfiledSkillToolset"]

#: The session-state key naming a session's skill profile.
DEFAULT_PROFILE_KEY = "skillcore:profile"


class ProfiledSkillToolset(BaseToolset):
    """Agent Skills for an ADK agent serving several profiles (tenants).

    ``ProfiledSkillToolset({"acme": "./skills/acme", "beta": ("./skills/beta", SkillConfig(
    allowed_tools_policy="restrict"))})`` in ``LlmAgent(tools=[...])``; the profile of a
    session is its state value ``"skillcore:profile"``, set when the session is created
    (``create_session(..., state={"skillcore:profile": "acme"})``). Tools and the model can
    write session state, so that value is untrusted: it only ever picks among the registered
    profiles, and anything else gets no skills (see :class:`skillcore.SkillProfiles`). Loaded
    skills are kept per profile (``"skillcore@<profile>:<agent name>"``), so a session never
    restores one profile's skills under another.

    RESTRICT enforcement: ``LlmAgent(before_tool_callback=toolset.before_tool_callback)`` or
    ``App(plugins=[SkillPolicyPlugin()])``, as for :class:`SkillToolset`.
    """

    def __init__(
        self,
        profiles: Mapping[str, Any],
        skills: Sources | None = None,
        config: SkillConfig | None = None,
        *,
        select: str | Callable[[Any], object] = DEFAULT_PROFILE_KEY,
        default: str | None = None,
        allow_agent_transfer: bool = True,
        refresh: bool | float = True,
        state_key_prefix: str = DEFAULT_STATE_KEY_PREFIX,
        tool_filter: ToolPredicate | list[str] | None = None,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        **options: Any,
    ) -> None:
        """Build every profile's toolset once.

        ``profiles``: name -> a :class:`~skillcore.SkillConfig` (over ``skills``), skill
        sources (with ``config``, or its fields as ``options``), or ``(sources, config)``.
        ``select``: the session-state key naming the profile (or a function of the
        state). ``default``: the profile of sessions whose state names none (None: no skills).
        The other arguments are :class:`SkillToolset`'s; ``tools`` (skill-gated tools) are
        in every profile, unlocked only by a skill of the session's own profile.
        """
        super().__init__(tool_filter=tool_filter, tool_name_prefix=None)
        base = SkillConfig.build(config, **options)

        def make(name: str | None, library: SkillLibrary, cfg: SkillConfig) -> SkillToolset:
            return SkillToolset(
                library,
                cfg,
                allow_agent_transfer=allow_agent_transfer,
                refresh=refresh,
                # One key per profile ("@" cannot start a profile name's key otherwise).
                state_key_prefix=f"{state_key_prefix}@{name or ''}",
                tool_filter=tool_filter,
                tools=tools,
            )

        self.profiles: SkillProfiles[SkillToolset] = SkillProfiles(
            profiles, make, sources=skills, config=base, default=default
        )
        self.select = select

    def choose(self, context: ReadonlyContext | None) -> ProfileChoice[SkillToolset]:
        """The profile of the session running in ``context`` (any ADK context)."""
        state = context.state if context is not None else None
        return self.profiles.select(read_selector(state, self.select))

    def toolset(self, context: ReadonlyContext | None) -> SkillToolset:
        """The toolset of the profile of the session running in ``context``."""
        return self.choose(context).item

    def session_for(self, context: ReadonlyContext) -> SkillSession:
        """The skill session of the agent running in ``context``, in its session's profile
        (see :meth:`SkillToolset.session_for`)."""
        return self.toolset(context).session_for(context)

    def loaded_skills(self, context: ReadonlyContext) -> list[str]:
        """Names of the skills loaded by the agent running in ``context``, in its profile."""
        return self.toolset(context).loaded_skills(context)

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The selected profile's skill tools (none for no profile or no skills)."""
        return await self.toolset(readonly_context).get_tools(readonly_context)

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """The selected profile's catalog in the system instruction."""
        await self.toolset(tool_context).process_llm_request(
            tool_context=tool_context, llm_request=llm_request
        )

    async def before_model_callback(self, callback_context: Any, llm_request: LlmRequest) -> None:
        """The selected profile's :meth:`SkillToolset.before_model_callback`
        (``hide_blocked_tools``)."""
        await self.toolset(callback_context).before_model_callback(callback_context, llm_request)

    async def before_tool_callback(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """The selected profile's RESTRICT enforcement (see
        :meth:`SkillToolset.before_tool_callback`)."""
        return await self.toolset(tool_context).before_tool_callback(tool, args, tool_context)

    async def after_tool_callback(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, tool_response: Any
    ) -> dict[str, Any] | None:
        """The selected profile's ``PostToolUse`` hooks (see
        :meth:`SkillToolset.after_tool_callback`)."""
        toolset = self.toolset(tool_context)
        return await toolset.after_tool_callback(tool, args, tool_context, tool_response)

    async def before_agent_callback(self, callback_context: Any) -> Any:
        """The selected profile's ``SessionStart`` hooks and user invocation (see
        :meth:`SkillToolset.before_agent_callback`)."""
        return await self.toolset(callback_context).before_agent_callback(callback_context)
