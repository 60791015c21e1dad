"""``ProfiledSkillsMiddleware``: one agent, several skill profiles, one selected per run from
``runtime.context`` (what ``agent.invoke(..., context=...)`` passes).

Translation only: the profiles and the selection rule are :class:`skillcore.SkillProfiles`;
each profile is a complete :class:`SkillsMiddleware` built once, and every hook of a run is
handed to the one its context selects.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelCallResult,
    ModelRequest,
    ModelResponse,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.tools import tool as as_tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from skillcore import (
    OutcomeCode,
    ProfileChoice,
    SkillConfig,
    SkillLibrary,
    SkillProfiles,
    SkillSession,
)
from skillcore.runtime import (
    DEFAULT_CONTEXT_KEY,
    ProfileRestorer,
    Sources,
    TurnCall,
    read_selector,
    replies,
    tag_state,
)
from skillcore_langchain._messages import tool_message
from skillcore_langchain._state import STATE_KEY, SkillsState
from skillcore_langchain.middleware import SkillsMiddleware

__all__ = ["DEFAULT_CONTEXT_KEY", "ProfiledSkillsMiddleware"]


class _ProfileMiddleware(SkillsMiddleware):
    """One profile's middleware: its saved state names the profile, and a state saved under
    another profile restores as an empty session (the graph state has one skill slot)."""

    def __init__(
        self, profile: str | None, library: SkillLibrary, config: SkillConfig, **kw: Any
    ) -> None:
        super().__init__(library, config, **kw)
        self.profile = profile
        self.restore = ProfileRestorer(self.restore, profile)  # type: ignore[assignment]

    def _state_update(self, session: SkillSession, view: TurnCall | None = None) -> dict[str, Any]:
        update = super()._state_update(session, view)
        tag_state(update[STATE_KEY], self.profile)  # the seed key shares the same dict
        return update


class ProfiledSkillsMiddleware(AgentMiddleware[SkillsState, Any, Any]):
    """Agent Skills for a LangChain agent serving several profiles (tenants).

    ``ProfiledSkillsMiddleware({"acme": "./skills/acme", "beta": ("./skills/beta",
    SkillConfig(allowed_tools_policy="restrict"))})`` and
    ``agent.invoke(..., context={"skill_profile": "acme"})`` (a dict, a dataclass or any object
    with that attribute; ``select=`` names another key or is a function of the context). A run
    sees only its profile's catalog, tools, policy and limits; a missing selection uses
    ``default`` (or no skills), an unknown or malformed one gets no skills (see
    :class:`skillcore.SkillProfiles`). A thread that changes profile starts with no skills
    loaded.
    """

    state_schema = SkillsState

    def __init__(
        self,
        profiles: Mapping[str, Any],
        skills: Sources | None = None,
        config: SkillConfig | None = None,
        *,
        select: str | Callable[[Any], object] = DEFAULT_CONTEXT_KEY,
        default: str | None = None,
        refresh: bool | float = True,
        share_with_subagents: bool = False,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        **options: Any,
    ) -> None:
        """Build every profile's middleware once.

        Args:
            profiles: name -> a :class:`~skillcore.SkillConfig` (over ``skills``), skill
                sources (with ``config``), or ``(sources, config)``.
            skills: the skill sources of profiles given as a config only.
            config: the options of profiles given as sources only (or its fields as
                ``options``).
            select: the ``runtime.context`` key or attribute naming the profile, or a
                function of the context returning the name.
            default: the profile of runs whose context names none (None: no skills).
            refresh: as for :class:`SkillsMiddleware`.
            share_with_subagents: as for :class:`SkillsMiddleware`.
            tools: skill-gated tools, as for :class:`SkillsMiddleware`, in every profile:
                each run offers and allows them only while a skill of its own profile
                unlocks them.
        """
        base = SkillConfig.build(config, **options)
        # Converted once, so every profile registers (and the tool node runs) the same objects.
        gated = [t if isinstance(t, BaseTool) else as_tool(t) for t in tools]

        def make(name: str | None, library: SkillLibrary, cfg: SkillConfig) -> SkillsMiddleware:
            return _ProfileMiddleware(
                name,
                library,
                cfg,
                refresh=refresh,
                share_with_subagents=share_with_subagents,
                tools=gated,
            )

        self.profiles: SkillProfiles[SkillsMiddleware] = SkillProfiles(
            profiles, make, sources=skills, config=base, default=default
        )
        self.select = select
        skill_tools: dict[str, BaseTool] = {}
        other_tools: dict[str, BaseTool] = {}
        for _, mw in self.profiles.items():
            for tool in mw.tools:
                ours = tool.name in mw.toolkit.tool_names
                (skill_tools if ours else other_tools).setdefault(tool.name, tool)
        self._registered = frozenset(skill_tools) | frozenset(other_tools)
        # Registered once; a skill tool call runs the selected profile's tool of that name.
        # Other tools a profile registers are the same objects in every profile.
        self.tools = [*(self._make_tool(t) for t in skill_tools.values()), *other_tools.values()]

    # -- selection -------------------------------------------------------------------------

    def choose(self, context: Any) -> ProfileChoice[SkillsMiddleware]:
        """The profile a run with ``context`` uses (see :meth:`skillcore.SkillProfiles.select`)."""
        return self.profiles.select(read_selector(context, self.select))

    def middleware(self, context: Any) -> SkillsMiddleware:
        """The middleware of the profile a run with ``context`` uses."""
        return self.choose(context).item

    def session_for(self, state: Mapping[str, Any] | None, context: Any = None) -> SkillSession:
        """The skill session stored in an agent state, as the profile of ``context`` (the
        run's ``runtime.context``) sees it."""
        return self.middleware(context).session_for(state)

    @staticmethod
    def _context(runtime: Any) -> Any:
        return getattr(runtime, "context", None)

    # -- hooks: each handed to the selected profile ----------------------------------------

    def _only(self, request: ModelRequest[Any], mw: SkillsMiddleware) -> ModelRequest[Any]:
        """The request without the tools other profiles register and this one does not."""
        drop = self._registered.difference(t.name for t in mw.tools)
        if not drop:
            return request
        kept = [t for t in request.tools if not (isinstance(t, BaseTool) and t.name in drop)]
        return request.override(tools=kept)

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelCallResult[Any]:
        """The selected profile's catalog and skill tools."""
        mw = self.middleware(self._context(request.runtime))
        return mw.wrap_model_call(self._only(request, mw), handler)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelCallResult[Any]:
        """Async :meth:`wrap_model_call`."""
        mw = self.middleware(self._context(request.runtime))
        return await mw.awrap_model_call(self._only(request, mw), handler)

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """The selected profile's allowed-tools policy."""
        mw = self.middleware(self._context(request.runtime))
        return mw.wrap_tool_call(request, handler)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        mw = self.middleware(self._context(request.runtime))
        return await mw.awrap_tool_call(request, handler)

    # -- the skill tools -------------------------------------------------------------------

    def _target(self, name: str, runtime: ToolRuntime) -> StructuredTool | ToolMessage:
        mw = self.middleware(runtime.context)
        for tool in mw.tools:
            if tool.name == name and isinstance(tool, StructuredTool):
                return tool
        text = replies.unknown_tool(name, mw.toolkit.tool_names)
        return tool_message(text, OutcomeCode.UNKNOWN_TOOL, runtime.tool_call_id, name)

    def _make_tool(self, template: BaseTool) -> StructuredTool:
        name = template.name

        def run(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
            target = self._target(name, runtime)
            if isinstance(target, ToolMessage):
                return target
            assert target.func is not None
            return target.func(runtime, **arguments)  # type: ignore[no-any-return]

        async def arun(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
            target = self._target(name, runtime)
            if isinstance(target, ToolMessage):
                return target
            assert target.coroutine is not None
            return await target.coroutine(runtime, **arguments)  # type: ignore[no-any-return]

        return StructuredTool.from_function(
            func=run,
            coroutine=arun,
            name=name,
            description=template.description,
            args_schema=template.args_schema,
        )
