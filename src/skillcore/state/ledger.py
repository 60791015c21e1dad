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
    #: The turn that found the conversation forked, and the head it found then (its
    #: revision, position and loaded skills): kept with the row while that turn writes, so
    #: every worker of the turn, and a retry whose reply was lost after the commit, is told
    #: of the fork again (the row's revision alone no longer shows it).
    fork_turn: str = attrs.field(default="", kw_only=True)
    fork: Head | None = attrs.field(default=None, kw_only=True)


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


#: What one ledger operation writes (None: nothing) and answers (None, or a fork's head).
Step = tuple["Head | None", "Head | None"]


def _bare(head: Head) -> Head:
    # What a row keeps of a fork it found: no calls, no fork of its own (bounded).
    return Head(head.rev, head.seq, head.loaded, damaged=head.damaged)


def _remembered(head: Head | None, turn: str) -> Head | None:
    # The fork ``turn`` found before (in whichever worker), if the row still keeps it.
    return head.fork if head is not None and head.fork_turn == turn else None


def observed(head: Head | None, rev: str, turn: str, loaded: Iterable[str]) -> Step:
    """What :meth:`Ledger.observe` writes (None: nothing) and answers, given the current
    ``head`` (ids spelled as :func:`stored_id` does). A turn that found a fork is answered
    that fork again, whichever worker asks, until a later turn writes."""
    if head is None:
        return Head(rev, 0, loaded), None
    if head.rev in (rev, turn):
        return None, _remembered(head, turn)
    return Head(rev, 0, loaded, fork_turn=turn, fork=_bare(head)), head


def advanced(
    head: Head | None, parent: str, rev: str, seq: int, loaded: Iterable[str], call: str
) -> Step:
    """What :meth:`Ledger.advance` writes and answers, given the current ``head``: the
    turn's start is checked by its first write too (a head that is neither ``parent`` nor
    ``rev`` is a fork), so a turn needs no separate :meth:`Ledger.observe` first."""
    same = head is not None and head.rev == rev
    calls = (*head.calls, call)[-MAX_TURN_CALLS:] if same and head else (call,)
    if head is not None and head.rev not in (parent, rev):
        return Head(rev, seq, loaded, calls, fork_turn=rev, fork=_bare(head)), head
    found = _remembered(head, rev)
    if same and head is not None and head.seq > seq:
        return attrs.evolve(head, calls=calls), found  # a later call of the turn wrote
    return Head(rev, seq, loaded, calls, fork_turn=rev if found else "", fork=found), found


@runtime_checkable
class Ledger(Protocol):
    """Where workers record each conversation's latest skill state revision, so a run that
    does not start from it (two workers on one thread at once) is noticed. Both methods
    return None when all is in order, or the head that was current when it was not (a fork);
    either way the ledger then holds the caller's revision, so the conversation converges.
    A fork a turn found is answered again to every later operation of that turn (another
    worker resuming it, a retry whose reply was lost), as :func:`observed` and
    :func:`advanced` say. A head spells its revision and call ids as :func:`stored_id`
    does (a head that spells them otherwise only ever fails closed: its calls are not taken
    as confirmed)."""

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        """Turn ``turn`` starts from the state ``rev`` (with ``loaded``); the head may be
        ``turn`` itself (a worker that died wrote it before this one resumed the turn)."""
        ...

    def advance(
        self, key: str, parent: str, rev: str, seq: int, loaded: Iterable[str], call: str = ""
    ) -> Head | None:
        """Call ``call`` of turn ``rev`` (at position ``seq``), started from ``parent``,
        wrote; checks the turn's start as :meth:`observe` does."""
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
            write, answer = observed(self._heads.get(key), rev, turn, loaded)
            if write is not None:
                self._set(key, write)
            return answer

    def advance(
        self, key: str, parent: str, rev: str, seq: int, loaded: Iterable[str], call: str = ""
    ) -> Head | None:
        """See :meth:`Ledger.advance`."""
        key, parent, rev, call = stored_id(key), stored_id(parent), stored_id(rev), stored_id(call)
        with self._lock:
            write, answer = advanced(self._heads.get(key), parent, rev, seq, loaded, call)
            if write is not None:
                self._set(key, write)
            return answer


class SQLLedger:
    """A :class:`Ledger` in a SQL table (``skillcore_heads``) that all workers share:
    SQLite (``SQLLedger.sqlite(path)``) or PostgreSQL (``SQLLedger.postgres(conninfo)``,
    needs ``psycopg``). A change is one short transaction that locks the conversation's row,
    so two workers can never both see themselves as the successor of one revision; the
    common cases take one statement (see :meth:`observe` and :meth:`advance`)."""

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
            "rev TEXT NOT NULL, seq INTEGER NOT NULL, loaded TEXT NOT NULL, calls TEXT NOT NULL, "
            "fork_turn TEXT NOT NULL DEFAULT '', fork TEXT NOT NULL DEFAULT '')"
        )

        def run() -> None:
            with self._tx() as cur:
                cur.execute(create)
                # A table an earlier version made lacks the fork columns: added once.
                have = self._columns(cur)
                for column in _FORK_COLUMNS:
                    if column not in have:
                        cur.execute(
                            f"ALTER TABLE {table} ADD COLUMN {column} TEXT NOT NULL DEFAULT ''"
                        )

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

    def _columns(self, cur: Any) -> set[str]:
        if self.dialect == "sqlite":
            cur.execute(f"PRAGMA table_info({self.table})")
            return {row[1] for row in cur.fetchall()}
        cur.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = %s AND table_schema = current_schema()",
            (self.table,),
        )
        return {row[0] for row in cur.fetchall()}

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

    def _once(self, sql: str, params: tuple[Any, ...], *, read: bool) -> Any:
        """One statement in a transaction of its own (the connections commit each one):
        its first row when ``read``, else how many rows it changed."""

        def start(conn: Any) -> Any:
            cur = conn.cursor()
            cur.execute(sql, params)
            return cur

        conn, cur = self._pool.begin(start)
        ok = False
        try:
            out = cur.fetchone() if read else cur.rowcount
            cur.close()
            ok = True
            return out
        finally:
            self._pool.release(conn, ok)

    def _head(self, cur: Any, key: str) -> Head | None:
        lock = "" if self.dialect == "sqlite" else " FOR UPDATE"
        cur.execute(f"{self._select}{lock}", (key,))
        row = cur.fetchone()
        return None if row is None else _decode_row(row)

    @property
    def _select(self) -> str:
        return (
            f"SELECT rev, seq, loaded, calls, fork_turn, fork FROM {self.table} "
            f"WHERE conversation = {self._p}"
        )

    def _put(self, cur: Any, key: str, head: Head) -> None:
        p = self._p
        cur.execute(
            f"INSERT INTO {self.table} (conversation, rev, seq, loaded, calls, fork_turn, fork) "
            f"VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}) "
            "ON CONFLICT (conversation) DO UPDATE SET rev = excluded.rev, seq = excluded.seq, "
            "loaded = excluded.loaded, calls = excluded.calls, fork_turn = excluded.fork_turn, "
            "fork = excluded.fork",
            (key, head.rev, head.seq, *_columns_of(head)),
        )

    def _insert_missing(self, cur: Any, key: str, head: Head) -> None:
        # A first row is inserted without a race: the loser of two inserts sees the winner.
        p = self._p
        cur.execute(
            f"INSERT INTO {self.table} (conversation, rev, seq, loaded, calls) "
            f"VALUES ({p}, {p}, {p}, {p}, '[]') ON CONFLICT (conversation) DO NOTHING",
            (key, head.rev, head.seq, _names(head.loaded)),
        )

    def _insert_new(self, key: str, head: Head) -> tuple[str, tuple[Any, ...]]:
        # The first row of a conversation, unless another worker's came first (no change).
        p = self._p
        return (
            f"INSERT INTO {self.table} (conversation, rev, seq, loaded, calls, fork_turn, fork) "
            f"VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}) ON CONFLICT (conversation) DO NOTHING",
            (key, head.rev, head.seq, *_columns_of(head)),
        )

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        """See :meth:`Ledger.observe`. One read when the turn is in order (nothing to
        write: the read is as good as a locked one), else one transaction."""
        key, rev, turn = stored_id(key), stored_id(rev), stored_id(turn)
        row = self._once(self._select, (key,), read=True)
        if row is not None:
            write, answer = observed(_decode_row(row), rev, turn, loaded)
            if write is None:
                return answer
        elif self._once(*self._insert_new(key, Head(rev, 0, loaded)), read=False) == 1:
            return None  # a new conversation: its first row
        with self._tx() as cur:
            self._insert_missing(cur, key, Head(rev, 0, loaded))
            write, answer = observed(self._head(cur, key), rev, turn, loaded)
            if write is not None:
                self._put(cur, key, write)
            return answer

    def head(self, key: str) -> Head | None:
        """See :meth:`Ledger.head`."""
        row = self._once(self._select, (stored_id(key),), read=True)
        return None if row is None else _decode_row(row)

    def advance(
        self, key: str, parent: str, rev: str, seq: int, loaded: Iterable[str], call: str = ""
    ) -> Head | None:
        """See :meth:`Ledger.advance`. A turn's first write on a row still at ``parent``
        (the common case) is one statement (a row whose revision is ``parent`` is taken as
        it, whatever its other columns hold: they are rewritten), a conversation's first
        one two, anything else one transaction."""
        key, parent, rev, call = stored_id(key), stored_id(parent), stored_id(rev), stored_id(call)
        p = self._p
        # What advanced() writes for a head at ``parent`` keeping no fork of this turn.
        first = (
            f"UPDATE {self.table} SET rev = {p}, seq = {p}, loaded = {p}, calls = {p}, "
            f"fork_turn = '', fork = '' WHERE conversation = {p} AND rev = {p} "
            f"AND rev <> {p} AND fork_turn <> {p}"
        )
        params = (rev, seq, _names(loaded), _names([call]), key, parent, rev, rev)
        if self._once(first, params, read=False) == 1:
            return None
        mine = Head(rev, seq, loaded, (call,))  # what advanced() writes on no row
        if self._once(*self._insert_new(key, mine), read=False) == 1:
            return None
        with self._tx() as cur:
            self._insert_missing(cur, key, Head(parent, 0, ()))
            write, answer = advanced(self._head(cur, key), parent, rev, seq, loaded, call)
            if write is not None:
                self._put(cur, key, write)
            return answer

    def close(self) -> None:
        """Close the idle connections."""
        self._pool.close()


#: The columns an earlier version's table lacks.
_FORK_COLUMNS = ("fork_turn", "fork")


def _columns_of(head: Head) -> tuple[str, str, str, str]:
    # loaded, calls, fork_turn, fork: as a row holds them.
    return _names(head.loaded), _names(head.calls), head.fork_turn, _encode_fork(head.fork)


def _names(names: Iterable[str]) -> str:
    return json.dumps(list(names))


def _encode_fork(fork: Head | None) -> str:
    if fork is None:
        return ""
    # A damaged head's revision holds a NUL: stored as its digest, the flag says what it was.
    rev = stored_id(fork.rev)
    return json.dumps(
        {"rev": rev, "seq": fork.seq, "loaded": list(fork.loaded), "damaged": fork.damaged}
    )


def _decode_fork(text: Any) -> Head | None:
    if text == "":
        return None
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not an object")
    if value.get("damaged") is True:
        return DAMAGED
    rev, seq, loaded = value.get("rev"), value.get("seq"), value.get("loaded")
    if not isinstance(rev, str) or type(seq) is not int or not isinstance(loaded, list):
        raise ValueError("not a head")
    return Head(rev, seq, tuple(n for n in loaded[:MAX_TURN_CALLS] if isinstance(n, str)))


def _decode_row(row: Any) -> Head:
    """A head from its row, or :data:`DAMAGED` for one that cannot be read (a revision that
    is not text, a position that is not an integer, names that are not a JSON list, a kept
    fork that is not one)."""
    rev, seq, loaded, calls, fork_turn, fork = row
    if not isinstance(rev, str) or type(seq) is not int:  # SQLite keeps 'abc', 1e400 as given
        return DAMAGED
    if not isinstance(fork_turn, str):
        return DAMAGED
    try:
        found = _decode_fork(fork)
        names = _decode_names(loaded), _decode_names(calls)
        return Head(rev, seq, *names, fork_turn=fork_turn if found else "", fork=found)
    except (TypeError, ValueError, RecursionError):  # RecursionError: deeply nested JSON
        return DAMAGED


def _decode_names(text: Any) -> tuple[str, ...]:
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError("not a list")
    return tuple(n for n in value[:MAX_TURN_CALLS] if isinstance(n, str))
