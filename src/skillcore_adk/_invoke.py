"""The user's own invocation (``/name args``) at the start of an agent run: the invocation's
new user message read by :meth:`skillcore.SkillToolkit.invoke`, its result as session events.

A loaded skill reaches the model as every load does: a ``load_skill`` function call and its
function response (the expanded instructions), appended to the session as events of the
agent, with skillcore's call id, so delivery is proven by that id and the history keeps them
like any tool call. The session state is written through the callback context (ADK persists
it with the callback's event). A refusal is the agent's reply: the callback returns it and
ADK skips the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.adk.events.event import Event
from google.genai import types

from skillcore import InvocationResult
from skillcore_adk._calls import StateBinding

if TYPE_CHECKING:
    from skillcore_adk._toolset import SkillToolset


def _new_user_text(callback_context: Any) -> str | None:
    """The text of the invocation's user message, when it is the session's latest event (a
    new request this agent is the first to see), else None."""
    context = callback_context._invocation_context
    events = context.session.events
    if not events or events[-1].author != "user":
        return None
    content = events[-1].content or callback_context.user_content
    parts = [p.text for p in (content.parts or ()) if p.text] if content is not None else []
    return "\n".join(parts) if parts else None


def _events(result: InvocationResult, context: Any) -> list[Event]:
    agent = context.agent.name
    call = types.FunctionCall(id=result.call_id, name=result.tool, args=result.call_arguments)
    response = types.FunctionResponse(
        id=result.call_id, name=result.tool, response={"result": result.text}
    )
    return [
        Event(
            invocation_id=context.invocation_id,
            author=agent,
            branch=context.branch,
            content=types.Content(role="model", parts=[types.Part(function_call=call)]),
        ),
        Event(
            invocation_id=context.invocation_id,
            author=agent,
            branch=context.branch,
            content=types.Content(role="user", parts=[types.Part(function_response=response)]),
        ),
    ]


async def invoke_user_message(toolset: SkillToolset, callback_context: Any) -> types.Content | None:
    """Apply the run's new user message when it invokes a skill: None to go on (nothing to
    do, or the skill loaded), or the refusal as the agent's reply."""
    text = _new_user_text(callback_context)
    if text is None:
        return None
    context = callback_context._invocation_context
    key = toolset.state_key(callback_context.agent_name)
    binding = StateBinding(
        lambda raw, load: toolset.session_from_state(raw, load=load), callback_context.state, key
    )
    state = callback_context.state.to_dict()
    result = await toolset.toolkit.ainvoke(
        binding, text, session_id=context.session.id, state=state
    )
    if result is None:
        return None
    if not result.ok:
        return types.Content(role="model", parts=[types.Part.from_text(text=result.text)])
    for event in _events(result, context):
        await context.session_service.append_event(context.session, event)
    return None


__all__ = ["invoke_user_message"]
