"""What the dispatcher did with a tool call (:class:`ToolCallResult`) and with the calls
of one assistant message (:class:`TurnResult`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from skillcore import OutcomeCode, SkillSession, ToolDecision, ToolResult
from skillcore_openai.chat.calls import FunctionCall

__all__ = ["ToolCallResult", "TurnResult"]


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

    @property
    def needs_approval(self) -> bool:
        """True for a call that runs only once the user approves it (the APPROVE policy:
        no loaded skill's ``allowed-tools`` pre-approves it); ``message`` is None. Ask, then
        dispatch it again with ``approved=True``, or reply to it yourself."""
        return self.decision is not None and self.decision.needs_approval and self.message is None

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
        """Allowed non-skill calls without a handler, and those awaiting approval."""
        return [r.call for r in self.results if r.message is None]

    @property
    def awaiting_approval(self) -> list[FunctionCall]:
        """The pending calls that need the user's approval first (the APPROVE policy)."""
        return [r.call for r in self.results if r.needs_approval]

    def __iter__(self) -> Iterator[Any]:
        return iter((self.session, self.messages))
