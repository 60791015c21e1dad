"""OpenAI function calling for skills: tool schemas (Chat Completions and Responses), the
instructions text, and a dispatcher that applies tool calls to a session.

Nothing here imports ``openai``: schemas are plain dicts in the SDK's param shapes, and tool
calls are read by duck typing, so SDK objects, ``model_dump()`` dicts and hand-made dicts all
work.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any, Literal

import anyio
import attrs

from skillcore import (
    CatalogFormat,
    Limits,
    OutcomeCode,
    SkillConfig,
    SkillLibrary,
    SkillSession,
    SkillToolkit,
    ToolDecision,
    ToolPolicy,
    ToolResult,
    ToolSpec,
    catalog_view,
)
from skillcore.config import Sources

__all__ = [
    "FunctionCall",
    "Handler",
    "OpenAISkills",
    "ToolCallResult",
    "TurnResult",
    "chat_tool",
    "instructions",
    "parse_call",
    "response_tool",
    "tool_output",
]

Api = Literal["chat", "responses"]

#: A handler for a non-skill tool: gets the parsed arguments (a dict; the raw input string for
#: custom tools) and returns the output (a string, or anything JSON-serialisable), or an
#: awaitable of it when used with the async methods.
Handler = Callable[[Any], Any]


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
) -> str:
    """The skill catalog text for the system prompt / ``instructions=`` (empty if no skills)."""
    return catalog_view(session, CatalogFormat(format), budget).text


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


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def parse_call(call: Any) -> FunctionCall:
    """Normalise a tool call: a Chat Completions ``message.tool_calls[i]`` (``.id``,
    ``.function.name/.arguments``) or a Responses ``function_call`` output item (``.call_id``,
    ``.name/.arguments``), as an SDK object or a dict. Custom tool calls of both APIs are
    accepted too.

    Raises ValueError for something that is not a tool call (caller misuse: the API never
    returns one).
    """
    if isinstance(call, FunctionCall):
        return call
    kind = _get(call, "type")
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
        "not a tool call: expected a Chat Completions tool call (with 'function') or a "
        f"Responses 'function_call' item, got {call!r:.200}"
    )


def _str(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"tool call field {field!r} must be a string, got {value!r:.80}")
    return value


def _id(call: Any) -> str:
    return _str(_get(call, "id"), "id")


def tool_output(call: Any, output: str) -> dict[str, Any]:
    """The message/item that returns ``output`` for ``call``, in the call's API shape:
    ``{"role": "tool", "tool_call_id", "content"}`` or ``{"type": "function_call_output",
    "call_id", "output"}``."""
    c = parse_call(call)
    if c.api == "chat":
        return {"role": "tool", "tool_call_id": c.call_id, "content": output}
    kind = "custom_tool_call_output" if c.custom else "function_call_output"
    return {"type": kind, "call_id": c.call_id, "output": output}


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
    #: An OutcomeCode for skill tools, ``TOOL_BLOCKED``/``UNKNOWN_TOOL``/``INVALID_ARGUMENTS``
    #: for refused plain tools, None for plain tools that ran or are yours to run.
    code: OutcomeCode | None = None
    #: The toolkit's result for skill tools.
    result: ToolResult | None = None
    #: The allowed-tools decision for non-skill tools.
    decision: ToolDecision | None = None

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
        """The messages/items to append, in call order (pending calls left out)."""
        return [r.message for r in self.results if r.message is not None]

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
    Options are the knobs every adapter takes (:class:`skillcore.SkillConfig`).
    """

    def __init__(
        self,
        skills: Sources | SkillToolkit,
        *,
        handlers: Mapping[str, Handler] | None = None,
        strict: bool = True,
        policy: ToolPolicy | None = None,
        **options: Any,
    ) -> None:
        """``skills``: paths/URLs, a :class:`SkillLibrary` or a ready :class:`SkillToolkit`.

        ``options`` are the knobs every adapter takes (:class:`skillcore.SkillConfig`:
        ``max_loaded_skills``, ``max_description_budget``, ``allowed_tools_policy``,
        ``always_allowed_tools``, ``catalog_format``, ``validation_mode``,
        ``tool_name_prefix``, ``include_resource_tool``, ``enum_limit``, ``limits``); they set
        the defaults of :meth:`session` and :meth:`restore`. ``policy`` overrides the two
        policy knobs with a ready :class:`ToolPolicy`.
        """
        if isinstance(skills, SkillToolkit):
            if options:
                raise TypeError("options apply only when sources or a SkillLibrary are given")
            self.config = SkillConfig()
            self.toolkit = skills
        else:
            self.config = SkillConfig(**options)
            self.toolkit = self.config.toolkit(self.config.library(skills))
        self.limits = self.config.session_limits()
        self.policy = policy or self.config.policy()
        self.handlers: dict[str, Handler] | None = None if handlers is None else dict(handlers)
        self.strict = strict

    @property
    def library(self) -> SkillLibrary:
        """The skill library behind the toolkit."""
        return self.toolkit.library

    def session(
        self, limits: Limits | None = None, policy: ToolPolicy | None = None
    ) -> SkillSession:
        """A new, empty session (this adapter's limits and policy unless given)."""
        return self.library.session(
            limits or self.limits, policy or self.policy, self.toolkit.names
        )

    def restore(
        self,
        state: Mapping[str, Any] | None,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
    ) -> SkillSession:
        """Rebuild a session from ``session.to_state()`` output."""
        return self.library.restore(
            state, limits or self.limits, policy or self.policy, self.toolkit.names
        )

    # -- what the model sees ---------------------------------------------------------------

    def chat_tools(self, session: SkillSession) -> list[dict[str, Any]]:
        """``tools=`` entries for Chat Completions (empty when there are no skills)."""
        return [chat_tool(s, strict=self.strict) for s in self.toolkit.specs(session)]

    def response_tools(self, session: SkillSession) -> list[dict[str, Any]]:
        """``tools=`` entries for the Responses API (empty when there are no skills)."""
        return [response_tool(s, strict=self.strict) for s in self.toolkit.specs(session)]

    def instructions(
        self, session: SkillSession, base: str = "", *, budget: int | None = None
    ) -> str:
        """``base`` followed by the skill catalog (just ``base`` when there are no skills)."""
        catalog = self.toolkit.instructions(session, budget)
        return "\n\n".join(part for part in (base.rstrip(), catalog) if part)

    def is_skill_call(self, call: Any) -> bool:
        """True if ``call`` targets one of the skill tools."""
        return self.toolkit.is_skill_tool(parse_call(call).name)

    # -- dispatch --------------------------------------------------------------------------

    def dispatch(
        self, session: SkillSession, call: Any, *, turn: Hashable | None = None
    ) -> ToolCallResult:
        """Apply one tool call; never raises for bad model input.

        For parallel calls of one assistant message either thread the returned session
        through the calls, or pass the same ``session`` to each with ``turn=`` set to
        something identifying that message (its id): the calls are then serialised, replies
        stay truthful, and each result's session is the turn's latest (the last is final).
        """
        c = parse_call(call)
        if self.toolkit.is_skill_tool(c.name):
            res = self.toolkit.call(session, c.name, c.arguments, turn=turn)
            return self._skill(session, c, res, turn)
        plan = self._plan(session, c, turn)
        if isinstance(plan, ToolCallResult):
            return plan
        handler, args, decision = plan
        out = handler(args)
        if inspect.isawaitable(out):
            if inspect.iscoroutine(out):
                out.close()
            raise TypeError(f"the handler of {c.name!r} is async: use adispatch/adispatch_all")
        return self._handled(session, c, out, turn, decision)

    async def adispatch(
        self, session: SkillSession, call: Any, *, turn: Hashable | None = None
    ) -> ToolCallResult:
        """Async :meth:`dispatch` (file reads and async handlers do not block the loop)."""
        c = parse_call(call)
        if self.toolkit.is_skill_tool(c.name):
            res = await self.toolkit.acall(session, c.name, c.arguments, turn=turn)
            return self._skill(session, c, res, turn)
        plan = self._plan(session, c, turn)
        if isinstance(plan, ToolCallResult):
            return plan
        handler, args, decision = plan
        out = handler(args)
        if inspect.isawaitable(out):
            out = await out
        return self._handled(session, c, out, turn, decision)

    def dispatch_all(
        self, session: SkillSession, calls: Iterable[Any] | None, *, turn: Hashable | None = None
    ) -> TurnResult:
        """Apply every tool call of one assistant message, in order; returns the final
        session and the messages to append."""
        token = _Turn() if turn is None else turn
        results = tuple(self.dispatch(session, c, turn=token) for c in calls or ())
        return TurnResult(self.toolkit.coordinator.current(token, session), results)

    async def adispatch_all(
        self, session: SkillSession, calls: Iterable[Any] | None, *, turn: Hashable | None = None
    ) -> TurnResult:
        """Apply the calls of one assistant message concurrently (serialised per turn, so
        parallel loads cannot overrun ``max_loaded``); replies are in call order."""
        token = _Turn() if turn is None else turn
        items = list(calls or ())
        results: list[ToolCallResult | None] = [None] * len(items)
        errors: list[BaseException | None] = [None] * len(items)

        async def one(i: int) -> None:
            # Errors are collected rather than raised so the caller sees the handler's own
            # exception, not an ExceptionGroup from the task group.
            try:
                results[i] = await self.adispatch(session, items[i], turn=token)
            except Exception as exc:
                errors[i] = exc

        async with anyio.create_task_group() as tg:
            for i in range(len(items)):
                tg.start_soon(one, i)
        for exc in errors:
            if exc is not None:
                raise exc
        done = tuple(r for r in results if r is not None)
        return TurnResult(self.toolkit.coordinator.current(token, session), done)

    def _latest(self, session: SkillSession, turn: Hashable | None) -> SkillSession:
        return self.toolkit.coordinator.current(turn, session)

    def _skill(
        self, session: SkillSession, c: FunctionCall, res: ToolResult, turn: Hashable | None
    ) -> ToolCallResult:
        final = res.session if turn is None else self._latest(session, turn)
        return ToolCallResult(
            final, tool_output(c, res.text), c, res.text, not res.ok, res.code, result=res
        )

    def _error(
        self,
        session: SkillSession,
        c: FunctionCall,
        text: str,
        code: OutcomeCode,
        decision: ToolDecision | None = None,
    ) -> ToolCallResult:
        out = f"Error: {text}"
        return ToolCallResult(session, tool_output(c, out), c, out, True, code, decision=decision)

    def _plan(
        self, session: SkillSession, c: FunctionCall, turn: Hashable | None
    ) -> ToolCallResult | tuple[Handler, Any, ToolDecision]:
        current = self._latest(session, turn)
        decision = self.toolkit.check_tool(current, c.name)
        if not decision.allowed:
            return self._error(current, c, decision.reason, OutcomeCode.TOOL_BLOCKED, decision)
        if self.handlers is None:
            return ToolCallResult(current, None, c, None, False, decision=decision)
        handler = self.handlers.get(c.name)
        if handler is None:
            known = ", ".join([*self.toolkit.tool_names, *self.handlers]) or "(none)"
            return self._error(
                current,
                c,
                f"there is no tool named {c.name!r}. Available tools: {known}.",
                OutcomeCode.UNKNOWN_TOOL,
                decision,
            )
        if c.custom:
            return handler, "" if c.arguments is None else c.arguments, decision
        args = _parse_object(c.arguments)
        if isinstance(args, str):
            return self._error(
                current,
                c,
                f"invalid arguments for {c.name}: {args}",
                OutcomeCode.INVALID_ARGUMENTS,
                decision,
            )
        return handler, args, decision

    def _handled(
        self,
        session: SkillSession,
        c: FunctionCall,
        out: Any,
        turn: Hashable | None,
        decision: ToolDecision,
    ) -> ToolCallResult:
        text = out if isinstance(out, str) else json.dumps(out, default=str, ensure_ascii=False)
        return ToolCallResult(
            self._latest(session, turn), tool_output(c, text), c, text, False, decision=decision
        )


class _Turn:
    """A fresh, hashable turn token (identity semantics)."""

    __slots__ = ()


def _parse_object(arguments: str | Mapping[str, Any] | None) -> dict[str, Any] | str:
    """Arguments as a dict, or an error message for the model."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return (
                f"arguments are not valid JSON ({exc.msg} at position {exc.pos}); "
                "send a JSON object"
            )
    else:
        value = arguments
    if not isinstance(value, Mapping):
        return f"arguments must be a JSON object, got {type(value).__name__}"
    return dict(value)
