"""LangChain message and config helpers of the middleware (translation only)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.config import get_config

from skillcore import BinaryPayload, OutcomeCode
from skillcore.runtime import query_text


def thread_id() -> str | None:
    """The thread of the running graph (None outside a run)."""
    try:
        config = get_config()
    except RuntimeError:
        return None
    thread = (config.get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)


def reply_of(message: BaseMessage) -> tuple[tuple[str, object], ...]:
    """A message's tool reply as ``(tool_call_id, content)`` (none for other messages): what
    :meth:`skillcore.SkillSession.delivered` checks."""
    if isinstance(message, ToolMessage):
        return ((message.tool_call_id, message.content),)
    return ()


def calls_of(message: BaseMessage) -> tuple[tuple[str | None, str], ...]:
    """A message's tool calls as ``(call id, tool name)`` (none for other messages): what
    shows which tool a reply answers (models repeat ids)."""
    if isinstance(message, AIMessage):
        return tuple((call.get("id"), call.get("name", "")) for call in message.tool_calls)
    return ()


def message_key(message: BaseMessage) -> object:
    """A message's id (LangGraph gives every message in the state one): the same message
    after a checkpoint round trip has the same key."""
    return message.id


def required_call_id(value: str | None) -> str:
    """A tool call's id. LangChain types it Optional (a streamed chunk may lack one), but the
    ToolMessage answering a call needs it: a call without one is refused here, by name."""
    if value is None:
        raise ValueError("a tool call without an id cannot be answered (ToolMessage needs it)")
    return value


def latest_user_text(messages: Sequence[BaseMessage]) -> str | None:
    """Text of the last HumanMessage (its text blocks, one per line), or None."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return _human_text(message)
    return None


def _human_text(message: HumanMessage) -> str | None:
    content = message.content
    if isinstance(content, str):
        return query_text([content])
    return query_text(
        b if isinstance(b, str) else b.get("text") if b.get("type") == "text" else None
        for b in content
    )


def with_notes(
    messages: Sequence[AnyMessage], note_for: Callable[[str | None], str]
) -> list[AnyMessage] | None:
    """``messages`` with each HumanMessage followed by its note (``note_for`` its text),
    after a blank line or as one more text block; None when no message gets one. Every user
    message gets its own, so earlier requests' text is unchanged (the prompt cache keeps the
    history)."""
    out: list[AnyMessage] = []
    changed = False
    for message in messages:
        if isinstance(message, HumanMessage):
            note = note_for(_human_text(message))
            if note:
                content = message.content
                update = (
                    f"{content}\n\n{note}"
                    if isinstance(content, str)
                    else [*content, {"type": "text", "text": note}]
                )
                message = message.model_copy(update={"content": update})
                changed = True
        out.append(message)
    return out if changed else None


def binary_block(payload: BinaryPayload) -> dict[str, Any]:
    """A binary resource as a LangChain standard content block (base64 ``image`` or
    ``file``), which chat model integrations send as their provider's native part."""
    if payload.is_image:
        return {"type": "image", "base64": payload.base64(), "mime_type": payload.mime_type}
    return {
        "type": "file",
        "base64": payload.base64(),
        "mime_type": payload.mime_type,
        "extras": {"filename": payload.filename},
    }


def tool_message(
    text: str,
    code: OutcomeCode,
    call_id: str | None,
    name: str,
    ok: bool = False,
    binary: BinaryPayload | None = None,
) -> ToolMessage:
    content: Any = text
    if binary is not None:  # the text says what it is; the block carries the bytes
        content = [{"type": "text", "text": text}, binary_block(binary)]
    return ToolMessage(
        content=content,
        tool_call_id=required_call_id(call_id),
        name=name,
        status="success" if ok else "error",
        artifact={"code": code.value},
    )


def append_block(system: SystemMessage | None, text: str) -> SystemMessage:
    """Append ``text`` as its own content block (earlier blocks stay byte-identical, which
    keeps provider prompt caches valid); the block starts with a blank line."""
    if system is None:
        return SystemMessage(content=text)
    content = system.content
    # Raw content items are kept as they are (cheaper than a content_blocks round trip).
    blocks: list[Any] = (
        ([{"type": "text", "text": content}] if content else [])
        if isinstance(content, str)
        else list(content)
    )
    blocks.append({"type": "text", "text": f"\n\n{text}" if blocks else text})
    return SystemMessage(content=blocks)
