"""One ADK tool call in core terms: its place in the session's events, the live session
state it reads and writes, the agent's tools, and the function response it returns."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from google.genai import types

from skillcore import OutcomeCode, SkillSession, ToolDecision, ToolResult
from skillcore.runtime import History, MarkedStore, Recent, replies, saved_rev

if TYPE_CHECKING:
    from google.adk.sessions.session import Session
    from google.adk.tools.tool_context import ToolContext

#: Cleared function calls remembered for gated tools (oldest dropped first).
CLEARED_KEPT = 4096


class StateBinding(MarkedStore):
    """One tool call's view of its agent's persisted skill state (ADK session state): a
    :class:`skillcore.runtime.SessionStore` that saves the turn's marks with the session
    (:class:`~skillcore.state.stores.MarkedStore`), so the toolkit reads, transitions and
    writes it with no ``await`` in between and parallel calls of one model response never
    lose an update.
    ``restore(raw, load)``: the session a saved value (and a run's load request) stands for."""

    __slots__ = ("_raw", "_session", "key", "restore", "state")

    def __init__(
        self, restore: Callable[[Any, object], SkillSession], state: Any, key: str
    ) -> None:
        self.restore = restore
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
            self._raw, self._session = raw, self.restore(raw, request)
        return self._session

    def rev(self) -> str:
        """The revision of the saved state ("" when it has none)."""
        return saved_rev(self.state.get(self.key))

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


def conversation(tool_context: ToolContext) -> str:
    """The key of the calling agent's conversation: the ADK session and the agent."""
    s = tool_context.session
    return f"{s.app_name}|{s.user_id}|{s.id}|{tool_context.agent_name}"


def history(session: Session) -> History:
    """The session's model turns, newest first: each event's function calls with their
    arguments, so earlier calls can be worked out again."""
    return (
        (e.id, ((c.id or "", c.name or "", c.args) for c in e.get_function_calls()))
        for e in reversed(session.events)
    )


async def agent_tools(tool_context: ToolContext) -> frozenset[str] | None:
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


def error(text: str, code: OutcomeCode) -> dict[str, Any]:
    """A refusal or failure as a function response."""
    return {"error": text, "error_code": code.value}


def approval(tool: str, decision: ToolDecision, tool_context: ToolContext) -> dict[str, Any] | None:
    """Under APPROVE, a call no loaded skill pre-approves, through ADK tool confirmation:
    the first time the user is asked (the run pauses with ``adk_request_confirmation``);
    when ADK runs the call again with the answer, None (approved: it runs) or a refusal."""
    confirmation = tool_context.tool_confirmation
    if confirmation is None:
        tool_context.request_confirmation(hint=replies.tool_approval_hint(tool, decision))
        tool_context.actions.skip_summarization = True
        return error(replies.error(replies.TOOL_AWAITING_APPROVAL), OutcomeCode.TOOL_DECLINED)
    if confirmation.confirmed:
        return None
    return error(replies.tool_declined(tool), OutcomeCode.TOOL_DECLINED)


def reply(result: ToolResult, tool_context: ToolContext, state_key: str) -> dict[str, Any]:
    """The function response for a skill tool's result; a terminal failure repeated in one
    invocation gets the firmer reply (``state_key``: the agent's)."""
    if result.ok:
        if result.binary is not None:
            # ADK moves a returned Part into FunctionResponse.parts (inline data).
            blob = types.Blob(data=result.binary.data, mime_type=result.binary.mime_type)
            return {"result": result.text, "content": types.Part(inline_data=blob)}
        return {"result": result.text}
    text = result.text
    if result.terminal:
        text = _repeat_guard(result, tool_context, state_key) or text
    return error(text, result.code)


def _repeat_guard(result: ToolResult, tool_context: ToolContext, state_key: str) -> str | None:
    """Stop retry loops: the same failing call again in one invocation gets a firmer reply.

    Kept under ``temp:`` so it lives for the invocation only and is never persisted.
    """
    key = f"temp:{state_key}:terminal"
    seen = list(tool_context.state.get(key) or [])
    marker = f"{result.tool}\x1f{result.text}"
    count = seen.count(marker) + 1
    tool_context.state[key] = [*seen, marker]
    if count < 2:
        return None
    return replies.repeated_failure(result.text, result.code, count)


class ClearedCalls:
    """Function calls the policy callback allowed: a gated tool then skips its own check,
    which could not see earlier calls of the same model response."""

    def __init__(self, size: int = CLEARED_KEPT) -> None:
        self._calls: Recent[str, None] = Recent(size)

    def clear(self, request: str, call_id: str | None) -> None:
        """Record the call ``call_id`` of ``request`` (see ``request_key``) as allowed."""
        self._calls.set(f"{request}|{call_id}", None)

    def take(self, request: str, call_id: str | None) -> bool:
        """True once if the call was recorded as allowed."""
        return self._calls.pop(f"{request}|{call_id}")
