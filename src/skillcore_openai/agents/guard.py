"""The Agents SDK side of :class:`~skillcore_openai.AgentSkills`: its guardrail type,
the agent hooks that announce each model turn's calls, the MCP server wrapper and small
translations (binary outputs, tool names, a response's calls)."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from agents import (
    Agent,
    AgentHooks,
    RunContextWrapper,
    ToolInputGuardrail,
    ToolOutputFileContent,
    ToolOutputImage,
)
from agents.lifecycle import AgentHooksBase
from agents.mcp import MCPServer

from skillcore import BinaryPayload
from skillcore.runtime import MAX_TURN_CALLS
from skillcore_openai.chat.calls import parse_call, read_field

if TYPE_CHECKING:
    from agents import ModelResponse, TResponseInputItem


class _SkillsGuardrail(ToolInputGuardrail[Any]):
    """The allowed-tools guardrail of an :class:`AgentSkills` (a type of its own, so guarding
    a tool again, by any ``AgentSkills``, replaces it instead of stacking a stale copy)."""


def _without_ours(guardrails: Any) -> list[ToolInputGuardrail[Any]]:
    return [g for g in guardrails or () if not isinstance(g, _SkillsGuardrail)]


def _binary_output(payload: BinaryPayload) -> ToolOutputImage | ToolOutputFileContent:
    """A binary resource as the SDK's structured tool output (an ``input_image`` or
    ``input_file`` part of the function call output)."""
    if payload.is_image:
        return ToolOutputImage(image_url=payload.data_url())
    return ToolOutputFileContent(file_data=payload.data_url(), filename=payload.filename)


def _agent_tools(agent: Any) -> frozenset[str] | None:
    """Names of the running agent's function tools (None when the agent is not known: the
    TOOL_NOT_AVAILABLE check is then skipped)."""
    tools = getattr(agent, "tools", None)
    if tools is None or getattr(agent, "mcp_servers", None):
        return None  # MCP tools are listed only when the run starts: unknown here
    return frozenset(n for t in tools if isinstance(n := getattr(t, "name", None), str))


#: Output item types of the tool calls a response makes that the adapter orders.
_CALL_TYPES = ("function_call", "custom_tool_call")


def _calls_of(output: Iterable[Any]) -> list[Any]:
    """The tool calls of a model response's output items, in the model's order (function
    and custom tool calls; hosted tools' items are not ours to order)."""
    calls = []
    for item in output:
        if getattr(item, "type", None) in _CALL_TYPES:
            with contextlib.suppress(ValueError):
                calls.append(parse_call(item))
    return calls


class _Run:
    """What the hooks learned about one run: the loaded skills whose load reply the latest
    model input lacked, this run's load calls (their replies are in the model input after
    the run's input; the latest kept) and the calls of its latest model response."""

    __slots__ = ("calls", "hidden", "last", "loads")

    def __init__(self) -> None:
        self.hidden: frozenset[str] = frozenset()
        self.loads: deque[str] = deque(maxlen=MAX_TURN_CALLS)
        self.last: frozenset[str] = frozenset()
        #: The latest model response's calls (id, name, arguments), in the model's order:
        #: what an approval decision previews (APPROVE).
        self.calls: list[tuple[str, str, Any]] = []


def _server_kept(items: Sequence[Any], last: frozenset[str]) -> bool:
    """True when a model input lacks every call of the run's latest response (it has only
    their replies): the SDK sends only new items because the server keeps the conversation
    (``conversation_id``, ``previous_response_id``)."""
    return bool(last) and not any(
        read_field(item, "type") in _CALL_TYPES and read_field(item, "call_id") in last
        for item in items
    )


class _Turns(Protocol):
    """What the hooks report to (the :class:`AgentSkills` of the run)."""

    def _observe(self, ctx: Any, items: Sequence[Any]) -> None: ...

    def _announce(self, ctx: Any, agent: Any, response: ModelResponse) -> None: ...


class _TurnHooks(AgentHooks[Any]):
    """The agent hooks :meth:`AgentSkills.guard_agent` installs: before each model call,
    which load replies its input lacks; when a response arrives (before any of its tool
    calls runs), its calls in the model's order (``route``: the run's context -> whom to
    tell). Each hook then runs the agent's own (``inner``)."""

    def __init__(
        self,
        route: Callable[[Any], _Turns],
        inner: AgentHooksBase[Any, Any] | None,
        skill_hooks: Any = None,
    ) -> None:
        self.route, self.inner = route, inner
        #: Runs the loaded skills' hooks at agent start and after each tool (``_agent_start``,
        #: ``_after_tool`` of :class:`~skillcore_openai.AgentSkills`).
        self.skill_hooks = skill_hooks

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[TResponseInputItem],
    ) -> None:
        self.route(context)._observe(context, input_items)
        if self.inner is not None:
            await self.inner.on_llm_start(context, agent, system_prompt, input_items)

    async def on_llm_end(
        self, context: RunContextWrapper[Any], agent: Agent[Any], response: ModelResponse
    ) -> None:
        self.route(context)._announce(context, agent, response)
        if self.inner is not None:
            await self.inner.on_llm_end(context, agent, response)

    async def on_start(self, context: Any, agent: Any) -> None:
        if self.skill_hooks is not None:
            await self.skill_hooks._agent_start(context)
        if self.inner is not None:
            await self.inner.on_start(context, agent)

    async def on_end(self, context: Any, agent: Any, output: Any) -> None:
        if self.inner is not None:
            await self.inner.on_end(context, agent, output)

    async def on_handoff(self, context: Any, agent: Any, source: Any) -> None:
        if self.inner is not None:
            await self.inner.on_handoff(context, agent, source)

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        if self.inner is not None:
            await self.inner.on_tool_start(context, agent, tool)

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
        if self.skill_hooks is not None:
            await self.skill_hooks._after_tool(context, tool, result)
        if self.inner is not None:
            await self.inner.on_tool_end(context, agent, tool, result)


class _GuardedServer(MCPServer):
    """An MCP server as the agent sees it through :meth:`AgentSkills.guard_agent`: the
    original server, with the allowed-tools guardrail added to its tools' input guardrails.
    Everything else is the original's (connection, tool list, calls, approval settings)."""

    def __init__(self, inner: MCPServer, guardrail: ToolInputGuardrail[Any]) -> None:
        # No super().__init__(): every setting is read from the original server.
        self.__dict__["inner"] = inner
        self.__dict__["guardrail"] = guardrail

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["inner"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.inner, name, value)

    @property
    def tool_input_guardrails(self) -> list[ToolInputGuardrail[Any]]:  # type: ignore[override]
        return [*_without_ours(self.inner.tool_input_guardrails), self.guardrail]

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def cached_tools(self) -> Any:
        return self.inner.cached_tools

    async def connect(self) -> None:
        await self.inner.connect()

    async def cleanup(self) -> None:
        await self.inner.cleanup()

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.list_tools(*args, **kwargs)

    async def call_tool(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.call_tool(*args, **kwargs)

    async def list_prompts(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.list_prompts(*args, **kwargs)

    async def get_prompt(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.get_prompt(*args, **kwargs)

    async def list_resources(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.list_resources(*args, **kwargs)

    async def list_resource_templates(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.list_resource_templates(*args, **kwargs)

    async def read_resource(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.read_resource(*args, **kwargs)
