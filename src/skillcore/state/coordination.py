"""Where a session lives while tool calls run, and in what order the calls of a turn run.

A model turn can call several tools at once and frameworks run them concurrently. Two
strategies, both as a :class:`SessionStore` handed to :meth:`SkillToolkit.call`:

- **live state** (ADK session state, an Agents SDK run context, your own object): calls read
  and write one shared session; the toolkit re-checks a transition after its file I/O.
- **a turn store** (:class:`TurnStore`, for frameworks that merge parallel state writes with
  a reducer, like LangGraph): per conversation and turn, the turn's latest session; each write
  gets a ``seq`` so :func:`skillcore.merge_states` keeps the last one.

Either way, calls of one turn are decided **in the model's call order** (DESIGN §3.8): a
call waits until the earlier *skill* calls of its turn have finished, then reads the
session. This cannot deadlock: a call only waits for calls listed before it, frameworks start
calls in list order (thread pools and task groups are FIFO), so the earliest unfinished call
never waits; and every wait is bounded (``wait_seconds``) for calls that never arrive (another
middleware short-circuited them). A skill call that times out proceeds on the latest
session; a plain call that times out is refused (fail closed) and the adapter says so.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import anyio
import attrs

from skillcore._frozen import to_frozenset, to_tuple
from skillcore.limits import Limits
from skillcore.model import Catalog
from skillcore.names import ToolNames
from skillcore.policy.rules import ToolPolicy
from skillcore.state.session import Restored, SkillSession, restore_session

#: How long a call waits for the earlier skill calls of its turn.
DEFAULT_WAIT_SECONDS = 30.0
#: Finished turns kept per store (least recently used are dropped first).
DEFAULT_MAX_TURNS = 1024


@runtime_checkable
class SessionStore(Protocol):
    """Where a call reads and writes its session. ``read`` returns the current session and
    ``write`` replaces it; neither may await (so a read-transition-write is atomic on one
    event loop)."""

    def read(self) -> SkillSession:
        """The current session."""
        ...

    def write(self, session: SkillSession) -> None:
        """Replace the session."""
        ...


class SessionRef:
    """The simplest store: one session in a box (what a plain ``SkillSession`` becomes)."""

    __slots__ = ("session",)

    def __init__(self, session: SkillSession) -> None:
        self.session = session

    def read(self) -> SkillSession:
        """The current session."""
        return self.session

    def write(self, session: SkillSession) -> None:
        """Replace the session."""
        self.session = session


def as_store(target: SkillSession | SessionStore) -> SessionStore:
    """``target`` as a store (a session is boxed in a :class:`SessionRef`)."""
    return SessionRef(target) if isinstance(target, SkillSession) else target


@attrs.frozen
class TurnCalls:
    """The calls of one model turn: whose conversation, which turn, and the call ids in the
    model's order with those that are skill calls. ``conversation`` is a LangGraph thread id,
    an ADK session id + agent, or any key your loop has: never a session value."""

    conversation: str
    turn: str
    order: tuple[str, ...] = attrs.field(converter=to_tuple)
    skill: frozenset[str] = attrs.field(converter=to_frozenset)

    @classmethod
    def of(
        cls,
        conversation: str,
        turn: str,
        calls: Iterable[tuple[str, str]],
        is_skill: Callable[[str], bool],
    ) -> TurnCalls:
        """From ``(call id, tool name)`` pairs in the model's order."""
        pairs = list(calls)
        return cls(
            conversation,
            turn,
            tuple(i for i, _ in pairs),
            frozenset(i for i, name in pairs if is_skill(name)),
        )

    @classmethod
    def locate(
        cls,
        conversation: str,
        call_id: str,
        turns: Iterable[tuple[str | None, Iterable[tuple[str, str]]]],
        is_skill: Callable[[str], bool],
    ) -> TurnCalls:
        """The turn of ``call_id`` among a conversation's model turns, newest first: each a
        ``(turn id or None, (call id, tool name) pairs)`` (a LangChain ``AIMessage``, an ADK
        event). A call found nowhere is a turn of its own."""
        for turn, calls in turns:
            pairs = list(calls)
            if any(i == call_id for i, _ in pairs):
                return cls.of(conversation, turn or "|".join(i for i, _ in pairs), pairs, is_skill)
        return cls.of(conversation, call_id, [(call_id, "")], is_skill)

    @property
    def key(self) -> tuple[str, str]:
        """The store key: conversation and turn."""
        return (self.conversation, self.turn)

    def earlier_skill_calls(self, call_id: str) -> tuple[str, ...]:
        """Skill calls listed before ``call_id``, in order (none if it is not listed)."""
        if call_id not in self.order:
            return ()
        return tuple(c for c in self.order[: self.order.index(call_id)] if c in self.skill)


class _Turn:
    __slots__ = ("after", "base", "done", "seq", "session")

    def __init__(self, session: SkillSession) -> None:
        self.base = self.session = session
        self.seq = 0
        self.done: set[str] = set()
        #: The session right after each finished skill call (what later plain calls see).
        self.after: dict[str, SkillSession] = {}


class TurnStore:
    """Per conversation and turn: call order and the turn's latest session (thread- and
    task-safe). Finished turns are dropped; at most ``max_turns`` unfinished ones are kept."""

    def __init__(
        self, *, max_turns: int = DEFAULT_MAX_TURNS, wait_seconds: float = DEFAULT_WAIT_SECONDS
    ) -> None:
        self._cond = threading.Condition()
        self._turns: OrderedDict[tuple[str, str], _Turn] = OrderedDict()
        self.max_turns = max_turns
        self.wait_seconds = wait_seconds

    def __len__(self) -> int:
        with self._cond:
            return len(self._turns)

    def enter(self, calls: TurnCalls, call_id: str, base: SkillSession | SessionStore) -> TurnCall:
        """The store of one call (use as ``with`` or ``async with`` to wait for its turn).

        ``base`` is the session as it was before the turn (the turn's first call sets it), or
        the live :class:`SessionStore` the calls share (then only the order comes from here).
        """
        live = None if isinstance(base, SkillSession) else base
        with self._cond:
            turn = self._turns.get(calls.key)
            if turn is None:
                start = base if isinstance(base, SkillSession) else base.read()
                turn = self._turns[calls.key] = _Turn(start)
                while len(self._turns) > self.max_turns:
                    self._turns.popitem(last=False)
            self._turns.move_to_end(calls.key)
        return TurnCall(self, turn, calls, call_id, live)

    def _ready(self, turn: _Turn, calls: TurnCalls, call_id: str) -> bool:
        return turn.done.issuperset(calls.earlier_skill_calls(call_id))

    def _finish(self, view: TurnCall) -> None:
        turn, calls, call_id = view._turn, view.calls, view.call_id
        with self._cond:
            if call_id in calls.skill:
                turn.after[call_id] = view._latest()
            turn.done.add(call_id)
            if turn.done >= set(calls.order) and self._turns.get(calls.key) is turn:
                del self._turns[calls.key]
            self._cond.notify_all()


class TurnCall:
    """One call's view of its turn: a :class:`SessionStore` and a context manager that
    waits (bounded) for the earlier skill calls of the turn. ``timed_out`` tells whether
    the wait gave up; ``seq`` is the position of this call's write within the turn."""

    def __init__(
        self,
        store: TurnStore,
        turn: _Turn,
        calls: TurnCalls,
        call_id: str,
        live: SessionStore | None = None,
    ) -> None:
        self._store, self._turn, self.calls, self.call_id = store, turn, calls, call_id
        self._live = live
        self.seq = 0
        self.timed_out = False

    def read(self) -> SkillSession:
        """The session this call is decided on: for a skill call the turn's latest (or the
        live store's); for a plain call the session as the earlier calls left it, even if
        later calls already finished."""
        if self.call_id in self.calls.skill or self.call_id not in self.calls.order:
            return self._latest()
        earlier = self.calls.earlier_skill_calls(self.call_id)
        with self._store._cond:
            if not earlier:
                return self._turn.base
            snapshot = self._turn.after.get(earlier[-1])
        return snapshot if snapshot is not None else self._latest()

    def _latest(self) -> SkillSession:
        if self._live is not None:
            return self._live.read()
        with self._store._cond:
            return self._turn.session

    def write(self, session: SkillSession) -> None:
        """Commit ``session`` as the turn's latest (or to the live store)."""
        if self._live is not None:
            self._live.write(session)
            return
        with self._store._cond:
            self._turn.seq += 1
            self._turn.session, self.seq = session, self._turn.seq

    def _ready(self) -> bool:
        return self._store._ready(self._turn, self.calls, self.call_id)

    def __enter__(self) -> TurnCall:
        with self._store._cond:
            self.timed_out = not self._store._cond.wait_for(
                self._ready, timeout=self._store.wait_seconds
            )
        return self

    async def __aenter__(self) -> TurnCall:
        # Polling keeps this loop-agnostic (asyncio or trio, any thread) and never blocks the
        # event loop; turns have few calls, so the cost is a few short sleeps.
        deadline = time.monotonic() + self._store.wait_seconds
        delay = 0.0005
        while True:
            with self._store._cond:
                if self._ready():
                    return self
            if time.monotonic() >= deadline:
                self.timed_out = True
                return self
            await anyio.sleep(delay)
            delay = min(delay * 2, 0.02)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._store._finish(self)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)


class Restorer:
    """How adapters read saved state: :func:`~skillcore.restore_session` over the current
    catalog, remembering the last result. Frameworks hand every hook of a run the same state
    object until it changes (LangGraph state, ADK session state values are replaced, never
    mutated), so an identity check saves re-validating it, and a repair is reported once."""

    def __init__(
        self, catalog: Callable[[], Catalog], limits: Limits, policy: ToolPolicy, names: ToolNames
    ) -> None:
        self.catalog, self.limits, self.policy, self.names = catalog, limits, policy, names
        # Holds a reference to the state object, so its id cannot be reused meanwhile.
        self._last: tuple[Any, Catalog, Restored] | None = None

    def __call__(self, state: Any) -> Restored:
        """The session saved in ``state`` (None: an empty one); never raises."""
        catalog, last = self.catalog(), self._last
        if last is not None and last[0] is state and last[1] is catalog:
            return last[2]
        restored = restore_session(state, catalog, self.limits, self.policy, self.names)
        self._last = (state, catalog, restored)
        return restored


T = TypeVar("T")


class CatalogMemo(Generic[T]):
    """A value derived from a catalog (e.g. framework tool objects for its specs), rebuilt only
    when the catalog object changes: adapters ask on every model call."""

    def __init__(self, build: Callable[[Catalog], T]) -> None:
        self._build = build
        self._cached: tuple[Catalog, T] | None = None

    def __call__(self, catalog: Catalog) -> T:
        """The value for ``catalog``."""
        cached = self._cached
        if cached is None or cached[0] is not catalog:
            cached = self._cached = (catalog, self._build(catalog))
        return cached[1]


#: A scan that took at least this long (seconds) spaces out the next one (see RefreshGate).
REFRESH_COST_FLOOR = 0.05
#: ... to at least this many times its own duration after it started.
REFRESH_COST_FACTOR = 20.0


class RefreshGate:
    """When to re-scan skill sources: ``refresh=True`` once per run, a number at most that
    often (seconds), ``False`` once per process. Thread-safe; one per adapter instance.

    With ``library`` (anything with a ``refresh_seconds`` attribute, like
    :class:`~skillcore.SkillLibrary`), a scan that took ``REFRESH_COST_FLOOR`` seconds or more
    (an unchanged check of some 15,000 local skills and up) makes the next one wait at least
    ``REFRESH_COST_FACTOR`` times as long from its start: refreshing never takes more than about
    a twentieth of the time, and the runs in between cost nothing. The trade is staleness: at
    100,000 skills (a 0.4 s check) an edit can take up to ~8 s more to show. Smaller libraries
    keep the exact behaviour above.
    """

    def __init__(self, refresh: bool | float = True, library: Any = None) -> None:
        self.interval: float | None = (
            (0.0 if refresh else None) if isinstance(refresh, bool) else float(refresh)
        )
        self._library = library
        self._lock = threading.Lock()
        self._at: float | None = None
        self._run: object = None

    def _spacing(self) -> float:
        """The least time between two scans that the cost of the last one asks for."""
        cost = getattr(self._library, "refresh_seconds", 0.0)
        if not isinstance(cost, (int, float)) or not cost >= REFRESH_COST_FLOOR:  # NaN too
            return 0.0
        return float(cost) * REFRESH_COST_FACTOR

    def due(self, run: object = None) -> bool:
        """True when a scan should start now (and records it). ``run`` identifies the run
        (e.g. an invocation id): a run never scans twice."""
        with self._lock:
            now = time.monotonic()
            if self._at is not None:
                if self.interval is None or (run is not None and run == self._run):
                    return False
                if now - self._at < max(self.interval, self._spacing()):
                    return False
            self._at, self._run = now, run
            return True

    def reset(self) -> None:
        """Forget the last scan (it failed): the next call is due."""
        with self._lock:
            self._at, self._run = None, None


# -- saved state per conversation ------------------------------------------------------------

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


def _encode_state(key: str, state: dict[str, Any]) -> str:
    if not isinstance(key, str) or not key or len(key) > MAX_CONVERSATION_KEY:
        raise ValueError(
            f"a conversation key must be a non-empty string of at most {MAX_CONVERSATION_KEY} "
            f"characters, got {key!r:.80}"
        )
    text = json.dumps(state, separators=(",", ":"), sort_keys=True)
    if len(text.encode()) > MAX_SAVED_STATE_BYTES:
        raise ValueError(f"skill state of {key!r:.80} exceeds {MAX_SAVED_STATE_BYTES} bytes")
    return text


def _decode_state(text: str | None) -> dict[str, Any] | None:
    # Whatever was stored is handed to restore_session, which repairs or drops what it
    # cannot use; a row that is not a JSON object reads as "nothing saved".
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class MemoryStateStore:
    """A :class:`StateStore` in process memory (thread-safe; the least recently used of more
    than ``max_conversations`` are dropped). States are stored as JSON text, so what the
    caller holds can never change what is saved."""

    def __init__(self, *, max_conversations: int = 10_000) -> None:
        self.max_conversations = max_conversations
        self._lock = threading.Lock()
        self._states: OrderedDict[str, str] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._states)

    def load(self, key: str) -> dict[str, Any] | None:
        """The state saved for ``key``, or None."""
        with self._lock:
            text = self._states.get(key)
            if text is not None:
                self._states.move_to_end(key)
        return _decode_state(text)

    def save(self, key: str, state: dict[str, Any]) -> None:
        """Save ``state`` for ``key``."""
        text = _encode_state(key, state)
        with self._lock:
            self._states[key] = text
            self._states.move_to_end(key)
            while len(self._states) > self.max_conversations:
                self._states.popitem(last=False)

    def delete(self, key: str) -> None:
        """Forget ``key``."""
        with self._lock:
            self._states.pop(key, None)


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
        with self._lock, self._conn:
            self._conn.execute(f"DELETE FROM {self.table} WHERE conversation = ?", (key,))

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()


class SavedSession:
    """The :class:`SessionStore` of one conversation whose state lives in a
    :class:`StateStore`: read from it once (``restore`` turns saved state into a session
    over the current catalog), written through on every change, so a restart resumes where
    the conversation was. Thread-safe."""

    def __init__(
        self, states: StateStore, key: str, restore: Callable[[Any], SkillSession]
    ) -> None:
        self.states, self.key = states, key
        self._lock = threading.Lock()
        self._session = restore(states.load(key))

    def read(self) -> SkillSession:
        """The current session."""
        return self._session

    def write(self, session: SkillSession) -> None:
        """Replace the session and save it."""
        with self._lock:
            self.states.save(self.key, session.to_state())
            self._session = session


__all__ = [
    "DEFAULT_MAX_TURNS",
    "DEFAULT_WAIT_SECONDS",
    "MAX_CONVERSATION_KEY",
    "MAX_SAVED_STATE_BYTES",
    "CatalogMemo",
    "MemoryStateStore",
    "RefreshGate",
    "Restorer",
    "SQLiteStateStore",
    "SavedSession",
    "SessionRef",
    "SessionStore",
    "StateStore",
    "TurnCall",
    "TurnCalls",
    "TurnStore",
    "as_store",
]
