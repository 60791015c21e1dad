"""The core's conformance scenario through the dispatcher, the real ``openai`` client and the
scripted server: each model turn is a scripted assistant response with the given tool calls,
and the loop handles the plain tools ``Read`` and ``Write``."""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import openai
import pytest

from skillcore import Limits, SkillLibrary, ToolPolicy
from skillcore.testing import (
    CHECKS,
    SHELL_TOOL,
    AdapterDriver,
    Attachment,
    Call,
    Reply,
    run_check,
    shell_reply,
)
from skillcore_openai import OpenAISkills, ToolCallResult
from skillcore_openai.testing import ScriptedCall, ScriptedServer, tool_calls

PLAIN = {
    "Read": lambda args: "ok",
    "Write": lambda args: "ok",
    SHELL_TOOL: lambda args: shell_reply(args["command"]),
}
NO_ARGS = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
FIRST = {"role": "user", "content": "Work on the task."}


def _parts(r: ToolCallResult) -> tuple[Attachment, ...]:
    """Binary parts the model gets for a call: in a Responses output, or (Chat Completions)
    in the attachment message that follows the tool messages."""
    items: list[Any] = list(r.followup["content"]) if r.followup else []
    output = (r.message or {}).get("output")
    items += output if isinstance(output, list) else []
    urls = {
        "image_url": lambda p: p["image_url"]["url"],
        "file": lambda p: p["file"]["file_data"],
        "input_image": lambda p: p["image_url"],
        "input_file": lambda p: p["file_data"],
    }
    return tuple(
        Attachment.from_data_url(urls[p["type"]](p)) for p in items if p.get("type") in urls
    )


class _Driver(AdapterDriver):
    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        self.server = ScriptedServer().start()
        gated = [
            {"type": "function", "name": n, "description": n, "parameters": NO_ARGS}
            for n in self.gated
        ]
        handlers = {**PLAIN, **dict.fromkeys(self.gated, PLAIN["Read"])}
        self.skills = OpenAISkills(
            library, handlers=handlers, tools=gated, prompt_mode=self.prompt_mode, **self.options
        )
        self.limits, self.policy = limits, policy
        self.conversations: dict[str, tuple[Any, list[Any]]] = {}
        self.key = ""
        self.use_conversation("main")
        self._setup()

    def use_conversation(self, key: str) -> None:
        # Each conversation keeps its own saved state and history, as a loop would.
        if self.key:
            self.conversations[self.key] = (self.session.to_state(), self.history)
        state, history = self.conversations.get(key, (None, [FIRST]))
        self.key, self.history = key, history
        self.session = self.skills.restore(state, self.limits, self.policy)

    @abc.abstractmethod
    def _setup(self) -> None:
        """Create the client."""

    def drop_history(self) -> None:
        # A loop that trims its history keeps only the task.
        self.history = [FIRST]

    def _script(self, calls: Sequence[Call]) -> None:
        self.server.add(tool_calls(*(ScriptedCall(c.tool, c.args) for c in calls)))

    @staticmethod
    def _replies(calls: Sequence[Call], results: Sequence[ToolCallResult]) -> list[Reply]:
        assert [r.call.name for r in results] == [c.tool for c in calls]
        return [Reply(r.call.name, r.output or "", r.is_error, _parts(r)) for r in results]

    def loaded(self) -> list[str]:
        return list(self.session.loaded_names)

    def offered(self) -> list[str]:
        tools = self.server.requests[-1].body.get("tools", [])
        return [t["function"]["name"] if "function" in t else t["name"] for t in tools]


class ChatDriver(_Driver):
    """Sync client, Chat Completions, ``dispatch_all``."""

    def _setup(self) -> None:
        self.client = openai.OpenAI(base_url=self.server.base_url, api_key="k", max_retries=0)

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        self._script(calls)
        system = {"role": "system", "content": self.skills.instructions(self.session)}
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
        return self.server.requests[-1].body["messages"][0]["content"]

    def close(self) -> None:
        self.client.close()
        self.server.close()


class ResponsesDriver(_Driver):
    """Async client, Responses API, concurrent ``adispatch_all``."""

    def _setup(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.client = openai.AsyncOpenAI(base_url=self.server.base_url, api_key="k", max_retries=0)

    async def _turn(self) -> list[ToolCallResult]:
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
        return self.server.requests[-1].body["instructions"]

    def close(self) -> None:
        self.loop.run_until_complete(self.client.close())
        self.loop.close()
        self.server.close()


@pytest.mark.parametrize("driver_cls", [ChatDriver, ResponsesDriver], ids=["chat", "responses"])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_openai_conformance(check, driver_cls: type[_Driver], tmp_path: Path) -> None:
    run_check(check, driver_cls(), tmp_path)
