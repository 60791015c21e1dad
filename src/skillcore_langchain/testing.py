"""Offline testing helpers: a scripted chat model and the conformance driver.

``ScriptedChatModel`` is a real ``BaseChatModel`` (so ``create_agent`` runs unchanged) that
supports ``bind_tools`` and replays scripted ``AIMessage``s; every request is recorded, so tests
can assert exactly what the model was shown::

    model = ScriptedChatModel(script=[tool_calls(("load_skill", {"skill_name": "x"}))])
    agent = create_agent(model, tools, middleware=[SkillsMiddleware("./skills")])
    agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
    model.system()          # the system message of the last model call
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import threading
from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, StructuredTool, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from pydantic import ConfigDict, Field

from skillcore import Limits, SkillLibrary, ToolNames, ToolPolicy
from skillcore.runtime import loaded_names_of
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
    scenario_config,
    scenario_profiles,
    shell_reply,
)
from skillcore_langchain.middleware import STATE_KEY, SkillsMiddleware
from skillcore_langchain.profiles import DEFAULT_CONTEXT_KEY, ProfiledSkillsMiddleware

__all__ = [
    "LangChainDriver",
    "ProfiledLangChainDriver",
    "ScriptedChatModel",
    "plain_tools",
    "shell_tool",
    "tool_calls",
]

#: A scripted step: a message, or a function of the prompt messages returning one.
Step = AIMessage | Callable[[list[BaseMessage]], AIMessage]

_ids = itertools.count(1)


def tool_calls(*items: tuple[str, dict[str, Any]] | str, text: str = "") -> AIMessage:
    """An AIMessage calling tools in parallel: ``tool_calls(("load_skill", {...}), "Read")``."""
    calls = []
    for item in items:
        name, args = (item, {}) if isinstance(item, str) else item
        calls.append({"name": name, "args": dict(args), "id": f"call_{next(_ids)}"})
    return AIMessage(content=text, tool_calls=calls)


class ScriptedChatModel(BaseChatModel):
    """Replays ``script`` (AIMessages or callables of the prompt) and records every request.

    When the script runs out the model answers ``"done"`` (which ends an agent run).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[Any] = Field(default_factory=list)
    requests: list[dict[str, Any]] = Field(default_factory=list)
    lock: Any = Field(default_factory=threading.Lock, exclude=True)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        """Record the tools in OpenAI format (what a real provider would be sent)."""
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def push(self, *steps: Step) -> None:
        """Append steps to the script."""
        with self.lock:
            self.script.extend(steps)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self.lock:
            self.requests.append({"messages": list(messages), "tools": kwargs.get("tools", [])})
            step = self.script.pop(0) if self.script else AIMessage(content="done")
        message = step(list(messages)) if callable(step) else step
        return ChatResult(generations=[ChatGeneration(message=message.model_copy())])

    # -- what the model was shown ----------------------------------------------------------

    def system(self, index: int = -1) -> str:
        """Text of the system message of a recorded request ("" if it had none)."""
        messages = self.requests[index]["messages"]
        first = messages[0] if messages else None
        return first.text if isinstance(first, SystemMessage) else ""

    def tool_names(self, index: int = -1) -> list[str]:
        """Names of the tools bound for a recorded request."""
        return [t["function"]["name"] for t in self.requests[index]["tools"]]

    def tool_schema(self, name: str, index: int = -1) -> dict[str, Any]:
        """JSON Schema of one bound tool's parameters."""
        for t in self.requests[index]["tools"]:
            if t["function"]["name"] == name:
                return dict(t["function"]["parameters"])
        raise KeyError(name)


def plain_tools() -> list[BaseTool]:
    """Two ordinary tools, ``Read`` and ``Write``, as the conformance scenario expects."""

    @tool("Read")
    def read(path: str = "") -> str:
        """Read a file."""
        return f"read {path}".strip()

    @tool("Write")
    def write(path: str = "", text: str = "") -> str:
        """Write a file."""
        return f"wrote {path}".strip()

    return [read, write]


def shell_tool() -> BaseTool:
    """The conformance scenario's shell tool (:data:`skillcore.testing.SHELL_TOOL`)."""

    @tool(SHELL_TOOL)
    def execute(command: str) -> str:
        """Run a shell command."""
        return shell_reply(command)

    return execute


def _gated_tool(name: str) -> BaseTool:
    """A plain tool named ``name`` (a skill-gated tool of the conformance scenario)."""
    return StructuredTool.from_function(
        func=lambda: "ok", name=name, description=f"{name} something."
    )


class LangChainDriver(AdapterDriver):
    """Runs :mod:`skillcore.testing` through ``create_agent`` with a checkpointer.

    Each turn is one ``invoke`` (or ``ainvoke`` with ``use_async=True``) of the same thread.
    """

    def __init__(self, *, use_async: bool = False, tool_name_prefix: str = "") -> None:
        self.use_async = use_async
        self.tool_name_prefix = tool_name_prefix
        self.names = ToolNames.prefixed(tool_name_prefix)

    #: The run context every invoke passes (``agent.invoke(..., context=...)``).
    context: Any = None

    def _middleware(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        """The adapter under test (the profiled driver builds another)."""
        config = scenario_config(self, limits, policy, tool_name_prefix=self.tool_name_prefix)
        return SkillsMiddleware(
            library,
            config,
            tools=[_gated_tool(n) for n in self.gated],
            user_invocation=self.user_invocation,
            subagents={SUBAGENT_NAME: self._subagent},
        )

    def _subagent(self, skills: SkillsMiddleware) -> Any:
        """The scenario's subagent: a ``create_agent`` agent with its own scripted model."""
        return create_agent(
            self.subagent_model, [*plain_tools(), shell_tool()], middleware=[skills]
        )

    def subagent_replies(self) -> list[Reply]:
        messages = self.subagent_model.requests[-1]["messages"]
        return [
            Reply(m.name or "", m.text, m.status == "error")
            for m in messages
            if isinstance(m, ToolMessage)
        ]

    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        self.model = ScriptedChatModel()
        self.subagent_model = ScriptedChatModel()
        for step in self.subagent_turns:
            self.subagent_model.push(tool_calls(*((c.tool, c.args) for c in step)))
        self.subagent_model.push(AIMessage(content=SUBAGENT_ANSWER))
        self.middleware = self._middleware(library, limits, policy)
        self.agent = create_agent(
            self.model,
            [*plain_tools(), shell_tool()],
            middleware=[self.middleware],
            checkpointer=InMemorySaver(),
        )
        self.use_conversation("main")

    def use_conversation(self, key: str) -> None:
        self.config: Any = {"configurable": {"thread_id": f"conformance-{key}"}}

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        message = tool_calls(*((c.tool, c.args) for c in calls))
        self.model.push(message)
        payload: Any = {"messages": [HumanMessage("continue")]}
        if self.use_async:
            out = asyncio.run(self.agent.ainvoke(payload, self.config, context=self.context))
        else:
            out = self.agent.invoke(payload, self.config, context=self.context)
        by_id: dict[str | None, ToolMessage] = {
            m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)
        }
        replies = []
        for call, tc in zip(calls, message.tool_calls):
            reply = by_id[tc["id"]]
            parts = tuple(
                Attachment(b["mime_type"], base64.b64decode(b["base64"]))
                for b in (reply.content if isinstance(reply.content, list) else ())
                if isinstance(b, dict) and b.get("type") in ("image", "file")
            )
            replies.append(Reply(call.tool, reply.text, reply.status == "error", parts))
        return replies

    def user_turn(self, text: str) -> UserTurn:
        """One user message; the model (when called) answers without tool calls."""
        before = len(self.model.requests)
        payload: Any = {"messages": [HumanMessage(text)]}
        if self.use_async:
            out = asyncio.run(self.agent.ainvoke(payload, self.config, context=self.context))
        else:
            out = self.agent.invoke(payload, self.config, context=self.context)
        if len(self.model.requests) == before:  # answered without the model
            return UserTurn(answer=out["messages"][-1].text)
        sent = self.model.requests[-1]["messages"]
        asked = max(i for i, m in enumerate(sent) if isinstance(m, HumanMessage))
        replies = [m.text for m in sent[asked + 1 :] if isinstance(m, ToolMessage)]
        return UserTurn(delivered=replies[0] if replies else None)

    def instructions(self) -> str:
        return self.model.system()

    def drop_history(self) -> None:
        """Remove every message of the thread (what compaction or trimming leaves out)."""
        self.agent.update_state(self.config, {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]})

    def offered(self) -> list[str]:
        return self.model.tool_names()

    def loaded(self) -> list[str]:
        return loaded_names_of(self.agent.get_state(self.config).values.get(STATE_KEY))


class ProfiledLangChainDriver(LangChainDriver):
    """:class:`LangChainDriver` through :class:`ProfiledSkillsMiddleware`: the scenario is one
    of two profiles (:func:`skillcore.testing.scenario_profiles`), selected by every run's
    context, so each check goes through the profile machinery."""

    context: Any = MappingProxyType({DEFAULT_CONTEXT_KEY: SCENARIO_PROFILE})
    #: The profiled middleware takes no ``user_invocation`` option, and profiles take no
    #: subagents.
    capabilities = ALL_CAPABILITIES - {Capability.USER_INVOCATION, Capability.SUBAGENTS}

    def _middleware(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> Any:
        return ProfiledSkillsMiddleware(
            scenario_profiles(self, library, limits, policy),
            tool_name_prefix=self.tool_name_prefix,
            tools=[_gated_tool(n) for n in self.gated],
        )
