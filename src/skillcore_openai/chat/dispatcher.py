"""``OpenAISkills``: skills for a custom OpenAI agent loop. It offers the skill tools and
the catalog (what the model sees: the tools it is offered, the instructions with the catalog
and any instructions its history lacks, the suggestion notes), applies the model's tool calls
to a session (in call order, RESTRICT enforced before your handlers run) and keeps each
conversation's state (new and restored sessions, saved per conversation, forks merged)."""

from __future__ import annotations

import inspect
import itertools
import json
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property, partial
from typing import Any, Literal

import anyio

from skillcore import (
    Limits,
    MemoryStateStore,
    OutcomeCode,
    SkillConfig,
    SkillLibrary,
    SkillSession,
    SkillToolkit,
    StateStore,
    ToolDecision,
    ToolPolicy,
    ToolResult,
)
from skillcore.runtime import (
    ArgumentError,
    DeliveryIndex,
    ForkCheck,
    ModelOverride,
    ModelSwitch,
    OrchestratorCatalog,
    RawInput,
    Recent,
    Reinjection,
    SessionRef,
    SessionStore,
    Sources,
    TurnCall,
    TurnCalls,
    TurnStore,
    apply_effect,
    as_store,
    check_toolkit_options,
    effect_between,
    events,
    parse_json_object,
    replies,
    restore_session,
    saved_fork,
    saved_rev,
    touched_paths,
    update_state,
    with_gated_tools,
)
from skillcore_openai.chat.calls import (
    FunctionCall,
    arguments_of,
    calls_of,
    id_of,
    name_of,
    parse_call,
    replies_of,
)
from skillcore_openai.chat.invocation import UserInvocation, invocation_messages, user_text
from skillcore_openai.chat.messages import attachment_message, tool_output, with_notes
from skillcore_openai.chat.results import ToolCallResult, TurnResult
from skillcore_openai.chat.schemas import (
    chat_shape,
    chat_tool,
    response_shape,
    response_tool,
    tool_name,
)

__all__ = ["Handler", "OnHandlerError", "OpenAISkills"]

#: A handler for a non-skill tool: gets the parsed arguments (a dict; the raw input string for
#: custom tools) and returns the output (a string, or anything JSON-serialisable), or an
#: awaitable of it when used with the async methods. A handler with a ``call`` parameter also
#: gets the :class:`FunctionCall` (``call.call_id``), one with a ``session`` parameter the
#: :class:`SkillSession` the call was decided on.
Handler = Callable[..., Any]
#: What to do when a handler raises: ``"reply"`` (an error reply for that call, the others
#: are kept), ``"raise"``, or a function ``(call, exception) -> reply text``.
OnHandlerError = Literal["reply", "raise"] | Callable[["FunctionCall", Exception], str]
#: A plain call cleared to run: its handler, the arguments, the policy decision and the
#: keyword arguments the handler asked for.
_Plan = tuple[Handler, Any, "ToolDecision", dict[str, Any]]
_EXTRAS = ("call", "session")
#: Conversations whose starting state is remembered between load() and save().
STARTS_KEPT = 10_000


class OpenAISkills:
    """Skills for a custom OpenAI agent loop (Chat Completions or Responses).

    ``handlers`` maps names of your own tools to functions; when given, every call gets a
    reply (an unknown tool name is an error the model sees). Without it, allowed non-skill
    calls are left for you to run. Either way RESTRICT is enforced before a handler runs.
    """

    def __init__(
        self,
        skills: Sources | SkillToolkit | None = None,
        config: SkillConfig | None = None,
        *,
        handlers: Mapping[str, Handler] | None = None,
        strict: bool = True,
        policy: ToolPolicy | None = None,
        states: StateStore | None = None,
        on_handler_error: OnHandlerError = "reply",
        tools: Iterable[Mapping[str, Any]] = (),
        **options: Any,
    ) -> None:
        """``skills``: paths/URLs, a :class:`SkillLibrary` or a ready :class:`SkillToolkit`
        (None: ``SKILLCORE_SOURCES`` or the settings file, see :mod:`skillcore.runtime.settings`).

        ``config`` (a :class:`skillcore.SkillConfig`) or its fields as keyword ``options``
        set the defaults of :meth:`session` and :meth:`restore`; ``policy`` overrides the
        policy knobs (mode, always-allowed tools, aliases, unrestricted skills) with a ready
        :class:`ToolPolicy`. ``states`` is where :meth:`load` and
        :meth:`save` keep each conversation's state (default: in memory; a
        :class:`skillcore.state.saved.SQLiteStateStore` survives restarts).
        ``on_handler_error``: what a handler that raises becomes (see :data:`OnHandlerError`).
        ``tools``: skill-gated tools, as Chat Completions or Responses function tools (their
        handlers go in ``handlers``): :meth:`chat_tools` / :meth:`response_tools` include
        them, and dispatch runs them, only while a loaded skill names them in
        ``metadata.include_tools`` (or ``metadata.adk_additional_tools``).
        """
        self.config = SkillConfig.build(config, **options)
        self.gated_tools: list[dict[str, Any]] = [dict(t) for t in tools]
        gated = [tool_name(t) for t in self.gated_tools]
        if any(n is None for n in gated):
            raise ValueError("every gated tool needs a name (a function tool dict)")
        if isinstance(skills, SkillToolkit):
            check_toolkit_options(config, options)
            self.toolkit = skills
        else:
            self.toolkit = self.config.toolkit(self.config.library(skills))
        self.limits = self.config.session_limits()
        names = [n for n in gated if n is not None]
        self.policy = with_gated_tools(
            policy or self.config.policy(framework="agents_sdk"), names, self.toolkit.names
        )
        self.handlers: dict[str, Handler] | None = None if handlers is None else dict(handlers)
        self.strict = strict
        self.turns, self.reinjection = TurnStore(replay=self.toolkit), Reinjection(self.toolkit)
        #: Where each history's load replies sit (delivery by call id).
        self.deliveries = DeliveryIndex()
        self.states: StateStore = states if states is not None else MemoryStateStore()
        # For fork detection: per conversation, the revision and session load() gave; runs
        # under way (session identity -> conversation); forks already reported in this run.
        self._started: Recent[str, tuple[str, SkillSession]] = Recent(STARTS_KEPT)
        self._runs: Recent[int, tuple[SkillSession, str]] = Recent(STARTS_KEPT)
        self._reported: Recent[str, bool] = Recent(STARTS_KEPT)
        self._runs_lock = threading.Lock()
        if not (callable(on_handler_error) or on_handler_error in ("reply", "raise")):
            raise ValueError(
                f"on_handler_error must be 'reply', 'raise' or a function, got {on_handler_error!r}"
            )
        self.on_handler_error = on_handler_error

    # -- each conversation's state ---------------------------------------------------------

    def _track(self, session: SkillSession, conversation: str | None) -> None:
        if conversation is not None:
            with self._runs_lock:
                self._runs.set(id(session), (session, conversation))

    def _conversation_of(self, session: SkillSession) -> str | None:
        with self._runs_lock:
            found = self._runs.get(id(session))
        return found[1] if found is not None and found[0] is session else None

    def _fork_check(self, store: Any, session: SkillSession) -> Any:
        """``store``, or when the run of ``session`` (from :meth:`load`) does not start from
        its conversation's latest saved state (another worker saved since: a fork), a store
        whose plain calls must also pass on that state: one read of the state store."""
        conversation = self._conversation_of(session)
        started = None if conversation is None else self._started.get(conversation)
        if conversation is None or started is None:
            return store
        parent, base = started
        current = saved_fork(self.states, conversation, parent)
        if current is None:
            return store
        with self._runs_lock:
            first = not self._reported.get(conversation)
            self._reported.set(conversation, True)
        if first:
            events.emit(
                "state.forked",
                {
                    "conversation": conversation,
                    "expected": parent,
                    "found": saved_rev(current),
                    "at": "dispatch",
                },
            )
        head = self.restore(current, session.limits, session.policy)
        return ForkCheck(store, head, base)

    @cached_property
    def _catalog(self) -> OrchestratorCatalog:
        """The catalog sessions are restored over: the library's, less the skills hidden
        from the orchestrator."""
        return OrchestratorCatalog(self.toolkit.library, self.config.subagent_rules())

    @property
    def library(self) -> SkillLibrary:
        """The skill library behind the toolkit."""
        return self.toolkit.library

    def session(
        self, limits: Limits | None = None, policy: ToolPolicy | None = None
    ) -> SkillSession:
        """A new, empty session (this adapter's limits and policy unless given)."""
        return self.restore(None, limits, policy)

    def restore(
        self,
        state: Mapping[str, Any] | None,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        *,
        load: Sequence[str] | None = None,
    ) -> SkillSession:
        """Rebuild a session from ``session.to_state()`` output. Never raises for what the
        state holds: unreadable state gives an empty session (logged), as in every adapter
        (:func:`skillcore.runtime.restore_session`). ``load``: as for :meth:`ensure`."""
        session = restore_session(
            state,
            self._catalog(),
            limits or self.limits,
            policy or self.policy,
            self.toolkit.names,
            self.touched,
        ).session
        # Turn start: pinned skills always, default skills in a new conversation, then the
        # run's requested ones.
        return self.toolkit.ensure(session, fresh=state is None, load=load)[0]

    #: The paths the work touches (see :meth:`touch_paths`).
    touched: frozenset[str] = frozenset()

    @cached_property
    def models(self) -> ModelSwitch:
        """The loaded skills' model for each model call (``model_resolver``; see
        :meth:`model_for`)."""
        return ModelSwitch(self.config.model_resolver)

    def touch_paths(self, paths: Iterable[str]) -> None:
        """Report the paths the work touches now (replacing the earlier report): a skill
        with ``paths:`` is offered to the model only while one of them matches its globs.
        Sessions made by :meth:`restore`, :meth:`session` and :meth:`load` from now on
        carry them (for one you hold: ``attrs.evolve(session, touched_paths=paths)``)."""
        self.touched = touched_paths(paths)

    def model_for(self, session: SkillSession) -> ModelOverride:
        """The model and effort for the next model call of ``session``'s conversation:
        ``.model`` is what ``model_resolver`` gives for the last loaded skill naming a model
        (None: use your own), ``.reasoning_effort`` the ``reasoning_effort`` to send (None:
        leave it out). Unknown names warn once and keep your model."""
        return self.models.choose(session)

    def ensure(self, session: SkillSession, *, load: Sequence[str] | None = None) -> SkillSession:
        """``session`` with the pinned skills loaded (those that were not: e.g. a session you
        keep yourself). :meth:`session`, :meth:`restore` and :meth:`load` already do this,
        and also load the default skills when a conversation starts.

        ``load``: skill names to load now (e.g. the user named them), under the model's load
        rules: unknown, ``disable-model-invocation`` and over-limit names are skipped and
        reported (``load_request.skipped``), a malformed value is ignored
        (``load_request.ignored``). Pass the messages as :meth:`instructions`' ``history``
        so their instructions reach the model."""
        return self.toolkit.ensure(session, load=load)[0]

    def load(
        self,
        conversation_id: str,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        *,
        load: Sequence[str] | None = None,
    ) -> SkillSession:
        """The session of a conversation as :meth:`save` left it (a new one, with the
        default skills, the first time), over the current catalog, with this adapter's limits
        and policy unless given (they are configuration, never read from saved state); the
        pinned skills are always loaded, then ``load`` (as for :meth:`ensure`). The loaded
        skills' ``SessionStart`` hooks run (their output reaches :meth:`instructions` with
        this ``conversation``)."""
        state = self.states.load(conversation_id)
        session = self.restore(state, limits, policy, load=load)
        rev = state.get("rev") if isinstance(state, Mapping) else None
        self._started.set(conversation_id, (rev if isinstance(rev, str) else "", session))
        self._track(session, conversation_id)
        with self._runs_lock:
            self._reported.pop(conversation_id)
        if self.toolkit.hooks.has_hooks(session):  # a turn starts: SessionStart hooks
            self.toolkit.hooks.session_start(session, conversation=conversation_id)
        return session

    def session_for(self, conversation_id: str) -> SkillSession:
        """The session of a conversation as :meth:`save` left it (a new one, with the
        default skills, when nothing is saved), over the current catalog, with the pinned
        skills loaded. Only reads: to run a turn, use :meth:`load`, which also remembers
        where the run started so a concurrent save by another worker is merged, not lost."""
        return self.restore(self.states.load(conversation_id))

    def save(self, conversation_id: str, session: SkillSession) -> None:
        """Save a conversation's session (e.g. after each :meth:`dispatch_all`).

        When this process :meth:`load`-ed the conversation and another worker saved it
        since (two workers on one conversation at once: a fork), the fork is reported
        (``state.forked``) and the saved state is the other worker's with this run's own
        effect applied (what it loaded and unloaded), as if the runs had followed each
        other: neither run's effect is lost, and a store with ``update`` (the SQL stores)
        does it in one transaction."""
        started = self._started.take(conversation_id)
        with self._runs_lock:
            reported = self._reported.pop(conversation_id)
        rev = uuid.uuid4().hex

        def change(current: dict[str, Any] | None) -> dict[str, Any]:
            state = session.to_state()
            if started is None:
                return {**state, "rev": rev, "parent": ""}
            parent, base = started
            found = current.get("rev", "") if isinstance(current, Mapping) else ""
            if current is not None and found != parent:
                if not reported:  # once per run: a dispatch may have reported it
                    events.emit(
                        "state.forked",
                        {
                            "conversation": conversation_id,
                            "expected": parent,
                            "found": found if isinstance(found, str) else "",
                            "at": "save",
                        },
                    )
                head = self.restore(current, session.limits, session.policy)
                state = apply_effect(head, effect_between(base, session)).to_state()
                parent = found if isinstance(found, str) else ""
            return {**state, "rev": rev, "parent": parent}

        update_state(self.states, conversation_id, change)

    # -- what the model sees ---------------------------------------------------------------

    def chat_tools(
        self, session: SkillSession, tools: Iterable[Mapping[str, Any]] = ()
    ) -> list[dict[str, Any]]:
        """``tools=`` entries for Chat Completions: the skill tools (none when there are no
        skills), then ``tools`` (your own, any shape, passed through) and the gated tools,
        each only if the model may be offered it now (see :meth:`offered`)."""
        specs = [chat_tool(s, strict=self.strict) for s in self.toolkit.specs(session)]
        return specs + self.offered(session, tools, chat_shape)

    def response_tools(
        self, session: SkillSession, tools: Iterable[Mapping[str, Any]] = ()
    ) -> list[dict[str, Any]]:
        """``tools=`` entries for the Responses API (as :meth:`chat_tools`)."""
        specs = [response_tool(s, strict=self.strict) for s in self.toolkit.specs(session)]
        return specs + self.offered(session, tools, response_shape)

    def offered(
        self,
        session: SkillSession,
        tools: Iterable[Mapping[str, Any]] = (),
        shape: Callable[[dict[str, Any]], dict[str, Any]] = dict,
    ) -> list[dict[str, Any]]:
        """``tools`` followed by the gated tools (converted by ``shape``), less those the
        model may not be offered now: locked gated tools and, with ``hide_blocked_tools``
        under RESTRICT, tools the loaded skills block. Calls are checked either way."""
        candidates = [dict(t) for t in tools] + [shape(t) for t in self.gated_tools]
        names = [tool_name(t) for t in candidates]
        shown = set(
            session.offered_tools(
                (n for n in names if n is not None), hide_blocked=self.config.hide_blocked_tools
            )
        )
        return [t for t, n in zip(candidates, names) if n is None or n in shown]

    def agent_tools(self) -> frozenset[str] | None:
        """Every tool name the dispatcher can run (skill tools, handlers, gated tools), or
        None when it does not know them (no ``handlers``): what a skill's allowed-tools are
        checked against when it is loaded (``TOOL_NOT_AVAILABLE``)."""
        if self.handlers is None:
            return None
        return frozenset({*self.toolkit.tool_names, *self.handlers, *self.policy.gated_tools})

    def instructions(
        self,
        session: SkillSession,
        base: str = "",
        *,
        budget: int | None = None,
        query: str | None = None,
        history: Any = None,
        conversation: str = "",
    ) -> str:
        """``base`` followed by the skill catalog (just ``base`` when there are no skills).

        ``query``: the latest user message (:func:`latest_user_text` of your messages), which
        orders the catalog when ``catalog_order="relevance"``; pass the same one on every
        model call of a user message and the text stays the same.

        Loaded skills whose load reply is not in ``history`` (the messages/input items the
        model receives) get their instructions appended, as in every adapter; without
        ``history``, those of the configured skills (``default_skills``, ``pinned_skills``),
        which no tool reply delivered.

        ``conversation``: as given to :meth:`dispatch`: the text of the loaded skills'
        hooks waiting for this conversation's next model call is appended (once)."""
        catalog = self.toolkit.instructions(session, budget, query)
        if catalog:
            only = self.toolkit.preset if history is None else None
            seen = self._seen(session, history) if history is not None else frozenset()
            missing = self.reinjection.missing(session, seen, only=only)
            if missing:
                catalog += "\n\n" + self.reinjection.text(session, missing)
        hooks = self.toolkit.hooks.context(conversation)
        return "\n\n".join(part for part in (base.rstrip(), catalog, hooks) if part)

    def _seen(self, session: SkillSession, history: Any) -> frozenset[str]:
        """Loaded skills whose delivery (the reply to the recorded load call id) is in
        ``history``. A history is known by its first item: appending to the same list costs
        only the new items; any other list is read once."""
        items = history if isinstance(history, Sequence) else list(history)
        key = ("history", id(items[0])) if items else ("history", None)
        return self.deliveries.visible(session, items, replies_of, conversation=key, calls=calls_of)

    def _hidden(self, session: SkillSession, history: Any) -> frozenset[str]:
        """Loaded skills whose delivery is not in ``history`` (none when it is not given)."""
        if history is None or not session.loaded:
            return frozenset()
        return frozenset(session.loaded_names) - self._seen(session, history)

    def with_suggestions(self, session: SkillSession, messages: Any) -> Any:
        """Your ``messages`` (Chat Completions) or ``input`` (Responses) with the "skills that
        may fit this request" note after each user message, to send instead of them; yours
        are not changed. The note depends only on the catalog and the message text, so every
        request extends the one before and the prompt cache keeps the whole history."""
        return with_notes(messages, partial(self.toolkit.suggestion_note, session))

    # -- the user's own invocation: ``/name args`` ----------------------------------------

    def invoke_user_message(
        self,
        target: SkillSession | SessionStore,
        message: Any,
        *,
        api: Literal["chat", "responses"] = "chat",
        conversation: str = "",
    ) -> UserInvocation | None:
        """Call with each new user message (text, a user message or a Responses input item)
        before the model: when it invokes a skill (``/name args``, ``$name args``) the skill
        is loaded with its arguments, user-only skills included, and the result's
        ``messages`` go after the user's message (a load call and its output); a refused
        invocation's ``messages`` are the reply to the user, and the model is not called.
        None for ordinary text. ``conversation``: the session id the skill may name."""
        text = user_text(message)
        if text is None:
            return None
        result = self.toolkit.invoke(
            target, text, session_id=conversation or None, available=self.agent_tools()
        )
        if result is None:
            return None
        return UserInvocation(result.session, result, invocation_messages(result, api))

    async def ainvoke_user_message(
        self,
        target: SkillSession | SessionStore,
        message: Any,
        *,
        api: Literal["chat", "responses"] = "chat",
        conversation: str = "",
    ) -> UserInvocation | None:
        """Async :meth:`invoke_user_message`."""
        text = user_text(message)
        if text is None:
            return None
        result = await self.toolkit.ainvoke(
            target, text, session_id=conversation or None, available=self.agent_tools()
        )
        if result is None:
            return None
        return UserInvocation(result.session, result, invocation_messages(result, api))

    def is_skill_call(self, call: Any) -> bool:
        """True if ``call`` targets one of the skill tools."""
        return self.toolkit.is_skill_tool(parse_call(call).name)

    # -- dispatch --------------------------------------------------------------------------

    def dispatch(
        self,
        target: SkillSession | SessionStore,
        call: Any,
        *,
        history: Any = None,
        conversation: str = "",
        approved: bool = False,
    ) -> ToolCallResult:
        """Apply one tool call to a session (or a :class:`skillcore.runtime.SessionStore` your loop
        shares between concurrent calls); never raises for bad model input. Thread the
        returned session into the next call, or use :meth:`dispatch_all`.

        Under the APPROVE policy a call no loaded skill pre-approves is not run: its result
        has ``needs_approval`` and no message. Ask the user, then dispatch it again with
        ``approved=True`` (or reply to it yourself).

        ``history``: the messages/input items the model received. A load of a loaded skill
        whose load reply is not among them sends its instructions again (``REDELIVERED``)
        rather than ``ALREADY_LOADED``; pass it when you trim or compact history.
        ``conversation``: the key of the conversation (its skill hooks' ``once`` memory and
        text for the next model call, see :meth:`instructions`)."""
        store = as_store(target)
        gone = self._hidden(store.read(), history)
        if not isinstance(target, SkillSession) or self.toolkit.is_skill_tool(name_of(call)):
            return self._dispatch(store, call, gone, conversation, approved)
        checked = self._fork_check(store, target)
        result = self._dispatch(checked, call, gone, conversation, approved)
        self._track(result.session, self._conversation_of(target))
        return result

    def _dispatch(
        self,
        store: SessionStore,
        call: Any,
        gone: frozenset[str],
        conversation: str = "",
        approved: bool = False,
    ) -> ToolCallResult:
        c = parse_call(call)
        if self.toolkit.is_skill_tool(c.name):
            result = self.toolkit.call(
                store,
                c.name,
                c.arguments,
                hidden=gone,
                available=self.agent_tools(),
                call_id=c.call_id,
                approved=approved,
            )
            return self._skill(store, c, result)
        plan = self._plan(store, c, approved)
        if isinstance(plan, ToolCallResult) and plan.handled:  # refused: a reply
            return plan
        # The policy allowed the call: the loaded skills' hooks may still block it.
        session, hooks = store.read(), self.toolkit.hooks
        if hooks.has_hooks(session):
            refused = hooks.pre_tool(session, c.name, c.arguments, conversation=conversation)
            if refused is not None:
                return self._refused(store, c, refused)
        if isinstance(plan, ToolCallResult):
            return plan  # allowed, left for the caller to run
        try:
            out = plan[0](plan[1], **plan[3])
        except Exception as exc:
            return self._failed(store, c, exc, plan[2])
        if inspect.isawaitable(out):
            if inspect.iscoroutine(out):
                out.close()
            raise TypeError(f"the handler of {c.name!r} is async: use adispatch/adispatch_all")
        done = self._handled(store, c, out, plan[2])
        if hooks.has_hooks(session):
            hooks.post_tool(session, c.name, c.arguments, done.output, conversation=conversation)
        return done

    async def adispatch(
        self,
        target: SkillSession | SessionStore,
        call: Any,
        *,
        history: Any = None,
        conversation: str = "",
        approved: bool = False,
    ) -> ToolCallResult:
        """Async :meth:`dispatch` (file reads and async handlers do not block the loop)."""
        store = as_store(target)
        gone = self._hidden(store.read(), history)
        if not isinstance(target, SkillSession) or self.toolkit.is_skill_tool(name_of(call)):
            return await self._adispatch(store, call, gone, conversation, approved)
        checked = self._fork_check(store, target)
        result = await self._adispatch(checked, call, gone, conversation, approved)
        self._track(result.session, self._conversation_of(target))
        return result

    async def _adispatch(
        self,
        store: SessionStore,
        call: Any,
        gone: frozenset[str],
        conversation: str = "",
        approved: bool = False,
    ) -> ToolCallResult:
        c = parse_call(call)
        if self.toolkit.is_skill_tool(c.name):
            result = await self.toolkit.acall(
                store,
                c.name,
                c.arguments,
                hidden=gone,
                available=self.agent_tools(),
                call_id=c.call_id,
                approved=approved,
            )
            return self._skill(store, c, result)
        return await self._arun(store, c, self._plan(store, c, approved), conversation)

    async def _arun(
        self,
        store: SessionStore,
        c: FunctionCall,
        plan: ToolCallResult | _Plan,
        conversation: str = "",
    ) -> ToolCallResult:
        if isinstance(plan, ToolCallResult) and plan.handled:  # refused: a reply
            return plan
        session, hooks = store.read(), self.toolkit.hooks
        if hooks.has_hooks(session):
            refused = await hooks.apre_tool(session, c.name, c.arguments, conversation=conversation)
            if refused is not None:
                return self._refused(store, c, refused)
        if isinstance(plan, ToolCallResult):
            return plan
        try:
            out = plan[0](plan[1], **plan[3])
            if inspect.isawaitable(out):
                out = await out
        except Exception as exc:
            return self._failed(store, c, exc, plan[2])
        result = self._handled(store, c, out, plan[2])
        if hooks.has_hooks(session):
            await hooks.apost_tool(
                session, c.name, c.arguments, result.output, conversation=conversation
            )
        return result

    def _refused(
        self, store: SessionStore, c: FunctionCall, decision: ToolDecision
    ) -> ToolCallResult:
        """The reply to a call a skill's ``PreToolUse`` hook blocked."""
        text, code = replies.blocked(decision), replies.blocked_code(decision)
        return self._error(store, c, text, code, decision)

    def dispatch_all(
        self,
        session: SkillSession,
        calls: Iterable[Any] | None,
        *,
        history: Any = None,
        conversation: str = "",
    ) -> TurnResult:
        """Apply every tool call of one assistant message, in order; returns the final
        session and the messages to append. A handler that raises gets an error reply for
        its call (see ``on_handler_error``); the other calls are unaffected. ``history``:
        see :meth:`dispatch`."""
        store = SessionRef(session)
        # Computed once, on the session the history belongs to: skills loaded by earlier
        # calls of this message are not missing from it.
        gone = self._hidden(session, history)
        items = list(calls or ())
        checked = self._fork_check(store, session) if self._plain(items) else store
        results = tuple(self._dispatch(checked, c, gone, conversation) for c in items)
        self._track(store.session, self._conversation_of(session))
        return TurnResult(store.session, results)

    def _plain(self, calls: list[Any]) -> bool:
        """Whether a model turn has a plain call (only those need the fork check's read)."""
        return any(not self.toolkit.is_skill_tool(name_of(c)) for c in calls)

    async def adispatch_all(
        self,
        session: SkillSession,
        calls: Iterable[Any] | None,
        *,
        history: Any = None,
        conversation: str = "",
    ) -> TurnResult:
        """Apply the calls of one assistant message concurrently. Each is decided in call
        order (a call waits for the earlier skill calls, never for handlers), so the result
        equals :meth:`dispatch_all`'s while file reads and handlers overlap."""
        items = list(calls or ())
        gone = self._hidden(session, history)
        # A fresh key per turn: the session is passed in, so no other call can share it.
        # The model's call ids key the turn (a call worked out again records the id its
        # reply carries); positions stand in when ids are missing or repeated.
        ids = [id_of(c) for c in items]
        if len(set(ids)) != len(ids) or "" in ids:
            ids = [str(i) for i in range(len(items))]
        turn = TurnCalls.of(
            f"adispatch-{next(_turn_ids)}",
            "turn",
            [(ids[i], name_of(c), arguments_of(c)) for i, c in enumerate(items)],
            self.toolkit.is_skill_tool,
        )
        have = self.agent_tools()
        checked = self._fork_check(None, session) if self._plain(items) else None
        fork = checked if isinstance(checked, ForkCheck) else None
        views = [
            self.turns.enter(turn, ids[i], session, hidden=gone, available=have)
            for i in range(len(items))
        ]
        results: list[ToolCallResult | None] = [None] * len(items)
        errors: list[BaseException | None] = [None] * len(items)

        async def one(i: int) -> None:
            # Errors (only caller misuse, or on_handler_error="raise") are collected rather
            # than raised so the caller sees the exception itself, not an ExceptionGroup.
            try:
                results[i] = await self._ordered(views[i], items[i], gone, conversation, fork)
            except Exception as exc:
                errors[i] = exc

        async with anyio.create_task_group() as tg:
            for i in range(len(items)):
                tg.start_soon(one, i)
        for exc in errors:
            if exc is not None:
                raise exc
        final = views[-1].read() if views else session
        self._track(final, self._conversation_of(session))
        return TurnResult(final, tuple(r for r in results if r is not None))

    async def _ordered(
        self,
        view: TurnCall,
        call: Any,
        gone: frozenset[str],
        conversation: str,
        fork: ForkCheck | None = None,
    ) -> ToolCallResult:
        async with view:
            c = parse_call(call)
            if self.toolkit.is_skill_tool(c.name):
                return await self._adispatch(view, c, gone, conversation)
            checked = view if fork is None else ForkCheck(view, fork.head, fork.base)
            plan = self._plan(checked, c)
        # Handlers (and hooks) run after the turn moved on: later calls never wait for them.
        return await self._arun(view, c, plan, conversation)

    def _skill(self, store: SessionStore, c: FunctionCall, res: ToolResult) -> ToolCallResult:
        message = tool_output(c, res.text, is_error=not res.ok, binary=res.binary)
        followup = (
            attachment_message(res.binary) if res.binary is not None and c.api == "chat" else None
        )
        return ToolCallResult(
            store.read(), message, c, res.text, not res.ok, res.code, result=res, followup=followup
        )

    def _error(
        self,
        store: SessionStore,
        c: FunctionCall,
        text: str,
        code: OutcomeCode,
        decision: ToolDecision | None = None,
    ) -> ToolCallResult:
        return ToolCallResult(
            store.read(),
            tool_output(c, text, is_error=True),
            c,
            text,
            True,
            code,
            decision=decision,
        )

    def _plan(
        self, store: SessionStore, c: FunctionCall, approved: bool = False
    ) -> ToolCallResult | _Plan:
        handler = None if self.handlers is None else self.handlers.get(c.name)
        if self.handlers is not None and handler is None:
            # Unknown before blocked: a tool that does not exist is reported as such, even
            # while a skill restricts the tools (the model would otherwise try to unload).
            known = ", ".join([*self.toolkit.tool_names, *self.handlers]) or "(none)"
            text = replies.error(
                f"there is no tool named {c.name[:80]!r}. Available tools: {known}."
            )
            return self._error(store, c, text, OutcomeCode.UNKNOWN_TOOL)
        # Refused if its turn timed out; the arguments feed patterns such as Bash(git:*):
        # exactly what the handler gets (a custom tool's raw text; unreadable: None).
        raw = "" if c.arguments is None else c.arguments
        seen = (RawInput(raw) if isinstance(raw, str) else None) if c.custom else c.arguments
        decision = self.toolkit.check_call(store, c.name, arguments=seen)
        if not decision.allowed:
            return self._error(
                store, c, replies.blocked(decision), replies.blocked_code(decision), decision
            )
        if handler is None or (decision.needs_approval and not approved):
            # Yours to run; under APPROVE, after the user approves (``needs_approval``).
            return ToolCallResult(store.read(), None, c, None, False, decision=decision)
        extras = {"call": c, "session": store.read()}
        wanted = {k: extras[k] for k in _wants(handler)}
        if c.custom:
            return handler, "" if c.arguments is None else c.arguments, decision, wanted
        try:
            args = parse_json_object(c.arguments)
        except ArgumentError as exc:
            text = replies.invalid_arguments(c.name, str(exc))
            return self._error(store, c, text, OutcomeCode.INVALID_ARGUMENTS, decision)
        return handler, args, decision, wanted

    def _failed(
        self, store: SessionStore, c: FunctionCall, exc: Exception, decision: ToolDecision
    ) -> ToolCallResult:
        if self.on_handler_error == "raise":
            raise exc
        if callable(self.on_handler_error):
            text = self.on_handler_error(c, exc)
        else:
            text = replies.tool_failed(c.name, exc)
        return self._error(store, c, text, OutcomeCode.TOOL_FAILED, decision)

    def _handled(
        self, store: SessionStore, c: FunctionCall, out: Any, decision: ToolDecision
    ) -> ToolCallResult:
        text = out if isinstance(out, str) else json.dumps(out, default=str, ensure_ascii=False)
        return ToolCallResult(store.read(), tool_output(c, text), c, text, False, decision=decision)


def _wants(handler: Handler) -> tuple[str, ...]:
    """Which of ``call`` / ``session`` the handler takes as keyword arguments."""
    try:
        params = inspect.signature(handler).parameters
    except (TypeError, ValueError):  # builtins without a signature take neither
        return ()
    return tuple(
        k
        for k in _EXTRAS
        if k in params
        and params[k].kind
        in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    )


_turn_ids = itertools.count(1)
