"""The skill state of one Agents SDK conversation (:class:`SkillConversation`) and the run's
request to load skills (``skill_load``). Imports nothing of the SDK: a state is plain
skillcore."""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from skillcore import SkillSession, SkillToolkit, ToolResult
from skillcore.runtime import SessionRef, SessionStore

__all__ = ["SkillConversation"]


class SkillConversation:
    """The skill state of one conversation: its session, shared by the tools of a run
    (thread-safe). What :meth:`AgentSkills.conversation` gives and a run carries as its
    ``context`` (or as the context's ``skill_state``).

    Tool calls of one model turn run concurrently as tasks. In an agent from
    :meth:`AgentSkills.guard_agent` each is decided in the model's call order (on the turn's
    session after its earlier skill calls) and writes the result here; otherwise
    :meth:`apply` commits each call's transition on the session as it is when the call's
    file I/O is done.
    """

    def __init__(self, session: SkillSession | SessionStore, key: str | None = None) -> None:
        """``session``: a session, or the store it lives in (e.g. a
        :class:`skillcore.state.saved.SavedSession` that saves every change); ``key`` names
        the conversation (None: not keyed)."""
        self._store = SessionRef(session) if isinstance(session, SkillSession) else session
        self.key = key
        # Whose turns these are (the calls of one model turn are ordered per conversation):
        # this object, unless it is a saved conversation (then its store and key).
        self._turn_key = f"state-{next(_state_ids)}"
        self._lock = threading.Lock()
        #: Skill names to load at the start of the next run (as the context's ``skill_load``),
        #: under the model's load rules; cleared once applied.
        self.skill_load: Sequence[str] | None = None
        # Skills loaded by such a request: no tool reply delivered their instructions, so
        # they are repeated in the instructions while loaded (like the configured skills).
        self.requested: frozenset[str] = frozenset()

    @property
    def session(self) -> SkillSession:
        """The current session."""
        return self._store.read()

    @session.setter
    def session(self, value: SkillSession) -> None:
        self.write(value)

    @property
    def hook_key(self) -> str:
        """The key the skills' hooks remember this conversation by (``once``, pending text)."""
        return self.key if self.key is not None else self._turn_key

    @property
    def loaded_names(self) -> tuple[str, ...]:
        """Names of the loaded skills."""
        return self._store.read().loaded_names

    def to_state(self) -> dict[str, Any]:
        """The JSON-native state of the session (see :meth:`AgentSkills.new_state`)."""
        return self._store.read().to_state()

    def read(self) -> SkillSession:
        """The current session (the :class:`skillcore.runtime.SessionStore` protocol)."""
        return self._store.read()

    def write(self, session: SkillSession) -> None:
        """Replace the session (the :class:`skillcore.runtime.SessionStore` protocol)."""
        with self._lock:
            self._store.write(session)

    async def apply(
        self, toolkit: SkillToolkit, tool: str, arguments: Mapping[str, Any] | str | None
    ) -> ToolResult:
        """Run one skill tool call against this state and commit its session.

        File reads are awaited first; the transition then runs on the session as it is at
        that moment and is written back with no ``await`` in between, so the parallel calls
        of one model turn (tasks on one event loop) never lose an update and every reply
        describes the transition that actually happened.
        """
        return await toolkit.acall(self, tool, arguments)


_state_ids = itertools.count(1)


def _take_request(context: Any, state: SkillConversation) -> Any:
    """The run's request to load skills: ``skill_load`` of the run context (an attribute or
    a key; the :class:`SkillConversation` itself when it is the context), cleared once taken
    so it applies to one run's start only."""
    for holder in (context, state):
        if isinstance(holder, Mapping):
            value = holder.get("skill_load")
            if value is not None and isinstance(holder, dict):
                holder["skill_load"] = None
        else:
            value = getattr(holder, "skill_load", None)
            if value is not None:
                # A read-only context cannot be cleared: its request applies on every call.
                with contextlib.suppress(AttributeError, TypeError):
                    holder.skill_load = None
        if value is not None:
            return value
    return None
