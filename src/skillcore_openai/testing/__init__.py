"""Testing helpers for the OpenAI adapters, imported from here: the scripted
OpenAI-compatible server (:class:`ScriptedServer`, defined in ``scripted_server``) and the
conformance drivers (defined in ``drivers``)."""

from __future__ import annotations

from skillcore_openai.testing.drivers import (
    AgentsSdkDriver,
    ChatDriver,
    ProfiledAgentsSdkDriver,
    ProfiledChatDriver,
    ProfiledResponsesDriver,
    ResponsesDriver,
)
from skillcore_openai.testing.drivers import (
    DispatcherDriver as DispatcherDriver,  # the base of the two above (not a driver itself)
)
from skillcore_openai.testing.scripted_server import (
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
