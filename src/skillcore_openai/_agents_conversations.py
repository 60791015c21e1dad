"""Where the skill state of each Agents SDK run lives, for
:class:`~skillcore_openai.agents_sdk.AgentSkills`: conversations saved in a state store (or
beside a ``SQLiteSession``'s history), the state a run carries, and the skills each run
starts with."""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from skillcore import (
    Limits,
    MemoryStateStore,
    OutcomeCode,
    SkillSession,
    SkillToolkit,
    SQLiteStateStore,
    StateStore,
    ToolPolicy,
)
from skillcore.runtime import SavedSession, require, restore_session
from skillcore_openai._agents_state import SkillConversation, _take_request

require("agents", "agents", "skillcore_openai.agents_sdk (OpenAI Agents SDK tools)")

from agents import RunContextWrapper, UserError  # noqa: E402 - after the dependency check

__all__ = ["AgentConversations"]


class AgentConversations:
    """The conversation part of :class:`~skillcore_openai.agents_sdk.AgentSkills` (which sets
    ``toolkit``, ``limits`` and ``policy``, then calls :meth:`_init_states`)."""

    toolkit: SkillToolkit
    limits: Limits
    policy: ToolPolicy

    def _init_states(
        self,
        states: StateStore | None,
        state_from: Callable[[RunContextWrapper[Any] | None], SkillConversation] | None,
        require_conversation: bool | None,
    ) -> None:
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

    def new_state(self, state: Mapping[str, Any] | None = None) -> SkillConversation:
        """A fresh state, or one restored from ``SkillConversation.to_state()`` output (not
        saved anywhere: see :meth:`conversation` for that)."""
        return SkillConversation(self._restore(state))

    def _restore(self, state: Any) -> SkillSession:
        catalog = self.toolkit.library.catalog
        names = self.toolkit.names
        session = restore_session(state, catalog, self.limits, self.policy, names).session
        # Pinned skills always; default skills when the conversation starts.
        return self.toolkit.ensure(session, fresh=state is None)[0]

    async def _turn_start(self, state: SkillConversation, ctx: Any = None) -> SkillSession:
        """Load the pinned skills the run's state lacks and the run's requested ones (the
        context's ``skill_load``, consumed once) before each model call."""
        request = _take_request(getattr(ctx, "context", None), state)
        await self.toolkit.aensure(state.session, load=request)  # reads what is missing
        current = state.session
        # No await between this read and the write.
        ensured, outcomes = self.toolkit.ensure(current, load=request)
        if request is not None:
            loaded = {o.skill for o in outcomes if o.code is OutcomeCode.LOADED and o.skill}
            state.requested = frozenset(state.requested | loaded)
        if ensured is not current:
            state.write(ensured)
        return ensured

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

    def session_for(self, ctx: RunContextWrapper[Any] | None) -> SkillSession:
        """The skill session of the run behind ``ctx`` (its :meth:`state_for`'s session)."""
        return self.state_for(ctx).session

    def state_for(self, ctx: RunContextWrapper[Any] | None) -> SkillConversation:
        """The :class:`SkillConversation` of the run behind ``ctx`` (see
        :mod:`skillcore_openai.agents_sdk` for the lookup order), e.g. to set its
        ``skill_load``. Raises ``agents.UserError`` when the run carries none and
        per-conversation state is required."""
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
