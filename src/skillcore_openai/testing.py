"""Testing helpers for the OpenAI adapters: the scripted OpenAI-compatible server
(:mod:`skillcore_openai.scripted_server`, see its docs) and the conformance drivers
(:mod:`skillcore_openai.drivers`); this module keeps every name importable from here."""

from __future__ import annotations

from skillcore_openai.drivers import (
    AgentsSdkDriver,
    ChatDriver,
    ProfiledAgentsSdkDriver,
    ProfiledChatDriver,
    ProfiledResponsesDriver,
    ResponsesDriver,
)
from skillcore_openai.drivers import (
    DispatcherDriver as DispatcherDriver,  # the base of the two above (not a driver itself)
)
from skillcore_openai.scripted_server import (
    ModelTurn,
    RecordedRequest,
    ScriptedCall,
    ScriptedServer,
    ScriptItem,
    text,
    tool_calls,
)

__all__ = [
    "AgentsSdkDriver",
    "ChatDriver",
    "ModelTurn",
    "ProfiledAgentsSdkDriver",
    "ProfiledChatDriver",
    "ProfiledResponsesDriver",
    "RecordedRequest",
    "ResponsesDriver",
    "ScriptItem",
    "ScriptedCall",
    "ScriptedServer",
    "text",
    "tool_calls",
]
