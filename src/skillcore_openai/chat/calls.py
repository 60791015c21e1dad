"""Reading what the model sent: tool calls of either OpenAI API (and Anthropic ``tool_use``
blocks), normalised to :class:`FunctionCall`, and the tool replies in a history.

Read by duck typing: SDK objects, ``model_dump()`` dicts and hand-made dicts all work.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillcore_openai.chat.schemas import Api

__all__ = [
    "FunctionCall",
    "arguments_of",
    "calls_of",
    "id_of",
    "name_of",
    "parse_call",
    "read_field",
    "replies_of",
]


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


def read_field(obj: Any, key: str) -> Any:
    """``obj[key]`` of a mapping, else its attribute ``key`` (None when it has none)."""
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
    kind = read_field(call, "type")
    if kind == "tool_use":  # an Anthropic Messages content block
        return FunctionCall(
            "anthropic",
            _str(read_field(call, "name"), "name"),
            read_field(call, "input"),
            _id(call),
        )
    function = read_field(call, "function")
    if function is not None and kind in (None, "function"):
        return FunctionCall(
            "chat",
            _str(read_field(function, "name"), "name"),
            read_field(function, "arguments"),
            _id(call),
        )
    custom = read_field(call, "custom")
    if custom is not None and kind == "custom":
        return FunctionCall(
            "chat",
            _str(read_field(custom, "name"), "name"),
            read_field(custom, "input"),
            _id(call),
            True,
        )
    if kind in ("function_call", "custom_tool_call") or (
        kind is None and read_field(call, "call_id") is not None
    ):
        is_custom = kind == "custom_tool_call"
        return FunctionCall(
            "responses",
            _str(read_field(call, "name"), "name"),
            read_field(call, "input" if is_custom else "arguments"),
            _str(read_field(call, "call_id"), "call_id"),
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
    return _str(read_field(call, "id"), "id")


def replies_of(item: Any) -> tuple[tuple[str | None, object], ...]:
    """An item's tool replies as ``(call id, content)``: a Chat Completions ``tool``
    message, a Responses ``function_call_output`` / ``custom_tool_call_output`` item, or the
    ``tool_result`` blocks of an Anthropic message (dicts or SDK objects)."""
    if read_field(item, "role") == "tool":
        return ((read_field(item, "tool_call_id"), read_field(item, "content")),)
    kind = read_field(item, "type")
    if kind in ("function_call_output", "custom_tool_call_output"):
        return ((read_field(item, "call_id"), read_field(item, "output")),)
    content = read_field(item, "content")
    if isinstance(content, list):
        return tuple(
            (read_field(b, "tool_use_id"), read_field(b, "content"))
            for b in content
            if read_field(b, "type") == "tool_result"
        )
    return ()


def calls_of(item: Any) -> tuple[tuple[str, str], ...]:
    """An item's tool calls as ``(call id, tool name)``: a Chat Completions assistant
    message's ``tool_calls``, a Responses ``function_call`` / ``custom_tool_call`` item, or
    the ``tool_use`` blocks of an Anthropic message. What pairs a reply with the call it
    answers; a call whose name cannot be read gets the name "" (it is no load)."""
    if read_field(item, "type") in ("function_call", "custom_tool_call"):
        found: Any = [item]
    else:
        found = read_field(item, "tool_calls")
        if not isinstance(found, list):
            content = read_field(item, "content")
            found = content if isinstance(content, list) else []
            found = [b for b in found if read_field(b, "type") == "tool_use"]
    out = []
    for call in found:
        try:
            parsed = parse_call(call)
        except ValueError:
            call_id = read_field(call, "id") or read_field(call, "call_id")
            if isinstance(call_id, str):
                out.append((call_id, ""))
            continue
        out.append((parsed.call_id, parsed.name))
    return tuple(out)


def name_of(call: Any) -> str:
    try:
        return parse_call(call).name
    except ValueError:
        return ""


def id_of(call: Any) -> str:
    try:
        return parse_call(call).call_id or ""
    except ValueError:
        return ""


def arguments_of(call: Any) -> Any:
    """A call's arguments as the model sent them (None when the call cannot be parsed)."""
    try:
        return parse_call(call).arguments
    except ValueError:
        return None
