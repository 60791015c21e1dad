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

import contextlib
import dataclasses
import inspect
import os
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from skillcore import (
    BinaryPayload,
    Limits,
    OutcomeCode,
    SkillConfig,
    SkillSession,
    SkillToolkit,
    ToolPolicy,
    ToolResult,
    ToolSpec,
    replies,
    restore_session,
)
from skillcore._deprecate import renamed_attributes
from skillcore.errors import require
from skillcore.policy.gating import gated_registry
from skillcore.runtime.config import Sources
from skillcore.state.coordination import (
    MemoryStateStore,
    SavedSession,
    SessionRef,
    SessionStore,
    SQLiteStateStore,
    StateStore,
)
from skillcore.tools.reinjection import Reinjection
from skillcore_openai.functions import _replies_of, latest_user_text, with_notes

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
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    UserError,
    function_tool,
)
from agents.mcp import MCPServer  # noqa: E402
from agents.run import CallModelData, ModelInputData  # noqa: E402

if TYPE_CHECKING:
    from agents import AgentBase

__all__ = ["AgentSkills", "SkillConversation"]

#: Old names kept for one release (``SkillState``: too close to LangChain's ``SkillsState``).
__getattr__ = renamed_attributes(__name__, {"SkillState": "SkillConversation"})

Instructions = str | Callable[[RunContextWrapper[Any], Any], "str | Awaitable[str]"]
#: A tool wrapped as the same kind of tool (a FunctionTool stays one).
_AnyTool = TypeVar("_AnyTool", bound=Tool)


class SkillConversation:
    """The skill state of one conversation: its session, shared by the tools of a run
    (thread-safe). What :meth:`AgentSkills.conversation` gives and a run carries as its
    ``context`` (or as the context's ``skill_state``).

    Tool calls of one model turn run concurrently as tasks; :meth:`apply` commits each call's
    transition on the session as it is when the call's file I/O is done.
    """

    def __init__(self, session: SkillSession | SessionStore, key: str | None = None) -> None:
        """``session``: a session, or the store it lives in (e.g. a
        :class:`skillcore.state.coordination.SavedSession` that saves every change); ``key`` names
        the conversation (None: not keyed)."""
        self._store = SessionRef(session) if isinstance(session, SkillSession) else session
        self.key = key
        self._lock = threading.Lock()
        #: Skill names to load at the start of the next run (as the context's ``skill_load``),
        #: under the model's load rules; cleared once applied.
        self.skill_load: Sequence[str] | None = None
        # Skills loaded by such a request: no tool reply delivered their instructions, so
        # they are repeated in the instructions while loaded (like the configured skills).
        self.requested: frozenset[str] = frozenset()

    @property
    def session(self) -> SkillSession:
        """The current session."""
        return self._store.read()

    @session.setter
    def session(self, value: SkillSession) -> None:
        self.write(value)

    @property
    def loaded_names(self) -> tuple[str, ...]:
        """Names of the loaded skills."""
        return self._store.read().loaded_names

    def to_state(self) -> dict[str, Any]:
        """The JSON-native state of the session (see :meth:`AgentSkills.new_state`)."""
        return self._store.read().to_state()

    def read(self) -> SkillSession:
        """The current session (the :class:`skillcore.SessionStore` protocol)."""
        return self._store.read()

    def write(self, session: SkillSession) -> None:
        """Replace the session (the :class:`skillcore.SessionStore` protocol)."""
        with self._lock:
            self._store.write(session)

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


def _take_request(context: Any, state: SkillConversation) -> Any:
    """The run's request to load skills: ``skill_load`` of the run context (an attribute or
    a key; the :class:`SkillConversation` itself when it is the context), cleared once taken
    so it applies to one run's start only."""
    for holder in (context, state):
        if isinstance(holder, Mapping):
            value = holder.get("skill_load")
            if value is not None and isinstance(holder, dict):
                holder["skill_load"] = None
        else:
            value = getattr(holder, "skill_load", None)
            if value is not None:
                # A read-only context cannot be cleared: its request applies on every call.
                with contextlib.suppress(AttributeError, TypeError):
                    holder.skill_load = None
        if value is not None:
            return value
    return None


class _SkillsGuardrail(ToolInputGuardrail[Any]):
    """The allowed-tools guardrail of an :class:`AgentSkills` (a type of its own, so guarding
    a tool again, by any ``AgentSkills``, replaces it instead of stacking a stale copy)."""


def _without_ours(guardrails: Any) -> list[ToolInputGuardrail[Any]]:
    return [g for g in guardrails or () if not isinstance(g, _SkillsGuardrail)]


class AgentSkills:
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
        base = policy or config.policy()
        registry = gated_registry([t.name for t in gated], self.toolkit.names.all())
        self.policy = attrs.evolve(base, gated_tools=base.gated_tools | registry)
        self._state_from = state_from
        #: Where conversation states are saved when no other store applies.
        self.states: StateStore = states if states is not None else MemoryStateStore()
        self._explicit_states = states is not None
        self._require = require_conversation
        self._lock = threading.Lock()
        self._live: weakref.WeakValueDictionary[tuple[int, str], SkillConversation] = (
            weakref.WeakValueDictionary()
        )
        self._beside: dict[str, SQLiteStateStore] = {}
        #: The state used when the run context does not carry one (a single conversation).
        self.state = self.new_state()
        self.reinjection = Reinjection(self.toolkit)
        self.guardrail: ToolInputGuardrail[Any] = _SkillsGuardrail(
            self._check, name="skillcore_allowed_tools"
        )
        #: The gated tools, guarded and enabled only while unlocked (part of :meth:`tools`).
        self.gated_tools: list[FunctionTool] = [self._offer(self._guard_tool(t)) for t in gated]

    # -- state -----------------------------------------------------------------------------

    def new_state(self, state: Mapping[str, Any] | None = None) -> SkillConversation:
        """A fresh state, or one restored from ``SkillConversation.to_state()`` output (not
        saved anywhere: see :meth:`conversation` for that)."""
        return SkillConversation(self._restore(state))

    def _restore(self, state: Any) -> SkillSession:
        catalog = self.toolkit.library.catalog
        names = self.toolkit.names
        session = restore_session(state, catalog, self.limits, self.policy, names).session
        # Pinned skills always; default skills when the conversation starts.
        return self.toolkit.ensure(session, fresh=state is None)[0]

    async def _turn_start(self, state: SkillConversation, ctx: Any = None) -> SkillSession:
        """Load the pinned skills the run's state lacks and the run's requested ones (the
        context's ``skill_load``, consumed once) before each model call."""
        request = _take_request(getattr(ctx, "context", None), state)
        await self.toolkit.aensure(state.session, load=request)  # reads what is missing
        current = state.session
        # No await between this read and the write.
        ensured, outcomes = self.toolkit.ensure(current, load=request)
        if request is not None:
            loaded = {o.skill for o in outcomes if o.code is OutcomeCode.LOADED and o.skill}
            state.requested = frozenset(state.requested | loaded)
        if ensured is not current:
            state.write(ensured)
        return ensured

    def conversation(self, conversation: str | Any) -> SkillConversation:
        """The state of one conversation, restored from where it was saved and saved on every
        change: ``conversation`` is its id or an Agents SDK ``Session`` (its ``session_id``;
        a file-backed ``SQLiteSession`` keeps the state in a side table of its own database
        unless ``states=`` was given). Pass the result as the run ``context`` (or as your
        context's ``skill_state``). The same conversation gives the same live state while it
        is in use."""
        key = conversation if isinstance(conversation, str) else conversation.session_id
        states = self._states_for(conversation)
        with self._lock:
            if self._require is None:
                self._require = True
            found = self._live.get((id(states), key))
            if found is None:
                found = SkillConversation(SavedSession(states, key, self._restore), key)
                self._live[(id(states), key)] = found
            return found

    def _states_for(self, conversation: Any) -> StateStore:
        path = getattr(conversation, "db_path", None)
        if self._explicit_states or path is None or str(path) == ":memory:":
            return self.states
        where = os.fspath(path)
        with self._lock:
            store = self._beside.get(where)
            if store is None:
                store = self._beside[where] = SQLiteStateStore(where)
        return store

    def session_for(self, ctx: RunContextWrapper[Any] | None) -> SkillSession:
        """The skill session of the run behind ``ctx`` (its :meth:`state_for`'s session)."""
        return self.state_for(ctx).session

    def state_for(self, ctx: RunContextWrapper[Any] | None) -> SkillConversation:
        """The :class:`SkillConversation` of the run behind ``ctx`` (see the module docs for
        the lookup order), e.g. to set its ``skill_load``. Raises ``agents.UserError`` when
        the run carries none and per-conversation state is required."""
        if self._state_from is not None:
            return self._state_from(ctx)
        context = getattr(ctx, "context", None)
        if isinstance(context, SkillConversation):
            return context
        found = (
            context.get("skill_state")
            if isinstance(context, Mapping)
            else getattr(context, "skill_state", None)
        )
        if isinstance(found, SkillConversation):
            return found
        if self._require or (self._require is None and self._explicit_states):
            raise UserError(
                "this run carries no skill state, and sharing one state between "
                "conversations would let one user's skills restrict another's: pass "
                "context=skills.conversation(session) (or set your context's skill_state)"
            )
        return self.state

    # -- what the agent gets ---------------------------------------------------------------

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
            have = _agent_tools(ctx) if spec.name == self.toolkit.names.load else None
            call_id = getattr(ctx, "tool_call_id", None)
            result = await self.toolkit.acall(
                state, spec.name, arguments, available=have, call_id=call_id
            )
            if result.binary is not None:
                return [ToolOutputText(text=result.text), _binary_output(result.binary)]
            return result.text

        return FunctionTool(
            name=spec.name,
            description=spec.description,
            params_json_schema=spec.json_schema(),
            on_invoke_tool=invoke,
            strict_json_schema=True,
        )

    def input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """A ``RunConfig(call_model_input_filter=...)``: the "skills that may fit this
        request" note after each user message of the model input (never in the
        instructions, so their prefix stays cacheable). Nothing is stored in the run."""
        note_for = partial(self.toolkit.suggestion_note, self.toolkit.library.catalog)
        given = data.model_data
        return ModelInputData(
            input=with_notes(given.input, note_for), instructions=given.instructions
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
            turn_input = getattr(ctx, "turn_input", None)
            query = latest_user_text(turn_input)
            state = self.state_for(ctx)
            session = await self._turn_start(state, ctx)
            catalog = self.toolkit.instructions(session, query=query)
            preset = self.toolkit.preset | state.requested
            if catalog and preset:
                # The configured skills' instructions (no tool reply delivered them). Only
                # those: turn_input lacks the replies of this run's own tool calls.
                items = list(turn_input or ())
                seen = session.delivered(
                    r for item in reversed(items) for r in reversed(_replies_of(item))
                )
                missing = self.reinjection.missing(session, seen, only=preset)
                if missing:
                    catalog += "\n\n" + await self.reinjection.atext(session, missing)
            return "\n\n".join(part for part in (str(text or "").rstrip(), catalog) if part)

        return render

    def guard(self, *tools: Tool) -> list[Tool]:
        """Copies of your function tools that carry the allowed-tools guardrail (the tools
        you pass are not changed; a guardrail another ``AgentSkills`` added is replaced).

        Only ``FunctionTool`` supports tool input guardrails; other tool types raise
        TypeError because RESTRICT could not block them, unless their name is always allowed.
        Skill tools are returned as they are (they are never blocked).
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
        agents, tools and servers are left unchanged."""
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

    def _check(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        # An agent without the unload tool (e.g. one the conversation was handed off to) is
        # not told to call it.
        tools = getattr(data.agent, "tools", None) or ()
        can_unload = any(getattr(t, "name", None) == self.toolkit.names.unload for t in tools)
        decision = self.toolkit.check_call(
            self.state_for(ctx).session,
            ctx.tool_name,
            can_unload=can_unload,
            arguments=getattr(ctx, "tool_arguments", None),
        )
        if decision.allowed:
            return ToolGuardrailFunctionOutput.allow(output_info=decision)
        return ToolGuardrailFunctionOutput.reject_content(
            replies.blocked(decision), output_info=decision
        )


def _configured(
    skills: Sources | SkillToolkit | None,
    config: SkillConfig | None,
    limits: Limits | None,
    options: dict[str, Any],
) -> tuple[SkillConfig, SkillToolkit]:
    """The config and toolkit of an :class:`AgentSkills` (a toolkit takes only ``limits``)."""
    if isinstance(skills, SkillToolkit):
        if config is not None or options:
            raise TypeError("options apply only when sources or a SkillLibrary are given")
        return SkillConfig(limits=limits), skills
    if limits is not None:
        options["limits"] = limits
    built = SkillConfig.build(config, **options)  # + the settings
    return built, built.toolkit(built.library(skills))


def _binary_output(payload: BinaryPayload) -> ToolOutputImage | ToolOutputFileContent:
    """A binary resource as the SDK's structured tool output (an ``input_image`` or
    ``input_file`` part of the function call output)."""
    if payload.is_image:
        return ToolOutputImage(image_url=payload.data_url())
    return ToolOutputFileContent(file_data=payload.data_url(), filename=payload.filename)


def _agent_tools(ctx: Any) -> frozenset[str] | None:
    """Names of the running agent's function tools (None when the context does not say which
    agent runs: the TOOL_NOT_AVAILABLE check is then skipped)."""
    agent = getattr(ctx, "agent", None)
    tools = getattr(agent, "tools", None)
    if tools is None or getattr(agent, "mcp_servers", None):
        return None  # MCP tools are listed only when the run starts: unknown here
    return frozenset(n for t in tools if isinstance(n := getattr(t, "name", None), str))


class _GuardedServer(MCPServer):
    """An MCP server as the agent sees it through :meth:`AgentSkills.guard_agent`: the
    original server, with the allowed-tools guardrail added to its tools' input guardrails.
    Everything else is the original's (connection, tool list, calls, approval settings)."""

    def __init__(self, inner: MCPServer, guardrail: ToolInputGuardrail[Any]) -> None:
        # No super().__init__(): every setting is read from the original server.
        self.__dict__["inner"] = inner
        self.__dict__["guardrail"] = guardrail

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["inner"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.inner, name, value)

    @property
    def tool_input_guardrails(self) -> list[ToolInputGuardrail[Any]]:  # type: ignore[override]
        return [*_without_ours(self.inner.tool_input_guardrails), self.guardrail]

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def cached_tools(self) -> Any:
        return self.inner.cached_tools

    async def connect(self) -> None:
        await self.inner.connect()

    async def cleanup(self) -> None:
        await self.inner.cleanup()

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.list_tools(*args, **kwargs)

    async def call_tool(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.call_tool(*args, **kwargs)

    async def list_prompts(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.list_prompts(*args, **kwargs)

    async def get_prompt(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.get_prompt(*args, **kwargs)

    async def list_resources(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.list_resources(*args, **kwargs)

    async def list_resource_templates(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.list_resource_templates(*args, **kwargs)

    async def read_resource(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.read_resource(*args, **kwargs)
