"""``SkillsMiddleware``: Agent Skills for ``langchain.agents.create_agent`` (and deepagents).

Translation only: schemas, execution and replies come from :class:`skillcore.SkillToolkit`,
the policy from :meth:`skillcore.SkillSession.check_tool`, call order and the per-turn session
from :class:`skillcore.TurnStore`; persistence is the JSON-native
:meth:`skillcore.SkillSession.to_state` in one graph state key merged by
:func:`skillcore.merge_states`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import (
    AIMessage,
    ToolMessage,
)
from langchain_core.tools import BaseTool, StructuredTool, Tool
from langchain_core.tools import tool as as_tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command

from skillcore import RawInput, SkillConfig, SkillSession, ToolSpec, TurnCalls, replies
from skillcore._deprecate import renamed_value, warn_renamed
from skillcore.runtime.config import AdapterAttributes, AdapterParts, Sources
from skillcore.state.coordination import CatalogMemo, Ledger, TurnCall
from skillcore.tools.reinjection import DeliveryIndex, Reinjection
from skillcore_langchain._approval import gate
from skillcore_langchain._messages import (
    append_block,
    latest_user_text,
    message_key,
    reply_of,
    required_call_id,
    thread_id,
    tool_message,
    with_notes,
)
from skillcore_langchain._state import (
    LOAD_KEY,
    SEED_KEY,
    STATE_KEY,
    SkillsState,
    merge_load,
    merge_seed,
)

__all__ = [
    "LOAD_KEY",
    "SEED_KEY",
    "STATE_KEY",
    "SkillsMiddleware",
    "SkillsState",
    "merge_load",
    "merge_seed",
]


class SkillsMiddleware(AgentMiddleware[SkillsState, Any, Any], AdapterAttributes):
    """Agent Skills for LangChain agents, backed by skillcore.

    ``create_agent(model, tools, middleware=[SkillsMiddleware("./skills")])`` adds a budgeted
    skill catalog to the system message and the tools ``load_skill``, ``unload_skill``,
    ``load_skill_resource`` and ``search_skills``. Load state lives in the graph state (a few
    hundred bytes, whatever the catalog size), so it follows checkpointers; the tool calls of
    one model turn are decided in the model's call order, so every reply is truthful and a
    tool called after a restricting ``load_skill`` in the same turn is blocked.
    """

    state_schema = SkillsState

    def __init__(
        self,
        skills: Sources | None = None,
        config: SkillConfig | None = None,
        *,
        backend: Any = None,
        sources: Sources | None = None,
        refresh: bool | float | None = None,
        share_with_subagents: bool = False,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        ledger: Ledger | None = None,
        **options: Any,
    ) -> None:
        """Build the middleware.

        Args:
            skills: skill folders or fsspec URLs (later ones override earlier ones; None:
                ``SKILLCORE_SOURCES`` or the settings file, see :mod:`skillcore.runtime.settings`),
                :class:`~skillcore.SkillSource` values, or a ready :class:`~skillcore.SkillLibrary`;
                with ``backend``, paths in it or ``(path, label)`` tuples, as deepagents takes.
            config: a :class:`~skillcore.SkillConfig`, or its fields as keyword ``options``.
            sources: deepagents' name for ``skills`` next to ``backend``, accepted there as
                deepagents' own ``SkillsMiddleware`` takes it; without ``backend`` it is the
                old name of ``skills`` (deprecated).
            backend: a deepagents backend holding the skills (``StateBackend``,
                ``StoreBackend``, ``FilesystemBackend``, ``CompositeBackend``, a sandbox).
                Backends whose files depend on the thread get one catalog per thread.
            refresh: re-scan the sources at the start of every run (unchanged files are not
                read again); a number is the minimum seconds between scans; False: once.
                None: ``SKILLCORE_REFRESH`` or the settings file, else every run.
            share_with_subagents: also write the session to the input-only ``skillcore_seed``
                key, which deepagents' ``task`` tool forwards to subagents.
            tools: skill-gated tools (``BaseTool`` objects or functions): registered with the
                agent, but offered to the model, and allowed to run, only while a loaded
                skill names them in ``metadata.include_tools`` (or
                ``metadata.adk_additional_tools``).
            ledger: where workers sharing the checkpointer record each thread's latest skill
                state (e.g. ``SQLLedger.postgres(url)``), so two runs on one thread at once
                are noticed (``state.forked``) and can never lift a restriction; by default
                only runs within this process are compared.
        """
        skills = _skills_argument(skills, sources, backend)
        gated = [t if isinstance(t, BaseTool) else as_tool(t) for t in tools]
        AdapterParts.build(
            skills,
            config,
            refresh=refresh,
            backend=backend,
            thread=thread_id,
            gated=[t.name for t in gated],
            **options,
        ).attach(self)
        if ledger is not None:
            self.turns.ledger = ledger
        self.share_with_subagents = share_with_subagents
        self.reinjection = Reinjection(self.toolkit)
        #: Where each thread's load replies sit in its messages (delivery by call id).
        self.deliveries = DeliveryIndex()
        self._init_tools(gated)

    def _init_tools(self, gated: list[BaseTool]) -> None:
        # The tools shown to the model: per-catalog copies with the skill names as an enum.
        self._tools_for: CatalogMemo[dict[str, BaseTool]] = CatalogMemo(
            lambda catalog: {s.name: self._make_tool(s) for s in self.toolkit.specs(catalog)}
        )
        # Registered with the tool node once (the model sees none when there are no skills);
        # the gated tools too, so they can run once a skill unlocks them.
        self.tools = [self._make_tool(spec) for spec in self.toolkit.generic_specs()]
        self.tools.extend(gated)
        # Per thread: the agent's tool names at its latest model call, for the load-time
        # check that a skill's allowed-tools exist (TOOL_NOT_AVAILABLE).
        self._agent_tools: OrderedDict[str, frozenset[str]] = OrderedDict()

    # -- sessions --------------------------------------------------------------------------

    def session_for(self, state: Mapping[str, Any] | None) -> SkillSession:
        """The skill session stored in an agent state (empty if there is none or it is
        unreadable; see :func:`skillcore.restore_session`)."""
        return self.restore((state or {}).get(STATE_KEY)).session

    def session(self, state: Mapping[str, Any] | None) -> SkillSession:
        """Deprecated name of :meth:`session_for`."""
        warn_renamed("SkillsMiddleware.session()", "session_for()")
        return self.session_for(state)

    def _state_update(self, session: SkillSession, view: TurnCall | None = None) -> dict[str, Any]:
        # A tool call writes its own effect with the turn's base and order (merged by
        # merge_states); a run-start write is the session itself.
        value = session.to_state() if view is None else view.saved_state(session)
        update: dict[str, Any] = {STATE_KEY: value}
        if self.share_with_subagents:
            update[SEED_KEY] = value
        return update

    def gate_interrupts(self, interrupt_on: Mapping[str, Any]) -> dict[str, Any]:
        """``interrupt_on`` for ``HumanInTheLoopMiddleware`` that does not ask about calls the
        allowed-tools policy will block (see :func:`skillcore_langchain._approval.gate`)."""
        return gate(self, interrupt_on)

    # -- before_agent: refresh, repair, seed, configured skills ----------------------------

    def before_agent(self, state: SkillsState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Refresh the catalog; seed a new thread, load the configured skills
        (``default_skills`` on a new thread, ``pinned_skills`` on every run) and the run's
        requested ones (``skillcore_load``), or persist a repaired session."""
        if self.refresh.due():
            self.library.refresh()
        session, seed, fresh, changed = self._start(state)
        if seed:
            session = self.toolkit.load_all(session, seed)[0]
        request = state.get(LOAD_KEY)
        ensured = self.toolkit.ensure(session, fresh=fresh, load=request)[0]
        started = self._started(ensured, changed or ensured is not session, request is not None)
        return _keep_rev(started, state)

    async def abefore_agent(
        self, state: SkillsState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async :meth:`before_agent` (sources are scanned without blocking the loop)."""
        if self.refresh.due():
            await self.library.arefresh()
        session, seed, fresh, changed = self._start(state)
        if seed:
            session = (await self.toolkit.aload_all(session, seed))[0]
        request = state.get(LOAD_KEY)
        ensured = (await self.toolkit.aensure(session, fresh=fresh, load=request))[0]
        started = self._started(ensured, changed or ensured is not session, request is not None)
        return _keep_rev(started, state)

    def _started(
        self, session: SkillSession, changed: bool, requested: bool
    ) -> dict[str, Any] | None:
        """The run-start state update: the session if it changed; a run's load request
        (``skillcore_load``) cleared once applied, so it does not repeat on later runs."""
        update = self._state_update(session) if changed else {}
        if requested:
            update[LOAD_KEY] = None
        return update or None

    def _start(self, state: Mapping[str, Any]) -> tuple[SkillSession, list[str], bool, bool]:
        """The thread's session at the start of a run: ``(session, names to seed it with,
        new thread?, must be written?)``."""
        raw = state.get(STATE_KEY)
        if raw is None:
            seed = state.get(SEED_KEY)
            if isinstance(seed, Mapping):
                return self.restore(seed).session, [], True, True
            listed = seed if isinstance(seed, list | tuple) else ()
            names = [n for n in listed if isinstance(n, str)]
            return self.session_for(None), names, True, bool(names)
        restored = self.restore(raw)
        # Unreadable state or skills removed from disk: persist the repaired session.
        return restored.session, [], False, restored.repaired

    # -- wrap_model_call: catalog, tools, re-injection -------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        """Show the budgeted catalog and the skill tools; restore compacted instructions."""
        session = self.session_for(request.state)
        missing = self.reinjection.missing(session, self._seen(session, request.messages))
        return handler(self._prepare(request, session, self.reinjection.text(session, missing)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        """Async :meth:`wrap_model_call`."""
        session = self.session_for(request.state)
        missing = self.reinjection.missing(session, self._seen(session, request.messages))
        repeated = await self.reinjection.atext(session, missing)
        return await handler(self._prepare(request, session, repeated))

    def _seen(
        self, session: SkillSession, messages: Sequence[Any], thread: str | None = None
    ) -> frozenset[str]:
        """Loaded skills whose delivery (the reply to the recorded ``load_skill`` call id) is
        among ``messages``: read once per thread, then only what was added."""
        key = thread_id() if thread is None else thread
        return self.deliveries.visible(
            session, messages, reply_of, conversation=key or "", key=message_key
        )

    def _prepare(
        self, request: ModelRequest[Any], session: SkillSession, repeated: str
    ) -> ModelRequest[Any]:
        shown = self._tools_for(session.catalog)
        ours = self.toolkit.tool_names
        names = [_tool_name(t) for t in request.tools]
        self._remember_tools(names)
        # Locked gated tools (and, with hide_blocked_tools, blocked ones) are left out.
        offered = set(
            session.offered_tools(
                (n for n in names if n is not None),
                hide_blocked=self.config.hide_blocked_tools,
            )
        )
        tools: list[BaseTool | dict[str, Any]] = []
        for t, name in zip(request.tools, names):
            if isinstance(t, BaseTool) and t.name in ours:
                if shown:  # the copy whose schema lists this catalog's skill names
                    tools.append(shown.get(t.name, t))
                continue
            if name is None or name in offered:
                tools.append(t)
        if not shown:  # no skills: no catalog and no skill tools
            return request.override(tools=tools)
        # The latest user message: with catalog_order="relevance" the catalog is ranked for it
        # (the same message on every model call of a run, so the same text).
        text = self.toolkit.instructions(session, query=latest_user_text(request.messages))
        if repeated:
            text += "\n" + repeated
        # Per-request suggestions go with the user messages, after the stable prefix (a walk
        # over the history, so only when the note is on).
        noted = (
            with_notes(request.messages, partial(self.toolkit.suggestion_note, session))
            if self.toolkit.suggestions
            else None
        )
        system = append_block(request.system_message, text)
        if noted is None:
            return request.override(system_message=system, tools=tools)
        return request.override(system_message=system, tools=tools, messages=noted)

    # -- tool calls: call order, RESTRICT, the skill tools ---------------------------------

    def _turn(self, state: Any, config: Any, call_id: str | None) -> TurnCall:
        """The call's place in its turn: calls of one AIMessage share a turn, keyed by the
        thread id (never by session value) and the message, whose tool calls (names and
        arguments) let any process work out the earlier calls' effects."""
        call_id = required_call_id(call_id)
        thread = str(((config or {}).get("configurable") or {}).get("thread_id", ""))
        messages = (state or {}).get("messages", ()) if isinstance(state, Mapping) else ()
        turns = (
            (
                m.id,
                ((str(c.get("id")), c.get("name", ""), c.get("args")) for c in m.tool_calls),
            )
            for m in reversed(messages)
            if isinstance(m, AIMessage)
        )
        calls = TurnCalls.locate(thread, call_id, turns, self.toolkit.is_skill_tool)
        loads = self.names.load in calls.args_tools()
        hidden = self._hidden(state, config) if loads else frozenset()
        raw = state.get(STATE_KEY) if isinstance(state, Mapping) else None
        rev = raw.get("rev") if isinstance(raw, Mapping) else None
        return self.turns.enter(
            calls,
            call_id,
            self.session_for(state),
            hidden=hidden,
            available=self._available(config),
            rev=rev if isinstance(rev, str) else "",
        )

    def _remember_tools(self, names: list[str | None]) -> None:
        thread = thread_id() or ""
        self._agent_tools[thread] = frozenset(n for n in names if n is not None)
        self._agent_tools.move_to_end(thread)
        while len(self._agent_tools) > _THREADS_KEPT:
            self._agent_tools.popitem(last=False)

    def _available(self, config: Any) -> frozenset[str] | None:
        """The agent's tool names at this thread's latest model call (None: unknown, so the
        TOOL_NOT_AVAILABLE check is skipped)."""
        thread = str(((config or {}).get("configurable") or {}).get("thread_id", ""))
        return self._agent_tools.get(thread)

    def _blocked(
        self, view: TurnCall, call: Mapping[str, Any], tool: BaseTool | None
    ) -> ToolMessage | None:
        arguments = _policy_arguments(tool, call.get("args"))
        decision = self.toolkit.check_call(view, call["name"], arguments=arguments)
        if decision.allowed:
            return None
        text = replies.blocked(decision)
        return tool_message(text, replies.blocked_code(decision), call["id"], call["name"])

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Block tools the loaded skills do not allow (RESTRICT), deciding in call order."""
        call = request.tool_call
        if not self.toolkit.guards(self.policy, call["name"]):
            return handler(request)
        config = getattr(request.runtime, "config", None)
        with self._turn(request.state, config, call["id"]) as view:
            blocked = self._blocked(view, call, request.tool)
        return blocked if blocked is not None else handler(request)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        call = request.tool_call
        if not self.toolkit.guards(self.policy, call["name"]):
            return await handler(request)
        config = getattr(request.runtime, "config", None)
        async with self._turn(request.state, config, call["id"]) as view:
            blocked = self._blocked(view, call, request.tool)
        return blocked if blocked is not None else await handler(request)

    def _hidden(self, state: Any, config: Any) -> frozenset[str]:
        """Skills loaded before this turn whose delivery is not in the state's messages
        (what the model receives, after any summarization); the state is the one the tool
        calls of a model response share, so skills they load are never among them. Only a
        load consults it."""
        messages = state.get("messages") if isinstance(state, Mapping) else None
        if not isinstance(messages, Sequence):
            return frozenset()
        session = self.session_for(state)
        thread = str(((config or {}).get("configurable") or {}).get("thread_id", ""))
        return frozenset(session.loaded_names) - self._seen(session, messages, thread)

    def _make_tool(self, spec: ToolSpec) -> StructuredTool:
        name = spec.name

        def run(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
            with self._turn(runtime.state, runtime.config, runtime.tool_call_id) as view:
                result = self.toolkit.call(
                    view, name, arguments, **view.context, call_id=runtime.tool_call_id
                )
                return self._reply(result, runtime, view)

        async def arun(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
            async with self._turn(runtime.state, runtime.config, runtime.tool_call_id) as view:
                result = await self.toolkit.acall(
                    view, name, arguments, **view.context, call_id=runtime.tool_call_id
                )
                return self._reply(result, runtime, view)

        return StructuredTool.from_function(
            func=run,
            coroutine=arun,
            name=name,
            description=spec.description,
            args_schema=spec.json_schema(),
        )

    def _reply(
        self, result: Any, runtime: ToolRuntime, view: TurnCall
    ) -> ToolMessage | Command[Any]:
        message = tool_message(
            result.text, result.code, runtime.tool_call_id, result.tool, result.ok, result.binary
        )
        if not result.changed:
            return message
        update = self._state_update(result.session, view)
        return Command(update={**update, "messages": [message]})


def _skills_argument(
    skills: Sources | None, sources: Sources | None, backend: Any
) -> Sources | None:
    """The ``skills`` argument, or ``sources``: deepagents' spelling next to ``backend`` (kept,
    as the drop-in replacement of deepagents' middleware takes it), else its old name."""
    if sources is not None and backend is None:
        warn_renamed("SkillsMiddleware(sources=...)", "skills=", stacklevel=3)
    return renamed_value("SkillsMiddleware", "sources", "skills", sources, skills)


def _keep_rev(update: dict[str, Any] | None, state: Mapping[str, Any]) -> dict[str, Any] | None:
    """A run-start write (a repair, configured skills) keeps the revision of the state it
    rewrites: it is the same point of the conversation, not a new turn."""
    raw = state.get(STATE_KEY)
    value = update.get(STATE_KEY) if update else None
    if isinstance(value, dict) and isinstance(raw, Mapping) and isinstance(raw.get("rev"), str):
        value["rev"] = raw["rev"]
    return update


#: Threads whose tool lists are remembered (least recently used are dropped first).
_THREADS_KEPT = 1024


def _tool_name(tool: Any) -> str | None:
    """A bound tool's name: a ``BaseTool``, or a provider dict (OpenAI function shape or a
    plain ``name``); None when it has none."""
    if isinstance(tool, BaseTool):
        return tool.name
    if isinstance(tool, Mapping):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        return name if isinstance(name, str) else None
    return None


def _policy_arguments(tool: BaseTool | None, args: Any) -> Any:
    """The call's arguments as the tool will receive them: a single-input ``Tool`` (how
    free-form tools are built) gets one raw string, its only argument, so that string is
    what the policy judges; with more than one argument it refuses to run (and the policy,
    finding no command, does not allow it either)."""
    if isinstance(tool, Tool) and not isinstance(tool, StructuredTool):
        if isinstance(args, str):
            return RawInput(args)
        if isinstance(args, Mapping) and len(args) == 1:
            (value,) = args.values()
            if isinstance(value, str):
                return RawInput(value)
        return None
    return args
