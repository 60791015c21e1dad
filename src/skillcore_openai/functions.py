"""OpenAI function calling for skills: tool schemas (Chat Completions and Responses), the
instructions text, and a dispatcher that applies tool calls to a session.

Each job has its module: :mod:`~skillcore_openai.schemas` (what the model is offered),
:mod:`~skillcore_openai.calls` (reading tool calls and replies),
:mod:`~skillcore_openai.messages` (the messages that go back),
:mod:`~skillcore_openai.streaming` (streamed messages), :mod:`~skillcore_openai.results` and
:mod:`~skillcore_openai.dispatcher` (:class:`OpenAISkills`). This module keeps every name
importable from where it always was.

Nothing here imports ``openai``: schemas are plain dicts in the SDK's param shapes, and tool
calls are read by duck typing, so SDK objects, ``model_dump()`` dicts and hand-made dicts all
work.
"""

from __future__ import annotations

from skillcore_openai import calls, schemas
from skillcore_openai.calls import FunctionCall, parse_call
from skillcore_openai.dispatcher import Handler, OnHandlerError, OpenAISkills
from skillcore_openai.messages import (
    attachment_message,
    binary_part,
    latest_user_text,
    tool_output,
    with_notes,
)
from skillcore_openai.results import ToolCallResult, TurnResult
from skillcore_openai.schemas import Api, chat_tool, instructions, response_tool
from skillcore_openai.streaming import MAX_STREAMED_CALLS, MAX_STREAMED_CHARS, ChatDeltas

__all__ = [
    "MAX_STREAMED_CALLS",
    "MAX_STREAMED_CHARS",
    "Api",
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

# Private helpers other modules imported from here, under their old names (one release).
_get = calls.read_field
_replies_of = calls.replies_of
_name_of = calls.name_of
_id_of = calls.id_of
_arguments_of = calls.arguments_of
_tool_name = schemas.tool_name
_chat_shape = schemas.chat_shape
_response_shape = schemas.response_shape
