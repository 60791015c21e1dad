"""Serialising parallel skill tool calls so every reply tells the truth.

Frameworks run the tool calls of one model turn concurrently, each seeing the state as it was
before the turn. Without coordination two loads could both claim the last free slot. The
coordinator keeps, per turn, the latest session produced by that turn's calls: each call's
pure transition runs on it under a lock (I/O happens outside the lock), and the result carries
a ``seq`` so :func:`skillcore.session.merge_states` can pick the final state in any order.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar

from skillcore.session import SkillSession

R = TypeVar("R")


class SessionCoordinator:
    """Per-turn serialisation of pure session transitions (thread- and task-safe)."""

    def __init__(self, max_turns: int = 1024) -> None:
        self._lock = threading.Lock()
        self._turns: OrderedDict[Hashable, tuple[SkillSession, int]] = OrderedDict()
        self._max = max_turns

    def apply(
        self,
        turn: Hashable | None,
        base: SkillSession,
        transition: Callable[[SkillSession], tuple[SkillSession, R]],
    ) -> tuple[SkillSession, R, int]:
        """Run ``transition`` on the latest session of ``turn`` (``base`` if it is new).

        Returns ``(new_session, result, seq)``; ``seq`` increases within a turn. With
        ``turn=None`` the transition runs on ``base`` with ``seq`` 0.
        """
        if turn is None:
            new, result = transition(base)
            return new, result, 0
        key = (turn, base)
        with self._lock:
            current, seq = self._turns.get(key, (base, 0))
            new, result = transition(current)
            seq += 1
            self._turns[key] = (new, seq)
            self._turns.move_to_end(key)
            while len(self._turns) > self._max:
                self._turns.popitem(last=False)
            return new, result, seq

    def current(self, turn: Hashable | None, base: SkillSession) -> SkillSession:
        """The latest session of ``turn`` (or ``base``)."""
        if turn is None:
            return base
        with self._lock:
            return self._turns.get((turn, base), (base, 0))[0]
