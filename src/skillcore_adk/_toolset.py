"""``SkillToolset``: the skill tools as a Google ADK ``BaseToolset``.

Translation only: schemas, argument validation, execution, rendering and the tool policy all
come from :class:`skillcore.SkillToolkit` and :class:`skillcore.SkillSession`; what a model
call gets from :class:`skillcore.runtime.model_calls.ModelCalls`. Reading ADK's requests is in
:mod:`skillcore_adk._requests`, a tool call's translation in :mod:`skillcore_adk._calls`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset, ToolPredicate
from google.adk.tools.function_tool import FunctionTool
from google.genai import types

from skillcore import Ledger, OutcomeCode, SkillConfig, SkillSession, ToolDecision
from skillcore.runtime import (
    AdapterAttributes,
    AdapterParts,
    CatalogMemo,
    ForkRequest,
    ModelCalls,
    ModelSwitch,
    Recent,
    Sources,
    ToolSpec,
    TurnCall,
    enter_turn,
    locate_turn,
    removes_tools,
    replies,
    wants_tools,
)
from skillcore_adk import _calls, _requests
from skillcore_adk._calls import ClearedCalls, StateBinding
from skillcore_adk._requests import latest_user_text as _latest_user_text
from skillcore_adk._scan import SharedScan

if TYPE_CHECKING:
    from google.adk.agents.readonly_context import ReadonlyContext
    from google.adk.models.llm_request import LlmRequest
    from google.adk.tools.tool_context import ToolContext

#: Session-state key prefix; the full key is ``"<prefix>:<agent name>"``.
DEFAULT_STATE_KEY_PREFIX = "skillcore"

#: How many model calls' sets of missing load replies are kept (the tools of a model response
#: look theirs up; older entries are only needed by calls still running).
_HIDDEN_KEPT = 256

#: ADK's own control-flow tool for handing a conversation to another agent.
AGENT_TRANSFER_TOOL = "transfer_to_agent"


def _adk_schema(spec: ToolSpec) -> dict[str, Any]:
    """The spec's JSON Schema in the shape ADK/Gemini expect for optional arguments.

    The core schema is OpenAI-strict (optional = required + nullable). Gemini expresses an
    optional argument by leaving it out of ``required``; the toolkit accepts both.
    """
    schema = spec.json_schema()
    props: dict[str, Any] = schema.get("properties", {})
    optional = []
    for name, prop in props.items():
        kind = prop.get("type")
        if isinstance(kind, list) and "null" in kind:
            rest = [k for k in kind if k != "null"]
            prop["type"] = rest[0] if len(rest) == 1 else rest
            optional.append(name)
    schema["required"] = [r for r in schema.get("required", []) if r not in optional]
    return schema


class SkillTool(BaseTool):
    """One skill tool (``load_skill``, ``unload_skill``, ``load_skill_resource`` or
    ``search_skills``) whose declaration comes from the toolkit's :class:`ToolSpec`."""

    def __init__(self, toolset: SkillToolset, spec: ToolSpec) -> None:
        super().__init__(name=spec.name, description=spec.description)
        self.spec = spec
        self._toolset = toolset
        self._declaration = types.FunctionDeclaration(
            name=spec.name, description=spec.description, parameters_json_schema=_adk_schema(spec)
        )

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        # Built once (validating it costs more than the rest of a model call's skill work);
        # a shallow copy per request so a request that renames or edits it cannot leak back.
        return self._declaration.model_copy(update={"name": self.name})

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the call through the toolkit, in call order, on the live session state. A
        script run with ``confirm_scripts`` first asks for ADK tool confirmation."""
        toolkit = self._toolset.toolkit
        session = self._toolset.session_for(tool_context)
        if toolkit.needs_approval(session, self.spec.name, args):
            confirmation = tool_context.tool_confirmation
            if confirmation is None:
                hint = replies.script_confirmation_hint(
                    args.get("skill_name"), args.get("script"), args.get("args")
                )
                tool_context.request_confirmation(hint=hint)
                tool_context.actions.skip_summarization = True
                text = replies.error(replies.SCRIPT_AWAITING_CONFIRMATION)
                return _calls.error(text, OutcomeCode.SCRIPT_DECLINED)
            if not confirmation.confirmed:
                text = replies.script_declined(
                    str(args.get("skill_name")), str(args.get("script")), "the user rejected it"
                )
                return _calls.error(text, OutcomeCode.SCRIPT_DECLINED)
            return await self._toolset._run(self.spec.name, args, tool_context, approved=True)
        return await self._toolset._run(self.spec.name, args, tool_context)

    def _detect_error_in_response(self, response: Any) -> str | None:
        # ADK's telemetry hook (read with getattr): report our stable code as the error type.
        if isinstance(response, dict) and response.get("error"):
            return str(response.get("error_code") or "TOOL_ERROR")
        return None


class GatedTool(BaseTool):
    """A skill-gated tool as the toolset hands it to ADK: its declaration reaches the model
    only while a loaded skill names it; a call while it is locked is refused
    (``TOOL_LOCKED``) here, even without the policy callback or plugin."""

    def __init__(self, toolset: SkillToolset, inner: BaseTool) -> None:
        super().__init__(
            name=inner.name, description=inner.description, is_long_running=inner.is_long_running
        )
        self.inner = inner
        self._toolset = toolset

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return self.inner._get_declaration()

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Declare the tool only while unlocked; either way calls by its name land here."""
        if self.name in self._toolset.session_for(tool_context).unlocked_tools:
            await self.inner.process_llm_request(tool_context=tool_context, llm_request=llm_request)
        llm_request.tools_dict[self.name] = self

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the tool, unless the policy callback did not clear this call and it is locked."""
        request = _requests.request_key(tool_context)
        if not self._toolset.cleared.take(request, tool_context.function_call_id):
            decision = self._toolset.check_tool(self.name, tool_context, args)
            if not decision.allowed:
                return _calls.error(replies.blocked(decision), replies.blocked_code(decision))
        return await self.inner.run_async(args=args, tool_context=tool_context)


class SkillToolset(BaseToolset, AdapterAttributes):
    """Agent Skills for a Google ADK agent: catalog in the instructions, four tools, load state.

    ``SkillToolset("./skills")`` or ``SkillToolset(SkillLibrary([...]))``. Add it to
    ``LlmAgent(tools=[...])``. Loaded skills are stored in the session state under
    ``"skillcore:<agent name>"`` (JSON, without the catalog), so every agent of a session has
    its own loaded set and any ADK session service persists it.

    RESTRICT enforcement needs one of
    ``LlmAgent(before_tool_callback=toolset.before_tool_callback)`` (one agent) or
    ``App(plugins=[SkillPolicyPlugin()])`` (every agent of an app).
    """

    def __init__(
        self,
        skills: Sources | None = None,
        config: SkillConfig | None = None,
        *,
        allow_agent_transfer: bool = True,
        refresh: bool | float | None = None,
        state_key_prefix: str = DEFAULT_STATE_KEY_PREFIX,
        tool_filter: ToolPredicate | list[str] | None = None,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        ledger: Ledger | None = None,
        user_invocation: bool = False,
        subagents: Mapping[str, Callable[[SkillToolset], Any]] | None = None,
        **options: Any,
    ) -> None:
        """Build the toolset.

        ``skills``: a :class:`SkillLibrary`, or paths/URLs/:class:`SkillSource`s for a new one
        (None: ``SKILLCORE_SOURCES`` or the settings file, see :mod:`skillcore.runtime.settings`;
        options not given, and ``refresh`` None, come from there too).
        ``config``: a :class:`~skillcore.SkillConfig`, or its fields as keyword ``options``
        (``max_loaded_skills``, ``allowed_tools_policy``, ``tool_name_prefix``, ``limits``,
        ...). ``tool_name_prefix`` is prepended verbatim (``"sc_"`` gives ``sc_load_skill``)
        so this toolset can sit next to ADK's own ``SkillToolset``. ``allow_agent_transfer``
        keeps ADK's ``transfer_to_agent`` usable under RESTRICT. ``refresh`` re-scans the
        sources (only changed files are read) once per invocation, or at most every
        ``refresh`` seconds, so skills added or removed show up on the next turn.
        ``tools``: skill-gated tools (``BaseTool`` objects or functions): part of this
        toolset, but declared to the model, and run, only while a loaded skill names them in
        ``metadata.adk_additional_tools`` (or ``metadata.include_tools``).
        ``ledger``: where workers sharing the session service record each session's latest
        skill state (e.g. ``SQLLedger.postgres(url)``), so two runs on one session at once are
        noticed (``state.forked``) and never lift a restriction.
        ``user_invocation``: a new user message ``/name args`` (or ``$name args``) loads
        that skill with its arguments at the agent's start, user-only skills included; a
        refused one is answered without calling the model. Needs the agent's
        ``before_agent_callback`` (or :class:`SkillPolicyPlugin`). Off by default.
        ``subagents``: the subagents forked skills (``context: fork``) run in, by the name
        their ``agent:`` field gives: ``factory(skill_toolset) -> LlmAgent``, run through
        ADK's ``AgentTool`` (see :mod:`skillcore_adk.subagents`).
        """
        # The prefix is applied by ToolNames, not by BaseToolset (which would add "_").
        super().__init__(tool_filter=tool_filter, tool_name_prefix=None)
        also = (AGENT_TRANSFER_TOOL,) if allow_agent_transfer else ()
        inner = [t if isinstance(t, BaseTool) else FunctionTool(t) for t in tools]
        gated = [t.name for t in inner]
        parts = AdapterParts.build(
            skills,
            config,
            refresh=refresh,
            also_allowed=also,
            gated=gated,
            ledger=ledger,
            framework="adk",
            **options,
        )
        parts.attach(self)
        self.gated = [GatedTool(self, t) for t in inner]
        self.state_key_prefix = state_key_prefix
        #: Whether a user message ``/name args`` invokes a skill (:meth:`before_agent_callback`).
        self.user_invocation = user_invocation
        self._init_memory()
        #: The subagents forked skills run in (None: forked skills are not started here).
        self.subagents: Any = None
        if subagents:
            from skillcore_adk.subagents import Subagents

            self.subagents = Subagents(self, subagents)

    def _init_memory(self) -> None:
        """What the toolset remembers between the hooks and calls of a run."""
        #: Function calls the policy callback cleared (see :class:`GatedTool`).
        self.cleared = ClearedCalls()
        #: The skill text of each model call (catalog, lost instructions, notes).
        self.model_calls = ModelCalls(self.toolkit)
        self.reinjection = self.model_calls.reinjection
        #: Where each agent's load replies sit in its requests (delivery by call id).
        self.deliveries = self.model_calls.deliveries
        #: The loaded skills' model for each model call (``model_resolver``).
        self.models = ModelSwitch(self.config.model_resolver)
        self._scan = SharedScan()
        # Per invocation and agent: the loaded skills whose load reply the last model request
        # lacked (what the model saw, after include_contents and any compaction). Skills
        # loaded after that request are never in it.
        self._hidden: Recent[str, frozenset[str]] = Recent(_HIDDEN_KEPT)
        # Declarations depend on the catalog only (the enum of skill names).
        self._tools_for: CatalogMemo[list[BaseTool]] = CatalogMemo(
            lambda catalog: [SkillTool(self, s) for s in self.toolkit.specs(catalog)]
        )

    # -- state -----------------------------------------------------------------------------

    def state_key(self, agent_name: str) -> str:
        """The session-state key holding ``agent_name``'s loaded skills."""
        return f"{self.state_key_prefix}:{agent_name}"

    def load_key(self, agent_name: str) -> str:
        """The session-state key of a run's request to load skills for ``agent_name`` (a list
        of names, e.g. ``state_delta={toolset.load_key("helper"): ["beta"]}``). It applies
        until the agent's next skill tool call saves the session, which clears it."""
        return f"{self.state_key(agent_name)}:load"

    def session_for(self, context: ReadonlyContext) -> SkillSession:
        """The skill session of the agent running in ``context`` (any ADK context); unreadable
        state resets to an empty session (reported) instead of failing every turn."""
        raw = context.state.get(self.state_key(context.agent_name))
        return self.session_from_state(
            raw, load=context.state.get(self.load_key(context.agent_name))
        )

    def session_from_state(self, raw: Any, *, load: object = None) -> SkillSession:
        """The session an agent's saved state value stands for, with the configured skills
        loaded (``pinned_skills`` always; ``default_skills`` while the agent has no state
        yet) and then ``load``, the run's request (:meth:`load_key`). ADK keeps no state
        written before a model call, so this is recomputed from the saved value until a
        skill tool call writes it."""
        return self.toolkit.ensure(self.restore(raw).session, fresh=raw is None, load=load)[0]

    async def _asession_for(self, context: ReadonlyContext) -> SkillSession:
        """Async :meth:`session_for` (configured skills are read without blocking the loop)."""
        raw = context.state.get(self.state_key(context.agent_name))
        load = context.state.get(self.load_key(context.agent_name))
        session = self.restore(raw).session
        return (await self.toolkit.aensure(session, fresh=raw is None, load=load))[0]

    def loaded_skills(self, context: ReadonlyContext) -> list[str]:
        """Names of the skills loaded by the agent running in ``context``."""
        return list(self.session_for(context).loaded_names)

    async def _ensure_catalog(self, invocation_id: str | None) -> None:
        """Discover on first use; then re-scan as :class:`~skillcore.RefreshGate` says (once
        per invocation). Concurrent callers (ADK resolves tools in parallel) share one scan."""
        await self._scan.ensure(self.library, self.refresh, invocation_id)

    # -- BaseToolset -----------------------------------------------------------------------

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The four skill tools; none when the catalog has no model-visible skill."""
        await self._ensure_catalog(readonly_context.invocation_id if readonly_context else None)
        tools = [*self._tools_for(self.restore.catalog()), *self.gated]
        return [t for t in tools if self._is_tool_selected(t, readonly_context)]

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Append the budgeted catalog (with ``[Loaded]`` marks) to the system instruction;
        name the loaded skills' model in the request (``model_resolver``).

        Reads state only: ADK drops state written here, so all writes happen in the tools.
        """
        await self._ensure_catalog(tool_context.invocation_id)
        session = await self._asession_for(tool_context)
        _requests.switch_model(llm_request, self.models.choose(session).model)
        # The request's contents are read once per conversation, then only what was added;
        # loaded skills whose delivery is not among them (configured skills, state preloaded
        # by hand, include_contents='none', compaction) get their instructions again.
        s, load = tool_context.session, self.names.load
        stripped = _requests.StrippedIds(s.events, load)
        seen = self.deliveries.visible(
            session,
            llm_request.contents or [],
            partial(_requests.load_replies, load=load, stripped=stripped),
            conversation=(s.app_name, s.user_id, s.id, tool_context.agent_name),
            key=_requests.content_key,
        )
        self._hidden.set(
            _requests.request_key(tool_context), frozenset(session.loaded_names) - seen
        )
        # Skills named like a tool the model can call (e.g. transfer_to_agent): both keep
        # working, and the model is told which a call by that name reaches.
        clash = _requests.clashing_skills(
            session, {*llm_request.tools_dict, *self.toolkit.tool_names}
        )
        text = await self.model_calls.ainstructions(
            session,
            seen,
            query=_latest_user_text(llm_request),
            extra=replies.name_collision(clash, self.names.load),
        )
        hooks = self.toolkit.hooks.context(_calls.conversation(tool_context))
        if hooks:  # the loaded skills' hook text, said once
            text = f"{text}\n\n{hooks}" if text else hooks
        if not text:
            return
        # Per-request suggestions go with the user messages, after the stable prefix.
        note_for = self.model_calls.note_for(session)
        if note_for is not None:
            _requests.add_notes(llm_request, note_for)
        llm_request.append_instructions([text])

    # -- tools -----------------------------------------------------------------------------

    async def _run(
        self, tool: str, args: Mapping[str, Any], tool_context: ToolContext, approved: bool = False
    ) -> Any:
        await self._ensure_catalog(tool_context.invocation_id)
        # A load fills ``{var}`` from the session state for skills with adk_inject_state.
        state = tool_context.state.to_dict() if tool == self.names.load else None
        fork = None
        async with await self._aturn(tool_context) as view:
            result = await self.toolkit.acall(
                view,
                tool,
                dict(args),
                **view.context,
                call_id=tool_context.function_call_id,
                state=state,
                approved=approved,
            )
            if self.subagents is not None and result.code is OutcomeCode.FORK:
                # A forked skill's load: its subagent runs it (or the refusal replies).
                forks = self.subagents.forks
                fork = await forks.arequest(view.read(), forks.skill_name(dict(args)))
        if isinstance(fork, ForkRequest):  # outside the turn: the subagent's calls are its own
            return await self.subagents.run(result.session, fork, tool_context)
        result = fork or result
        return _calls.reply(result, tool_context, self.state_key(tool_context.agent_name))

    async def _aturn(self, tool_context: ToolContext) -> TurnCall:
        """The call's place in its model turn (the event listing the function calls, with
        their arguments, so earlier calls can be worked out again), keyed by the ADK session
        and agent; the session itself is the live session state."""
        call_id = tool_context.function_call_id or ""
        history = _calls.history(tool_context.session)
        calls = locate_turn(self.toolkit, _calls.conversation(tool_context), call_id, history)
        key = self.state_key(tool_context.agent_name)
        binding = StateBinding(
            lambda raw, load: self.session_from_state(raw, load=load), tool_context.state, key
        )
        wanted = wants_tools(self.toolkit, calls, self.policy)
        have = await _calls.agent_tools(tool_context) if wanted else None
        request = _requests.request_key(tool_context)
        return enter_turn(
            self.toolkit,
            self.turns,
            calls,
            call_id,
            binding,
            rev=binding.rev(),
            hidden=lambda: self._hidden.get(request) or frozenset(),
            available=have,
        )

    # -- policy ----------------------------------------------------------------------------

    def check_tool(
        self, tool_name: str, context: ReadonlyContext, arguments: Mapping[str, Any] | None = None
    ) -> ToolDecision:
        """The allowed-tools decision for ``tool_name`` called by the agent in ``context``."""
        return self.session_for(context).check_tool(
            tool_name, arguments=arguments, pinned=self.toolkit.pinned_skills
        )

    async def before_tool_callback(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """RESTRICT enforcement for one agent: ``LlmAgent(before_tool_callback=...)``.

        Decided in the model's call order: after the earlier skill calls of the same model
        response. Returns an error response (and the tool does not run) when the loaded
        skills' ``allowed-tools`` do not cover ``tool``; ``None`` lets the call through.
        """
        if self.toolkit.is_skill_tool(tool.name):
            return None
        if self.toolkit.guards(self.policy, tool.name):
            async with await self._aturn(tool_context) as view:
                decision = self.toolkit.check_call(view, tool.name, arguments=args)
                session = view.read()
            if not decision.allowed:
                return _calls.error(replies.blocked(decision), replies.blocked_code(decision))
            if decision.needs_approval:
                unapproved = _calls.approval(tool.name, decision, tool_context)
                if unapproved is not None:
                    return unapproved
            request = _requests.request_key(tool_context)
            self.cleared.clear(request, tool_context.function_call_id)
        elif not self.toolkit.hooks.in_catalog(self.library.catalog):
            return None
        else:
            session = self.session_for(tool_context)
        # The policy allowed the call: the loaded skills' hooks may still block it.
        hooks = self.toolkit.hooks
        if not hooks.has_hooks(session):
            return None
        conversation = _calls.conversation(tool_context)
        refused = await hooks.apre_tool(session, tool.name, args, conversation=conversation)
        if refused is None:
            return None
        return _calls.error(replies.blocked(refused), replies.blocked_code(refused))

    async def after_tool_callback(
        self,
        tool: BaseTool,
        args: dict[str, Any],
        tool_context: ToolContext,
        tool_response: Any,
    ) -> dict[str, Any] | None:
        """The loaded skills' ``PostToolUse`` hooks (``LlmAgent(after_tool_callback=...)``, or
        the :class:`SkillPolicyPlugin`); what they say reaches the next model call. Never
        changes the response (returns None)."""
        hooks = self.toolkit.hooks
        if self.toolkit.is_skill_tool(tool.name) or not hooks.in_catalog(self.library.catalog):
            return None
        session = self.session_for(tool_context)
        if self.toolkit.hooks.has_hooks(session):
            conversation = _calls.conversation(tool_context)
            await self.toolkit.hooks.apost_tool(
                session, tool.name, args, tool_response, conversation=conversation
            )
        return None

    async def before_agent_callback(self, callback_context: Any) -> types.Content | None:
        """The loaded skills' ``SessionStart`` hooks, at the start of each agent run
        (``LlmAgent(before_agent_callback=...)``, or the :class:`SkillPolicyPlugin`); with
        ``user_invocation``, a new user message ``/name args`` loads that skill (a refusal
        is returned as the agent's reply, and ADK skips the model)."""
        await self._ensure_catalog(callback_context.invocation_id)
        if self.user_invocation:
            from skillcore_adk._invoke import invoke_user_message

            refused = await invoke_user_message(self, callback_context)
            if refused is not None:
                return refused
        session = self.session_for(callback_context)
        if self.toolkit.hooks.has_hooks(session):
            conversation = _calls.conversation(callback_context)
            await self.toolkit.hooks.asession_start(session, conversation=conversation)
        return None

    async def before_model_callback(self, callback_context: Any, llm_request: LlmRequest) -> None:
        """Leave the tools a loaded skill's ``disallowed-tools`` removes and, with
        ``hide_blocked_tools``, those the loaded skills block (RESTRICT) out of the request's
        declarations (``LlmAgent(before_model_callback=...)``, or the
        :class:`SkillPolicyPlugin`). Calls are still checked by the policy callback."""
        hide = self.config.hide_blocked_tools
        if hide or removes_tools(self.library.catalog):
            _requests.hide_blocked(llm_request, self.session_for(callback_context), hide)
        return None
