"""The calls of one model turn in the model's order, for
:class:`~skillcore_openai.agents_sdk.AgentSkills`: what the hooks of ``guard_agent`` learn per
run (each model input, each model response, before its tool calls run) and the announced turn
each call then enters."""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from skillcore.runtime import Recent, TurnCall, TurnCalls, TurnIndex, TurnStore, load_replies
from skillcore_openai._agents_conversations import AgentConversations
from skillcore_openai._agents_guard import _agent_tools, _calls_of, _Run, _server_kept
from skillcore_openai._agents_state import SkillConversation
from skillcore_openai.calls import calls_of
from skillcore_openai.functions import _replies_of

if TYPE_CHECKING:
    from agents import ModelResponse

__all__ = ["TurnOrder"]

_turn_ids = itertools.count(1)
#: Conversations known to be kept by the server, per AgentSkills (least recent dropped).
_KEPT_CONVERSATIONS = 10_000


class TurnOrder(AgentConversations):
    """The turn-order part of :class:`~skillcore_openai.agents_sdk.AgentSkills` (which calls
    :meth:`_start_turns`)."""

    def _start_turns(self) -> None:
        """The parts that decide a turn's calls in the model's order (see ``guard_agent``)."""
        #: The calls of one model turn, decided in the model's order: each turn is announced
        #: by the hooks ``guard_agent`` installs, before any of its calls runs.
        self.turns = TurnStore(replay=self.toolkit)
        self.announced = TurnIndex()
        self._runs: weakref.WeakKeyDictionary[Any, _Run] = weakref.WeakKeyDictionary()
        #: The AgentSkills a run's hooks report to (a profiled adapter picks the run's).
        self._route: Callable[[Any], TurnOrder] = lambda _ctx: self
        self._warned = False
        # Conversations the server keeps (the model input holds only new items, so which load
        # replies the model still receives cannot be told), learned by the hooks.
        self._server_kept: Recent[str, bool] = Recent(_KEPT_CONVERSATIONS)

    def _run(self, ctx: Any) -> _Run:
        with self._lock:
            run = self._runs.get(ctx)
            if run is None:
                run = self._runs[ctx] = _Run()
            return run

    def _observe(self, ctx: Any, items: Sequence[Any]) -> None:
        """Before a model call: which loaded skills' load replies its input lacks (a load
        of one of those sends the instructions again). None when the server keeps the
        conversation: its input is only what is new, the rest cannot be seen."""
        state, run = self.state_for(ctx), self._run(ctx)
        if run.last:  # the second model call of a run, or later: the input tells
            self._kept(state, _server_kept(items, run.last))
        session = state.session
        if self._kept(state) or not session.loaded:
            run.hidden = frozenset()
            return
        replies = load_replies(items, _replies_of, calls_of, session.names.load)
        run.hidden = session.undelivered(replies)

    def _kept(self, state: SkillConversation, learned: bool | None = None) -> bool:
        """Whether the server keeps ``state``'s conversation (``learned``: what a model
        input just showed)."""
        key = state._turn_key
        with self._lock:
            if learned:
                self._server_kept.set(key, True)
            elif learned is not None:
                self._server_kept.pop(key)
            return self._server_kept.get(key) is not None

    def _announce(self, ctx: Any, agent: Any, response: ModelResponse) -> None:
        """When a model response arrives, before its tool calls run: its calls in the
        model's order, so each is decided after the earlier skill calls of its turn."""
        made = _calls_of(getattr(response, "output", None) or ())
        run = self._run(ctx)
        run.last = frozenset(c.call_id for c in made)
        # The skill calls and the plain calls the guardrail decides (those it lets through
        # unchecked, under RECOMMEND, never wait); a turn without skill calls needs no order.
        is_skill, guards = self.toolkit.is_skill_tool, self.toolkit.guards
        calls = [
            (c.call_id, c.name, c.arguments)
            for c in made
            if is_skill(c.name) or guards(self.policy, c.name)
        ]
        state = self.state_for(ctx)
        if calls:
            # Another worker may have saved this conversation since: decide the turn's
            # calls on the latest saved state (one read per model turn with such calls).
            refresh = getattr(state._store, "refresh", None)
            if callable(refresh):
                refresh()
        if not any(is_skill(name) for _, name, _ in calls):
            return
        rid = getattr(response, "response_id", None)
        turn = TurnCalls.of(state._turn_key, f"{rid or 'turn'}#{next(_turn_ids)}", calls, is_skill)
        load = self.toolkit.names.load
        loads = [i for i, name, _ in calls if name == load]
        have = _agent_tools(agent) if loads else None
        ids = [i for i, _, _ in calls]
        self.announced.announce(turn, hidden=run.hidden, available=have, ids=ids)
        with self._lock:
            run.loads.extend(loads)

    def _enter(self, state: SkillConversation, call_id: str | None) -> TurnCall | None:
        """The call's view of its announced turn (None when no turn announced it)."""
        if not isinstance(call_id, str):
            return None
        return self.announced.enter(self.turns, state._turn_key, call_id, state)
