"""The latest skill state revision per conversation, shared by workers, so a run that does not
start from it (two workers on one thread at once) is noticed: :class:`Ledger`, in memory
(:class:`MemoryLedger`) or in SQL (:class:`SQLLedger`).

Ids are stored as :func:`stored_id` spells them (bounded, storable), and a row that cannot be
read is a :data:`DAMAGED` head: unknown, so the next run is a fork (reported once, then the
row is rewritten), never an error on every later call."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

import attrs

from skillcore._frozen import to_tuple
from skillcore._recent import Recent
from skillcore.errors import require
from skillcore.limits import MAX_STORED_ID_CHARS
from skillcore.state.listed_calls import MAX_TURN_CALLS
from skillcore.state.sql import Connections, create_once, rollback, storable


@attrs.frozen
class Head:
    """The latest skill state a :class:`Ledger` knows for a conversation: its revision (the
    turn that wrote it), the position of the call that wrote it, its loaded skills, and the
    calls of that turn that wrote (they ran, in whichever worker)."""

    rev: str
    seq: int = 0
    loaded: tuple[str, ...] = attrs.field(default=(), converter=to_tuple)
    calls: tuple[str, ...] = attrs.field(default=(), converter=to_tuple)
    #: True for a row that could not be read (:data:`DAMAGED`): what it held is unknown.
    damaged: bool = attrs.field(default=False, kw_only=True)


#: The head of a row that cannot be read (hand-edited, truncated, another version's): its
#: revision matches no run's (a stored id never holds a NUL), so the next run is a fork.
DAMAGED = Head("\x00unreadable ledger row", damaged=True)

#: How a digest spelled by :func:`stored_id` starts.
_DIGEST = "sha256:"


def stored_id(text: str) -> str:
    """``text`` (a conversation key, turn, revision or call id) as a ledger stores it: as it
    is when short and storable, else ``sha256:`` and a digest (at most
    :data:`~skillcore.limits.MAX_STORED_ID_CHARS` characters). PostgreSQL refuses a NUL in
    text and neither database stores a lone surrogate; an id that already looks like a
    digest is digested again, so two different ids never share a spelling."""
    if len(text) <= MAX_STORED_ID_CHARS and not text.startswith(_DIGEST) and storable(text):
        return text
    raw = text.encode("utf-8", "surrogatepass")
    return _DIGEST + hashlib.sha256(raw).hexdigest()[: MAX_STORED_ID_CHARS - len(_DIGEST)]


@runtime_checkable
class Ledger(Protocol):
    """Where workers record each conversation's latest skill state revision, so a run that
    does not start from it (two workers on one thread at once) is noticed. Both methods
    return None when all is in order, or the head that was current when it was not (a fork);
    either way the ledger then holds the caller's revision, so the conversation converges.
    A head spells its revision and call ids as :func:`stored_id` does (a head that spells
    them otherwise only ever fails closed: its calls are not taken as confirmed)."""

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        """Turn ``turn`` starts from the state ``rev`` (with ``loaded``); the head may be
        ``turn`` itself (a worker that died wrote it before this one resumed the turn)."""
        ...

    def advance(
        self, key: str, parent: str, rev: str, seq: int, loaded: Iterable[str], call: str = ""
    ) -> Head | None:
        """Call ``call`` of turn ``rev`` (at position ``seq``), started from ``parent``,
        wrote."""
        ...

    def head(self, key: str) -> Head | None:
        """The conversation's latest revision (None if unknown)."""
        ...


class MemoryLedger:
    """A :class:`Ledger` in process memory: notices overlapping runs within one worker
    (thread-safe; the least recently used of ``max_conversations`` are dropped)."""

    def __init__(self, *, max_conversations: int = 10_000) -> None:
        self.max_conversations = max_conversations
        self._lock = threading.Lock()
        self._heads: Recent[str, Head] = Recent(max_conversations)

    def _set(self, key: str, head: Head) -> None:
        self._heads.set(key, head)

    def head(self, key: str) -> Head | None:
        """See :meth:`Ledger.head`."""
        with self._lock:
            return self._heads.get(stored_id(key))

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        """See :meth:`Ledger.observe`."""
        key, rev, turn = stored_id(key), stored_id(rev), stored_id(turn)
        with self._lock:
            head = self._heads.get(key)
            if head is None or head.rev in (rev, turn):
                self._set(key, head or Head(rev, 0, loaded))
                return None
            self._set(key, Head(rev, 0, loaded))
            return head

    def advance(
        self, key: str, parent: str, rev: str, seq: int, loaded: Iterable[str], call: str = ""
    ) -> Head | None:
        """See :meth:`Ledger.advance`."""
        key, parent, rev, call = stored_id(key), stored_id(parent), stored_id(rev), stored_id(call)
        with self._lock:
            head = self._heads.get(key)
            same = head is not None and head.rev == rev
            calls = (*head.calls, call)[-MAX_TURN_CALLS:] if same and head else (call,)
            if same and head is not None and head.seq > seq:
                self._set(key, attrs.evolve(head, calls=calls))
                return None  # a later call of the same turn already wrote
            self._set(key, Head(rev, seq, loaded, calls))
            if head is None or head.rev in (parent, rev):
                return None
            return head


class SQLLedger:
    """A :class:`Ledger` in a SQL table (``skillcore_heads``) that all workers share:
    SQLite (``SQLLedger.sqlite(path)``) or PostgreSQL (``SQLLedger.postgres(conninfo)``,
    needs ``psycopg``). Each check is one short transaction that locks the conversation's row,
    so two workers can never both see themselves as the successor of one revision."""

    def __init__(
        self, connect: Callable[[], Any], *, dialect: str, table: str = "skillcore_heads"
    ) -> None:
        if not table.isidentifier():
            raise ValueError(f"table must be a plain SQL identifier, got {table!r:.80}")
        if dialect not in ("sqlite", "postgres"):
            raise ValueError(f"dialect must be 'sqlite' or 'postgres', got {dialect!r:.40}")
        self.table, self.dialect = table, dialect
        self._pool = Connections(connect)
        self._p = "?" if dialect == "sqlite" else "%s"
        create = (
            f"CREATE TABLE IF NOT EXISTS {table} (conversation TEXT PRIMARY KEY, "
            "rev TEXT NOT NULL, seq INTEGER NOT NULL, loaded TEXT NOT NULL, calls TEXT NOT NULL)"
        )

        def run() -> None:
            with self._tx() as cur:
                cur.execute(create)

        create_once(run)

    @classmethod
    def sqlite(cls, path: str | os.PathLike[str], **kw: Any) -> SQLLedger:
        """A ledger in the SQLite database at ``path`` (shared by processes on one host)."""
        where = os.fspath(path)
        return cls(
            lambda: sqlite3.connect(
                where, timeout=30, isolation_level=None, check_same_thread=False
            ),
            dialect="sqlite",
            **kw,
        )

    @classmethod
    def postgres(cls, conninfo: str, **kw: Any) -> SQLLedger:
        """A ledger in PostgreSQL (``conninfo``: a libpq URL or DSN)."""
        psycopg: Any = require("psycopg", "postgres", "A PostgreSQL ledger")

        return cls(lambda: psycopg.connect(conninfo, autocommit=True), dialect="postgres", **kw)

    def _tx(self) -> Any:
        ledger = self

        class _Tx:
            def __enter__(self) -> Any:
                self.conn, self.cur = ledger._pool.begin(ledger._begin)
                return self.cur

            def __exit__(self, exc_type: Any, *rest: Any) -> None:
                ok = False
                try:
                    if exc_type is None:
                        self.cur.execute("COMMIT")
                        ok = True
                    else:
                        rollback(self.cur.execute)  # the error that got here is raised
                    self.cur.close()
                finally:
                    ledger._pool.release(self.conn, ok)

        return _Tx()

    def _begin(self, conn: Any) -> Any:
        cur = conn.cursor()
        cur.execute("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN")
        return cur

    def _head(self, cur: Any, key: str) -> Head | None:
        lock = "" if self.dialect == "sqlite" else " FOR UPDATE"
        cur.execute(
            f"SELECT rev, seq, loaded, calls FROM {self.table} "
            f"WHERE conversation = {self._p}{lock}",
            (key,),
        )
        row = cur.fetchone()
        return None if row is None else _decode_row(row)

    def _put(self, cur: Any, key: str, head: Head) -> None:
        p = self._p
        cur.execute(
            f"INSERT INTO {self.table} (conversation, rev, seq, loaded, calls) "
            f"VALUES ({p}, {p}, {p}, {p}, {p}) "
            "ON CONFLICT (conversation) DO UPDATE SET rev = excluded.rev, seq = excluded.seq, "
            "loaded = excluded.loaded, calls = excluded.calls",
            (key, head.rev, head.seq, json.dumps(list(head.loaded)), json.dumps(list(head.calls))),
        )

    def _insert_missing(self, cur: Any, key: str, head: Head) -> None:
        # A first row is inserted without a race: the loser of two inserts sees the winner.
        p = self._p
        cur.execute(
            f"INSERT INTO {self.table} (conversation, rev, seq, loaded, calls) "
            f"VALUES ({p}, {p}, {p}, {p}, '[]') ON CONFLICT (conversation) DO NOTHING",
            (key, head.rev, head.seq, json.dumps(list(head.loaded))),
        )

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        """See :meth:`Ledger.observe`."""
        key, rev, turn = stored_id(key), stored_id(rev), stored_id(turn)
        mine = Head(rev, 0, loaded)
        with self._tx() as cur:
            self._insert_missing(cur, key, mine)
            head = self._head(cur, key)
            if head is None or head.rev in (rev, turn):
                return None
            self._put(cur, key, mine)
            return head

    def head(self, key: str) -> Head | None:
        """See :meth:`Ledger.head`."""
        with self._tx() as cur:
            return self._head(cur, stored_id(key))

    def advance(
        self, key: str, parent: str, rev: str, seq: int, loaded: Iterable[str], call: str = ""
    ) -> Head | None:
        """See :meth:`Ledger.advance`."""
        key, parent, rev, call = stored_id(key), stored_id(parent), stored_id(rev), stored_id(call)
        with self._tx() as cur:
            self._insert_missing(cur, key, Head(parent, 0, ()))
            head = self._head(cur, key)
            same = head is not None and head.rev == rev
            calls = (*head.calls, call)[-MAX_TURN_CALLS:] if same and head else (call,)
            if same and head is not None and head.seq > seq:
                self._put(cur, key, attrs.evolve(head, calls=calls))
                return None
            self._put(cur, key, Head(rev, seq, loaded, calls))
            if head is None or head.rev in (parent, rev):
                return None
            return head

    def close(self) -> None:
        """Close the idle connections."""
        self._pool.close()


def _decode_row(row: Any) -> Head:
    """A head from its row, or :data:`DAMAGED` for one that cannot be read (a revision that
    is not text, a position that is not an integer, names that are not a JSON list)."""
    rev, seq, loaded, calls = row
    if not isinstance(rev, str) or type(seq) is not int:  # SQLite keeps 'abc', 1e400 as given
        return DAMAGED
    try:
        return Head(rev, seq, _decode_names(loaded), _decode_names(calls))
    except (TypeError, ValueError, RecursionError):  # RecursionError: deeply nested JSON
        return DAMAGED


def _decode_names(text: Any) -> tuple[str, ...]:
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError("not a list")
    return tuple(n for n in value[:MAX_TURN_CALLS] if isinstance(n, str))
