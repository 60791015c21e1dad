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
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import attrs

__all__ = [
    "ModelTurn",
    "RecordedRequest",
    "ScriptItem",
    "ScriptedCall",
    "ScriptedServer",
    "text",
    "tool_calls",
]


@attrs.frozen
class ScriptedCall:
    """One tool call the scripted model makes; ``arguments`` is sent verbatim if a string.
    ``custom``: a custom (free-form) tool call whose raw input is ``arguments`` (a string)."""

    name: str
    arguments: str | Mapping[str, Any] = attrs.field(factory=dict)
    call_id: str | None = None
    custom: bool = False

    def arguments_json(self) -> str:
        """The arguments as the JSON string the API carries."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments), separators=(",", ":"))


def _to_calls(calls: Iterable[ScriptedCall]) -> tuple[ScriptedCall, ...]:
    # A typed converter: mypy's attrs plugin cannot solve ``tuple``'s type variable.
    return tuple(calls)


@attrs.frozen
class ModelTurn:
    """What the model answers on one request: text, tool calls, or both."""

    text: str | None = None
    calls: tuple[ScriptedCall, ...] = attrs.field(default=(), converter=_to_calls)


def text(content: str) -> ModelTurn:
    """A turn in which the model answers with ``content`` and calls no tool."""
    return ModelTurn(text=content)


def tool_calls(*calls: ScriptedCall | tuple[str, str | Mapping[str, Any]]) -> ModelTurn:
    """A turn in which the model calls tools (in parallel when more than one)."""
    return ModelTurn(
        calls=tuple(c if isinstance(c, ScriptedCall) else ScriptedCall(c[0], c[1]) for c in calls)
    )


@attrs.frozen
class RecordedRequest:
    """A request the server received (``body`` is the parsed JSON)."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any


#: A script entry: a fixed turn, or a function of the request that returns one.
ScriptItem = ModelTurn | Callable[[RecordedRequest], ModelTurn]


_HOST = "127.0.0.1"


class ScriptedServer:
    """An OpenAI-compatible server answering from a script (a context manager)."""

    def __init__(self, script: Iterable[ScriptItem] = (), *, model: str = "scripted-model") -> None:
        self.model = model
        self.requests: list[RecordedRequest] = []
        self._script: deque[ScriptItem] = deque(script)
        self._lock = threading.Lock()
        self._counter = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        """Listen on a free port of 127.0.0.1 (in a daemon thread)."""
        if self._server is None:
            server = ThreadingHTTPServer((_HOST, 0), _handler_for(self))
            server.daemon_threads = True
            self._server = server
            self._thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def base_url(self) -> str:
        """The ``base_url`` for ``openai.OpenAI`` (ends in ``/v1``)."""
        if self._server is None:
            raise RuntimeError("the scripted server is not started")
        return f"http://{_HOST}:{self._server.server_port}/v1"

    # -- script ----------------------------------------------------------------------------

    def add(self, *turns: ScriptItem) -> None:
        """Append turns to the script."""
        with self._lock:
            self._script.extend(turns)

    @property
    def remaining(self) -> int:
        """Scripted turns not yet consumed."""
        return len(self._script)

    def _next_id(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def _answer(self, request: RecordedRequest) -> tuple[int, dict[str, Any]]:
        body = request.body
        kind = {"/v1/chat/completions": "chat", "/v1/responses": "responses"}.get(
            request.path.split("?")[0]
        )
        if request.method != "POST" or kind is None:
            return 404, _error(f"no route {request.method} {request.path}", "not_found")
        if not isinstance(body, dict):
            return 400, _error("the request body must be a JSON object", "invalid_request")
        with self._lock:
            self.requests.append(request)
            item = self._script.popleft() if self._script else None
        if item is None:
            return 400, _error("the script has no more turns", "script_exhausted")
        turn = item(request) if callable(item) else item
        payload = self._chat(turn) if kind == "chat" else self._responses(turn)
        if body.get("stream"):
            events = _chat_chunks(payload) if kind == "chat" else _response_events(payload)
            return 200, {_STREAM: events}
        return 200, payload

    def _call_id(self, call: ScriptedCall) -> str:
        return call.call_id or f"call_{self._next_id()}"

    def _chat(self, turn: ModelTurn) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None}
        if turn.calls:
            message["tool_calls"] = [
                {
                    "id": self._call_id(c),
                    "type": "custom",
                    "custom": {"name": c.name, "input": c.arguments_json()},
                }
                if c.custom
                else {
                    "id": self._call_id(c),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments_json()},
                }
                for c in turn.calls
            ]
        return {
            "id": f"chatcmpl-{self._next_id()}",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if turn.calls else "stop",
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _responses(self, turn: ModelTurn) -> dict[str, Any]:
        output: list[dict[str, Any]] = []
        if turn.text is not None:
            output.append(
                {
                    "type": "message",
                    "id": f"msg_{self._next_id()}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
                }
            )
        for c in turn.calls:
            if c.custom:
                output.append(
                    {
                        "type": "custom_tool_call",
                        "id": f"ctc_{self._next_id()}",
                        "call_id": self._call_id(c),
                        "name": c.name,
                        "input": c.arguments_json(),
                        "status": "completed",
                    }
                )
                continue
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{self._next_id()}",
                    "call_id": self._call_id(c),
                    "name": c.name,
                    "arguments": c.arguments_json(),
                    "status": "completed",
                }
            )
        return {
            "id": f"resp_{self._next_id()}",
            "object": "response",
            "created_at": 0,
            "model": self.model,
            "status": "completed",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 1,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 1,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 2,
            },
        }


#: Key of an answer that is a list of server-sent events rather than one JSON body.
_STREAM = "__stream__"
#: Streamed tool-call arguments arrive in pieces of this many characters.
_PIECE = 7


def _pieces(text: str) -> list[str]:
    return [text[i : i + _PIECE] for i in range(0, len(text), _PIECE)] or [""]


def _chat_chunks(completion: dict[str, Any]) -> list[Any]:
    """A completion as the stream of ``chat.completion.chunk`` deltas the API sends."""
    base = {k: completion[k] for k in ("id", "created", "model")}
    message = completion["choices"][0]["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return {**base, "object": "chat.completion.chunk", "choices": [choice]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": part}) for part in _pieces(message["content"] or "")]
    for index, call in enumerate(message.get("tool_calls") or ()):
        fn = call["function"]
        head = {"index": index, "id": call["id"], "type": "function"}
        chunks.append(chunk({"tool_calls": [{**head, "function": {"name": fn["name"]}}]}))
        for part in _pieces(fn["arguments"]):
            chunks.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            )
    chunks.append(chunk({}, completion["choices"][0]["finish_reason"]))
    return [*chunks, "[DONE]"]


def _response_events(response: dict[str, Any]) -> list[Any]:
    """A response as the stream of Responses events the API sends."""
    events: list[dict[str, Any]] = []

    def event(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    started = {**response, "status": "in_progress", "output": []}
    event("response.created", response=started)
    event("response.in_progress", response=started)
    for i, item in enumerate(response["output"]):
        if item["type"] == "function_call":
            event("response.output_item.added", output_index=i, item={**item, "arguments": ""})
            for part in _pieces(item["arguments"]):
                event(
                    "response.function_call_arguments.delta",
                    output_index=i,
                    item_id=item["id"],
                    delta=part,
                )
            event(
                "response.function_call_arguments.done",
                output_index=i,
                item_id=item["id"],
                name=item["name"],
                arguments=item["arguments"],
            )
        else:
            text = item["content"][0]["text"]
            ids = {"output_index": i, "item_id": item["id"], "content_index": 0}
            event("response.output_item.added", output_index=i, item={**item, "content": []})
            empty = {"type": "output_text", "text": "", "annotations": []}
            event("response.content_part.added", part=empty, **ids)
            for part in _pieces(text):
                event("response.output_text.delta", delta=part, logprobs=[], **ids)
            event("response.output_text.done", text=text, logprobs=[], **ids)
            event("response.content_part.done", part=item["content"][0], **ids)
        event("response.output_item.done", output_index=i, item=item)
    event("response.completed", response=response)
    return events


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def _sse(event: Any) -> bytes:
    data = event if isinstance(event, str) else json.dumps(event)
    name = f"event: {event['type']}\n" if isinstance(event, dict) and "type" in event else ""
    return f"{name}data: {data}\n\n".encode()


def _handler_for(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            request = RecordedRequest(
                self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
            )
            try:
                status, payload = server._answer(request)
            except Exception as exc:  # a failing responder must not hang the client
                status, payload = 500, _error(f"responder failed: {exc!r}", "responder_error")
            if _STREAM in payload:
                data = b"".join(_sse(e) for e in payload[_STREAM])
                content_type = "text/event-stream"
            else:
                data, content_type = json.dumps(payload).encode(), "application/json"
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = _handle
        do_GET = _handle

        def log_message(self, format: str, *args: Any) -> None:
            """Silence the default stderr logging."""

    return Handler
