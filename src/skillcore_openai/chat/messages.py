"""The conversation's messages: the user's latest words (the query a relevance-ordered
catalog is ranked for), the per-request suggestion notes added after user messages, and the
messages/items that carry tool replies and binary resources back to the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from skillcore import BinaryPayload
from skillcore.runtime import query_text, replies
from skillcore_openai.chat.calls import parse_call, read_field
from skillcore_openai.chat.schemas import Api

__all__ = [
    "attachment_message",
    "binary_part",
    "latest_user_text",
    "tool_output",
    "with_notes",
]


def latest_user_text(messages: str | Iterable[Any] | None) -> str | None:
    """Text of the last user message with text in a Chat Completions ``messages`` list or a
    Responses ``input`` (a string, or a list of items; SDK objects or dicts): the ``query``
    for a catalog ordered by relevance. Its text parts are joined; None if there is none."""
    if isinstance(messages, str):
        return query_text([messages])
    for item in reversed(list(messages or ())):
        if read_field(item, "role") != "user":
            continue
        content = read_field(item, "content")
        parts = (
            [content]
            if isinstance(content, str)
            else [read_field(p, "text") for p in content or ()]
        )
        first = parts[0] if parts and not isinstance(content, str) else None
        if isinstance(first, str) and first.startswith(replies.ATTACHMENT_PREFIX):
            continue  # a binary resource's attachment message, not the user's words
        text = query_text(p for p in parts if isinstance(p, str))
        if text is not None:
            return text
    return None


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
                texts = [read_field(p, "text") for p in content]
                first = texts[0] if texts else None
                attached = isinstance(first, str) and first.startswith(replies.ATTACHMENT_PREFIX)
                note = (
                    "" if attached else note_for(query_text(t for t in texts if isinstance(t, str)))
                )
                if note:
                    kinds = {read_field(p, "type") for p in content}
                    kind = (
                        "input_text"
                        if kinds & {"input_text", "input_image", "input_file"}
                        else "text"
                    )
                    item = {**item, "content": [*content, {"type": kind, "text": note}]}
        out.append(item)
    return out


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
