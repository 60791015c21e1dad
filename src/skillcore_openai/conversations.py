"""Each conversation's skill state for :class:`~skillcore_openai.OpenAISkills`: new and
restored sessions, and the saved state per conversation (load, save, forks merged)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from skillcore import Limits, SkillLibrary, SkillSession, SkillToolkit, StateStore, ToolPolicy
from skillcore.runtime import (
    ForkCheck,
    Recent,
    apply_effect,
    effect_between,
    events,
    restore_session,
    saved_fork,
    saved_rev,
    update_state,
)

__all__ = ["Conversations"]

#: Conversations whose starting state is remembered between load() and save().
STARTS_KEPT = 10_000


class Conversations:
    """The conversation part of :class:`~skillcore_openai.OpenAISkills` (which sets these
    attributes): sessions over the current catalog, with this adapter's limits and policy."""

    toolkit: SkillToolkit
    limits: Limits
    policy: ToolPolicy
    states: StateStore
    #: Per conversation: the revision and session load() gave (for fork detection).
    _started: Recent[str, tuple[str, SkillSession]]
    #: Sessions of runs under way (by identity) -> their conversation, and the
    #: conversations whose fork was already reported in this run.
    _runs: Recent[int, tuple[SkillSession, str]]
    _reported: Recent[str, bool]
    _runs_lock: threading.Lock

    def _init_runs(self) -> None:
        self._started = Recent(STARTS_KEPT)
        self._runs, self._reported = Recent(STARTS_KEPT), Recent(STARTS_KEPT)
        self._runs_lock = threading.Lock()

    def _track(self, session: SkillSession, conversation: str | None) -> None:
        if conversation is not None:
            with self._runs_lock:
                self._runs.set(id(session), (session, conversation))

    def _conversation_of(self, session: SkillSession) -> str | None:
        with self._runs_lock:
            found = self._runs.get(id(session))
        return found[1] if found is not None and found[0] is session else None

    def _fork_check(self, store: Any, session: SkillSession) -> Any:
        """``store``, or when the run of ``session`` (from :meth:`load`) does not start from
        its conversation's latest saved state (another worker saved since: a fork), a store
        whose plain calls must also pass on that state: one read of the state store."""
        conversation = self._conversation_of(session)
        started = None if conversation is None else self._started.get(conversation)
        if conversation is None or started is None:
            return store
        parent, base = started
        current = saved_fork(self.states, conversation, parent)
        if current is None:
            return store
        with self._runs_lock:
            first = not self._reported.get(conversation)
            self._reported.set(conversation, True)
        if first:
            events.emit(
                "state.forked",
                {
                    "conversation": conversation,
                    "expected": parent,
                    "found": saved_rev(current),
                    "at": "dispatch",
                },
            )
        head = self.restore(current, session.limits, session.policy)
        return ForkCheck(store, head, base)

    @property
    def library(self) -> SkillLibrary:
        """The skill library behind the toolkit."""
        return self.toolkit.library

    def session(
        self, limits: Limits | None = None, policy: ToolPolicy | None = None
    ) -> SkillSession:
        """A new, empty session (this adapter's limits and policy unless given)."""
        return self.restore(None, limits, policy)

    def restore(
        self,
        state: Mapping[str, Any] | None,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        *,
        load: Sequence[str] | None = None,
    ) -> SkillSession:
        """Rebuild a session from ``session.to_state()`` output. Never raises for what the
        state holds: unreadable state gives an empty session (logged), as in every adapter
        (:func:`skillcore.runtime.restore_session`). ``load``: as for :meth:`ensure`."""
        session = restore_session(
            state,
            self.library.catalog,
            limits or self.limits,
            policy or self.policy,
            self.toolkit.names,
        ).session
        # Turn start: pinned skills always, default skills in a new conversation, then the
        # run's requested ones.
        return self.toolkit.ensure(session, fresh=state is None, load=load)[0]

    def ensure(self, session: SkillSession, *, load: Sequence[str] | None = None) -> SkillSession:
        """``session`` with the pinned skills loaded (those that were not: e.g. a session you
        keep yourself). :meth:`session`, :meth:`restore` and :meth:`load` already do this,
        and also load the default skills when a conversation starts.

        ``load``: skill names to load now (e.g. the user named them), under the model's load
        rules: unknown, ``disable-model-invocation`` and over-limit names are skipped and
        reported (``load_request.skipped``), a malformed value is ignored
        (``load_request.ignored``). Pass the messages as :meth:`instructions`' ``history``
        so their instructions reach the model."""
        return self.toolkit.ensure(session, load=load)[0]

    def load(
        self,
        conversation_id: str,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        *,
        load: Sequence[str] | None = None,
    ) -> SkillSession:
        """The session of a conversation as :meth:`save` left it (a new one, with the
        default skills, the first time), over the current catalog, with this adapter's limits
        and policy unless given (they are configuration, never read from saved state); the
        pinned skills are always loaded, then ``load`` (as for :meth:`ensure`). The loaded
        skills' ``SessionStart`` hooks run (their output reaches :meth:`instructions` with
        this ``conversation``)."""
        state = self.states.load(conversation_id)
        session = self.restore(state, limits, policy, load=load)
        rev = state.get("rev") if isinstance(state, Mapping) else None
        self._started.set(conversation_id, (rev if isinstance(rev, str) else "", session))
        self._track(session, conversation_id)
        with self._runs_lock:
            self._reported.pop(conversation_id)
        if self.toolkit.hooks.has_hooks(session):  # a turn starts: SessionStart hooks
            self.toolkit.hooks.session_start(session, conversation=conversation_id)
        return session

    def session_for(self, conversation_id: str) -> SkillSession:
        """The session of a conversation as :meth:`save` left it (a new one, with the
        default skills, when nothing is saved), over the current catalog, with the pinned
        skills loaded. Only reads: to run a turn, use :meth:`load`, which also remembers
        where the run started so a concurrent save by another worker is merged, not lost."""
        return self.restore(self.states.load(conversation_id))

    def save(self, conversation_id: str, session: SkillSession) -> None:
        """Save a conversation's session (e.g. after each :meth:`dispatch_all`).

        When this process :meth:`load`-ed the conversation and another worker saved it
        since (two workers on one conversation at once: a fork), the fork is reported
        (``state.forked``) and the saved state is the other worker's with this run's own
        effect applied (what it loaded and unloaded), as if the runs had followed each
        other: neither run's effect is lost, and a store with ``update`` (the SQL stores)
        does it in one transaction."""
        started = self._started.take(conversation_id)
        with self._runs_lock:
            reported = self._reported.pop(conversation_id)
        rev = uuid.uuid4().hex

        def change(current: dict[str, Any] | None) -> dict[str, Any]:
            state = session.to_state()
            if started is None:
                return {**state, "rev": rev, "parent": ""}
            parent, base = started
            found = current.get("rev", "") if isinstance(current, Mapping) else ""
            if current is not None and found != parent:
                if not reported:  # once per run: a dispatch may have reported it
                    events.emit(
                        "state.forked",
                        {
                            "conversation": conversation_id,
                            "expected": parent,
                            "found": found if isinstance(found, str) else "",
                            "at": "save",
                        },
                    )
                head = self.restore(current, session.limits, session.policy)
                state = apply_effect(head, effect_between(base, session)).to_state()
                parent = found if isinstance(found, str) else ""
            return {**state, "rev": rev, "parent": parent}

        update_state(self.states, conversation_id, change)
