"""Saved skill state per conversation, for frameworks without a checkpointer:
:class:`StateStore` in memory, SQLite or PostgreSQL, and :class:`SavedSession`, the session
store of one conversation written through to it."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from skillcore import events
from skillcore._recent import Recent
from skillcore.errors import require
from skillcore.state.merge import apply_effect, effect_between
from skillcore.state.sql import Connections, create_once, rollback, storable
from skillcore.state.transitions import SkillSession

#: Longest conversation key a state store accepts (keys are ids, not data).
MAX_CONVERSATION_KEY = 1024
#: Largest saved state a state store accepts (a session's state is a few hundred bytes).
MAX_SAVED_STATE_BYTES = 1 << 20


@runtime_checkable
class StateStore(Protocol):
    """Saved skill state (``SkillSession.to_state()`` output) per conversation key: what a
    framework without a checkpointer (the Agents SDK, your own loop) keeps between turns and
    across restarts. ``load`` returns None for a conversation it has never seen."""

    def load(self, key: str) -> dict[str, Any] | None:
        """The state saved for ``key``, or None."""
        ...

    def save(self, key: str, state: dict[str, Any]) -> None:
        """Save ``state`` for ``key`` (replacing what was there)."""
        ...

    def delete(self, key: str) -> None:
        """Forget ``key`` (no error when it is unknown)."""
        ...


#: ``update``'s function: the saved state (or None) -> the state to save.
Update = Callable[[dict[str, Any] | None], dict[str, Any]]


@runtime_checkable
class AtomicStateStore(StateStore, Protocol):
    """A :class:`StateStore` that reads, changes and saves a state as one step (the stores
    here: a transaction in SQL, a lock in memory)."""

    def update(self, key: str, change: Update) -> dict[str, Any]:
        """Read ``key``'s state (None when unknown), save ``change`` of it, and return that."""
        ...


def update_state(states: StateStore, key: str, change: Update) -> dict[str, Any]:
    """Read, change and save ``key``'s state as one step when the store can
    (:class:`AtomicStateStore`), else load then save."""
    if isinstance(states, AtomicStateStore):
        return states.update(key, change)
    state = change(states.load(key))
    states.save(key, state)
    return state


def _checked(key: str) -> str:
    """``key`` if a store can hold it, else a clear ``ValueError`` (the same in every store:
    PostgreSQL refuses a NUL in text, and no database stores a lone surrogate)."""
    if not isinstance(key, str) or not key or len(key) > MAX_CONVERSATION_KEY or not storable(key):
        raise ValueError(
            f"a conversation key must be a non-empty string of at most {MAX_CONVERSATION_KEY} "
            f"characters, without NUL or lone surrogates, got {key!r:.80}"
        )
    return key


def _encode_state(key: str, state: dict[str, Any]) -> str:
    _checked(key)
    text = json.dumps(state, separators=(",", ":"), sort_keys=True)
    if len(text.encode()) > MAX_SAVED_STATE_BYTES:
        raise ValueError(f"skill state of {key!r:.80} exceeds {MAX_SAVED_STATE_BYTES} bytes")
    return text


def _decode_state(text: str | None) -> dict[str, Any] | None:
    # Whatever was stored is handed to restore_session, which repairs or drops what it
    # cannot use; a row that is not a JSON object reads as "nothing saved", reported as
    # unreadable state (the next save replaces it), never an error on every later load.
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: deep nesting
        reason = "nested too deeply" if isinstance(exc, RecursionError) else "not JSON"
        events.emit("state.reset", {"reason": f"unreadable saved row ({reason})"})
        return None
    if not isinstance(value, dict):
        events.emit("state.reset", {"reason": "unreadable saved row (not a JSON object)"})
        return None
    return value


class MemoryStateStore:
    """A :class:`StateStore` in process memory (thread-safe; the least recently used of more
    than ``max_conversations`` are dropped). States are stored as JSON text, so what the
    caller holds can never change what is saved."""

    def __init__(self, *, max_conversations: int = 10_000) -> None:
        self.max_conversations = max_conversations
        self._lock = threading.Lock()
        self._states: Recent[str, str] = Recent(lambda: self.max_conversations)

    def __len__(self) -> int:
        with self._lock:
            return len(self._states)

    def load(self, key: str) -> dict[str, Any] | None:
        """The state saved for ``key``, or None."""
        _checked(key)
        with self._lock:
            text = self._states.get(key, refresh=True)
        return _decode_state(text)

    def save(self, key: str, state: dict[str, Any]) -> None:
        """Save ``state`` for ``key``."""
        text = _encode_state(key, state)
        with self._lock:
            self._states.set(key, text)

    def delete(self, key: str) -> None:
        """Forget ``key``."""
        _checked(key)
        with self._lock:
            self._states.pop(key)

    def update(self, key: str, change: Update) -> dict[str, Any]:
        """Read, change and save ``key``'s state atomically."""
        _checked(key)
        with self._lock:
            state = change(_decode_state(self._states.get(key)))
            self._states.set(key, _encode_state(key, state))
        return state


class SQLiteStateStore:
    """A :class:`StateStore` in a SQLite table (``skillcore_state`` unless ``table`` says
    otherwise): survives restarts, and can live in the same database file as your
    conversation history (e.g. the Agents SDK's ``SQLiteSession``) as a side table.
    Thread-safe; every save is committed."""

    def __init__(self, path: str | os.PathLike[str], *, table: str = "skillcore_state") -> None:
        if not table.isidentifier():
            raise ValueError(f"table must be a plain SQL identifier, got {table!r:.80}")
        self.path, self.table = os.fspath(path), table
        self._lock = threading.Lock()
        # One connection per store; ":memory:" databases exist only within it.
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
        with self._lock, self._conn:
            self._conn.execute(
                f"CREATE TABLE IF NOT EXISTS {table} "
                "(conversation TEXT PRIMARY KEY, state TEXT NOT NULL)"
            )

    def load(self, key: str) -> dict[str, Any] | None:
        """The state saved for ``key``, or None."""
        _checked(key)
        with self._lock:
            row = self._conn.execute(
                f"SELECT state FROM {self.table} WHERE conversation = ?", (key,)
            ).fetchone()
        return _decode_state(row[0] if row else None)

    def save(self, key: str, state: dict[str, Any]) -> None:
        """Save ``state`` for ``key`` (committed before returning)."""
        text = _encode_state(key, state)
        with self._lock, self._conn:
            self._conn.execute(
                f"INSERT INTO {self.table} (conversation, state) VALUES (?, ?) "
                "ON CONFLICT(conversation) DO UPDATE SET state = excluded.state",
                (key, text),
            )

    def delete(self, key: str) -> None:
        """Forget ``key``."""
        _checked(key)
        with self._lock, self._conn:
            self._conn.execute(f"DELETE FROM {self.table} WHERE conversation = ?", (key,))

    def update(self, key: str, change: Update) -> dict[str, Any]:
        """Read, change and save ``key``'s state in one write transaction (other processes
        on the same file wait for it)."""
        _checked(key)
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(
                    f"SELECT state FROM {self.table} WHERE conversation = ?", (key,)
                ).fetchone()
                state = change(_decode_state(row[0] if row else None))
                conn.execute(
                    f"INSERT INTO {self.table} (conversation, state) VALUES (?, ?) "
                    "ON CONFLICT(conversation) DO UPDATE SET state = excluded.state",
                    (key, _encode_state(key, state)),
                )
            except BaseException:
                rollback(conn.execute)  # the error that got here is raised
                raise
            try:
                conn.execute("COMMIT")
            except BaseException:
                rollback(conn.execute)
                raise
        return state

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()


class PostgresStateStore:
    """A :class:`StateStore` in a PostgreSQL table (``skillcore_state`` unless ``table`` says
    otherwise), shared by every worker: the state store for several processes serving the same
    conversations (needs ``psycopg``). One connection per thread; every save is committed;
    :meth:`update` locks the conversation's row for its read-change-write."""

    def __init__(self, conninfo: str, *, table: str = "skillcore_state") -> None:
        if not table.isidentifier():
            raise ValueError(f"table must be a plain SQL identifier, got {table!r:.80}")
        psycopg: Any = require("psycopg", "postgres", "A PostgreSQL state store")
        self.conninfo, self.table = conninfo, table
        self._pool = Connections(lambda: psycopg.connect(conninfo, autocommit=True))
        create_once(
            lambda: self._run(
                f"CREATE TABLE IF NOT EXISTS {table} "
                "(conversation TEXT PRIMARY KEY, state TEXT NOT NULL)"
            )
        )

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        conn, ok = self._pool.acquire(), False
        try:
            cur = conn.execute(sql, params)
            row = cur.fetchone() if sql.startswith("SELECT") else None
            ok = True
            return row
        finally:
            self._pool.release(conn, ok)

    def load(self, key: str) -> dict[str, Any] | None:
        """The state saved for ``key``, or None."""
        _checked(key)
        row = self._run(f"SELECT state FROM {self.table} WHERE conversation = %s", (key,))
        return _decode_state(row[0] if row else None)

    def save(self, key: str, state: dict[str, Any]) -> None:
        """Save ``state`` for ``key`` (committed before returning)."""
        self._run(
            f"INSERT INTO {self.table} (conversation, state) VALUES (%s, %s) "
            "ON CONFLICT (conversation) DO UPDATE SET state = excluded.state",
            (key, _encode_state(key, state)),
        )

    def delete(self, key: str) -> None:
        """Forget ``key``."""
        _checked(key)
        self._run(f"DELETE FROM {self.table} WHERE conversation = %s", (key,))

    def update(self, key: str, change: Update) -> dict[str, Any]:
        """Read, change and save ``key``'s state in one transaction (the row is locked)."""
        _checked(key)
        conn, ok = self._pool.acquire(), False
        try:
            with conn.transaction():
                conn.execute(
                    f"INSERT INTO {self.table} (conversation, state) VALUES (%s, 'null') "
                    "ON CONFLICT (conversation) DO NOTHING",
                    (key,),
                )
                row = conn.execute(
                    f"SELECT state FROM {self.table} WHERE conversation = %s FOR UPDATE", (key,)
                ).fetchone()
                state = change(_decode_state(row[0] if row else None))
                conn.execute(
                    f"UPDATE {self.table} SET state = %s WHERE conversation = %s",
                    (_encode_state(key, state), key),
                )
            ok = True
        finally:
            self._pool.release(conn, ok)
        return state

    def close(self) -> None:
        """Close the idle connections."""
        self._pool.close()


class SavedSession:
    """The :class:`SessionStore` of one conversation whose state lives in a
    :class:`StateStore`: read from it once (``restore`` turns saved state into a session
    over the current catalog), written through on every change, so a restart resumes where
    the conversation was. Thread-safe.

    Workers sharing the store: :meth:`refresh` reads the latest saved state (one read; call
    it before a model turn's calls are decided), and a write that finds another worker's
    save since this one's last read or write applies only this session's own change to it
    (a fork, reported as ``state.forked``), so neither worker's effect is lost and a
    restriction the other saved is never lifted."""

    def __init__(
        self, states: StateStore, key: str, restore: Callable[[Any], SkillSession]
    ) -> None:
        self.states, self.key = states, key
        self._restore = restore
        self._lock = threading.Lock()
        saved = states.load(key)
        self._session, self._rev = restore(saved), _rev_of(saved)

    def read(self) -> SkillSession:
        """The current session."""
        return self._session

    def refresh(self) -> SkillSession:
        """Read the latest saved state (another worker may have saved since)."""
        saved = self.states.load(self.key)
        with self._lock:
            if _rev_of(saved) != self._rev:
                self._session, self._rev = self._restore(saved), _rev_of(saved)
            return self._session

    def write(self, session: SkillSession) -> None:
        """Replace the session and save it (merged over another worker's save, see above)."""
        with self._lock:
            before, rev = self._session, uuid.uuid4().hex
            merged = session

            def change(current: dict[str, Any] | None) -> dict[str, Any]:
                nonlocal merged
                found = _rev_of(current)
                merged = session
                if current is not None and found != self._rev:
                    events.emit(
                        "state.forked",
                        {"conversation": self.key, "expected": self._rev, "found": found,
                         "at": "save"},
                    )  # fmt: skip
                    merged = apply_effect(self._restore(current), effect_between(before, session))
                return {**merged.to_state(), "rev": rev, "parent": found}

            update_state(self.states, self.key, change)
            self._session, self._rev = merged, rev


def _rev_of(state: Any) -> str:
    rev = state.get("rev", "") if isinstance(state, dict) else ""
    return rev if isinstance(rev, str) else ""
