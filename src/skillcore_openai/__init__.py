"""skillcore for OpenAI: function-calling tool schemas (Chat Completions and Responses), the
instructions text and a dispatcher for custom agent loops, plus OpenAI Agents SDK tools.

Two adapters, one face: every name is imported from here. The Chat Completions / Responses
adapter (:class:`OpenAISkills`) lives in ``skillcore_openai.chat``, the Agents SDK adapter
(:class:`AgentSkills`) in ``skillcore_openai.agents``; the test helpers are
:mod:`skillcore_openai.testing`. ``import skillcore_openai`` needs neither ``openai`` nor
``openai-agents``; the Agents SDK part (:class:`AgentSkills`, :class:`SkillConversation`,
:class:`ProfiledAgentSkills`) is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from skillcore_openai.chat.calls import FunctionCall, parse_call
from skillcore_openai.chat.dispatcher import Handler, OpenAISkills
from skillcore_openai.chat.invocation import UserInvocation
from skillcore_openai.chat.messages import (
    attachment_message,
    binary_part,
    latest_user_text,
    tool_output,
    with_notes,
)
from skillcore_openai.chat.profiles import ProfiledOpenAISkills
from skillcore_openai.chat.results import ToolCallResult, TurnResult
from skillcore_openai.chat.schemas import chat_tool, instructions, response_tool
from skillcore_openai.chat.streaming import ChatDeltas

if TYPE_CHECKING:
    from skillcore_openai.agents.adapter import AgentSkills
    from skillcore_openai.agents.conversations import SkillConversation
    from skillcore_openai.agents.profiles import ProfiledAgentSkills

__all__ = [
    "AgentSkills",
    "ChatDeltas",
    "FunctionCall",
    "Handler",
    "OpenAISkills",
    "ProfiledAgentSkills",
    "ProfiledOpenAISkills",
    "SkillConversation",
    "ToolCallResult",
    "TurnResult",
    "UserInvocation",
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

#: The Agents SDK adapter's names, by the module defining each.
_LAZY = {
    "AgentSkills": "adapter",
    "SkillConversation": "conversations",
    "ProfiledAgentSkills": "profiles",
}


def _lazy(name: str) -> Any:
    # The Agents SDK is heavy and optional: import it only when its adapter is asked for.
    if name in _LAZY:
        module = importlib.import_module(f"skillcore_openai.agents.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'skillcore_openai' has no attribute {name!r}")


__getattr__ = _lazy
