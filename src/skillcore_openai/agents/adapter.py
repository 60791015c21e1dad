"""Skills for the OpenAI Agents SDK (``openai-agents``): ``FunctionTool``s for the skill tools,
dynamic instructions with the catalog, and RESTRICT through tool input guardrails on function
tools, MCP tools and handed-off agents (:meth:`AgentSkills.guard_agent`).

Where the session lives: :meth:`AgentSkills.conversation` gives the
:class:`SkillConversation` of one conversation (keyed by an id or an Agents SDK ``Session``,
saved in a state store, next to a ``SQLiteSession``'s history when that is the session); pass
it as the run ``context``, or as the ``skill_state`` attribute (or key) of your context object.
Runs that carry none use :attr:`AgentSkills.state`, one shared conversation, which is refused
once per-conversation state is in use (a second user must never inherit the first user's
skills). The conversations are kept by :class:`AgentConversations`; the SDK hooks, guardrail
type and MCP server wrapper are in :mod:`skillcore_openai.agents.guard`.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import threading
import warnings
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from agents import (
    Agent,
    FunctionTool,
    Handoff,
    ModelSettings,
    RunConfig,
    RunContextWrapper,
    Tool,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    ToolOutputText,
    function_tool,
)
from agents.run import CallModelData, ModelInputData
from openai.types.shared import Reasoning

from skillcore import (
    Limits,
    OutcomeCode,
    PolicyMode,
    SkillConfig,
    SkillSession,
    SkillToolkit,
    StateStore,
    ToolPolicy,
)
from skillcore.runtime import (
    MAX_TURN_CALLS,
    ModelSwitch,
    OrchestratorCatalog,
    Recent,
    Reinjection,
    Sources,
    ToolSpec,
    TurnCall,
    TurnCalls,
    TurnIndex,
    TurnStore,
    check_toolkit_options,
    load_replies,
    preview_decision,
    replies,
    with_gated_tools,
)
from skillcore_openai.agents.conversations import (
    AgentConversations,
    SkillConversation,
    _take_request,
)
from skillcore_openai.agents.guard import (
    _agent_tools,
    _binary_output,
    _calls_of,
    _GuardedServer,
    _Run,
    _server_kept,
    _SkillsGuardrail,
    _TurnHooks,
    _without_ours,
)
from skillcore_openai.chat.calls import calls_of, replies_of
from skillcore_openai.chat.invocation import UserInvocation, invocation_messages, user_text
from skillcore_openai.chat.messages import latest_user_text, with_notes

if TYPE_CHECKING:
    from agents import AgentBase, ModelResponse

__all__ = ["AgentSkills", "Instructions"]

#: Your part of the instructions: a string, or an instructions function of the Agents SDK.
Instructions = str | Callable[[RunContextWrapper[Any], Any], "str | Awaitable[str]"]

#: Said once per :class:`AgentSkills` when a guarded call's turn cannot be ordered.
UNORDERED_WARNING = (
    "this agent was not built with AgentSkills.guard_agent, so the tool calls of one model "
    "turn, which the Agents SDK runs at once, are checked on the session as each finds it, "
    "not in the model's call order: a call after a restricting load_skill in the same turn "
    "can pass. Build the agent with skills.guard_agent(agent), or run one tool call at a "
    "time (RunConfig(tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1)))"
)

#: A tool wrapped as the same kind of tool (a FunctionTool stays one).
_AnyTool = TypeVar("_AnyTool", bound=Tool)

_turn_ids = itertools.count(1)
#: Conversations known to be kept by the server, per AgentSkills (least recent dropped).
_KEPT_CONVERSATIONS = 10_000


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
        subagents: Mapping[str, Callable[[AgentSkills], Agent[Any]]] | None = None,
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

        ``subagents``: the subagents forked skills (``context: fork``) run in, by the name
        their ``agent:`` field gives: ``factory(agent_skills) -> Agent``, run through
        ``Agent.as_tool`` (see :mod:`skillcore_openai.agents.subagents`).
        """
        config, self.toolkit = _configured(skills, config, limits, options)
        self.config = config
        self.limits = config.session_limits()
        gated = [t if isinstance(t, FunctionTool) else function_tool(t) for t in tools]
        names = [t.name for t in gated]
        self.policy = with_gated_tools(
            policy or config.policy(framework="agents_sdk"), names, self.toolkit.names
        )
        #: Each conversation's state (the shared :attr:`state` among them).
        self.conversations = AgentConversations(
            self.toolkit,
            self.limits,
            self.policy,
            states,
            state_from,
            require_conversation,
            # Skills hidden from the orchestrator are out of its sessions' catalog.
            OrchestratorCatalog(self.toolkit.library, config.subagent_rules()),
        )
        self.reinjection = Reinjection(self.toolkit)
        # The parts that decide a turn's calls in the model's order (see ``guard_agent``).
        self._lock = threading.Lock()
        #: The calls of one model turn, decided in the model's order: each turn is announced
        #: by the hooks ``guard_agent`` installs, before any of its calls runs.
        self.turns = TurnStore(replay=self.toolkit)
        self.announced = TurnIndex()
        self._runs: weakref.WeakKeyDictionary[Any, _Run] = weakref.WeakKeyDictionary()
        #: The AgentSkills a run's hooks report to (a profiled adapter picks the run's).
        self._route: Callable[[Any], AgentSkills] = lambda _ctx: self
        self._warned = False
        # Conversations the server keeps (the model input holds only new items, so which load
        # replies the model still receives cannot be told), learned by the hooks.
        self._server_kept: Recent[str, bool] = Recent(_KEPT_CONVERSATIONS)
        self.guardrail = _SkillsGuardrail(self._check, name="skillcore_allowed_tools")
        #: The gated tools, guarded and enabled only while unlocked (part of :meth:`tools`).
        self.gated_tools = [self._offer(self._guard_tool(t)) for t in gated]
        #: The subagents forked skills run in (None: forked skills are not started here).
        self.subagents: Any = None
        if subagents:
            from skillcore_openai.agents.subagents import Subagents

            self.subagents = Subagents(self, subagents)
        self.models = ModelSwitch(config.model_resolver)  # the loaded skills' model
        self._asked: Recent[str, bool] = Recent(_KEPT_CONVERSATIONS)  # approvals asked

    # -- conversations (kept by :attr:`conversations`) ---------------------------------------

    @property
    def states(self) -> StateStore:
        """Where conversation states are saved when no other store applies."""
        return self.conversations.states

    @property
    def state(self) -> SkillConversation:
        """The state used when the run context does not carry one (a single conversation)."""
        return self.conversations.state

    def new_state(self, state: Mapping[str, Any] | None = None) -> SkillConversation:
        """A fresh state, or one restored from ``SkillConversation.to_state()`` output (not
        saved anywhere: see :meth:`conversation` for that)."""
        return self.conversations.new_state(state)

    def conversation(self, conversation: str | Any) -> SkillConversation:
        """The state of one conversation, restored from where it was saved and saved on every
        change: ``conversation`` is its id or an Agents SDK ``Session`` (its ``session_id``;
        a file-backed ``SQLiteSession`` keeps the state in a side table of its own database
        unless ``states=`` was given). Pass the result as the run ``context`` (or as your
        context's ``skill_state``). The same conversation gives the same live state while it
        is in use."""
        return self.conversations.conversation(conversation)

    def state_for(self, ctx: RunContextWrapper[Any] | None) -> SkillConversation:
        """The :class:`SkillConversation` of the run behind ``ctx`` (its ``context`` when that
        is one, else the context's ``skill_state`` attribute or key, else the shared
        :attr:`state`), e.g. to set its ``skill_load``. Raises ``agents.UserError`` when the
        run carries none and per-conversation state is required."""
        return self.conversations.state_for(ctx)

    def session_for(self, ctx: RunContextWrapper[Any] | None) -> SkillSession:
        """The skill session of the run behind ``ctx`` (its :meth:`state_for`'s session)."""
        return self.state_for(ctx).session

    # -- the tools -------------------------------------------------------------------------

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
            # The run's own adapter (a profiled agent's tools are guarded by a shared one).
            skills = self._route(ctx)
            session = skills.state_for(ctx).session
            hide = skills.config.hide_blocked_tools
            return bool(session.offered_tools([name], hide_blocked=hide))

        return dataclasses.replace(tool, is_enabled=enabled)

    def _tool(self, spec: ToolSpec) -> FunctionTool:
        async def invoke(ctx: Any, arguments: str) -> Any:
            state = self.state_for(ctx)
            call_id = getattr(ctx, "tool_call_id", None)
            view = self._enter(state, call_id)
            # The SDK runs a call its needs_approval asked about only once the user approved.
            approved = isinstance(call_id, str) and self._asked.get(call_id) is True
            if view is None:  # no announced turn (an agent not from guard_agent)
                load = spec.name == self.toolkit.names.load
                have = _agent_tools(getattr(ctx, "agent", None)) if load else None
                result = await self.toolkit.acall(
                    state, spec.name, arguments, available=have, call_id=call_id, approved=approved
                )
            else:
                async with view:
                    result = await self.toolkit.acall(
                        view,
                        spec.name,
                        arguments,
                        **view.context,
                        call_id=call_id,
                        approved=approved,
                    )
            if self.subagents is not None and result.code is OutcomeCode.FORK:
                # A forked skill's load: its subagent runs it (or the refusal replies).
                result = await self.subagents.fork(result, arguments, ctx)
            if result.binary is not None:
                return [ToolOutputText(text=result.text), _binary_output(result.binary)]
            return result.text

        async def needs_approval(ctx: Any, params: dict[str, Any], call_id: str) -> bool:
            # The Agents SDK's own approval (an interruption the host resolves with
            # RunState.approve/reject), asked only for a run the session would accept.
            session = self.state_for(ctx).session
            asked = self.toolkit.needs_approval(session, spec.name, params)
            if asked:
                self._asked.set(call_id, True)
            return asked

        approve = self.policy.mode is PolicyMode.APPROVE
        ask = spec.name == self.toolkit.names.script and (self.toolkit.confirm_scripts or approve)
        return FunctionTool(
            name=spec.name,
            description=spec.description,
            params_json_schema=spec.json_schema(),
            on_invoke_tool=invoke,
            strict_json_schema=True,
            needs_approval=needs_approval if ask else False,
        )

    # -- a turn's calls in the model's order -----------------------------------------------

    def _run(self, ctx: Any) -> _Run:
        with self._lock:
            run = self._runs.get(ctx)
            if run is None:
                run = self._runs[ctx] = _Run()
            return run

    def _observe(self, ctx: Any, items: Sequence[Any]) -> None:
        """Before a model call: which loaded skills' load replies its input lacks (a load
        of one of those sends the instructions again). None when the server keeps the
        conversation: its input is only what is new, the rest cannot be seen."""
        state, run = self.state_for(ctx), self._run(ctx)
        if run.last:  # the second model call of a run, or later: the input tells
            self._kept(state, _server_kept(items, run.last))
        session = state.session
        if self._kept(state) or not session.loaded:
            run.hidden = frozenset()
            return
        replies = load_replies(items, replies_of, calls_of, session.names.load)
        run.hidden = session.undelivered(replies)

    def _kept(self, state: SkillConversation, learned: bool | None = None) -> bool:
        """Whether the server keeps ``state``'s conversation (``learned``: what a model
        input just showed)."""
        key = state._turn_key
        with self._lock:
            if learned:
                self._server_kept.set(key, True)
            elif learned is not None:
                self._server_kept.pop(key)
            return self._server_kept.get(key) is not None

    def _announce(self, ctx: Any, agent: Any, response: ModelResponse) -> None:
        """When a model response arrives, before its tool calls run: its calls in the
        model's order, so each is decided after the earlier skill calls of its turn."""
        made = _calls_of(getattr(response, "output", None) or ())
        run = self._run(ctx)
        run.last = frozenset(c.call_id for c in made)
        run.calls = [(c.call_id, c.name, c.arguments) for c in made[:MAX_TURN_CALLS]]
        # The skill calls and the plain calls the guardrail decides (those it lets through
        # unchecked, under RECOMMEND, never wait); a turn without skill calls needs no order.
        is_skill, guards = self.toolkit.is_skill_tool, self.toolkit.guards
        calls = [
            (c.call_id, c.name, c.arguments)
            for c in made
            if is_skill(c.name) or guards(self.policy, c.name)
        ]
        state = self.state_for(ctx)
        if calls:
            # Another worker may have saved this conversation since: decide the turn's
            # calls on the latest saved state (one read per model turn with such calls).
            refresh = getattr(state._store, "refresh", None)
            if callable(refresh):
                refresh()
        if not any(is_skill(name) for _, name, _ in calls):
            return
        rid = getattr(response, "response_id", None)
        turn = TurnCalls.of(state._turn_key, f"{rid or 'turn'}#{next(_turn_ids)}", calls, is_skill)
        load = self.toolkit.names.load
        loads = [i for i, name, _ in calls if name == load]
        have = _agent_tools(agent) if loads else None
        ids = [i for i, _, _ in calls]
        self.announced.announce(turn, hidden=run.hidden, available=have, ids=ids)
        with self._lock:
            run.loads.extend(loads)

    def _enter(self, state: SkillConversation, call_id: str | None) -> TurnCall | None:
        """The call's view of its announced turn (None when no turn announced it)."""
        if not isinstance(call_id, str):
            return None
        return self.announced.enter(self.turns, state._turn_key, call_id, state)

    # -- the user's own invocation: ``/name args`` ----------------------------------------

    async def invoke_user_message(
        self, state: SkillConversation | None, message: Any
    ) -> UserInvocation | None:
        """Call with the user's message before ``Runner.run``: when it invokes a skill
        (``/name args``, ``$name args``) the skill is loaded into ``state`` (None: the
        shared :attr:`state`) with its arguments, user-only skills included; run with the
        input ``[message, *result.messages]`` (a load call and its output, Responses
        items). A refused invocation's ``messages`` are the reply to the user: show it and do
        not run. None for ordinary text."""
        target = state if state is not None else self.state
        text = user_text(message)
        if text is None:
            return None
        result = await self.toolkit.ainvoke(target, text, session_id=target.key)
        if result is None:
            return None
        return UserInvocation(result.session, result, invocation_messages(result, "responses"))

    # -- instructions ----------------------------------------------------------------------

    def input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """A ``RunConfig(call_model_input_filter=...)``: the "skills that may fit this
        request" note after each user message of the model input (never in the
        instructions, so their prefix stays cacheable). Nothing is stored in the run."""
        note_for = partial(self.toolkit.suggestion_note, self.conversations.catalog())
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
            if catalog:
                catalog += await self._lost(ctx, agent, session, state, turn_input)
            hooks = self.toolkit.hooks.context(state.hook_key)  # hook text, said once
            parts = (str(text or "").rstrip(), catalog, hooks)
            return "\n\n".join(part for part in parts if part)

        return render

    async def _lost(
        self,
        ctx: RunContextWrapper[Any],
        agent: AgentBase[Any],
        session: SkillSession,
        state: SkillConversation,
        turn_input: Iterable[Any] | None,
    ) -> str:
        """The instructions of loaded skills whose load reply the model input lacks ("" when
        none): the run's input holds the earlier replies, the hooks of ``guard_agent``
        know this run's own load calls. Without those hooks, or when the server keeps the
        conversation (its input holds only new items), only the configured and requested
        skills' (no tool reply delivered them) are repeated."""
        items = list(turn_input or ())
        seen = session.delivered(load_replies(items, replies_of, calls_of, session.names.load))
        only: frozenset[str] | None = None
        if isinstance(getattr(agent, "hooks", None), _TurnHooks) and not self._kept(state):
            with self._lock:
                run = self._runs.get(ctx)
                ours = tuple(run.loads) if run is not None else ()
            deliveries = session.deliveries
            seen |= {deliveries[c] for c in ours if c in deliveries}
        else:
            only = self.toolkit.preset | state.requested
        missing = self.reinjection.missing(session, seen, only=only)
        return "\n\n" + await self.reinjection.atext(session, missing) if missing else ""

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

    # -- guarding --------------------------------------------------------------------------

    def guard(self, *tools: Tool) -> list[Tool]:
        """Copies of your function tools that carry the allowed-tools guardrail (the tools
        you pass are not changed; a guardrail another ``AgentSkills`` added is replaced).

        Only ``FunctionTool`` supports tool input guardrails; other tool types raise
        TypeError because RESTRICT could not block them, unless their name is always allowed.
        Skill tools are returned as they are (they are never blocked). The calls of one model
        turn are decided in call order only in an agent built with :meth:`guard_agent`.
        """
        return [self._guard_tool(tool) for tool in tools]

    def _guard_tool(self, tool: _AnyTool) -> _AnyTool:
        if isinstance(tool, FunctionTool):
            if self.toolkit.is_skill_tool(tool.name):
                return tool
            guardrails = [*_without_ours(tool.tool_input_guardrails), self.guardrail]
            guarded = dataclasses.replace(tool, tool_input_guardrails=guardrails)
            if self.policy.mode is PolicyMode.APPROVE:
                guarded = dataclasses.replace(guarded, needs_approval=self._approval(tool))
            # Offered only while the run's session offers it: a skill's disallowed-tools
            # removes it in every mode; hide_blocked_tools hides what RESTRICT blocks.
            return self._offer(guarded)
        if getattr(tool, "name", None) in self.policy.always_allowed:
            return tool
        raise TypeError(
            f"{type(tool).__name__} has no tool input guardrails, so RESTRICT cannot "
            "block it; guard FunctionTools only (or list its name in always_allowed_tools)"
        )

    def _approval(self, tool: FunctionTool) -> Callable[..., Awaitable[bool]]:
        """The Agents SDK ``needs_approval`` of a guarded tool under APPROVE: the call needs
        the user's approval when its decision (previewed after the earlier skill calls of
        its model turn) says so; the tool's own ``needs_approval`` still applies."""
        own, name = tool.needs_approval, tool.name

        async def needs_approval(ctx: Any, params: dict[str, Any], call_id: str) -> bool:
            if own is True:
                return True
            if callable(own):
                asked = own(ctx, params, call_id)
                if (await asked) if inspect.isawaitable(asked) else asked:
                    return True
            session = self.state_for(ctx).session
            calls = self._run(ctx).calls
            ids = [i for i, _, _ in calls]
            if call_id in ids:
                turn = [(n, a) for _, n, a in calls]
                decision = preview_decision(self.toolkit, session, turn, ids.index(call_id))
            else:
                decision = session.check_tool(name, arguments=params)
            return decision.needs_approval

        return needs_approval

    def run_config(
        self, conversation: SkillConversation | None = None, base: RunConfig | None = None
    ) -> RunConfig:
        """``base`` (default a new ``RunConfig``) with the model and reasoning effort the
        conversation's loaded skills ask for (``model_resolver``; the last loaded skill
        naming a model it knows wins), for the next ``Runner.run``. The SDK resolves the
        model from the run's config, so a skill loaded during a run switches the model
        from the next run on."""
        base = base or RunConfig()
        chosen = self.models.choose((conversation or self.state).session)
        if chosen.model is not None:
            base = dataclasses.replace(base, model=chosen.model)
        if chosen.reasoning_effort is not None:
            effort = ModelSettings(reasoning=Reasoning(effort=chosen.reasoning_effort))  # type: ignore[arg-type]
            settings = (
                effort if base.model_settings is None else base.model_settings.resolve(effort)
            )
            base = dataclasses.replace(base, model_settings=settings)
        return base

    def touch_paths(self, paths: Iterable[str]) -> None:
        """Report the paths the work touches now: a skill with ``paths:`` is offered to the
        model only while one of them matches its globs. Applies to conversations restored
        from now on (:meth:`conversation`, :meth:`new_state`)."""
        self.conversations.touch(paths)

    def guard_agent(self, agent: Agent[Any]) -> Agent[Any]:
        """A copy of ``agent`` whose every tool call passes the allowed-tools check: its
        function tools (as :meth:`guard`), the tools of its MCP servers (the servers are
        wrapped, not changed: connect and clean up the originals as usual), and the same for
        every agent it can hand off to, directly or through ``handoff()`` objects. Your
        agents, tools and servers are left unchanged.

        The copies carry agent hooks (wrapping yours, which still run) that see each model
        response before its tool calls run: the calls of one turn are then decided in the
        model's order, and a load of a skill whose load reply the model no longer receives
        sends its instructions again."""
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
        hooks = agent.hooks
        inner = hooks.inner if isinstance(hooks, _TurnHooks) else hooks
        copy.hooks = _TurnHooks(lambda ctx: self._route(ctx), inner, self)
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

    async def _check(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        # An agent without the unload tool (e.g. one the conversation was handed off to) is
        # not told to call it.
        tools = getattr(data.agent, "tools", None) or ()
        can_unload = any(getattr(t, "name", None) == self.toolkit.names.unload for t in tools)
        check = partial(
            self.toolkit.check_call,
            tool_name=ctx.tool_name,
            can_unload=can_unload,
            arguments=getattr(ctx, "tool_arguments", None),
        )
        state = self.state_for(ctx)
        guarded = self.toolkit.guards(self.policy, ctx.tool_name)
        view = self._enter(state, getattr(ctx, "tool_call_id", None)) if guarded else None
        if view is None:  # not announced, or never blocked (RECOMMEND): no need to wait
            if guarded and not self._warned and _unordered(data.agent, ctx):
                self._warned = True
                warnings.warn(UNORDERED_WARNING, UserWarning, stacklevel=2)
            refresh = getattr(state._store, "refresh", None)
            if guarded and view is None and callable(refresh):
                refresh()  # no turn announced this call: read the latest saved state for it
            session = state.session
            decision = check(session)
        else:
            async with view:  # after the earlier skill calls of its turn
                decision = check(view)
                session = view.read()
        if decision.allowed and self.toolkit.hooks.has_hooks(session):
            # The policy allowed the call: the loaded skills' hooks may still block it.
            arguments = _arguments(getattr(ctx, "tool_arguments", None))
            refused = await self.toolkit.hooks.apre_tool(
                session, ctx.tool_name, arguments, conversation=state.hook_key
            )
            decision = decision if refused is None else refused
        if decision.allowed:
            return ToolGuardrailFunctionOutput.allow(output_info=decision)
        return ToolGuardrailFunctionOutput.reject_content(
            replies.blocked(decision), output_info=decision
        )

    async def _after_tool(self, ctx: Any, tool: Any, result: Any) -> None:
        """The loaded skills' ``PostToolUse`` hooks (from the agent hooks of
        :meth:`guard_agent`); what they say reaches the next model call."""
        name = getattr(tool, "name", "")
        if not name or self.toolkit.is_skill_tool(name):
            return
        state = self.state_for(ctx)
        session = state.session
        if self.toolkit.hooks.has_hooks(session):
            arguments = _arguments(getattr(ctx, "tool_arguments", None))
            await self.toolkit.hooks.apost_tool(
                session, name, arguments, result, conversation=state.hook_key
            )

    async def _agent_start(self, ctx: Any) -> None:
        """The loaded skills' ``SessionStart`` hooks, when a guarded agent starts."""
        state = self.state_for(ctx)
        session = state.session
        if self.toolkit.hooks.has_hooks(session):
            await self.toolkit.hooks.asession_start(session, conversation=state.hook_key)


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


def _unordered(agent: Any, ctx: Any) -> bool:
    """True when ``agent`` has no hooks of :meth:`AgentSkills.guard_agent` and the run may
    run several tool calls at once."""
    if isinstance(getattr(agent, "hooks", None), _TurnHooks):
        return False
    execution = getattr(getattr(ctx, "run_config", None), "tool_execution", None)
    return getattr(execution, "max_function_tool_concurrency", None) != 1


def _arguments(raw: Any) -> Any:
    """A call's JSON arguments as an object for the hooks (text that is not JSON as text)."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw
