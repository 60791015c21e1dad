"""OpenAI function calling for skills: tool schemas (Chat Completions and Responses), the
instructions text, and a dispatcher that applies tool calls to a session.

Nothing here imports ``openai``: schemas are plain dicts in the SDK's param shapes, and tool
calls are read by duck typing, so SDK objects, ``model_dump()`` dicts and hand-made dicts all
work.
"""

from __future__ import annotations

import inspect
import itertools
import json
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, Literal

import anyio
import attrs

from skillcore import (
    ArgumentError,
    BinaryPayload,
    CatalogFormat,
    Limits,
    OutcomeCode,
    RawInput,
    SessionRef,
    SessionStore,
    SkillConfig,
    SkillLibrary,
    SkillSession,
    SkillToolkit,
    ToolDecision,
    ToolPolicy,
    ToolResult,
    ToolSpec,
    TurnCalls,
    TurnStore,
    catalog_view,
    events,
    replies,
    restore_session,
)
from skillcore.catalog.prompt import PromptMode, resolve_prompt_mode
from skillcore.catalog.relevance import query_text
from skillcore.policy.gating import gated_registry
from skillcore.runtime.config import Sources
from skillcore.state.coordination import (
    MemoryStateStore,
    StateStore,
    TurnCall,
    as_store,
    update_state,
)
from skillcore.state.session import apply_effect, effect_between
from skillcore.tools.reinjection import DeliveryIndex, Reinjection
from skillcore.tools.specs import parse_json_object

__all__ = [
    "ChatDeltas",
    "FunctionCall",
    "Handler",
    "OnHandlerError",
    "OpenAISkills",
    "ToolCallResult",
    "TurnResult",
    "attachment_message",
    "binary_part",
    "chat_tool",
    "instructions",
    "latest_user_text",
    "parse_call",
    "response_tool",
    "tool_output",
    "with_notes",
]

Api = Literal["chat", "responses", "anthropic"]

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


# -- schemas -------------------------------------------------------------------------------


def chat_tool(spec: ToolSpec, *, strict: bool = True) -> dict[str, Any]:
    """A Chat Completions tool (``ChatCompletionFunctionToolParam``) for ``spec``."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.json_schema(),
            "strict": strict,
        },
    }


def response_tool(spec: ToolSpec, *, strict: bool = True) -> dict[str, Any]:
    """A Responses API tool (``FunctionToolParam``) for ``spec``."""
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.json_schema(),
        "strict": strict,
    }


def instructions(
    session: SkillSession,
    *,
    format: CatalogFormat | str = CatalogFormat.MARKDOWN,
    budget: int | None = None,
    prompt_mode: PromptMode | str | None = None,
) -> str:
    """The skill catalog text for the system prompt / ``instructions=`` (empty if no skills);
    ``prompt_mode``: see :class:`skillcore.PromptMode` (stable by default)."""
    dynamic = resolve_prompt_mode(prompt_mode) is PromptMode.DYNAMIC
    return catalog_view(session, CatalogFormat(format), budget, show_loaded=dynamic).text


def latest_user_text(messages: str | Iterable[Any] | None) -> str | None:
    """Text of the last user message with text in a Chat Completions ``messages`` list or a
    Responses ``input`` (a string, or a list of items; SDK objects or dicts): the ``query``
    for a catalog ordered by relevance. Its text parts are joined; None if there is none."""
    if isinstance(messages, str):
        return query_text([messages])
    for item in reversed(list(messages or ())):
        if _get(item, "role") != "user":
            continue
        content = _get(item, "content")
        parts = [content] if isinstance(content, str) else [_get(p, "text") for p in content or ()]
        first = parts[0] if parts and not isinstance(content, str) else None
        if isinstance(first, str) and first.startswith(replies.ATTACHMENT_PREFIX):
            continue  # a binary resource's attachment message, not the user's words
        text = query_text(p for p in parts if isinstance(p, str))
        if text is not None:
            return text
    return None


# -- tool calls ----------------------------------------------------------------------------


@attrs.frozen
class FunctionCall:
    """A tool call from either API, normalised.

    ``arguments`` is what the model sent (usually a JSON string); for custom (free-form)
    tools it is the raw input text and ``custom`` is True.
    """

    api: Api
    name: str
    arguments: str | Mapping[str, Any] | None
    call_id: str
    custom: bool = False


def with_notes(messages: Any, note_for: Callable[[str | None], str]) -> Any:
    """A Chat Completions ``messages`` list or a Responses ``input`` (a string or a list of
    items) with each user message followed by its note (``note_for`` its text): after a
    blank line, or as one more text part. Returns new objects; the given ones are not
    changed. Items that are not dicts (SDK objects) are kept as they are."""
    if isinstance(messages, str):
        note = note_for(query_text([messages]))
        return f"{messages}\n\n{note}" if note else messages
    out = []
    for item in messages or ():
        content = item.get("content") if isinstance(item, Mapping) else None
        if isinstance(item, Mapping) and item.get("role") == "user" and content:
            if isinstance(content, str):
                note = note_for(query_text([content]))
                if note:
                    item = {**item, "content": f"{content}\n\n{note}"}
            elif isinstance(content, list):
                texts = [_get(p, "text") for p in content]
                first = texts[0] if texts else None
                attached = isinstance(first, str) and first.startswith(replies.ATTACHMENT_PREFIX)
                note = (
                    "" if attached else note_for(query_text(t for t in texts if isinstance(t, str)))
                )
                if note:
                    kinds = {_get(p, "type") for p in content}
                    kind = (
                        "input_text"
                        if kinds & {"input_text", "input_image", "input_file"}
                        else "text"
                    )
                    item = {**item, "content": [*content, {"type": kind, "text": note}]}
        out.append(item)
    return out


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def parse_call(call: Any) -> FunctionCall:
    """Normalise a tool call: a Chat Completions ``message.tool_calls[i]`` (``.id``,
    ``.function.name/.arguments``), a Responses ``function_call`` output item (``.call_id``,
    ``.name/.arguments``) or an Anthropic Messages ``tool_use`` content block (``.id``,
    ``.name``, ``.input``), as an SDK object or a dict. Custom tool calls of both OpenAI APIs
    are accepted too.

    Raises ValueError for something that is not a tool call (caller misuse: the API never
    returns one).
    """
    if isinstance(call, FunctionCall):
        return call
    kind = _get(call, "type")
    if kind == "tool_use":  # an Anthropic Messages content block
        return FunctionCall(
            "anthropic", _str(_get(call, "name"), "name"), _get(call, "input"), _id(call)
        )
    function = _get(call, "function")
    if function is not None and kind in (None, "function"):
        return FunctionCall(
            "chat", _str(_get(function, "name"), "name"), _get(function, "arguments"), _id(call)
        )
    custom = _get(call, "custom")
    if custom is not None and kind == "custom":
        return FunctionCall(
            "chat", _str(_get(custom, "name"), "name"), _get(custom, "input"), _id(call), True
        )
    if kind in ("function_call", "custom_tool_call") or (
        kind is None and _get(call, "call_id") is not None
    ):
        is_custom = kind == "custom_tool_call"
        return FunctionCall(
            "responses",
            _str(_get(call, "name"), "name"),
            _get(call, "input" if is_custom else "arguments"),
            _str(_get(call, "call_id"), "call_id"),
            is_custom,
        )
    raise ValueError(
        "not a tool call: expected a Chat Completions tool call (with 'function'), a "
        f"Responses 'function_call' item or a 'tool_use' block, got {call!r:.200}"
    )


def _str(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"tool call field {field!r} must be a string, got {value!r:.80}")
    return value


def _id(call: Any) -> str:
    return _str(_get(call, "id"), "id")


def tool_output(
    call: Any, output: str, *, is_error: bool = False, binary: BinaryPayload | None = None
) -> dict[str, Any]:
    """The message/item that returns ``output`` for ``call``, in the call's API shape:
    ``{"role": "tool", "tool_call_id", "content"}``, ``{"type": "function_call_output",
    "call_id", "output"}`` or an Anthropic ``{"type": "tool_result", "tool_use_id", "content",
    "is_error"}`` block (``is_error`` is only carried by that shape).

    ``binary`` (a resource delivered as bytes) joins ``output`` as a native part where the
    API takes one in a tool result (Responses, Anthropic); a Chat Completions tool message
    takes text only, so there the bytes go in :func:`attachment_message` instead."""
    c = parse_call(call)
    if c.api == "anthropic":
        content: Any = output
        if binary is not None:
            content = [{"type": "text", "text": output}, binary_part(binary, "anthropic")]
        return {
            "type": "tool_result",
            "tool_use_id": c.call_id,
            "content": content,
            "is_error": is_error,
        }
    if c.api == "chat":
        return {"role": "tool", "tool_call_id": c.call_id, "content": output}
    kind = "custom_tool_call_output" if c.custom else "function_call_output"
    result: Any = output
    if binary is not None and not c.custom:
        result = [{"type": "input_text", "text": output}, binary_part(binary, "responses")]
    return {"type": kind, "call_id": c.call_id, "output": result}


def binary_part(payload: BinaryPayload, api: Api) -> dict[str, Any]:
    """A binary resource as a content part of ``api``: Chat Completions ``image_url`` /
    ``file``, Responses ``input_image`` / ``input_file`` (data URLs), Anthropic ``image`` /
    ``document`` (base64 source). Images go as images; PDFs as files."""
    if api == "anthropic":
        source = {"type": "base64", "media_type": payload.mime_type, "data": payload.base64()}
        return {"type": "image" if payload.is_image else "document", "source": source}
    url = payload.data_url()
    if api == "chat":
        if payload.is_image:
            return {"type": "image_url", "image_url": {"url": url}}
        return {"type": "file", "file": {"file_data": url, "filename": payload.filename}}
    if payload.is_image:
        return {"type": "input_image", "image_url": url}
    return {"type": "input_file", "file_data": url, "filename": payload.filename}


def attachment_message(payload: BinaryPayload) -> dict[str, Any]:
    """The Chat Completions user message carrying a binary resource's bytes (tool messages
    take text only). Append it after *all* tool messages of the assistant message."""
    text = {"type": "text", "text": replies.binary_attachment(payload)}
    return {"role": "user", "content": [text, binary_part(payload, "chat")]}


#: Most tool calls one streamed message may carry, and most characters of content plus
#: arguments it may accumulate (a stream is model output: bound it).
MAX_STREAMED_CALLS = 256
MAX_STREAMED_CHARS = 16 * 1024 * 1024


class ChatDeltas:
    """Assembles a streamed Chat Completions message (``stream=True``) from its chunks: the
    text, and each tool call from its pieces (id and name first, then argument fragments,
    matched by ``index``)::

        deltas = ChatDeltas()
        for chunk in client.chat.completions.create(..., stream=True):
            deltas.add(chunk)
        messages.append(deltas.message)
        session, replies = skills.dispatch_all(session, deltas.tool_calls)

    Chunks may be SDK objects or dicts. Raises ValueError for a stream that breaks the
    bounds (:data:`MAX_STREAMED_CALLS`, :data:`MAX_STREAMED_CHARS`).
    """

    def __init__(self) -> None:
        self.content: str = ""
        self.finish_reason: str | None = None
        self._calls: dict[int, dict[str, Any]] = {}
        self._chars = 0

    def _grow(self, text: Any) -> str:
        piece = text if isinstance(text, str) else ""
        self._chars += len(piece)
        if self._chars > MAX_STREAMED_CHARS:
            raise ValueError(f"the streamed message exceeds {MAX_STREAMED_CHARS} characters")
        return piece

    def add(self, chunk: Any) -> None:
        """Take one chunk (``chat.completion.chunk``; only its first choice is read)."""
        choices = _get(chunk, "choices") or ()
        if not choices:
            return  # e.g. the usage chunk at the end
        choice = choices[0]
        self.finish_reason = _get(choice, "finish_reason") or self.finish_reason
        delta = _get(choice, "delta")
        if delta is None:
            return
        self.content += self._grow(_get(delta, "content"))
        for part in _get(delta, "tool_calls") or ():
            index = _get(part, "index")
            if not isinstance(index, int) or not 0 <= index < MAX_STREAMED_CALLS:
                raise ValueError(f"a streamed tool call has an invalid index {index!r:.40}")
            call = self._calls.setdefault(
                index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
            )
            if isinstance(_get(part, "id"), str):
                call["id"] = _get(part, "id")
            function = _get(part, "function")
            if function is not None:
                call["function"]["name"] += self._grow(_get(function, "name"))
                call["function"]["arguments"] += self._grow(_get(function, "arguments"))

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        """The assembled tool calls, in index order (Chat Completions dicts)."""
        return [self._calls[i] for i in sorted(self._calls)]

    @property
    def message(self) -> dict[str, Any]:
        """The assistant message to append to ``messages``."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self._calls:
            message["tool_calls"] = self.tool_calls
        return message


@attrs.frozen
class ToolCallResult:
    """What :meth:`OpenAISkills.dispatch` did with one call.

    Unpacks as ``session, message = result``. ``message`` is None only for an allowed
    non-skill tool with no handler: run it yourself and append ``tool_output(call, text)``.
    """

    session: SkillSession
    message: dict[str, Any] | None
    call: FunctionCall
    output: str | None
    is_error: bool
    #: An OutcomeCode for skill tools, ``TOOL_BLOCKED``/``TOOL_LOCKED``/``UNKNOWN_TOOL``/
    #: ``INVALID_ARGUMENTS`` for refused plain tools, None for plain tools that ran or are
    #: yours to run.
    code: OutcomeCode | None = None
    #: The toolkit's result for skill tools.
    result: ToolResult | None = None
    #: The allowed-tools decision for non-skill tools.
    decision: ToolDecision | None = None
    #: A Chat Completions user message with a binary resource's bytes
    #: (:func:`attachment_message`): append it after every tool message of the turn.
    followup: dict[str, Any] | None = None

    @property
    def handled(self) -> bool:
        """True when ``message`` is ready to append."""
        return self.message is not None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.session, self.message))


@attrs.frozen
class TurnResult:
    """What :meth:`OpenAISkills.dispatch_all` did with one assistant message's calls.

    Unpacks as ``session, messages = result``; ``pending`` lists calls that are yours to run.
    """

    session: SkillSession
    results: tuple[ToolCallResult, ...]

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The messages/items to append, in call order (pending calls left out), then any
        Chat Completions attachment messages (binary resources)."""
        out = [r.message for r in self.results if r.message is not None]
        return out + [r.followup for r in self.results if r.followup is not None]

    @property
    def pending(self) -> list[FunctionCall]:
        """Allowed non-skill calls without a handler."""
        return [r.call for r in self.results if r.message is None]

    def __iter__(self) -> Iterator[Any]:
        return iter((self.session, self.messages))


# -- the dispatcher ------------------------------------------------------------------------


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
        :class:`skillcore.state.coordination.SQLiteStateStore` survives restarts).
        ``on_handler_error``: what a handler that raises becomes (see :data:`OnHandlerError`).
        ``tools``: skill-gated tools, as Chat Completions or Responses function tools (their
        handlers go in ``handlers``): :meth:`chat_tools` / :meth:`response_tools` include
        them, and dispatch runs them, only while a loaded skill names them in
        ``metadata.include_tools`` (or ``metadata.adk_additional_tools``).
        """
        self.config = SkillConfig.build(config, **options)
        self.gated_tools: list[dict[str, Any]] = [dict(t) for t in tools]
        gated = [_tool_name(t) for t in self.gated_tools]
        if any(n is None for n in gated):
            raise ValueError("every gated tool needs a name (a function tool dict)")
        if isinstance(skills, SkillToolkit):
            if config is not None or options:
                raise TypeError("options apply only when sources or a SkillLibrary are given")
            self.toolkit = skills
        else:
            self.toolkit = self.config.toolkit(self.config.library(skills))
        self.limits = self.config.session_limits()
        base = policy or self.config.policy()
        registry = gated_registry([n for n in gated if n is not None], self.toolkit.names.all())
        self.policy = attrs.evolve(base, gated_tools=base.gated_tools | registry)
        self.handlers: dict[str, Handler] | None = None if handlers is None else dict(handlers)
        self.strict = strict
        self.turns = TurnStore(replay=self.toolkit)
        self.reinjection = Reinjection(self.toolkit)
        #: Where each history's load replies sit (delivery by call id).
        self.deliveries = DeliveryIndex()
        self.states: StateStore = states if states is not None else MemoryStateStore()
        # Per conversation: the revision and session load() gave (for fork detection).
        self._started: OrderedDict[str, tuple[str, SkillSession]] = OrderedDict()
        if not (callable(on_handler_error) or on_handler_error in ("reply", "raise")):
            raise ValueError(
                f"on_handler_error must be 'reply', 'raise' or a function, got {on_handler_error!r}"
            )
        self.on_handler_error = on_handler_error

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
        (:func:`skillcore.restore_session`). ``load``: as for :meth:`ensure`."""
        session = restore_session(
            state,
            self.library.catalog,
            limits or self.limits,
            policy or self.policy,
            self.toolkit.names,
        ).session
        # Turn start: pinned skills always, default skills in a new conversation, then the
        # run's requested ones.
        return self.toolkit.ensure(session, fresh=state is None, load=load)[0]

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
        pinned skills are always loaded, then ``load`` (as for :meth:`ensure`)."""
        state = self.states.load(conversation_id)
        session = self.restore(state, limits, policy, load=load)
        rev = state.get("rev") if isinstance(state, Mapping) else None
        self._started[conversation_id] = (rev if isinstance(rev, str) else "", session)
        self._started.move_to_end(conversation_id)
        while len(self._started) > _STARTS_KEPT:
            self._started.popitem(last=False)
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
        started = self._started.pop(conversation_id, None)
        rev = uuid.uuid4().hex

        def change(current: dict[str, Any] | None) -> dict[str, Any]:
            state = session.to_state()
            if started is None:
                return {**state, "rev": rev, "parent": ""}
            parent, base = started
            found = current.get("rev", "") if isinstance(current, Mapping) else ""
            if current is not None and found != parent:
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
        return specs + self.offered(session, tools, _chat_shape)

    def response_tools(
        self, session: SkillSession, tools: Iterable[Mapping[str, Any]] = ()
    ) -> list[dict[str, Any]]:
        """``tools=`` entries for the Responses API (as :meth:`chat_tools`)."""
        specs = [response_tool(s, strict=self.strict) for s in self.toolkit.specs(session)]
        return specs + self.offered(session, tools, _response_shape)

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
        names = [_tool_name(t) for t in candidates]
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
    ) -> str:
        """``base`` followed by the skill catalog (just ``base`` when there are no skills).

        ``query``: the latest user message (:func:`latest_user_text` of your messages), which
        orders the catalog when ``catalog_order="relevance"``; pass the same one on every
        model call of a user message and the text stays the same.

        Loaded skills whose load reply is not in ``history`` (the messages/input items the
        model receives) get their instructions appended, as in every adapter; without
        ``history``, those of the configured skills (``default_skills``, ``pinned_skills``),
        which no tool reply delivered."""
        catalog = self.toolkit.instructions(session, budget, query)
        if catalog:
            only = self.toolkit.preset if history is None else None
            seen = self._seen(session, history) if history is not None else frozenset()
            missing = self.reinjection.missing(session, seen, only=only)
            if missing:
                catalog += "\n\n" + self.reinjection.text(session, missing)
        return "\n\n".join(part for part in (base.rstrip(), catalog) if part)

    def _seen(self, session: SkillSession, history: Any) -> frozenset[str]:
        """Loaded skills whose delivery (the reply to the recorded load call id) is in
        ``history``. A history is known by its first item: appending to the same list costs
        only the new items; any other list is read once."""
        items = history if isinstance(history, Sequence) else list(history)
        key = ("history", id(items[0])) if items else ("history", None)
        return self.deliveries.visible(session, items, _replies_of, conversation=key)

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

    def is_skill_call(self, call: Any) -> bool:
        """True if ``call`` targets one of the skill tools."""
        return self.toolkit.is_skill_tool(parse_call(call).name)

    # -- dispatch --------------------------------------------------------------------------

    def dispatch(
        self, target: SkillSession | SessionStore, call: Any, *, history: Any = None
    ) -> ToolCallResult:
        """Apply one tool call to a session (or a :class:`skillcore.SessionStore` your loop
        shares between concurrent calls); never raises for bad model input. Thread the
        returned session into the next call, or use :meth:`dispatch_all`.

        ``history``: the messages/input items the model received. A load of a loaded skill
        whose load reply is not among them sends its instructions again (``REDELIVERED``)
        rather than ``ALREADY_LOADED``; pass it when you trim or compact history."""
        store = as_store(target)
        return self._dispatch(store, call, self._hidden(store.read(), history))

    def _dispatch(self, store: SessionStore, call: Any, gone: frozenset[str]) -> ToolCallResult:
        c = parse_call(call)
        if self.toolkit.is_skill_tool(c.name):
            result = self.toolkit.call(
                store,
                c.name,
                c.arguments,
                hidden=gone,
                available=self.agent_tools(),
                call_id=c.call_id,
            )
            return self._skill(store, c, result)
        plan = self._plan(store, c)
        if isinstance(plan, ToolCallResult):
            return plan
        try:
            out = plan[0](plan[1], **plan[3])
        except Exception as exc:
            return self._failed(store, c, exc, plan[2])
        if inspect.isawaitable(out):
            if inspect.iscoroutine(out):
                out.close()
            raise TypeError(f"the handler of {c.name!r} is async: use adispatch/adispatch_all")
        return self._handled(store, c, out, plan[2])

    async def adispatch(
        self, target: SkillSession | SessionStore, call: Any, *, history: Any = None
    ) -> ToolCallResult:
        """Async :meth:`dispatch` (file reads and async handlers do not block the loop)."""
        store = as_store(target)
        return await self._adispatch(store, call, self._hidden(store.read(), history))

    async def _adispatch(
        self, store: SessionStore, call: Any, gone: frozenset[str]
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
            )
            return self._skill(store, c, result)
        return await self._arun(store, c, self._plan(store, c))

    async def _arun(
        self, store: SessionStore, c: FunctionCall, plan: ToolCallResult | _Plan
    ) -> ToolCallResult:
        if isinstance(plan, ToolCallResult):
            return plan
        try:
            out = plan[0](plan[1], **plan[3])
            if inspect.isawaitable(out):
                out = await out
        except Exception as exc:
            return self._failed(store, c, exc, plan[2])
        return self._handled(store, c, out, plan[2])

    def dispatch_all(
        self, session: SkillSession, calls: Iterable[Any] | None, *, history: Any = None
    ) -> TurnResult:
        """Apply every tool call of one assistant message, in order; returns the final
        session and the messages to append. A handler that raises gets an error reply for
        its call (see ``on_handler_error``); the other calls are unaffected. ``history``:
        see :meth:`dispatch`."""
        store = SessionRef(session)
        # Computed once, on the session the history belongs to: skills loaded by earlier
        # calls of this message are not missing from it.
        gone = self._hidden(session, history)
        results = tuple(self._dispatch(store, c, gone) for c in calls or ())
        return TurnResult(store.session, results)

    async def adispatch_all(
        self, session: SkillSession, calls: Iterable[Any] | None, *, history: Any = None
    ) -> TurnResult:
        """Apply the calls of one assistant message concurrently. Each is decided in call
        order (a call waits for the earlier skill calls, never for handlers), so the result
        equals :meth:`dispatch_all`'s while file reads and handlers overlap."""
        items = list(calls or ())
        gone = self._hidden(session, history)
        # A fresh key per turn: the session is passed in, so no other call can share it.
        # The model's call ids key the turn (a call worked out again records the id its
        # reply carries); positions stand in when ids are missing or repeated.
        ids = [_id_of(c) for c in items]
        if len(set(ids)) != len(ids) or "" in ids:
            ids = [str(i) for i in range(len(items))]
        turn = TurnCalls.of(
            f"adispatch-{next(_turn_ids)}",
            "turn",
            [(ids[i], _name_of(c), _arguments_of(c)) for i, c in enumerate(items)],
            self.toolkit.is_skill_tool,
        )
        have = self.agent_tools()
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
                results[i] = await self._ordered(views[i], items[i], gone)
            except Exception as exc:
                errors[i] = exc

        async with anyio.create_task_group() as tg:
            for i in range(len(items)):
                tg.start_soon(one, i)
        for exc in errors:
            if exc is not None:
                raise exc
        final = views[-1].read() if views else session
        return TurnResult(final, tuple(r for r in results if r is not None))

    async def _ordered(self, view: TurnCall, call: Any, gone: frozenset[str]) -> ToolCallResult:
        async with view:
            c = parse_call(call)
            if self.toolkit.is_skill_tool(c.name):
                return await self._adispatch(view, c, gone)
            plan = self._plan(view, c)
        # Handlers run after the turn moved on: later calls never wait for them.
        return await self._arun(view, c, plan)

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

    def _plan(self, store: SessionStore, c: FunctionCall) -> ToolCallResult | _Plan:
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
        if handler is None:
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


def _tool_name(tool: Mapping[str, Any]) -> str | None:
    """The name of a tool dict in either API's shape (None when it has none)."""
    function = tool.get("function")
    name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
    return name if isinstance(name, str) else None


def _chat_shape(tool: dict[str, Any]) -> dict[str, Any]:
    """A function tool dict in the Chat Completions shape."""
    if isinstance(tool.get("function"), Mapping):
        return tool
    inner = {k: v for k, v in tool.items() if k != "type"}
    return {"type": "function", "function": inner}


def _response_shape(tool: dict[str, Any]) -> dict[str, Any]:
    """A function tool dict in the Responses shape."""
    function = tool.get("function")
    if not isinstance(function, Mapping):
        return {"type": "function", **{k: v for k, v in tool.items() if k != "type"}}
    return {"type": "function", **function}


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
#: Conversations whose starting state is remembered between load() and save().
_STARTS_KEPT = 10_000


def _replies_of(item: Any) -> tuple[tuple[str | None, object], ...]:
    """An item's tool replies as ``(call id, content)``: a Chat Completions ``tool``
    message, a Responses ``function_call_output`` / ``custom_tool_call_output`` item, or the
    ``tool_result`` blocks of an Anthropic message (dicts or SDK objects)."""
    if _get(item, "role") == "tool":
        return ((_get(item, "tool_call_id"), _get(item, "content")),)
    kind = _get(item, "type")
    if kind in ("function_call_output", "custom_tool_call_output"):
        return ((_get(item, "call_id"), _get(item, "output")),)
    content = _get(item, "content")
    if isinstance(content, list):
        return tuple(
            (_get(b, "tool_use_id"), _get(b, "content"))
            for b in content
            if _get(b, "type") == "tool_result"
        )
    return ()


def _name_of(call: Any) -> str:
    try:
        return parse_call(call).name
    except ValueError:
        return ""


def _id_of(call: Any) -> str:
    try:
        return parse_call(call).call_id or ""
    except ValueError:
        return ""


def _arguments_of(call: Any) -> Any:
    """A call's arguments as the model sent them (None when the call cannot be parsed)."""
    try:
        return parse_call(call).arguments
    except ValueError:
        return None
