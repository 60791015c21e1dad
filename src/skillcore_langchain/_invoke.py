"""The user's own invocation (``/name args``) at the start of a run: the run's new user
message read by :meth:`skillcore.SkillToolkit.invoke`, and its result as graph messages.

A loaded skill reaches the model as every load does: a ``load_skill`` call (an ``AIMessage``
skillcore writes, with skillcore's call id) answered by a ``ToolMessage`` holding the
expanded instructions, placed after the user's message (before the model's answer, in the
run's first model call); delivery is proven by that id, as for the model's own loads. A
refusal is an ``AIMessage`` to the user, given instead of calling the model, and the run ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from skillcore import InvocationResult


def invocation_text(state: Mapping[str, Any]) -> str | None:
    """The text of the run's last message when it is the user's (a new request), else None."""
    messages = state.get("messages")
    if not isinstance(messages, Sequence) or not messages:
        return None
    last = messages[-1]
    if not isinstance(last, HumanMessage):
        return None
    content = last.content
    if isinstance(content, str):
        return content
    parts = [
        b if isinstance(b, str) else b.get("text") if b.get("type") == "text" else None
        for b in content
    ]
    texts = [p for p in parts if isinstance(p, str)]
    return "\n".join(texts) if texts else None


def invocation_messages(result: InvocationResult) -> list[AIMessage | ToolMessage]:
    """The messages that show ``result``: the load call and its reply, or a reply to the user."""
    if not result.ok:
        return [AIMessage(content=result.text)]
    call = {"name": result.tool, "args": result.call_arguments, "id": result.call_id}
    return [
        AIMessage(content="", tool_calls=[call]),
        ToolMessage(
            content=result.text,
            tool_call_id=result.call_id,
            name=result.tool,
            artifact={"code": result.code.value, "invoked_by": "user"},
        ),
    ]


__all__ = ["invocation_messages", "invocation_text"]
