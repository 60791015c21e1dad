"""A run that does not start from a conversation's latest saved state (another worker saved
it meanwhile: a fork), for adapters whose state lives in a :class:`StateStore`: found with
one read (:func:`saved_fork`), and its plain calls checked on that latest state too
(:class:`ForkCheck`), so a fork never lifts a restriction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillcore.state.listed_calls import Replayed
from skillcore.state.merge import apply_effect, effect_between
from skillcore.state.saved import StateStore
from skillcore.state.stores import SessionStore
from skillcore.state.transitions import SkillSession
from skillcore.state.turn_order import CallInTurn


def saved_fork(states: StateStore, key: str, parent: str) -> dict[str, Any] | None:
    """The state saved for ``key`` when its revision is not ``parent`` (the one the run
    started from): another worker saved since. None when the run is in order. One read."""
    current = states.load(key)
    if not isinstance(current, Mapping):
        return None
    found = current.get("rev", "")
    return None if found == parent else dict(current)


def saved_rev(state: Mapping[str, Any]) -> str:
    """The revision a saved state records ("" when it has none or it is not text)."""
    rev = state.get("rev", "")
    return rev if isinstance(rev, str) else ""


class ForkCheck(CallInTurn):
    """``inner`` (the run's :class:`SessionStore`) with one more session a plain call must be
    allowed on: the latest saved state ``head`` with this run's own effect so far applied
    (what the two runs give one after the other; ``base`` is where this run started). When
    ``inner`` is a call placed in its turn, its position, refusal and settled result are
    kept."""

    def __init__(self, inner: SessionStore, head: SkillSession, base: SkillSession) -> None:
        self.inner, self.head, self.base = inner, head, base
        turn = inner if isinstance(inner, CallInTurn) else None
        self._turn = turn
        self.seq = turn.seq if turn is not None else 0
        self.timed_out = turn.timed_out if turn is not None else False
        self.refused = turn.refused if turn is not None else None

    def read(self) -> SkillSession:
        """The run's session."""
        return self.inner.read()

    def write(self, session: SkillSession) -> None:
        """Write to the run's store."""
        self.inner.write(session)

    def settled(self) -> Replayed | None:
        """As the inner call's (None when the inner store is not a call in a turn)."""
        return self._turn.settled() if self._turn is not None else None

    def also_check(self, tool_name: str | None = None) -> tuple[SkillSession, ...]:
        """The inner call's extra sessions, then the latest saved state with this run's
        effect applied."""
        extra = self._turn.also_check(tool_name) if self._turn is not None else ()
        merged = apply_effect(self.head, effect_between(self.base, self.inner.read()))
        return (*extra, merged)


__all__ = ["ForkCheck", "saved_fork", "saved_rev"]
