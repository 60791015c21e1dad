"""Where a session lives while tool calls run, and how the calls of a turn are ordered: one
import for the state layer's coordination parts, each in its own module.

- :mod:`skillcore.state.stores`: :class:`SessionStore`, the live session a call reads and
  writes (ADK session state, an Agents SDK run context, your own object).
- :mod:`skillcore.state.turn_calls` and :mod:`skillcore.state.turns`: a turn's calls in the
  model's order and the :class:`TurnStore` that decides them in that order, for frameworks
  that merge parallel state writes with a reducer (LangGraph); each call writes its own
  effect and :func:`skillcore.merge_states` folds the effects in call order.
- :mod:`skillcore.state.turn_index`: turns announced from the model's response before their
  calls run, found again by one call's id (:class:`TurnIndex`, for the Agents SDK).
- :mod:`skillcore.state.ledger`: the latest revision per conversation, shared by workers
  (fork detection).
- :mod:`skillcore.state.saved`: saved state per conversation (:class:`StateStore`).
- :mod:`skillcore.state.refresh`: when to re-scan sources; :mod:`skillcore.state.restore`:
  reading saved state over the current catalog.

See docs/architecture.md for where each rule lives.
"""

from __future__ import annotations

from skillcore.state.ledger import Head, Ledger, MemoryLedger, SQLLedger
from skillcore.state.refresh import (
    REFRESH_COST_FACTOR,
    REFRESH_COST_FLOOR,
    Marker,
    RefreshGate,
    file_marker,
)
from skillcore.state.restore import CatalogMemo, Restorer
from skillcore.state.saved import (
    MAX_CONVERSATION_KEY,
    MAX_SAVED_STATE_BYTES,
    MemoryStateStore,
    PostgresStateStore,
    SavedSession,
    SQLiteStateStore,
    StateStore,
    Update,
    update_state,
)
from skillcore.state.stores import SessionRef, SessionStore, as_store
from skillcore.state.turn_calls import MAX_TURN_CALLS, Replayer, TurnCalls
from skillcore.state.turn_index import DEFAULT_MAX_ANNOUNCED, TurnIndex
from skillcore.state.turns import (
    DEFAULT_ARRIVAL_SECONDS,
    DEFAULT_CONFIRM_SECONDS,
    DEFAULT_MAX_TURNS,
    DEFAULT_WAIT_SECONDS,
    TurnCall,
    TurnStore,
)

__all__ = [
    "DEFAULT_ARRIVAL_SECONDS",
    "DEFAULT_CONFIRM_SECONDS",
    "DEFAULT_MAX_ANNOUNCED",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_WAIT_SECONDS",
    "MAX_CONVERSATION_KEY",
    "MAX_SAVED_STATE_BYTES",
    "MAX_TURN_CALLS",
    "REFRESH_COST_FACTOR",
    "REFRESH_COST_FLOOR",
    "CatalogMemo",
    "Head",
    "Ledger",
    "Marker",
    "MemoryLedger",
    "MemoryStateStore",
    "PostgresStateStore",
    "RefreshGate",
    "Replayer",
    "Restorer",
    "SQLLedger",
    "SQLiteStateStore",
    "SavedSession",
    "SessionRef",
    "SessionStore",
    "StateStore",
    "TurnCall",
    "TurnCalls",
    "TurnIndex",
    "TurnStore",
    "Update",
    "as_store",
    "file_marker",
    "update_state",
]
