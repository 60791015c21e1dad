"""``SkillToolset``: the skill tools as a Google ADK ``BaseToolset``.

Translation only: schemas, argument validation, execution, rendering and the tool policy all
come from :class:`skillcore.SkillToolkit` and :class:`skillcore.SkillSession`.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset, ToolPredicate
from google.adk.tools.function_tool import FunctionTool
from google.genai import types

from skillcore import (
    OutcomeCode,
    SkillConfig,
    SkillSession,
    ToolDecision,
    ToolResult,
    ToolSpec,
    TurnCalls,
    replies,
)
from skillcore._deprecate import renamed_keywords
from skillcore.catalog.relevance import query_text
from skillcore.runtime.config import AdapterAttributes, AdapterParts, Sources
from skillcore.state.coordination import CatalogMemo, Ledger, TurnCall
from skillcore.tools.reinjection import DeliveryIndex, Reinjection

if TYPE_CHECKING:
    from google.adk.agents.readonly_context import ReadonlyContext
    from google.adk.models.llm_request import LlmRequest
    from google.adk.tools.tool_context import ToolContext

#: Session-state key prefix; the full key is ``"<prefix>:<agent name>"``.
DEFAULT_STATE_KEY_PREFIX = "skillcore"

#: How many model calls' sets of missing load replies are kept (the tools of a model response
#: look theirs up; older entries are only needed by calls still running).
_HIDDEN_KEPT = 256

#: Cleared function calls remembered for gated tools (oldest dropped first).
_CLEARED_KEPT = 4096

#: ADK's own control-flow tool for handing a conversation to another agent.
AGENT_TRANSFER_TOOL = "transfer_to_agent"


class _StateBinding:
    """One tool call's view of its agent's persisted skill state (ADK session state): a
    :class:`skillcore.SessionStore`, so the toolkit reads, transitions and writes it with no
    ``await`` in between and parallel calls of one model response never lose an update."""

    __slots__ = ("_raw", "_session", "key", "state", "toolset")

    def __init__(self, toolset: SkillToolset, state: Any, key: str) -> None:
        self.toolset = toolset
        self.state = state
        self.key = key
        self._raw: Any = None
        self._session: SkillSession | None = None

    def read(self) -> SkillSession:
        raw = self.state.get(self.key)
        # A call reads the state several times; state values are replaced, never mutated, so
        # the same object means the same session (saves re-validating it each time).
        if self._session is None or raw is not self._raw:
            request = self.state.get(f"{self.key}:load")
            self._raw, self._session = raw, self.toolset.session_from_state(raw, load=request)
        return self._session

    def rev(self) -> str:
        """The revision of the saved state ("" when it has none)."""
        raw = self.state.get(self.key)
        rev = raw.get("rev") if isinstance(raw, Mapping) else None
        return rev if isinstance(rev, str) else ""

    def write(self, session: SkillSession) -> None:
        self.write_marked(session, {})

    def write_marked(self, session: SkillSession, marks: Mapping[str, Any]) -> None:
        # A fresh dict assigned (never mutated in place) so ADK records the delta, and so its
        # merge of parallel calls can tell which write is the latest.
        self.state[self.key] = {**session.to_state(), **marks}
        self._raw, self._session = self.state.get(self.key), session
        # The saved session now holds the run's load request: consumed, so it is cleared.
        if self.state.get(f"{self.key}:load") is not None:
            self.state[f"{self.key}:load"] = None


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
        """Run the call through the toolkit, in call order, on the live session state."""
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
        if not self._toolset._cleared(tool_context):
            decision = self._toolset.check_tool(self.name, tool_context, args)
            if not decision.allowed:
                return self._toolset._error(
                    replies.blocked(decision), replies.blocked_code(decision)
                )
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

    @renamed_keywords(sources="skills")
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
        """
        # The prefix is applied by ToolNames, not by BaseToolset (which would add "_").
        super().__init__(tool_filter=tool_filter, tool_name_prefix=None)
        also = (AGENT_TRANSFER_TOOL,) if allow_agent_transfer else ()
        inner = [t if isinstance(t, BaseTool) else FunctionTool(t) for t in tools]
        AdapterParts.build(
            skills,
            config,
            refresh=refresh,
            also_allowed=also,
            gated=[t.name for t in inner],
            **options,
        ).attach(self)
        if ledger is not None:
            self.turns.ledger = ledger
        self.gated = [GatedTool(self, t) for t in inner]
        self.state_key_prefix = state_key_prefix
        self._init_memory()

    def _init_memory(self) -> None:
        """What the toolset remembers between the hooks and calls of a run."""
        # Function call ids the policy callback cleared (a gated tool then skips its own check,
        # which could not see earlier calls of the same model response).
        self._cleared_calls: OrderedDict[str, None] = OrderedDict()
        self.reinjection = Reinjection(self.toolkit)
        #: Where each agent's load replies sit in its requests (delivery by call id).
        self.deliveries = DeliveryIndex()
        self._pending: asyncio.Future[Any] | None = None
        # Per invocation and agent: the loaded skills whose load reply the last model request
        # lacked (what the model saw, after include_contents and any compaction). Skills
        # loaded after that request are never in it.
        self._hidden: OrderedDict[str, frozenset[str]] = OrderedDict()
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
        if not self.refresh.due(invocation_id or ""):
            pending = self._pending
            if (
                pending is not None
                and not pending.done()
                and (pending.get_loop() is asyncio.get_running_loop())
            ):
                await asyncio.shield(pending)
            return
        self._pending = asyncio.ensure_future(self.library.arefresh())
        try:
            # Shielded: one caller being cancelled must not cancel the scan the others share.
            await asyncio.shield(self._pending)
        except BaseException:
            self.refresh.reset()  # try again on the next call
            raise

    # -- BaseToolset -----------------------------------------------------------------------

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The four skill tools; none when the catalog has no model-visible skill."""
        await self._ensure_catalog(readonly_context.invocation_id if readonly_context else None)
        tools = [*self._tools_for(self.library.catalog), *self.gated]
        return [t for t in tools if self._is_tool_selected(t, readonly_context)]

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Append the budgeted catalog (with ``[Loaded]`` marks) to the system instruction.

        Reads state only: ADK drops state written here, so all writes happen in the tools.
        """
        await self._ensure_catalog(tool_context.invocation_id)
        session = await self._asession_for(tool_context)
        key = _request_key(tool_context)
        # The request's contents are read once per conversation, then only what was added.
        s = tool_context.session
        load = self.names.load
        seen = self.deliveries.visible(
            session,
            llm_request.contents or [],
            lambda content: _load_replies(content, load),
            conversation=(s.app_name, s.user_id, s.id, tool_context.agent_name),
            key=_content_key,
        )
        self._hidden[key] = frozenset(session.loaded_names) - seen
        self._hidden.move_to_end(key)
        while len(self._hidden) > _HIDDEN_KEPT:
            self._hidden.popitem(last=False)
        text = self.toolkit.instructions(session, query=_latest_user_text(llm_request))
        if not text:
            return
        # Per-request suggestions go with the user messages, after the stable prefix (a walk
        # over the request, so only when the note is on).
        if self.toolkit.suggestions:
            _add_notes(llm_request, partial(self.toolkit.suggestion_note, session))
        note = self._collision_note(session, llm_request)
        # Loaded skills whose delivery is not in this request (configured skills, state
        # preloaded by hand, include_contents='none', compaction): their instructions go in
        # the system instruction, as in every adapter.
        missing = self.reinjection.missing(session, seen)
        if missing:
            note = f"{note}\n{await self.reinjection.atext(session, missing)}"
        llm_request.append_instructions([text + note] if note else [text])

    def _collision_note(self, session: SkillSession, llm_request: LlmRequest) -> str:
        """A warning for skills named like a tool the model can call (e.g. transfer_to_agent).

        Both keep working -- a call by that name runs the tool, the skill is reached through
        the load tool -- and the model is told so instead of guessing.
        """
        catalog = session.catalog
        names = {*llm_request.tools_dict, *self.toolkit.tool_names}
        clash = sorted(
            n for n in names if (m := catalog.get(n)) is not None and not m.disable_model_invocation
        )
        if not clash:
            return ""
        listed = ", ".join(clash)
        return (
            f"\nNote: the skill(s) {listed} share a name with a tool. Calling the tool by that "
            "name runs the tool, not the skill; to use the skill, call "
            f'{self.names.load} with skill_name="<name>".\n'
        )

    # -- tools -----------------------------------------------------------------------------

    async def _run(self, tool: str, args: Mapping[str, Any], tool_context: ToolContext) -> Any:
        await self._ensure_catalog(tool_context.invocation_id)
        async with await self._aturn(tool_context) as view:
            result = await self.toolkit.acall(
                view, tool, dict(args), **view.context, call_id=tool_context.function_call_id
            )
        return self._reply(result, tool_context)

    async def _agent_tools(self, tool_context: ToolContext) -> frozenset[str] | None:
        """Names of the calling agent's tools (None when they cannot be resolved: the
        TOOL_NOT_AVAILABLE check is then skipped)."""
        agent = getattr(getattr(tool_context, "_invocation_context", None), "agent", None)
        resolve = getattr(agent, "canonical_tools", None)
        if resolve is None:
            return None
        try:
            tools = await resolve(tool_context)
        except Exception:  # a toolset that fails to list its tools: skip the check
            return None
        return frozenset(t.name for t in tools)

    async def _aturn(self, tool_context: ToolContext) -> TurnCall:
        """The call's place in its model turn (the event listing the function calls, with
        their arguments, so earlier calls can be worked out again), keyed by the ADK session
        and agent; the session itself is the live session state."""
        call_id = tool_context.function_call_id or ""
        s = tool_context.session
        turns = (
            (e.id, ((c.id or "", c.name or "", c.args) for c in e.get_function_calls()))
            for e in reversed(s.events)
        )
        conversation = f"{s.app_name}|{s.user_id}|{s.id}|{tool_context.agent_name}"
        calls = TurnCalls.locate(conversation, call_id, turns, self.toolkit.is_skill_tool)
        binding = _StateBinding(self, tool_context.state, self.state_key(tool_context.agent_name))
        loads = self.names.load in calls.args_tools()
        check = loads and self.toolkit.check_tools_available
        have = await self._agent_tools(tool_context) if check else None
        gone = self._hidden.get(_request_key(tool_context), frozenset())
        return self.turns.enter(
            calls, call_id, binding, hidden=gone, available=have, rev=binding.rev()
        )

    def _reply(self, result: ToolResult, tool_context: ToolContext) -> dict[str, Any]:
        if result.ok:
            if result.binary is not None:
                # ADK moves a returned Part into FunctionResponse.parts (inline data).
                blob = types.Blob(data=result.binary.data, mime_type=result.binary.mime_type)
                return {"result": result.text, "content": types.Part(inline_data=blob)}
            return {"result": result.text}
        text = result.text
        if result.terminal:
            text = self._repeat_guard(result, tool_context) or text
        return self._error(text, result.code)

    def _repeat_guard(self, result: ToolResult, tool_context: ToolContext) -> str | None:
        """Stop retry loops: the same failing call again in one invocation gets a firmer reply.

        Kept under ``temp:`` so it lives for the invocation only and is never persisted.
        """
        key = f"temp:{self.state_key(tool_context.agent_name)}:terminal"
        seen = list(tool_context.state.get(key) or [])
        marker = f"{result.tool}\x1f{result.text}"
        count = seen.count(marker) + 1
        tool_context.state[key] = [*seen, marker]
        if count < 2:
            return None
        return (
            f"{result.text} This exact call has now failed {count} times in this turn with "
            f"{result.code.value}; it cannot succeed. Stop retrying it: continue without it or "
            "tell the user what is missing."
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
        if not self.toolkit.guards(self.policy, tool.name):
            return None
        async with await self._aturn(tool_context) as view:
            decision = self.toolkit.check_call(view, tool.name, arguments=args)
        if decision.allowed:
            self._clear(tool_context)
            return None
        return self._error(replies.blocked(decision), replies.blocked_code(decision))

    def _clear(self, tool_context: ToolContext) -> None:
        key = f"{_request_key(tool_context)}|{tool_context.function_call_id}"
        self._cleared_calls[key] = None
        while len(self._cleared_calls) > _CLEARED_KEPT:
            self._cleared_calls.popitem(last=False)

    def _cleared(self, tool_context: ToolContext) -> bool:
        key = f"{_request_key(tool_context)}|{tool_context.function_call_id}"
        return self._cleared_calls.pop(key, 0) is None

    async def before_model_callback(self, callback_context: Any, llm_request: LlmRequest) -> None:
        """With ``hide_blocked_tools``: leave the tools the loaded skills block (RESTRICT)
        out of the request's declarations (``LlmAgent(before_model_callback=...)``, or the
        :class:`SkillPolicyPlugin`). Calls are still checked by the policy callback."""
        if not self.config.hide_blocked_tools:
            return None
        session = self.session_for(callback_context)
        names = [
            d.name
            for t in (llm_request.config.tools or ())
            if isinstance(t, types.Tool)
            for d in t.function_declarations or ()
            if d.name
        ]
        shown = set(session.offered_tools(names, hide_blocked=True))
        for t in llm_request.config.tools or ():
            if isinstance(t, types.Tool) and t.function_declarations:
                t.function_declarations = [
                    d for d in t.function_declarations if not d.name or d.name in shown
                ]
        return None

    @staticmethod
    def _error(text: str, code: OutcomeCode) -> dict[str, Any]:
        return {"error": text, "error_code": code.value}


def _request_key(context: ReadonlyContext) -> str:
    return f"{context.invocation_id}|{context.agent_name}"


def _load_replies(content: types.Content, load: str) -> list[tuple[str | None, object]]:
    """The load tool's replies in one request content, as ``(function response id,
    result)`` for :meth:`SkillSession.delivered`. Only responses named ``load`` are read: ADK
    sets a response's name from its call, never from what a tool returned. ADK removes its
    own ``adk-`` ids from requests to models that pair calls by position; such a reply
    comes with the id None."""
    out: list[tuple[str | None, object]] = []
    for part in content.parts or ():
        response = part.function_response
        if response is not None and response.name == load:
            body = response.response
            # A plain dict check: an ABC isinstance would cost more than the whole read.
            if type(body) is dict:
                out.append((response.id, body.get("result")))
    return out


def _content_key(content: types.Content) -> object:
    """What identifies a request content across the copies ADK makes for every request:
    its first part's payload (text, call arguments or response), shared with the session
    event it was copied from."""
    parts = content.parts
    if not parts:
        return None
    part = parts[0]
    if part.text is not None:
        return id(part.text)
    if part.function_response is not None:
        return id(part.function_response.response)
    if part.function_call is not None:
        return id(part.function_call.args)
    return None


def _add_notes(llm_request: LlmRequest, note_for: Callable[[str | None], str]) -> None:
    """Give each user-authored content with text its note (``note_for`` its text) as one
    more part, in a copy (the contents may be the session's own event objects: nothing is
    stored). Every user message gets its own note, so earlier requests' text is unchanged
    (the prompt cache keeps the history)."""
    contents = llm_request.contents or []
    for i, content in enumerate(contents):
        if content.role != "user" or not content.parts:
            continue
        texts = [p.text for p in content.parts if p.text and not p.thought]
        note = note_for(query_text(texts)) if texts else ""
        if note:
            parts = [*content.parts, types.Part(text=note)]
            contents[i] = content.model_copy(update={"parts": parts})


def _latest_user_text(llm_request: LlmRequest) -> str | None:
    """Text of the last user-authored content with text (function responses are user
    contents too, without text; they are skipped), or None."""
    for content in reversed(llm_request.contents or ()):
        if content.role != "user":
            continue
        texts = [p.text for p in content.parts or () if p.text and not p.thought]
        if texts:
            return query_text(texts)
    return None
