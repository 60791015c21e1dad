"""Conformance drivers for the OpenAI adapters: :mod:`skillcore.testing`'s scenario through
the Agents SDK's real ``Runner`` (:class:`AgentsSdkDriver`) and through an agent loop of the
real ``openai`` client against a :class:`~skillcore_openai.testing.ScriptedServer`
(:class:`ChatDriver`, :class:`ResponsesDriver`), plain and profiled."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from skillcore import Limits, SkillLibrary, ToolNames, ToolPolicy
from skillcore.runtime import DEFAULT_CONTEXT_KEY, ERROR_PREFIX
from skillcore.testing import (
    ALL_CAPABILITIES,
    SCENARIO_PROFILE,
    SHELL_TOOL,
    SUBAGENT_ANSWER,
    SUBAGENT_NAME,
    AdapterDriver,
    Attachment,
    Call,
    Capability,
    Reply,
    UserTurn,
    scenario_profiles,
    shell_reply,
)
from skillcore_openai.testing.scripted_server import ScriptedCall, ScriptedServer, tool_calls
from skillcore_openai.testing.scripted_server import text as text_reply

__all__ = [
    "AgentsSdkDriver",
    "ChatDriver",
    "DispatcherDriver",
    "ProfiledAgentsSdkDriver",
    "ProfiledChatDriver",
    "ProfiledResponsesDriver",
    "ResponsesDriver",
]


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
        from skillcore_openai import AgentSkills

        return AgentSkills(
            library,
            limits=limits,
            policy=policy,
            tools=[_agents_tool(n, lambda _: "ok") for n in self.gated],
            prompt_mode=self.prompt_mode,
            subagents={SUBAGENT_NAME: self._subagent},
            **self.options,
        )

    def _subagent(self, skills: Any) -> Any:
        """The scenario's subagent: an ``Agent`` with its own scripted model."""
        from agents import Agent

        return Agent(
            name="explorer",
            instructions=skills.instructions("You explore."),
            tools=[*skills.tools(), *_plain_tools()],
            model=self.subagent_model,
        )

    def subagent_replies(self) -> list[Reply]:
        items = [i for i in self.subagent_model.calls[-1].input if isinstance(i, dict)]
        names = {i["call_id"]: i["name"] for i in items if i.get("type") == "function_call"}
        return [
            _agents_reply(names.get(i["call_id"], ""), i["output"])
            for i in items
            if i.get("type") == "function_call_output"
        ]

    def _context(self, key: str) -> Any:
        """The run context of conversation ``key``."""
        return self.skills.conversation(key)

    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        from agents import Agent
        from agents.testing import ScriptedModel, assistant_message, function_call

        self.subagent_model = ScriptedModel(
            [
                *(
                    [function_call(c.tool, c.args, call_id=f"sub_{next(_call_ids)}") for c in step]
                    for step in self.subagent_turns
                ),
                [assistant_message(SUBAGENT_ANSWER)],
            ]
        )
        self.skills = self._make_skills(library, limits, policy)
        self.model = ScriptedModel()
        plain = _plain_tools()
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

    def user_turn(self, text: str) -> UserTurn:
        """A user message as a loop applies it: :meth:`AgentSkills.invoke_user_message`
        before the run (none for a refusal), then a run whose model answers."""
        from agents import RunConfig, Runner
        from agents.testing import assistant_message

        user = {"role": "user", "content": text}
        state = self._context(self.key)
        invoked = self.loop.run_until_complete(self.skills.invoke_user_message(state, user))
        if invoked is not None and not invoked.ok:
            return UserTurn(answer=invoked.result.text)
        added = list(invoked.messages) if invoked is not None else []
        self.model.extend([[assistant_message("done")]])
        history = [*self.histories[self.key], user, *added]
        result = self.loop.run_until_complete(
            Runner.run(
                self.agent, history, context=state, run_config=RunConfig(tracing_disabled=True)
            )
        )
        self.histories[self.key] = result.to_input_list()
        sent = self._call().input
        asked = max(
            i for i, m in enumerate(sent) if isinstance(m, dict) and m.get("role") == "user"
        )
        outputs = [
            m["output"]
            for m in sent[asked + 1 :]
            if isinstance(m, dict) and m.get("type") == "function_call_output"
        ]
        return UserTurn(delivered=outputs[0] if outputs else None)

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

    #: ``ProfiledAgentSkills`` has no ``invoke_user_message`` (a loop uses the run's profile);
    #: profiles take no subagents.
    capabilities = AgentsSdkDriver.capabilities - {Capability.USER_INVOCATION, Capability.SUBAGENTS}

    def _make_skills(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        from skillcore_openai import ProfiledAgentSkills

        return ProfiledAgentSkills(
            scenario_profiles(self, library, limits, policy),
            tools=[_agents_tool(n, lambda _: "ok") for n in self.gated],
        )

    def _context(self, key: str) -> Any:
        return {DEFAULT_CONTEXT_KEY: SCENARIO_PROFILE, "conversation": key}

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


def _plain_tools() -> list[Any]:
    """The scenario's plain tools as Agents SDK function tools."""
    return [
        _agents_tool("Read", lambda _: "ok"),
        _agents_tool("Write", lambda _: "ok"),
        _agents_tool(SHELL_TOOL, lambda args: shell_reply(args["command"]), command=True),
    ]


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


def _gated_tools(names: Sequence[str]) -> list[dict[str, Any]]:
    """The scenario's gated tools as Responses function tools (no arguments)."""
    return [
        {"type": "function", "name": n, "description": n, "parameters": _NO_ARGS} for n in names
    ]


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

    #: A custom loop has no subagent mechanism: a forked skill's load comes back as a
    #: ``FORK`` result, which the loop may act on itself.
    capabilities = ALL_CAPABILITIES - {Capability.SUBAGENTS}

    #: Through a :class:`~skillcore_openai.ProfiledOpenAISkills` whose scenario profile
    #: (:func:`skillcore.testing.scenario_profiles`) is selected for the whole run, as a loop
    #: serving a tenant does with ``for_run``; conversations are saved under its keys.
    profiled = False

    def _make_skills(
        self,
        library: SkillLibrary,
        limits: Limits,
        policy: ToolPolicy,
        handlers: Mapping[str, Any],
    ) -> Any:
        """The adapter under test: an ``OpenAISkills`` (the profiled drivers' selected one)."""
        from skillcore_openai import OpenAISkills, ProfiledOpenAISkills

        gated = _gated_tools(self.gated)
        if self.profiled:
            profiles = scenario_profiles(self, library, limits, policy)
            profiled = ProfiledOpenAISkills(profiles, handlers=handlers, tools=gated)
            return profiled.for_run(SCENARIO_PROFILE)
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

    #: The API whose shapes the loop uses (``"chat"`` or ``"responses"``).
    api = "chat"

    def user_turn(self, text: str) -> UserTurn:
        """A user message, as a loop applies it: :meth:`OpenAISkills.invoke_user_message`
        first, then (unless it was refused) a model call that answers without tool calls."""
        user = {"role": "user", "content": text}
        invoked = self.skills.invoke_user_message(
            self.session, user, api=self.api, conversation=self.key
        )
        self.history.append(user)
        if invoked is not None and not invoked.ok:
            self.history.extend(invoked.messages)
            return UserTurn(answer=invoked.result.text)
        if invoked is not None:
            self.session = invoked.session
            self.history.extend(invoked.messages)
        self.server.add(text_reply("done"))
        return UserTurn(delivered=self._answer())

    def _answer(self) -> str | None:
        """One model call on the history; the load output the model received after the
        latest user message (None: none)."""
        raise TypeError(f"{type(self).__name__} must make its model call")

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

    def _answer(self) -> str | None:
        system: Any = {"role": "system", "content": self.skills.instructions(self.session)}
        response = self.client.chat.completions.create(
            model="m", messages=[system, *self.history], tools=self.skills.chat_tools(self.session)
        )
        self.history.append(response.choices[0].message)
        sent = self.server.requests[-1].body["messages"]
        asked = max(i for i, m in enumerate(sent) if m.get("role") == "user")
        tools = [m["content"] for m in sent[asked + 1 :] if m.get("role") == "tool"]
        return tools[0] if tools else None

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

    api = "responses"

    async def _aanswer(self) -> None:
        response = await self.client.responses.create(
            model="m",
            instructions=self.skills.instructions(self.session),
            input=self.history,
            tools=self.skills.response_tools(self.session),
        )
        self.history += response.output

    def _answer(self) -> str | None:
        self.loop.run_until_complete(self._aanswer())
        sent = self.server.requests[-1].body["input"]
        asked = max(i for i, m in enumerate(sent) if m.get("role") == "user")
        outputs = [
            m["output"] for m in sent[asked + 1 :] if m.get("type") == "function_call_output"
        ]
        return outputs[0] if outputs else None

    def instructions(self) -> str:
        return str(self.server.requests[-1].body["instructions"])

    def close(self) -> None:
        if hasattr(self, "client"):
            self.loop.run_until_complete(self.client.close())
            self.loop.close()
            self.server.close()


class ProfiledChatDriver(ChatDriver):
    """:class:`ChatDriver` through ``ProfiledOpenAISkills``."""

    profiled = True


class ProfiledResponsesDriver(ResponsesDriver):
    """:class:`ResponsesDriver` through ``ProfiledOpenAISkills``."""

    profiled = True
