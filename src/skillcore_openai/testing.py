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

import asyncio
import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import attrs

from skillcore import Limits, SkillLibrary, ToolNames, ToolPolicy
from skillcore.testing import (
    ALL_CAPABILITIES,
    SCENARIO_PROFILE,
    SHELL_TOOL,
    AdapterDriver,
    Attachment,
    Call,
    Capability,
    Reply,
    scenario_profiles,
    shell_reply,
)
from skillcore.tools.replies import ERROR_PREFIX

__all__ = [
    "AgentsSdkDriver",
    "ModelTurn",
    "ProfiledAgentsSdkDriver",
    "RecordedRequest",
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


class AgentsSdkDriver(AdapterDriver):
    """Runs :mod:`skillcore.testing` through :class:`~skillcore_openai.AgentSkills` on the
    Agents SDK's real ``Runner`` with its ``ScriptedModel``.

    Each turn is one ``Runner.run`` of the conversation's history plus a user message: the
    model calls the turn's tools (in parallel), then answers. Conversations are
    :meth:`AgentSkills.conversation` states passed as the run context. A reply is an error
    when its text starts with the one error prefix (the SDK has no error flag).
    """

    #: The SDK fails a run whose model calls a tool it was not offered (ModelBehaviorError).
    capabilities = ALL_CAPABILITIES - {Capability.UNOFFERED_CALLS}

    def __init__(self) -> None:
        self.names = ToolNames()

    def _make_skills(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        """The adapter object under test (a profiled subclass driver overrides this)."""
        from skillcore_openai.agents_sdk import AgentSkills

        return AgentSkills(
            library,
            limits=limits,
            policy=policy,
            tools=[_agents_tool(n, lambda _: "ok") for n in self.gated],
            prompt_mode=self.prompt_mode,
            **self.options,
        )

    def _context(self, key: str) -> Any:
        """The run context of conversation ``key``."""
        return self.skills.conversation(key)

    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        from agents import Agent
        from agents.testing import ScriptedModel

        self.skills = self._make_skills(library, limits, policy)
        self.model = ScriptedModel()
        plain = [
            _agents_tool("Read", lambda _: "ok"),
            _agents_tool("Write", lambda _: "ok"),
            _agents_tool(SHELL_TOOL, lambda args: shell_reply(args["command"]), command=True),
        ]
        self.agent = self.skills.guard_agent(
            Agent(
                name="conformance",
                instructions=self.skills.instructions(),
                tools=[*self.skills.tools(), *plain],
                model=self.model,
            )
        )
        self.loop = asyncio.new_event_loop()
        self.histories: dict[str, list[Any]] = {}
        self.use_conversation("main")

    def use_conversation(self, key: str) -> None:
        self.key = key
        self.histories.setdefault(key, [])

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        from agents import RunConfig, Runner
        from agents.testing import assistant_message, function_call

        ids = [f"call_{next(_call_ids)}" for _ in calls]
        self.model.extend(
            [
                [function_call(c.tool, c.args, call_id=i) for c, i in zip(calls, ids)],
                [assistant_message("done")],
            ]
        )
        history = [*self.histories[self.key], {"role": "user", "content": "continue"}]
        result = self.loop.run_until_complete(
            Runner.run(
                self.agent,
                history,
                context=self._context(self.key),
                run_config=RunConfig(tracing_disabled=True),
            )
        )
        self.histories[self.key] = result.to_input_list()
        outputs = {
            item["call_id"]: item["output"]
            for item in self.histories[self.key]
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        }
        return [_agents_reply(c.tool, outputs[i]) for c, i in zip(calls, ids)]

    def _call(self, index: int = -1) -> Any:
        return self.model.calls[index]

    def instructions(self) -> str:
        return self._call().system_instructions or ""

    def offered(self) -> list[str]:
        return [t.name for t in self._call().tools]

    def drop_history(self) -> None:
        """Later runs get only their own user message (a trimmed or compacted session)."""
        self.histories[self.key] = []

    def loaded(self) -> list[str]:
        return list(self.skills.conversation(self.key).loaded_names)

    def close(self) -> None:
        if hasattr(self, "loop"):
            self.loop.close()


class ProfiledAgentsSdkDriver(AgentsSdkDriver):
    """:class:`AgentsSdkDriver` through :class:`~skillcore_openai.ProfiledAgentSkills`: the
    scenario is one of two profiles (:func:`skillcore.testing.scenario_profiles`), selected
    by each run's context, so every check goes through the profile machinery."""

    def _make_skills(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        from skillcore_openai.agents_profiles import ProfiledAgentSkills

        return ProfiledAgentSkills(
            scenario_profiles(self, library, limits, policy),
            tools=[_agents_tool(n, lambda _: "ok") for n in self.gated],
        )

    def _context(self, key: str) -> Any:
        return {"skill_profile": SCENARIO_PROFILE, "conversation": key}

    def loaded(self) -> list[str]:
        scenario = self.skills.profiles[SCENARIO_PROFILE]
        return list(scenario.conversation(self.key).loaded_names)


_call_ids = itertools.count(1)


def _agents_tool(name: str, run: Callable[[dict[str, Any]], str], command: bool = False) -> Any:
    """A plain Agents SDK function tool ``name`` (argument ``command`` when asked)."""
    from agents import FunctionTool

    properties = {"command": {"type": "string"}} if command else {}

    async def invoke(ctx: Any, arguments: str) -> str:
        return run(json.loads(arguments or "{}"))

    return FunctionTool(
        name=name,
        description=f"{name} something.",
        params_json_schema={
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        },
        on_invoke_tool=invoke,
        strict_json_schema=True,
    )


def _agents_reply(tool: str, output: Any) -> Reply:
    """What the model got for one call: a text, or a list of parts (text, image, file)."""
    if isinstance(output, str):
        return Reply(tool, output, output.startswith(ERROR_PREFIX))
    texts, parts = [], []
    for part in output:
        kind = part.get("type")
        if kind == "input_text":
            texts.append(part["text"])
        elif kind == "input_image":
            parts.append(Attachment.from_data_url(part["image_url"]))
        elif kind == "input_file":
            parts.append(Attachment.from_data_url(part["file_data"]))
    text = "\n".join(texts)
    return Reply(tool, text, text.startswith(ERROR_PREFIX), tuple(parts))


# -- the function-calling dispatcher: the real ``openai`` client against ScriptedServer --------

_PLAIN: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "Read": lambda args: "ok",
    "Write": lambda args: "ok",
    SHELL_TOOL: lambda args: shell_reply(args["command"]),
}
_NO_ARGS = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
_TASK = {"role": "user", "content": "Work on the task."}


def _dispatch_parts(r: Any) -> tuple[Attachment, ...]:
    """Binary parts the model gets for a call: in a Responses output, or (Chat Completions)
    in the attachment message that follows the tool messages."""
    items: list[Any] = list(r.followup["content"]) if r.followup else []
    output = (r.message or {}).get("output")
    items += output if isinstance(output, list) else []
    urls: dict[str, Callable[[Any], str]] = {
        "image_url": lambda p: p["image_url"]["url"],
        "file": lambda p: p["file"]["file_data"],
        "input_image": lambda p: p["image_url"],
        "input_file": lambda p: p["file_data"],
    }
    return tuple(
        Attachment.from_data_url(urls[p["type"]](p)) for p in items if p.get("type") in urls
    )


class DispatcherDriver(AdapterDriver):
    """Runs :mod:`skillcore.testing` through :class:`~skillcore_openai.OpenAISkills` in an
    agent loop of the real ``openai`` client against a :class:`ScriptedServer`: each model
    turn is a scripted response with the given tool calls, the loop handles ``Read``,
    ``Write`` and the shell tool, and conversations are saved with ``save``/``load``."""

    def _make_skills(
        self,
        library: SkillLibrary,
        limits: Limits,
        policy: ToolPolicy,
        handlers: Mapping[str, Any],
    ) -> Any:
        """The adapter under test: an ``OpenAISkills`` (the profiled driver selects one)."""
        from skillcore_openai.functions import OpenAISkills

        gated = [
            {"type": "function", "name": n, "description": n, "parameters": _NO_ARGS}
            for n in self.gated
        ]
        return OpenAISkills(
            library, handlers=handlers, tools=gated, prompt_mode=self.prompt_mode, **self.options
        )

    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        self.server = ScriptedServer().start()
        handlers = {**_PLAIN, **dict.fromkeys(self.gated, _PLAIN["Read"])}
        self.skills = self._make_skills(library, limits, policy, handlers)
        self.limits, self.policy = limits, policy
        self.histories: dict[str, list[Any]] = {}
        self.key = ""
        self.session: Any = None
        self.use_conversation("main")
        self._setup()

    def use_conversation(self, key: str) -> None:
        # Each conversation keeps its own saved state and history, as a loop would.
        if self.key:
            self.skills.save(self.key, self.session)
        self.key = key
        self.history = self.histories.setdefault(key, [_TASK])
        self.session = self.skills.load(key, self.limits, self.policy)

    def _setup(self) -> None:
        """Create the client."""
        raise TypeError(f"{type(self).__name__} must create its client")

    def drop_history(self) -> None:
        # A loop that trims its history keeps only the task.
        self.history = self.histories[self.key] = [_TASK]

    def _script(self, calls: Sequence[Call]) -> None:
        self.server.add(tool_calls(*(ScriptedCall(c.tool, c.args) for c in calls)))

    @staticmethod
    def _replies(calls: Sequence[Call], results: Sequence[Any]) -> list[Reply]:
        assert [r.call.name for r in results] == [c.tool for c in calls]
        return [Reply(r.call.name, r.output or "", r.is_error, _dispatch_parts(r)) for r in results]

    def loaded(self) -> list[str]:
        return list(self.session.loaded_names)

    def offered(self) -> list[str]:
        tools = self.server.requests[-1].body.get("tools", [])
        return [t["function"]["name"] if "function" in t else t["name"] for t in tools]


class ChatDriver(DispatcherDriver):
    """Sync client, Chat Completions, ``dispatch_all``."""

    def _setup(self) -> None:
        import openai

        self.client = openai.OpenAI(base_url=self.server.base_url, api_key="k", max_retries=0)

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        self._script(calls)
        system: Any = {"role": "system", "content": self.skills.instructions(self.session)}
        response = self.client.chat.completions.create(
            model="m", messages=[system, *self.history], tools=self.skills.chat_tools(self.session)
        )
        message = response.choices[0].message
        self.history.append(message)
        turn = self.skills.dispatch_all(self.session, message.tool_calls, history=self.history)
        self.session = turn.session
        self.history.extend(turn.messages)
        return self._replies(calls, turn.results)

    def instructions(self) -> str:
        return str(self.server.requests[-1].body["messages"][0]["content"])

    def close(self) -> None:
        if hasattr(self, "client"):
            self.client.close()
            self.server.close()


class ResponsesDriver(DispatcherDriver):
    """Async client, Responses API, concurrent ``adispatch_all``."""

    def _setup(self) -> None:
        import openai

        self.loop = asyncio.new_event_loop()
        self.client = openai.AsyncOpenAI(base_url=self.server.base_url, api_key="k", max_retries=0)

    async def _turn(self) -> list[Any]:
        response = await self.client.responses.create(
            model="m",
            instructions=self.skills.instructions(self.session),
            input=self.history,
            tools=self.skills.response_tools(self.session),
        )
        self.history += response.output
        calls = [item for item in response.output if item.type == "function_call"]
        turn = await self.skills.adispatch_all(self.session, calls, history=self.history)
        self.session = turn.session
        self.history += turn.messages
        return list(turn.results)

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        self._script(calls)
        return self._replies(calls, self.loop.run_until_complete(self._turn()))

    def instructions(self) -> str:
        return str(self.server.requests[-1].body["instructions"])

    def close(self) -> None:
        if hasattr(self, "client"):
            self.loop.run_until_complete(self.client.close())
            self.loop.close()
            self.server.close()


class _Profiled:
    """Selects the scenario's profile of a :class:`~skillcore_openai.ProfiledOpenAISkills`
    (:func:`skillcore.testing.scenario_profiles`) for the whole run, as a loop serving a
    tenant does with ``for_run``; conversations are saved under that profile's keys."""

    gated: tuple[str, ...]

    def _make_skills(
        self: Any,
        library: SkillLibrary,
        limits: Limits,
        policy: ToolPolicy,
        handlers: Mapping[str, Any],
    ) -> Any:
        from skillcore_openai.profiles import ProfiledOpenAISkills

        gated = [
            {"type": "function", "name": n, "description": n, "parameters": _NO_ARGS}
            for n in self.gated
        ]
        profiled = ProfiledOpenAISkills(
            scenario_profiles(self, library, limits, policy),
            handlers=handlers,
            tools=gated,
        )
        return profiled.for_run(SCENARIO_PROFILE)


class ProfiledChatDriver(_Profiled, ChatDriver):
    """:class:`ChatDriver` through ``ProfiledOpenAISkills``."""


class ProfiledResponsesDriver(_Profiled, ResponsesDriver):
    """:class:`ResponsesDriver` through ``ProfiledOpenAISkills``."""
