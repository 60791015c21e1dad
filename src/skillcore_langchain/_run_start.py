"""What ``SkillsMiddleware`` reads at the start of a run (in the run's model calls, see
:meth:`SkillsMiddleware._start`): the thread's saved session, or the seed a parent agent
passed; what the run start adds to the model call; and the arguments of its constructor that
deepagents spells its own way."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware.types import (
    ExtendedModelResponse,
    ModelCallResult,
    ModelRequest,
    ModelResponse,
)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.types import Command

from skillcore import InvocationResult, SkillSession
from skillcore.runtime import Restored, Sources
from skillcore_langchain._invoke import invocation_messages
from skillcore_langchain._state import LOAD_KEY, SEED_KEY, STATE_KEY


def run_opener(state: Mapping[str, Any]) -> HumanMessage | None:
    """The new user message a model call answers (the start of a run, where the once-a-run
    work happens: a scan and ``SessionStart`` hooks), or None."""
    messages = state.get("messages")
    if not isinstance(messages, Sequence) or not messages:
        return None
    last = messages[-1]
    return last if isinstance(last, HumanMessage) else None


@dataclass(frozen=True)
class Started:
    """The run start as a model call sees it: the session, the state update to save with the
    call (None: nothing changed), the user's invocation messages (a ``load_skill`` call and
    its reply, placed before the model's answer) or a refused invocation's ``answer``."""

    session: SkillSession
    update: dict[str, Any] | None
    messages: tuple[AIMessage | ToolMessage, ...] = ()
    answer: AIMessage | None = None

    @classmethod
    def invoked(
        cls,
        session: SkillSession,
        update: dict[str, Any] | None,
        result: InvocationResult | None,
        state_update: Callable[[SkillSession], dict[str, Any]],
        state: Mapping[str, Any],
    ) -> Started:
        """The run start with the user's invocation ``result`` (None: the text invoked nothing)."""
        if result is None:
            return cls(session, update)
        shown = invocation_messages(result)
        if not result.ok:
            answer = shown[0]
            assert isinstance(answer, AIMessage)  # a refusal is one reply to the user
            return cls(session, update, answer=answer)
        out = dict(update or {})
        out.update(state_update(result.session))
        return cls(result.session, keep_rev(out, state), tuple(shown))

    def request(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The model request with the invocation's messages after the user's."""
        if not self.messages:
            return request
        return request.override(messages=[*request.messages, *self.messages])

    def respond(self, response: ModelResponse[Any]) -> ModelCallResult[Any]:
        """The model call's result carrying the run start: its messages first, its state
        update applied with the call's own (one graph step, one checkpoint)."""
        if self.messages:
            result = [*self.messages, *response.result]
            response = ModelResponse(
                result=result, structured_response=response.structured_response
            )
        if not self.update:
            return response
        return ExtendedModelResponse(model_response=response, command=Command(update=self.update))


def start(
    state: Mapping[str, Any], restore: Callable[[Any], Restored]
) -> tuple[SkillSession, list[str], bool, bool]:
    """The thread's session at the start of a run: ``(session, names to seed it with,
    new thread?, must be written?)``."""
    raw = state.get(STATE_KEY)
    if raw is None:
        seed = state.get(SEED_KEY)
        if isinstance(seed, Mapping):
            return restore(seed).session, [], True, True
        listed = seed if isinstance(seed, list | tuple) else ()
        names = [n for n in listed if isinstance(n, str)]
        return restore(None).session, names, True, bool(names)
    restored = restore(raw)
    # Unreadable state or skills removed from disk: persist the repaired session.
    return restored.session, [], False, restored.repaired


def started(
    state_update: Callable[[SkillSession], dict[str, Any]],
    session: SkillSession,
    changed: bool,
    requested: bool,
    state: Mapping[str, Any],
) -> dict[str, Any] | None:
    """The run-start state update: the session if it changed (``state_update`` of it), with
    the revision it rewrites kept; a run's load request (``skillcore_load``) cleared once
    applied, so it does not repeat on later runs."""
    update = state_update(session) if changed else {}
    if requested:
        update[LOAD_KEY] = None
    return keep_rev(update or None, state)


def keep_rev(update: dict[str, Any] | None, state: Mapping[str, Any]) -> dict[str, Any] | None:
    """A run-start write (a repair, configured skills) keeps the revision of the state it
    rewrites: it is the same point of the conversation, not a new turn."""
    raw = state.get(STATE_KEY)
    value = update.get(STATE_KEY) if update else None
    if isinstance(value, dict) and isinstance(raw, Mapping) and isinstance(raw.get("rev"), str):
        value["rev"] = raw["rev"]
    return update


def skills_argument(
    skills: Sources | None, sources: Sources | None, backend: Any
) -> Sources | None:
    """The ``skills`` argument, or ``sources``: deepagents' spelling, accepted next to
    ``backend`` only (the drop-in replacement of deepagents' middleware takes it)."""
    if sources is None:
        return skills
    if backend is None:
        raise TypeError("SkillsMiddleware() takes sources= only with backend=; use skills=")
    if skills is not None:
        raise TypeError("SkillsMiddleware() got both skills= and sources=")
    return sources
