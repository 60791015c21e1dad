"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for testing agent loops offline.

Point the real ``openai`` client at :attr:`ScriptedServer.base_url`; each request to
``/v1/chat/completions`` or ``/v1/responses`` takes the next scripted :class:`ModelTurn` and is
answered in that endpoint's shape. Every request body is recorded, so tests can assert exactly
what the SDK sent::

    with ScriptedServer([tool_calls(("load_skill", {"skill_name": "x"})), text("done")]) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="test", max_retries=0)
        ...
        srv.requests[0].body["tools"]

Requests with ``"stream": true`` are answered as the API streams (server-sent events): Chat
Completions chunks whose tool-call arguments arrive in pieces, and the Responses events
(``response.output_item.added`` ... ``response.output_item.done`` per item, then
``response.completed``).

The server lives in :mod:`skillcore_openai.scripted_server`, the conformance drivers in
:mod:`skillcore_openai.drivers`; this module keeps every name importable from here.
"""

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
