"""``SkillsMiddleware``: Agent Skills for ``langchain.agents.create_agent`` (and deepagents).

Translation only: schemas, execution and replies come from :class:`skillcore.SkillToolkit`,
the policy from :meth:`skillcore.SkillSession.check_tool`, call order and the per-turn session
from :class:`skillcore.runtime.TurnStore`, what a model call gets from
:class:`skillcore.runtime.model_calls.ModelCalls`; persistence is the JSON-native
:meth:`skillcore.SkillSession.to_state` in one graph state key merged by
:func:`skillcore.runtime.merge_states`. A tool call's translation is in
:mod:`skillcore_langchain._calls`,
the run start's in :mod:`skillcore_langchain._run_start`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelCallResult,
    ModelRequest,
    ModelResponse,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from skillcore import Ledger, OutcomeCode, SkillConfig, SkillSession
from skillcore.runtime import (
    AdapterAttributes,
    AdapterParts,
    CatalogMemo,
    ForkRequest,
    ModelCalls,
    ModelSwitch,
    Recent,
    Sources,
    TurnCall,
    enter_turn,
    locate_turn,
    saved_rev,
)
from skillcore_langchain._approval import gate
from skillcore_langchain._calls import (
    ahook_refusal,
    blocked_call,
    history,
    hook_refusal,
    messages_of,
    reply,
    skill_tool,
    thread_of,
    tool_output,
)
from skillcore_langchain._invoke import invocation_text
from skillcore_langchain._messages import (
    append_block,
    calls_of,
    latest_user_text,
    message_key,
    reply_of,
    required_call_id,
    thread_id,
    with_notes,
)
from skillcore_langchain._requests import OfferedTools, offer
from skillcore_langchain._run_start import Started, run_opener, skills_argument, start, started
from skillcore_langchain._state import (
    LOAD_KEY,
    SEED_KEY,
    STATE_KEY,
    SkillsState,
    merge_load,
    merge_seed,
    state_update,
)

if TYPE_CHECKING:
    from skillcore_langchain.subagents import Subagents

__all__ = [
    "LOAD_KEY",
    "SEED_KEY",
    "STATE_KEY",
    "SkillsMiddleware",
    "SkillsState",
    "merge_load",
    "merge_seed",
]

#: Threads whose tool lists are remembered (least recently used are dropped first).
_THREADS_KEPT = 1024
#: Sessions whose offered tools are remembered (of the current catalog).
_SESSIONS_KEPT = 256


class SkillsMiddleware(AgentMiddleware[SkillsState, Any, Any], AdapterAttributes):
    """Agent Skills for LangChain agents, backed by skillcore.

    ``create_agent(model, tools, middleware=[SkillsMiddleware("./skills")])`` adds a budgeted
    skill catalog to the system message and the tools ``load_skill``, ``unload_skill``,
    ``load_skill_resource`` and ``search_skills``. Load state lives in the graph state (a few
    hundred bytes, whatever the catalog size), so it follows checkpointers; the tool calls of
    one model turn are decided in the model's call order, so every reply is truthful and a
    tool called after a restricting ``load_skill`` in the same turn is blocked.

    With ``user_invocation=True``, a run whose new user message starts with ``/name`` (or
    ``$name``) loads that skill with the rest of the message as its arguments, user-only
    skills included (see docs/portable.md); a refused invocation is answered without calling
    the model.
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
        user_invocation: bool = False,
        subagents: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> None:
        """Build the middleware.

        Args:
            skills: skill folders or fsspec URLs (later ones override earlier ones; None:
                ``SKILLCORE_SOURCES`` or the settings file, see :mod:`skillcore.runtime.settings`),
                :class:`~skillcore.SkillSource` values, or a ready :class:`~skillcore.SkillLibrary`;
                with ``backend``, paths in it or ``(path, label)`` tuples, as deepagents takes.
            config: a :class:`~skillcore.SkillConfig`, or its fields as keyword ``options``
                (``tool_aliases`` by default: the ``deepagents`` preset's names).
            sources: deepagents' name for ``skills`` next to ``backend``, accepted there as
                deepagents' own ``SkillsMiddleware`` takes it (only there).
            backend: a deepagents backend holding the skills (``StateBackend``,
                ``StoreBackend``, ``FilesystemBackend``, ``CompositeBackend``, a sandbox).
                Backends whose files depend on the thread get one catalog per thread.
            refresh: re-scan the sources at the start of every run (unchanged files are not
                read again); a number is the minimum seconds between scans; False: once.
                None: ``SKILLCORE_REFRESH`` or the settings file, else every run.
            share_with_subagents: also write the session to the input-only ``skillcore_seed``
                key, which deepagents' ``task`` tool forwards to subagents.
            tools: skill-gated tools (``BaseTool`` objects or functions), offered to the model
                and allowed to run only while a loaded skill names them in
                ``metadata.include_tools`` (or ``metadata.adk_additional_tools``).
            ledger: where workers sharing the checkpointer record each thread's latest skill
                state (``SQLLedger.postgres(url)``): two runs on one thread at once are noticed
                (``state.forked``) and never lift a restriction (default: this process only).
            subagents: the subagents forked skills (``context: fork``) run in, by the name
                their ``agent:`` field gives: ``factory(skills_middleware) -> agent`` or a
                deepagents ``SubAgent`` spec (see :mod:`skillcore_langchain.subagents`).
        """
        skills = skills_argument(skills, sources, backend)
        gated = [t if isinstance(t, BaseTool) else as_tool(t) for t in tools]
        AdapterParts.build(
            skills,
            config,
            refresh=refresh,
            backend=backend,
            thread=thread_id,
            gated=[t.name for t in gated],
            ledger=ledger,
            framework="deepagents",
            **options,
        ).attach(self)
        self.share_with_subagents, self.user_invocation = share_with_subagents, user_invocation
        #: The skill text of each model call (catalog, lost instructions, notes).
        self.model_calls = ModelCalls(self.toolkit)
        self.reinjection = self.model_calls.reinjection
        #: Where each thread's load replies sit in its messages (delivery by call id).
        self.deliveries = self.model_calls.deliveries
        self.models = ModelSwitch(self.config.model_resolver)  # the loaded skills' model
        self._init_tools(gated)
        #: The subagents forked skills run in (None: forked skills are not started here).
        self.subagents: Subagents | None = None
        if subagents:
            from skillcore_langchain.subagents import Subagents

            self.subagents = Subagents(self, subagents)

    def _init_tools(self, gated: list[BaseTool]) -> None:
        # The tools shown to the model: per-catalog copies with the skill names as an enum.
        self._tools_for: CatalogMemo[dict[str, BaseTool]] = CatalogMemo(
            lambda catalog: {
                s.name: skill_tool(s, self._run, self._arun) for s in self.toolkit.specs(catalog)
            }
        )
        # Registered with the tool node once (the model sees none when there are no skills);
        # the gated tools too, so they can run once a skill unlocks them.
        self.tools = [
            skill_tool(spec, self._run, self._arun) for spec in self.toolkit.generic_specs()
        ]
        self.tools.extend(gated)
        # Per thread: the agent's tool names at its latest model call, for the load-time
        # check that a skill's allowed-tools exist (TOOL_NOT_AVAILABLE).
        self._agent_tools: Recent[str, frozenset[str]] = Recent(_THREADS_KEPT)
        # What each recent session lets the model see of the agent's tools.
        self._offered_tools = OfferedTools(_SESSIONS_KEPT)
        # Per thread: the id of the user message whose run start this process did, so a
        # retried model call does not scan or run SessionStart hooks again.
        self._opened: Recent[str, str] = Recent(_THREADS_KEPT)

    # -- sessions --------------------------------------------------------------------------

    def session_for(self, state: Mapping[str, Any] | None) -> SkillSession:
        """The skill session stored in an agent state (empty if there is none or it is
        unreadable; see :func:`skillcore.runtime.restore_session`)."""
        return self.restore((state or {}).get(STATE_KEY)).session

    def _state_update(self, session: SkillSession, view: TurnCall | None = None) -> dict[str, Any]:
        # A tool call writes its own effect with the turn's base and order (merged by
        # merge_states); a run-start write is the session itself.
        value = session.to_state() if view is None else view.saved_state(session)
        return state_update(value, self.share_with_subagents)

    def gate_interrupts(self, interrupt_on: Mapping[str, Any]) -> dict[str, Any]:
        """``interrupt_on`` for ``HumanInTheLoopMiddleware`` that does not ask about calls the
        allowed-tools policy will block (see :func:`skillcore_langchain._approval.gate`)."""
        return gate(self, interrupt_on)

    # -- the run start: refresh, repair, seed, configured skills, /name ---------------------

    # The run-start work runs inside the model call rather than in a ``before_agent`` node:
    # LangGraph saves a checkpoint after every node, so a node of its own would cost every
    # turn one more checkpoint write. Its state change rides on the model call's update
    # (written in the same step, or not at all if the call fails: the next call redoes it
    # from the same state). Only the per-run side work (a scan, SessionStart hooks) waits for
    # a new user message; the rest is read from the state, so repeating it changes nothing.

    def _start(self, state: Mapping[str, Any], thread: str | None) -> Started:
        """Refresh the catalog (on a new user message); seed a new thread, load the
        configured skills (``default_skills`` on a new thread, ``pinned_skills`` on every
        run) and the run's requested ones (``skillcore_load``), or persist a repaired
        session. With ``user_invocation``, a new user message ``/name args`` loads that skill
        (a refusal is the run's answer, without a model call)."""
        opening = self._opens(state, thread)
        if opening and self.refresh.due():
            self.library.refresh()
        session, seed, fresh, changed = start(state, self.restore)
        if seed:
            session = self.toolkit.load_all(session, seed)[0]
        request = state.get(LOAD_KEY)
        ensured = self.toolkit.ensure(session, fresh=fresh, load=request)[0]
        changed = changed or ensured is not session
        if opening and self.toolkit.hooks.has_hooks(ensured):
            self.toolkit.hooks.session_start(ensured, conversation=thread or "")
        update = started(self._state_update, ensured, changed, request is not None, state)
        text = invocation_text(state) if self.user_invocation else None
        if text is None:
            return Started(ensured, update)
        result = self.toolkit.invoke(
            ensured, text, session_id=thread, available=self._agent_tools.get(thread or "")
        )
        return Started.invoked(ensured, update, result, self._state_update, state)

    def _opens(self, state: Mapping[str, Any], conversation: str | None) -> bool:
        """Whether this model call starts a run: it answers a new user message that this
        process has not started a run for yet (a retried call does not)."""
        user = run_opener(state)
        if user is None:
            return False
        thread = conversation or ""
        if user.id is not None and self._opened.get(thread) == user.id:
            return False
        if user.id is not None:
            self._opened.set(thread, user.id)
        return True

    async def _astart(self, state: Mapping[str, Any], thread: str | None) -> Started:
        """Async :meth:`_start` (sources are scanned without blocking the loop)."""
        opening = self._opens(state, thread)
        if opening and self.refresh.due():
            await self.library.arefresh()
        session, seed, fresh, changed = start(state, self.restore)
        if seed:
            session = (await self.toolkit.aload_all(session, seed))[0]
        request = state.get(LOAD_KEY)
        ensured = (await self.toolkit.aensure(session, fresh=fresh, load=request))[0]
        changed = changed or ensured is not session
        if opening and self.toolkit.hooks.has_hooks(ensured):
            await self.toolkit.hooks.asession_start(ensured, conversation=thread or "")
        update = started(self._state_update, ensured, changed, request is not None, state)
        text = invocation_text(state) if self.user_invocation else None
        if text is None:
            return Started(ensured, update)
        result = await self.toolkit.ainvoke(
            ensured, text, session_id=thread, available=self._agent_tools.get(thread or "")
        )
        return Started.invoked(ensured, update, result, self._state_update, state)

    # -- wrap_model_call: run start, catalog, tools, re-injection --------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelCallResult[Any]:
        """Do the run-start work (see :meth:`_start`); show the budgeted catalog and the
        skill tools; restore compacted instructions; use the loaded skills' model
        (``model_resolver``)."""
        thread = thread_id()  # read once: every step below is of this call's thread
        begun = self._start(request.state, thread)
        if begun.answer is not None:  # a refused /name: answered without the model
            return begun.respond(ModelResponse(result=[begun.answer]))
        request, session = begun.request(request), begun.session
        request = self._switch(request, session)
        tools, shown = self._offer(request, session, thread)
        if not shown:  # no skills: no catalog and no skill tools
            return begun.respond(handler(request.override(tools=tools)))
        text = self.model_calls.instructions(
            session,
            self._seen(session, request.messages, thread),
            query=latest_user_text(request.messages),
        )
        return begun.respond(handler(self._prepare(request, session, tools, text, thread)))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelCallResult[Any]:
        """Async :meth:`wrap_model_call`."""
        thread = thread_id()
        begun = await self._astart(request.state, thread)
        if begun.answer is not None:
            return begun.respond(ModelResponse(result=[begun.answer]))
        request, session = begun.request(request), begun.session
        request = self._switch(request, session)
        tools, shown = self._offer(request, session, thread)
        if not shown:
            return begun.respond(await handler(request.override(tools=tools)))
        text = await self.model_calls.ainstructions(
            session,
            self._seen(session, request.messages, thread),
            query=latest_user_text(request.messages),
        )
        return begun.respond(await handler(self._prepare(request, session, tools, text, thread)))

    def _switch(self, request: ModelRequest[Any], session: SkillSession) -> ModelRequest[Any]:
        """The request with the loaded skills' model (the last loaded naming one the
        resolver knows); the agent's own once none does (effort is not applied here)."""
        if self.models.resolver is None:  # skills never switch the model: nothing to choose
            return request
        model = self.models.choose(session).model
        return request if model is None else request.override(model=model)

    def _seen(
        self, session: SkillSession, messages: Sequence[Any], thread: str | None
    ) -> frozenset[str]:
        """Loaded skills whose delivery (the reply to the recorded ``load_skill`` call id) is
        among ``messages``: read once per thread, then only what was added."""
        return self.deliveries.visible(
            session, messages, reply_of, conversation=thread or "", key=message_key, calls=calls_of
        )

    def _offer(
        self, request: ModelRequest[Any], session: SkillSession, thread: str | None
    ) -> tuple[list[BaseTool | dict[str, Any]], bool]:
        """The request's tools as the model may see them now, and whether there are skills;
        the names are remembered for the load-time tool check (TOOL_NOT_AVAILABLE)."""
        shown = self._tools_for(session.catalog)
        tools, names = offer(
            request.tools,
            session,
            shown,
            self.toolkit.tool_names,
            self.config,
            self._offered_tools,
        )
        self._agent_tools.set(thread or "", names)
        return tools, bool(shown)

    def _prepare(
        self,
        request: ModelRequest[Any],
        session: SkillSession,
        tools: list[BaseTool | dict[str, Any]],
        text: str,
        thread: str | None,
    ) -> ModelRequest[Any]:
        hooks = self.toolkit.hooks.context(thread or "")  # hook text, said once
        system = append_block(request.system_message, f"{text}\n\n{hooks}" if hooks else text)
        # Per-request suggestions go with the user messages, after the stable prefix (a walk
        # over the history, so only when the note is on).
        note_for = self.model_calls.note_for(session)
        noted = None if note_for is None else with_notes(request.messages, note_for)
        if noted is None:
            return request.override(system_message=system, tools=tools)
        return request.override(system_message=system, tools=tools, messages=noted)

    # -- tool calls: call order, RESTRICT, the skill tools ---------------------------------

    def _turn(self, state: Any, config: Any, call_id: str | None) -> TurnCall:
        """The call's place in its turn: calls of one AIMessage share a turn, keyed by the
        thread id (never by session value) and the message, whose tool calls (names and
        arguments) let any process work out the earlier calls' effects."""
        call_id = required_call_id(call_id)
        thread = thread_of(config)
        calls = locate_turn(self.toolkit, thread, call_id, history(state))
        raw = state.get(STATE_KEY) if isinstance(state, Mapping) else None
        return enter_turn(
            self.toolkit,
            self.turns,
            calls,
            call_id,
            self.session_for(state),
            rev=saved_rev(raw),
            hidden=lambda: self._hidden(state, thread),
            # The agent's tool names at this thread's latest model call (None: unknown, so
            # the TOOL_NOT_AVAILABLE check is skipped).
            available=self._agent_tools.get(thread),
        )

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Block tools the loaded skills do not allow (RESTRICT), deciding in call order."""
        call = request.tool_call
        guarded = self.toolkit.guards(self.policy, call["name"])
        hooked = not self.toolkit.is_skill_tool(call["name"]) and self.toolkit.hooks.in_catalog(
            self.library.catalog
        )
        if not guarded and not hooked:
            return handler(request)
        config = getattr(request.runtime, "config", None)
        session = self.session_for(request.state)
        if guarded:
            with self._turn(request.state, config, call["id"]) as view:
                blocked = blocked_call(self.toolkit, view, call, request.tool)
                session = view.read()
            if blocked is not None:
                return blocked
        # The policy allowed the call: the loaded skills' hooks may still block it.
        thread = thread_of(config)
        blocked = hook_refusal(self.toolkit, session, call, request.tool, thread)
        if blocked is not None:
            return blocked
        result = handler(request)
        if self.toolkit.hooks.has_hooks(session):
            args, output = call.get("args"), tool_output(result)
            self.toolkit.hooks.post_tool(session, call["name"], args, output, conversation=thread)
        return result

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        call = request.tool_call
        guarded = self.toolkit.guards(self.policy, call["name"])
        hooked = not self.toolkit.is_skill_tool(call["name"]) and self.toolkit.hooks.in_catalog(
            self.library.catalog
        )
        if not guarded and not hooked:
            return await handler(request)
        config = getattr(request.runtime, "config", None)
        session = self.session_for(request.state)
        if guarded:
            async with self._turn(request.state, config, call["id"]) as view:
                blocked = blocked_call(self.toolkit, view, call, request.tool)
                session = view.read()
            if blocked is not None:
                return blocked
        thread = thread_of(config)
        blocked = await ahook_refusal(self.toolkit, session, call, request.tool, thread)
        if blocked is not None:
            return blocked
        result = await handler(request)
        if self.toolkit.hooks.has_hooks(session):
            args, output = call.get("args"), tool_output(result)
            await self.toolkit.hooks.apost_tool(
                session, call["name"], args, output, conversation=thread
            )
        return result

    def _hidden(self, state: Any, thread: str) -> frozenset[str]:
        """Skills loaded before this turn whose delivery is not in the state's messages
        (what the model receives, after any summarization); the state is the one the tool
        calls of a model response share, so skills they load are never among them. Only a
        load consults it."""
        messages = messages_of(state)
        if messages is None:
            return frozenset()
        session = self.session_for(state)
        return self.deliveries.hidden(
            session, messages, reply_of, conversation=thread, key=message_key, calls=calls_of
        )

    def _run(
        self, name: str, runtime: ToolRuntime, arguments: dict[str, Any]
    ) -> ToolMessage | Command[Any]:
        with self._turn(runtime.state, runtime.config, runtime.tool_call_id) as view:
            result = self.toolkit.call(
                view, name, arguments, **view.context, call_id=runtime.tool_call_id
            )
            fork = None
            if self.subagents is not None and result.code is OutcomeCode.FORK:
                # A forked skill's load: its subagent runs it (or the refusal replies).
                fork = self.subagents.forks.request(
                    view.read(), self.subagents.forks.skill_name(arguments)
                )
            if not isinstance(fork, ForkRequest):
                result = fork or result
                return reply(result, runtime.tool_call_id, lambda s: self._state_update(s, view))
        # Outside the turn: the subagent runs long and its calls are its own.
        assert self.subagents is not None  # a ForkRequest comes only from it
        return self.subagents.run(result.session, fork, runtime.tool_call_id)

    async def _arun(
        self, name: str, runtime: ToolRuntime, arguments: dict[str, Any]
    ) -> ToolMessage | Command[Any]:
        async with self._turn(runtime.state, runtime.config, runtime.tool_call_id) as view:
            result = await self.toolkit.acall(
                view, name, arguments, **view.context, call_id=runtime.tool_call_id
            )
            fork = None
            if self.subagents is not None and result.code is OutcomeCode.FORK:
                fork = await self.subagents.forks.arequest(
                    view.read(), str(arguments.get("skill_name"))
                )
            if not isinstance(fork, ForkRequest):
                result = fork or result
                return reply(result, runtime.tool_call_id, lambda s: self._state_update(s, view))
        assert self.subagents is not None  # a ForkRequest comes only from it
        return await self.subagents.arun(result.session, fork, runtime.tool_call_id)
