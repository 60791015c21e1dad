"""The skill state of Agents SDK runs: one conversation's state (:class:`SkillConversation`),
the run's request to load skills (``skill_load``), and where each run's state lives
(:class:`AgentConversations`: saved in a state store, or beside a ``SQLiteSession``'s
history)."""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from agents import RunContextWrapper, UserError

from skillcore import (
    Catalog,
    Limits,
    MemoryStateStore,
    SkillSession,
    SkillToolkit,
    SQLiteStateStore,
    StateStore,
    ToolPolicy,
    ToolResult,
)
from skillcore.runtime import (
    SavedSession,
    SessionRef,
    SessionStore,
    restore_session,
    touched_paths,
)

__all__ = ["AgentConversations", "SkillConversation"]


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


class AgentConversations:
    """Where the skill state of each run of an :class:`~skillcore_openai.AgentSkills` lives:
    one :class:`SkillConversation` per conversation (restored from ``states``, saved on every
    change), the one a run carries, and the shared :attr:`state` of runs that carry none.
    Sessions are restored over ``toolkit``'s catalog with ``limits`` and ``policy``."""

    def __init__(
        self,
        toolkit: SkillToolkit,
        limits: Limits,
        policy: ToolPolicy,
        states: StateStore | None,
        state_from: Callable[[RunContextWrapper[Any] | None], SkillConversation] | None,
        require_conversation: bool | None,
        catalog: Callable[[], Catalog] | None = None,
    ) -> None:
        self.toolkit, self.limits, self.policy = toolkit, limits, policy
        #: The catalog sessions are restored over (default: the library's; scoped for an
        #: orchestrator with hidden skills or a subagent).
        self.catalog: Callable[[], Catalog] = catalog or (lambda: toolkit.library.catalog)
        self._state_from = state_from
        #: Where conversation states are saved when no other store applies.
        self.states: StateStore = states if states is not None else MemoryStateStore()
        self._explicit_states = states is not None
        self._require = require_conversation
        self._lock = threading.Lock()
        self._live: weakref.WeakValueDictionary[tuple[int, str], SkillConversation] = (
            weakref.WeakValueDictionary()
        )
        self._beside: dict[str, SQLiteStateStore] = {}
        #: The state used when the run context does not carry one (a single conversation).
        self.state = self.new_state()

    #: The paths the work touches (see :meth:`touch`).
    touched: frozenset[str] = frozenset()

    def touch(self, paths: Iterable[str]) -> None:
        """The paths the work touches, for the conversations restored from now on."""
        self.touched = touched_paths(paths)

    def new_state(self, state: Mapping[str, Any] | None = None) -> SkillConversation:
        """A fresh state, or one restored from ``SkillConversation.to_state()`` output (not
        saved anywhere: see :meth:`conversation` for that)."""
        return SkillConversation(self._restore(state))

    def _restore(self, state: Any) -> SkillSession:
        catalog = self.catalog()
        names = self.toolkit.names
        session = restore_session(
            state, catalog, self.limits, self.policy, names, self.touched
        ).session
        # Pinned skills always; default skills when the conversation starts.
        return self.toolkit.ensure(session, fresh=state is None)[0]

    def conversation(self, conversation: str | Any) -> SkillConversation:
        """The state of one conversation, restored from where it was saved and saved on every
        change: ``conversation`` is its id or an Agents SDK ``Session`` (its ``session_id``;
        a file-backed ``SQLiteSession`` keeps the state in a side table of its own database
        unless ``states=`` was given). Pass the result as the run ``context`` (or as your
        context's ``skill_state``). The same conversation gives the same live state while it
        is in use."""
        key = conversation if isinstance(conversation, str) else conversation.session_id
        states = self._states_for(conversation)
        with self._lock:
            if self._require is None:
                self._require = True
            found = self._live.get((id(states), key))
            if found is None:
                found = SkillConversation(SavedSession(states, key, self._restore), key)
                # A state made again for the same conversation keeps its turns.
                found._turn_key = f"{id(states)}|{key}"
                self._live[(id(states), key)] = found
            return found

    def _states_for(self, conversation: Any) -> StateStore:
        path = getattr(conversation, "db_path", None)
        if self._explicit_states or path is None or str(path) == ":memory:":
            return self.states
        where = os.fspath(path)
        with self._lock:
            store = self._beside.get(where)
            if store is None:
                store = self._beside[where] = SQLiteStateStore(where)
        return store

    def state_for(self, ctx: RunContextWrapper[Any] | None) -> SkillConversation:
        """The :class:`SkillConversation` of the run behind ``ctx`` (see
        :meth:`AgentSkills.state_for`)."""
        if self._state_from is not None:
            return self._state_from(ctx)
        context = getattr(ctx, "context", None)
        if isinstance(context, SkillConversation):
            return context
        found = (
            context.get("skill_state")
            if isinstance(context, Mapping)
            else getattr(context, "skill_state", None)
        )
        if isinstance(found, SkillConversation):
            return found
        if self._require or (self._require is None and self._explicit_states):
            raise UserError(
                "this run carries no skill state, and sharing one state between "
                "conversations would let one user's skills restrict another's: pass "
                "context=skills.conversation(session) (or set your context's skill_state)"
            )
        return self.state
