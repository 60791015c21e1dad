"""skillcore for OpenAI: function-calling tool schemas (Chat Completions and Responses), the
instructions text and a dispatcher for custom agent loops, plus OpenAI Agents SDK tools.

``import skillcore_openai`` needs neither ``openai`` nor ``openai-agents``; the Agents SDK part
(:class:`AgentSkills`, :class:`SkillConversation`) is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillcore_openai.functions import (
    ChatDeltas,
    FunctionCall,
    Handler,
    OpenAISkills,
    ToolCallResult,
    TurnResult,
    attachment_message,
    binary_part,
    chat_tool,
    instructions,
    latest_user_text,
    parse_call,
    response_tool,
    tool_output,
    with_notes,
)
from skillcore_openai.profiles import ProfiledOpenAISkills

if TYPE_CHECKING:
    from skillcore_openai.agents_profiles import ProfiledAgentSkills
    from skillcore_openai.agents_sdk import AgentSkills, SkillConversation

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

_LAZY = {"AgentSkills", "SkillConversation"}


def _lazy(name: str) -> Any:
    # The Agents SDK is heavy and optional: import it only when its adapter is asked for.
    if name in _LAZY:
        from skillcore_openai import agents_sdk

        return getattr(agents_sdk, name)
    if name == "ProfiledAgentSkills":
        from skillcore_openai import agents_profiles

        return agents_profiles.ProfiledAgentSkills
    raise AttributeError(f"module 'skillcore_openai' has no attribute {name!r}")


__getattr__ = _lazy
