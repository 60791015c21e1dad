"""Turns announced when the model's response arrives, found again from one call's id
(:class:`TurnIndex`): for frameworks that show a tool only its own call id."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection

from skillcore.state.session import SkillSession
from skillcore.state.stores import SessionStore
from skillcore.state.turn_calls import TurnCalls
from skillcore.state.turns import TurnCall, TurnStore

__all__ = ["DEFAULT_MAX_ANNOUNCED", "TurnIndex"]


#: Call ids a :class:`TurnIndex` remembers (the least recently announced are dropped first).
DEFAULT_MAX_ANNOUNCED = 4096


class TurnIndex:
    """Turns announced when the model's response arrives, found again from one call's id.

    For frameworks that run a turn's calls concurrently and show each call only its own id
    (the OpenAI Agents SDK): the adapter announces the turn's calls, in the model's order,
    before any of them runs; each call then enters its turn in a :class:`TurnStore` with
    :meth:`enter`, once. A call of no announced turn gets None. Thread-safe; at most
    ``max_calls`` call ids are kept.
    """

    def __init__(self, *, max_calls: int = DEFAULT_MAX_ANNOUNCED) -> None:
        self.max_calls = max_calls
        self._lock = threading.Lock()
        self._calls: OrderedDict[
            tuple[str, str], tuple[TurnCalls, frozenset[str], frozenset[str] | None]
        ] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._calls)

    def announce(
        self,
        calls: TurnCalls,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
    ) -> None:
        """Record the turn ``calls`` and the ``hidden``/``available`` its calls enter with
        (see :meth:`TurnStore.enter`). A call id announced again belongs to the newer turn."""
        entry = (calls, frozenset(hidden), None if available is None else frozenset(available))
        with self._lock:
            for call_id in calls.order:
                key = (calls.conversation, call_id)
                self._calls[key] = entry
                self._calls.move_to_end(key)
            while len(self._calls) > self.max_calls:
                self._calls.popitem(last=False)

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
        with self._lock:
            entry = self._calls.pop((conversation, call_id), None)
        if entry is None:
            return None
        calls, hidden, available = entry
        return store.enter(calls, call_id, base, hidden=hidden, available=available)
