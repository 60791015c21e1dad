"""Reading and editing ADK's ``LlmRequest`` for the skill toolset's model-call hooks: the
load replies and user text in its contents, the suggestion notes, the tools it declares."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from google.genai import types

from skillcore import SkillSession
from skillcore.runtime import query_text

if TYPE_CHECKING:
    from google.adk.agents.readonly_context import ReadonlyContext
    from google.adk.models.llm_request import LlmRequest


def request_key(context: ReadonlyContext) -> str:
    """What keys one agent's part of one invocation."""
    return f"{context.invocation_id}|{context.agent_name}"


def load_replies(
    content: types.Content, load: str, stripped: StrippedIds
) -> list[tuple[str | None, object]]:
    """The load tool's replies in one request content, as ``(function response id,
    result)`` for :meth:`SkillSession.delivered`. Only responses named ``load`` are read: ADK
    sets a response's name from its call, never from what a tool returned. ADK removes its
    own ``adk-`` ids from requests to models that pair calls by position: such a reply gets
    back the id ADK gave its call (``stripped``), or proves nothing."""
    out: list[tuple[str | None, object]] = []
    for part in content.parts or ():
        response = part.function_response
        if response is not None and response.name == load:
            body = response.response
            # A plain dict check: an ABC isinstance would cost more than the whole read.
            if type(body) is dict:
                call_id = response.id if response.id is not None else stripped(body)
                out.append((call_id, body.get("result")))
    return out


class StrippedIds:
    """The ids ADK removed from its own load replies in one request, found again in the
    session's events: a request's parts are copies that share their response payload with
    the event they came from, so the payload identifies the event. Built on first use (one
    pass over the events), for one model call."""

    def __init__(self, events: Sequence[Any], load: str) -> None:
        # Holds the events, so the payloads (and their ids) stay alive meanwhile.
        self._events, self._load = events, load
        self._ids: dict[int, str] | None = None

    def __call__(self, body: object) -> str | None:
        """The id of the event whose load reply payload is ``body`` (None if none is)."""
        if self._ids is None:
            self._ids = {
                id(r.response): r.id
                for event in self._events
                for r in event.get_function_responses()
                if r.name == self._load and r.id and r.response is not None
            }
        return self._ids.get(id(body))


def content_key(content: types.Content) -> object:
    """What identifies a request content across the copies ADK makes for every request:
    its first part's payload (text, call arguments or response), shared with the session
    event it was copied from."""
    parts = content.parts
    if not parts:
        return None
    part = parts[0]
    if part.text is not None:
        return id(part.text)
    if part.function_response is not None:
        return id(part.function_response.response)
    if part.function_call is not None:
        return id(part.function_call.args)
    return None


def add_notes(llm_request: LlmRequest, note_for: Callable[[str | None], str]) -> None:
    """Give each user-authored content with text its note (``note_for`` its text) as one
    more part, in a copy (the contents may be the session's own event objects: nothing is
    stored). Every user message gets its own note, so earlier requests' text is unchanged
    (the prompt cache keeps the history)."""
    contents = llm_request.contents or []
    for i, content in enumerate(contents):
        if content.role != "user" or not content.parts:
            continue
        texts = [p.text for p in content.parts if p.text and not p.thought]
        note = note_for(query_text(texts)) if texts else ""
        if note:
            parts = [*content.parts, types.Part(text=note)]
            contents[i] = content.model_copy(update={"parts": parts})


def latest_user_text(llm_request: LlmRequest) -> str | None:
    """Text of the last user-authored content with text (function responses are user
    contents too, without text; they are skipped), or None."""
    for content in reversed(llm_request.contents or ()):
        if content.role != "user":
            continue
        texts = [p.text for p in content.parts or () if p.text and not p.thought]
        if texts:
            return query_text(texts)
    return None


def clashing_skills(session: SkillSession, tool_names: set[str]) -> list[str]:
    """Model-invocable skills named like one of ``tool_names`` (e.g. ``transfer_to_agent``),
    sorted."""
    catalog = session.catalog
    return sorted(
        n
        for n in tool_names
        if (m := catalog.get(n)) is not None and not m.disable_model_invocation
    )


def switch_model(llm_request: LlmRequest, model: Any) -> None:
    """Name the loaded skills' model in the request (None: keep the agent's). ADK calls the
    agent's own ``BaseLlm`` after the request is built, which sends ``llm_request.model``
    (Gemini, LiteLLM): the resolver gives a model *name* that backend serves, or a
    ``BaseLlm`` whose ``model`` name is used. The agent's model is named again in every new
    request, so once no loaded skill names one the agent's own is used."""
    if model is None:
        return
    name = model if isinstance(model, str) else getattr(model, "model", None)
    if isinstance(name, str) and name:
        llm_request.model = name


def hide_blocked(llm_request: LlmRequest, session: SkillSession, blocked: bool = True) -> None:
    """Leave the tools a loaded skill removes (``disallowed-tools``) and, with ``blocked``,
    those the loaded skills block (RESTRICT) out of the request's function declarations
    (skill and always-allowed tools are never hidden)."""
    tools = [t for t in llm_request.config.tools or () if isinstance(t, types.Tool)]
    names = [d.name for t in tools for d in t.function_declarations or () if d.name]
    shown = set(session.offered_tools(names, hide_blocked=blocked))
    for t in tools:
        if t.function_declarations:
            t.function_declarations = [
                d for d in t.function_declarations if not d.name or d.name in shown
            ]
