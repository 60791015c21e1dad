"""The user's own invocation (``/name args``) in a custom OpenAI loop: the loop calls
:meth:`OpenAISkills.invoke_user_message` with each new user message, before the model.

A loaded skill reaches the model as every load does: a load call and its output (the
expanded instructions), with skillcore's call id, to append after the user's message
(Chat Completions messages or Responses input items); delivery is proven by that id. A
refusal is an assistant message for the user: show it, and do not call the model.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import attrs

from skillcore import InvocationResult, OutcomeCode, SkillSession

Api = Literal["chat", "responses"]


@attrs.frozen
class UserInvocation:
    """What a user message invoking a skill did. ``ok``: append :attr:`messages` after the
    user's message and call the model as usual; otherwise :attr:`messages` is the reply to
    the user (one assistant message) and the model is not called for this message."""

    session: SkillSession
    result: InvocationResult
    messages: tuple[dict[str, Any], ...]

    @property
    def ok(self) -> bool:
        """True when the skill was loaded with the arguments."""
        return self.result.ok

    @property
    def code(self) -> OutcomeCode:
        """The outcome (``LOADED``, ``REDELIVERED`` or why it was refused)."""
        return self.result.code


def invocation_messages(result: InvocationResult, api: Api) -> tuple[dict[str, Any], ...]:
    """The messages (``api="chat"``) or input items (``"responses"``) showing ``result``."""
    if not result.ok:  # the same message shape in both APIs
        return ({"role": "assistant", "content": result.text},)
    args = json.dumps(result.call_arguments)
    if api == "chat":
        call = {
            "id": result.call_id,
            "type": "function",
            "function": {"name": result.tool, "arguments": args},
        }
        return (
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": result.call_id, "content": result.text},
        )
    return (
        {
            "type": "function_call",
            "call_id": result.call_id,
            "name": result.tool,
            "arguments": args,
        },
        {"type": "function_call_output", "call_id": result.call_id, "output": result.text},
    )


def user_text(message: Any) -> str | None:
    """The text of a user message: a string, a ``{"role": "user", "content": ...}`` message
    or Responses input item (text parts joined), else None."""
    if isinstance(message, str):
        return message
    if not isinstance(message, dict) or message.get("role", "user") != "user":
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            p.get("text")
            for p in content
            if isinstance(p, dict) and p.get("type") in ("text", "input_text")
        ]
        found = [t for t in texts if isinstance(t, str)]
        return "\n".join(found) if found else None
    return None


__all__ = ["UserInvocation", "invocation_messages", "user_text"]
