"""Skills for the OpenAI Agents SDK (``openai-agents``): ``FunctionTool``s for the skill tools,
dynamic instructions with the catalog, and RESTRICT through a tool input guardrail.

Where the session lives: by default in :attr:`AgentSkills.state` (one conversation). For many
conversations, give each run its own :class:`SkillState` as the run ``context``, or as the
``skill_state`` attribute (or key) of your context object.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from skillcore import (
    Limits,
    SkillConfig,
    SkillSession,
    SkillToolkit,
    ToolPolicy,
    ToolResult,
    ToolSpec,
    replies,
    restore_session,
)
from skillcore.config import Sources
from skillcore.errors import require
from skillcore_openai.functions import latest_user_text

require("agents", "agents", "skillcore_openai.agents_sdk (OpenAI Agents SDK tools)")

from agents import (  # noqa: E402 - after the friendly dependency check
    FunctionTool,
    RunContextWrapper,
    Tool,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)

if TYPE_CHECKING:
    from agents import AgentBase

__all__ = ["AgentSkills", "SkillState"]

Instructions = str | Callable[[RunContextWrapper[Any], Any], "str | Awaitable[str]"]


class SkillState:
    """The skill session of one conversation, shared by the tools of a run (thread-safe).

    Tool calls of one model turn run concurrently as tasks; :meth:`apply` commits each call's
    transition on the session as it is when the call's file I/O is done.
    """

    def __init__(self, session: SkillSession) -> None:
        self._session = session
        self._lock = threading.Lock()

    @property
    def session(self) -> SkillSession:
        """The current session."""
        return self._session

    @session.setter
    def session(self, value: SkillSession) -> None:
        with self._lock:
            self._session = value

    @property
    def loaded_names(self) -> tuple[str, ...]:
        """Names of the loaded skills."""
        return self._session.loaded_names

    def to_state(self) -> dict[str, Any]:
        """The JSON-native state of the session (see :meth:`AgentSkills.new_state`)."""
        return self._session.to_state()

    def read(self) -> SkillSession:
        """The current session (the :class:`skillcore.SessionStore` protocol)."""
        return self._session

    def write(self, session: SkillSession) -> None:
        """Replace the session (the :class:`skillcore.SessionStore` protocol)."""
        with self._lock:
            self._session = session

    async def apply(
        self, toolkit: SkillToolkit, tool: str, arguments: Mapping[str, Any] | str | None
    ) -> ToolResult:
        """Run one skill tool call against this state and commit its session.

        File reads are awaited first; the transition then runs on the session as it is at
        that moment and is written back with no ``await`` in between, so the parallel calls
        of one model turn (tasks on one event loop) never lose an update and every reply
        describes the transition that actually happened.
        """
        return await toolkit.acall(self, tool, arguments)


class AgentSkills:
    """Skill tools, instructions and the RESTRICT guardrail for ``agents.Agent``::

    skills = AgentSkills(library, policy=ToolPolicy(PolicyMode.RESTRICT))
    agent = Agent(
        name="assistant",
        instructions=skills.instructions("You are a helpful assistant."),
        tools=[*skills.tools(), *skills.guard(read_file, write_file)],
    )
    """

    def __init__(
        self,
        skills: Sources | SkillToolkit,
        *,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        state_from: Callable[[RunContextWrapper[Any] | None], SkillState] | None = None,
        **options: Any,
    ) -> None:
        """``skills``: paths/URLs, a :class:`SkillLibrary` or a ready :class:`SkillToolkit`;
        ``options`` are the knobs every adapter takes (:class:`skillcore.SkillConfig`)."""
        if isinstance(skills, SkillToolkit):
            if options:
                raise TypeError("options apply only when sources or a SkillLibrary are given")
            config = SkillConfig(limits=limits)
            self.toolkit = skills
        else:
            config = SkillConfig(limits=limits, **options)
            self.toolkit = config.toolkit(config.library(skills))
        self.config = config
        self.limits = config.session_limits()
        self.policy = policy or config.policy()
        self._state_from = state_from
        #: The state used when the run context does not carry one.
        self.state = self.new_state()
        self.guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(
            self._check, name="skillcore_allowed_tools"
        )

    # -- state -----------------------------------------------------------------------------

    def new_state(self, state: Mapping[str, Any] | None = None) -> SkillState:
        """A fresh state, or one restored from ``SkillState.to_state()`` output."""
        catalog = self.toolkit.library.catalog
        restored = restore_session(state, catalog, self.limits, self.policy, self.toolkit.names)
        return SkillState(restored.session)

    def state_for(self, ctx: RunContextWrapper[Any] | None) -> SkillState:
        """The state of the run behind ``ctx`` (see the module docs for the lookup order)."""
        if self._state_from is not None:
            return self._state_from(ctx)
        context = getattr(ctx, "context", None)
        if isinstance(context, SkillState):
            return context
        found = (
            context.get("skill_state")
            if isinstance(context, Mapping)
            else getattr(context, "skill_state", None)
        )
        return found if isinstance(found, SkillState) else self.state

    # -- what the agent gets ---------------------------------------------------------------

    def tools(self) -> list[FunctionTool]:
        """The skill tools (empty when the catalog has no model-visible skill).

        Schemas reflect the catalog now; call again after a catalog refresh.
        """
        return [self._tool(spec) for spec in self.toolkit.specs(self.state.session)]

    def _tool(self, spec: ToolSpec) -> FunctionTool:
        async def invoke(ctx: Any, arguments: str) -> str:
            result = await self.state_for(ctx).apply(self.toolkit, spec.name, arguments)
            return result.text

        return FunctionTool(
            name=spec.name,
            description=spec.description,
            params_json_schema=spec.json_schema(),
            on_invoke_tool=invoke,
            strict_json_schema=True,
        )

    def instructions(
        self, base: Instructions = ""
    ) -> Callable[[RunContextWrapper[Any], AgentBase[Any]], Awaitable[str]]:
        """Dynamic ``instructions=`` for an Agent: ``base`` (a string or an instructions
        function) followed by the skill catalog of the run's session."""

        async def render(ctx: RunContextWrapper[Any], agent: AgentBase[Any]) -> str:
            text = base(ctx, agent) if callable(base) else base
            if inspect.isawaitable(text):
                text = await text
            # The run's input (``turn_input``, set before each model call) holds the user
            # message; with catalog_order="relevance" the catalog is ranked for it.
            query = latest_user_text(getattr(ctx, "turn_input", None))
            catalog = self.toolkit.instructions(self.state_for(ctx).session, query=query)
            return "\n\n".join(part for part in (str(text or "").rstrip(), catalog) if part)

        return render

    def guard(self, *tools: Tool) -> list[Tool]:
        """Add the allowed-tools guardrail to your function tools (in place) and return them.

        Only ``FunctionTool`` supports tool input guardrails; other tool types raise TypeError
        because RESTRICT could not block them.
        """
        for tool in tools:
            if not isinstance(tool, FunctionTool):
                raise TypeError(
                    f"{type(tool).__name__} has no tool input guardrails, so RESTRICT cannot "
                    "block it; guard FunctionTools only"
                )
            existing = list(tool.tool_input_guardrails or ())
            if self.guardrail not in existing:
                tool.tool_input_guardrails = [*existing, self.guardrail]
        return list(tools)

    def _check(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        decision = self.toolkit.check_call(self.state_for(ctx).session, ctx.tool_name)
        if decision.allowed:
            return ToolGuardrailFunctionOutput.allow(output_info=decision)
        return ToolGuardrailFunctionOutput.reject_content(
            replies.blocked(decision), output_info=decision
        )
