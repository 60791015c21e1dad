"""One LangChain tool call in core terms: its thread, its place among the state's
``AIMessage`` tool calls, the arguments the policy judges, and the skill tool built from a
core :class:`~skillcore.runtime.ToolSpec`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, Tool
from langgraph.types import Command

from skillcore import SkillSession, SkillToolkit, ToolDecision, ToolResult
from skillcore.runtime import History, RawInput, ToolSpec, TurnCall, replies
from skillcore_langchain._messages import tool_message


def thread_of(config: Any) -> str:
    """The thread id of a run's config ("" when it has none)."""
    return str(((config or {}).get("configurable") or {}).get("thread_id", ""))


def messages_of(state: Any) -> Sequence[Any] | None:
    """The messages of a graph state (None when it has none)."""
    messages = state.get("messages") if isinstance(state, Mapping) else None
    return messages if isinstance(messages, Sequence) else None


def history(state: Any) -> History:
    """The state's model turns, newest first: each ``AIMessage``'s tool calls (names and
    arguments), so any process can work out the earlier calls' effects."""
    messages = messages_of(state) or ()
    return (
        (
            m.id,
            ((str(c.get("id")), c.get("name", ""), c.get("args")) for c in m.tool_calls),
        )
        for m in reversed(messages)
        if isinstance(m, AIMessage)
    )


def blocked_call(
    toolkit: SkillToolkit, view: TurnCall, call: Mapping[str, Any], tool: BaseTool | None
) -> ToolMessage | None:
    """The error reply to a plain tool call the policy blocks in its turn (None: allowed)."""
    arguments = policy_arguments(tool, call.get("args"))
    decision = toolkit.check_call(view, call["name"], arguments=arguments)
    if decision.allowed:
        return None
    text = replies.blocked(decision)
    return tool_message(text, replies.blocked_code(decision), call["id"], call["name"])


def hook_refusal(
    toolkit: SkillToolkit,
    session: SkillSession,
    call: Mapping[str, Any],
    tool: BaseTool | None,
    thread: str,
) -> ToolMessage | None:
    """The reply to a call a ``PreToolUse`` hook of a loaded skill blocks (None: not
    blocked; the policy already allowed the call)."""
    if not toolkit.hooks.has_hooks(session):
        return None
    arguments = policy_arguments(tool, call.get("args"))
    decision = toolkit.hooks.pre_tool(session, call["name"], arguments, conversation=thread)
    return None if decision is None else _hook_message(decision, call)


async def ahook_refusal(
    toolkit: SkillToolkit,
    session: SkillSession,
    call: Mapping[str, Any],
    tool: BaseTool | None,
    thread: str,
) -> ToolMessage | None:
    """Async :func:`hook_refusal`."""
    if not toolkit.hooks.has_hooks(session):
        return None
    arguments = policy_arguments(tool, call.get("args"))
    decision = await toolkit.hooks.apre_tool(session, call["name"], arguments, conversation=thread)
    return None if decision is None else _hook_message(decision, call)


def _hook_message(decision: ToolDecision, call: Mapping[str, Any]) -> ToolMessage:
    text = replies.blocked(decision)
    return tool_message(text, replies.blocked_code(decision), call["id"], call["name"])


def tool_output(result: Any) -> Any:
    """What a tool returned, as a hook's ``tool_response`` (a message's content)."""
    if isinstance(result, ToolMessage):
        return result.content
    if isinstance(result, Command):
        messages = (
            (result.update or {}).get("messages") if isinstance(result.update, Mapping) else None
        )
        return [m.content for m in messages or () if isinstance(m, ToolMessage)]
    return str(result)


def reply(
    result: ToolResult,
    call_id: str | None,
    state_update: Callable[[SkillSession], dict[str, Any]],
) -> ToolMessage | Command[Any]:
    """A skill tool's result as its ``ToolMessage``; with the session it changed saved
    (``state_update`` of it) in the same ``Command``."""
    message = tool_message(result.text, result.code, call_id, result.tool, result.ok, result.binary)
    if not result.changed:
        return message
    return Command(update={**state_update(result.session), "messages": [message]})


def policy_arguments(tool: BaseTool | None, args: Any) -> Any:
    """The call's arguments as the tool will receive them: a single-input ``Tool`` (how
    free-form tools are built) gets one raw string, its only argument, so that string is
    what the policy judges; with more than one argument it refuses to run (and the policy,
    finding no command, does not allow it either)."""
    if isinstance(tool, Tool) and not isinstance(tool, StructuredTool):
        if isinstance(args, str):
            return RawInput(args)
        if isinstance(args, Mapping) and len(args) == 1:
            (value,) = args.values()
            if isinstance(value, str):
                return RawInput(value)
        return None
    return args


#: A skill tool's body: the runtime of the call and its arguments.
Run = Callable[..., ToolMessage | Command[Any]]


def skill_tool(spec: ToolSpec, run: Run, arun: Callable[..., Any]) -> StructuredTool:
    """The LangChain tool for ``spec`` (``run``/``arun(name, runtime, arguments)``)."""
    name = spec.name

    def func(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
        return run(name, runtime, arguments)

    async def coroutine(runtime: ToolRuntime, **arguments: Any) -> ToolMessage | Command[Any]:
        result: ToolMessage | Command[Any] = await arun(name, runtime, arguments)
        return result

    return StructuredTool.from_function(
        func=func,
        coroutine=coroutine,
        name=name,
        description=spec.description,
        args_schema=spec.json_schema(),
    )
