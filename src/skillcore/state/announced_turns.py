"""Turns announced when the model's response arrives, found again from one call's id
(:class:`TurnIndex`): for frameworks that show a tool only its own call id."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Collection, Iterable

from skillcore._recent import Recent
from skillcore.state.listed_calls import TurnCalls
from skillcore.state.stores import SessionStore
from skillcore.state.transitions import SkillSession
from skillcore.state.turn_order import TurnCall, TurnStore

__all__ = ["DEFAULT_MAX_ANNOUNCED", "TurnIndex"]


#: Call ids a :class:`TurnIndex` remembers (the least recently announced are dropped first).
DEFAULT_MAX_ANNOUNCED = 4096

#: An announced turn and the ``hidden``/``available`` its calls enter with.
_Entry = tuple[TurnCalls, frozenset[str], frozenset[str] | None]


class TurnIndex:
    """Turns announced when the model's response arrives, found again from one call's id.

    For frameworks that run a turn's calls concurrently and show each call only its own id
    (the OpenAI Agents SDK): the adapter announces the turn's calls, in the model's order,
    before any of them runs; each call then enters its turn in a :class:`TurnStore` with
    :meth:`enter`, once. A call of no announced turn gets None. Thread-safe; at most
    ``max_calls`` call ids are kept, besides those of the turn announced last (kept whole,
    or its own earlier calls could not be placed).
    """

    def __init__(self, *, max_calls: int = DEFAULT_MAX_ANNOUNCED) -> None:
        self.max_calls = max_calls
        self._lock = threading.Lock()
        #: (conversation, call id) -> the announced turn and how many of its calls carry the
        #: id (a repeated id enters once per call listed with it).
        self._calls: Recent[tuple[str, str], tuple[_Entry, int]] = Recent(
            lambda: max(self.max_calls, self._last)
        )
        #: How many call ids the turn announced last has (never dropped).
        self._last = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._calls)

    def announce(
        self,
        calls: TurnCalls,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
        ids: Iterable[str] | None = None,
    ) -> None:
        """Record the turn ``calls`` and the ``hidden``/``available`` its calls enter with
        (see :meth:`TurnStore.enter`). ``ids``: every call id the model listed, in order
        (default ``calls.order``; past the bound, those calls enter to be refused). A call
        id announced again belongs to the newer turn."""
        entry = (calls, frozenset(hidden), None if available is None else frozenset(available))
        counts = Counter(calls.order if ids is None else ids)
        with self._lock:
            self._last = len(counts)
            for call_id, count in counts.items():
                self._calls.set((calls.conversation, call_id), (entry, count))

    def enter(
        self,
        store: TurnStore,
        conversation: str,
        call_id: str,
        base: SkillSession | SessionStore,
    ) -> TurnCall | None:
        """The view of ``call_id``'s announced turn in ``store`` (use as ``async with``), or
        None when no turn of ``conversation`` lists it. A call enters once: its entry is
        dropped, so running it again (e.g. a resumed approval) is decided on its own."""
        key = (conversation, call_id)
        with self._lock:
            found = self._calls.take(key)
            if found is not None and found[1] > 1:
                self._calls.set(key, (found[0], found[1] - 1))
        if found is None:
            return None
        calls, hidden, available = found[0]
        return store.enter(calls, call_id, base, hidden=hidden, available=available)
