"""Where a session lives while tool calls run, and how the calls of a turn are ordered.

A model turn can call several tools at once and frameworks run them concurrently, in one
process or, after a crash and resume, partly in another. Two strategies, both as a
:class:`SessionStore` handed to :meth:`SkillToolkit.call`:

- **live state** (ADK session state, an Agents SDK run context, your own object): calls read
  and write one shared session.
- **a turn store** (:class:`TurnStore`, for frameworks that merge parallel state writes with
  a reducer, like LangGraph): each call writes its own effect (what it added and dropped)
  with the turn's base and call order, and :func:`skillcore.merge_states` folds the effects
  in call order, so no effect is dropped whatever order the writes arrive in.

Either way, calls of one turn are decided **in the model's call order** (DESIGN §3.8, §3.11):
a call's session is the turn's base after the earlier *skill* calls. Those are pure
transitions of the base, so a call works out an earlier call's effect itself when that call
did not run here (it ran in a process that crashed, or has not started): it never waits for
another process. It waits only for an earlier call running in this process (its file reads,
up to ``wait_seconds``) or about to start (``arrival_seconds``, a fraction of a second). A
plain call must be allowed both on that session and on the one the calls seen to run here
give, so an inferred effect can never lift a restriction. This cannot deadlock: a call only
waits for calls listed before it, and every wait is bounded.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

import anyio
import attrs

from skillcore import events
from skillcore._frozen import FrozenDict, to_frozenset, to_tuple
from skillcore.errors import require
from skillcore.limits import Limits
from skillcore.model import Catalog
from skillcore.names import ToolNames
from skillcore.policy.rules import ToolPolicy
from skillcore.state.session import (
    Restored,
    SkillSession,
    apply_effect,
    effect_between,
    restore_session,
    turn_state,
)

#: How long a call waits for an earlier skill call of its turn that is running in this
#: process (its file reads); past it, the earlier call is worked out again here.
DEFAULT_WAIT_SECONDS = 10.0
#: How long a call waits for an earlier skill call of its turn to show up in this process
#: before working its effect out itself (it may have run in another process, before a crash).
DEFAULT_ARRIVAL_SECONDS = 0.2
#: How long a plain call whose permission hangs on an earlier skill call's worked-out effect
#: (e.g. ``[unload_skill(<restricting>), Write]`` with the unload's thread scheduled late)
#: waits for that call to be seen to run before it is decided without it (refused).
DEFAULT_CONFIRM_SECONDS = 1.0
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


#: The largest number of calls of one turn a store tracks (a model turn has a handful).
MAX_TURN_CALLS = 1_000


def _frozen_args(value: Mapping[str, tuple[str, Any]] | None) -> FrozenDict[str, tuple[str, Any]]:
    return value if isinstance(value, FrozenDict) else FrozenDict(dict(value or {}))


@attrs.frozen
class TurnCalls:
    """The calls of one model turn: whose conversation, which turn, the call ids in the
    model's order, those that are skill calls, and (when known) each skill call's tool name
    and arguments, so any process can work out its effect again. ``conversation`` is a
    LangGraph thread id, an ADK session id + agent, or any key your loop has: never a session
    value."""

    conversation: str
    turn: str
    order: tuple[str, ...] = attrs.field(converter=to_tuple)
    skill: frozenset[str] = attrs.field(converter=to_frozenset)
    #: Skill call id -> (tool name, arguments as the model sent them).
    args: FrozenDict[str, tuple[str, Any]] = attrs.field(
        factory=lambda: FrozenDict({}), converter=_frozen_args, eq=False
    )

    @classmethod
    def of(
        cls,
        conversation: str,
        turn: str,
        calls: Iterable[tuple[str, str] | tuple[str, str, Any]],
        is_skill: Callable[[str], bool],
    ) -> TurnCalls:
        """From ``(call id, tool name)`` or ``(call id, tool name, arguments)`` tuples in the
        model's order (at most :data:`MAX_TURN_CALLS` are tracked)."""
        pairs = [(c[0], c[1], c[2] if len(c) > 2 else None) for c in calls][:MAX_TURN_CALLS]
        skill = {i for i, name, _ in pairs if is_skill(name)}
        args = {i: (name, a) for i, name, a in pairs if i in skill and a is not None}
        return cls(conversation, turn, tuple(i for i, _, _ in pairs), skill, args)

    @classmethod
    def locate(
        cls,
        conversation: str,
        call_id: str,
        turns: Iterable[tuple[str | None, Iterable[tuple[str, str] | tuple[str, str, Any]]]],
        is_skill: Callable[[str], bool],
    ) -> TurnCalls:
        """The turn of ``call_id`` among a conversation's model turns, newest first: each a
        ``(turn id or None, (call id, tool name[, arguments]) tuples)`` (a LangChain
        ``AIMessage``, an ADK event). A call found nowhere is a turn of its own."""
        for turn, calls in turns:
            pairs = list(calls)
            if any(c[0] == call_id for c in pairs):
                return cls.of(conversation, turn or "|".join(c[0] for c in pairs), pairs, is_skill)
        return cls.of(conversation, call_id, [(call_id, "")], is_skill)

    @property
    def key(self) -> tuple[str, str]:
        """The store key: conversation and turn."""
        return (self.conversation, self.turn)

    def position(self, call_id: str) -> int:
        """1-based position of ``call_id`` in the turn (0 if it is not listed)."""
        try:
            return self.order.index(call_id) + 1
        except ValueError:
            return 0

    def earlier_skill_calls(self, call_id: str) -> tuple[str, ...]:
        """Skill calls listed before ``call_id``, in order (none if it is not listed)."""
        if call_id not in self.order:
            return ()
        return tuple(c for c in self.order[: self.order.index(call_id)] if c in self.skill)

    def args_tools(self) -> frozenset[str]:
        """Tool names of the skill calls whose arguments are known."""
        return frozenset(name for name, _ in self.args.values())

    @property
    def skill_order(self) -> tuple[str, ...]:
        """The skill calls, in the model's order."""
        return tuple(c for c in self.order if c in self.skill)


class Replayer(Protocol):
    """What works out a skill call's effect again (a :class:`~skillcore.SkillToolkit`)."""

    def call(
        self,
        target: Any,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
        call_id: str | None = None,
    ) -> Any:
        """Run one skill call on ``target`` (a session or store)."""
        ...

    async def acall(
        self,
        target: Any,
        tool: str,
        arguments: Any,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
        call_id: str | None = None,
    ) -> Any:
        """Async :meth:`call`."""
        ...


class _Turn:
    __slots__ = (
        "after",
        "available",
        "base",
        "busy",
        "confirmed",
        "done",
        "entered",
        "fork",
        "hidden",
        "results",
        "rev",
        "started",
    )

    def __init__(
        self,
        base: SkillSession,
        hidden: Collection[str],
        available: Collection[str] | None,
    ) -> None:
        self.base = base
        self.hidden, self.available = hidden, available
        self.started = time.monotonic()
        #: The revision of the state the turn started from ("" when it has none).
        self.rev = ""
        #: The ledger's head when this turn turned out to run beside another (a fork).
        self.fork: Head | None = None
        #: The session right after each skill call whose effect is known here.
        self.after: dict[str, SkillSession] = {}
        #: Results of skill calls worked out by another call (reused by the call itself).
        self.results: dict[str, Any] = {}
        #: Skill calls that ran in this process (their effect is certain, not inferred).
        self.confirmed: set[str] = set()
        self.entered: set[str] = set()
        self.busy: set[str] = set()
        self.done: set[str] = set()


class TurnStore:
    """Per conversation and turn: the session before the turn and the effect of each of its
    skill calls, in the model's order (thread- and task-safe).

    A turn's calls are pure transitions of the session it started from, in call order, so
    any call can work out what the earlier skill calls did: it reuses the effect when they
    ran here, waits briefly for one that is running here (``wait_seconds``) or about to start
    (``arrival_seconds``), and otherwise works it out again through ``replay`` (the toolkit:
    the same plan, read and transition, on the same files). A plain call that only the
    worked-out effect would allow waits up to ``confirm_seconds`` for that call to be seen to
    run (here, or in another worker through a shared ``ledger``): a thread scheduled late
    changes nothing, and a call that never runs never lifts a restriction. A call resumed in another
    process after a crash therefore sees what one process would have seen. Without a
    ``replay`` a call that waited in vain is ``timed_out`` (refused if it is a plain call).
    Finished turns are dropped; at most ``max_turns`` unfinished ones are kept.
    """

    def __init__(
        self,
        *,
        max_turns: int = DEFAULT_MAX_TURNS,
        wait_seconds: float = DEFAULT_WAIT_SECONDS,
        arrival_seconds: float = DEFAULT_ARRIVAL_SECONDS,
        confirm_seconds: float = DEFAULT_CONFIRM_SECONDS,
        replay: Replayer | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        self._cond = threading.Condition()
        #: Where the latest state revision per conversation is recorded (fork detection).
        self.ledger = ledger
        self._turns: OrderedDict[tuple[str, str], _Turn] = OrderedDict()
        self.max_turns = max_turns
        self.wait_seconds = wait_seconds
        self.arrival_seconds = arrival_seconds
        self.confirm_seconds = confirm_seconds
        self.replay = replay
        #: The longest time a call spent entering its turn (waiting for, or working out,
        #: earlier calls), in seconds: what a deployment watches for stalls.
        self.longest_wait = 0.0

    def __len__(self) -> int:
        with self._cond:
            return len(self._turns)

    def enter(
        self,
        calls: TurnCalls,
        call_id: str,
        base: SkillSession | SessionStore,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
        rev: str | None = None,
    ) -> TurnCall:
        """The store of one call (use as ``with`` or ``async with``: entering works out the
        earlier skill calls' effects).

        ``base`` is the session as it was before the turn (the turn's first call sets it), or
        the live :class:`SessionStore` the calls share (read when the turn's first call
        arrives; every write goes to it). ``hidden``/``available``: as for
        :meth:`SkillToolkit.call`, the same for every call of the turn (used to work out
        earlier calls again). ``rev``: the revision of the saved state the turn started from
        (its ``rev`` field, "" when it has none): with a :attr:`ledger`, a turn that does not
        start from the conversation's latest revision is reported (``state.forked``) and its
        plain calls must also pass on that latest state.
        """
        live = None if isinstance(base, SkillSession) else base
        new = False
        with self._cond:
            turn = self._turns.get(calls.key)
            if turn is None:
                start = base if isinstance(base, SkillSession) else base.read()
                turn = self._turns[calls.key] = _Turn(start, hidden, available)
                turn.rev = rev if isinstance(rev, str) else ""
                new = True
                while len(self._turns) > self.max_turns:
                    self._turns.popitem(last=False)
            self._turns.move_to_end(calls.key)
            if call_id in calls.skill:
                turn.entered.add(call_id)
            self._cond.notify_all()
        if new and self.ledger is not None and rev is not None:
            head = self.ledger.observe(
                calls.conversation, turn.rev, calls.turn, turn.base.loaded_names
            )
            if head is not None:
                self._forked(turn, calls, head, "turn start")
        return TurnCall(self, turn, calls, call_id, live)

    def _forked(self, turn: _Turn, calls: TurnCalls, head: Head, at: str) -> None:
        with self._cond:
            if turn.fork is None:
                turn.fork = head
        events.emit(
            "state.forked",
            {"conversation": calls.conversation, "expected": turn.rev, "found": head.rev, "at": at},
        )

    def _finish(self, view: TurnCall) -> None:
        turn, calls, call_id = view._turn, view.calls, view.call_id
        with self._cond:
            if call_id in calls.skill:
                if call_id not in turn.after:  # refused or failed: no effect
                    turn.after[call_id] = view._before
                turn.confirmed.add(call_id)
                turn.busy.discard(call_id)
            turn.done.add(call_id)
            if turn.done >= set(calls.order) and self._turns.get(calls.key) is turn:
                del self._turns[calls.key]
            self._cond.notify_all()

    # -- working out earlier calls ---------------------------------------------------------

    def _next_step(
        self,
        turn: _Turn,
        calls: TurnCalls,
        earlier: tuple[str, ...],
        deadline: float,
        arrival: float,
    ) -> tuple[str, Any]:
        """Under the lock: ``("done", session)`` when every earlier call's effect is known,
        ``("wait", None)`` while one is running or may still arrive, ``("replay", call)`` for
        the first one this call must work out (marked busy), ``("timeout", session)``."""
        session = turn.base
        now = time.monotonic()
        for k in earlier:
            if k in turn.after:
                session = turn.after[k]
                continue
            running = k in turn.busy or (k in turn.entered and k not in turn.done)
            if (running and now < deadline) or (k not in turn.entered and now < arrival):
                return "wait", None
            if self.replay is None or k not in calls.args:
                return "timeout", session
            turn.busy.add(k)
            return "replay", (k, session)
        return "done", session

    def _settle(self, turn: _Turn, call_id: str, result: Any) -> None:
        with self._cond:
            turn.busy.discard(call_id)
            if result is not None and call_id not in turn.after:
                turn.after[call_id] = result.session
                turn.results[call_id] = result
            self._cond.notify_all()


class TurnCall:
    """One call's view of its turn: a :class:`SessionStore` and a context manager that
    works out the earlier skill calls' effects (waiting briefly for those running here).
    ``timed_out`` tells whether that failed (no ``replay`` and an earlier call never
    finished); ``seq`` is the position of this call in its turn (writes of later calls win
    in :func:`skillcore.merge_states`)."""

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
        self._before: SkillSession = turn.base
        #: This call's own write (a call run again, e.g. on resume, starts from _before).
        self._written: SkillSession | None = None
        self.seq = calls.position(call_id)
        self.timed_out = False

    @property
    def base(self) -> SkillSession:
        """The session the turn started from."""
        return self._turn.base

    @property
    def context(self) -> dict[str, Any]:
        """``hidden`` and ``available`` as the turn's first call gave them: keyword
        arguments for :meth:`SkillToolkit.call`, the same for every call of the turn."""
        return {"hidden": self._turn.hidden, "available": self._turn.available}

    def read(self) -> SkillSession:
        """The session this call is decided on: the turn's session after the earlier skill
        calls (a skill call's own write shows once made)."""
        return self._before if self._written is None else self._written

    def write(self, session: SkillSession) -> None:
        """Record ``session`` as the session after this call (and write the longest known
        prefix of the turn to the live store, if any)."""
        self._written = session
        with self._store._cond:
            self._turn.after[self.call_id] = session
            latest = self._latest_known()
        if self._live is not None:
            marked = getattr(self._live, "write_marked", None)
            if callable(marked):
                marked(latest, {"rev": self.calls.turn, "parent": self._turn.rev})
            else:
                self._live.write(latest)
        ledger = self._store.ledger
        if ledger is not None:
            head = ledger.advance(
                self.calls.conversation,
                self._turn.rev,
                self.calls.turn,
                self.seq,
                latest.loaded_names,
                self.call_id,
            )
            if head is not None:
                self._store._forked(self._turn, self.calls, head, "write")

    def _latest_known(self) -> SkillSession:
        # Under the lock: the session after the last skill call of the unbroken known prefix.
        session = self._turn.base
        for k in self.calls.skill_order:
            if k not in self._turn.after:
                break
            session = self._turn.after[k]
        return session

    def settled(self) -> Any:
        """The result another call already worked out for this skill call (None if none):
        the call returns it, so its reply matches what the later calls were decided on."""
        with self._store._cond:
            result = self._turn.results.get(self.call_id)
        if result is not None and getattr(result, "changed", False):
            self.write(result.session)  # its effect is this call's own write (and is recorded)
        return result

    def also_check(self) -> tuple[SkillSession, ...]:
        """Sessions a plain call must also be allowed on: the one the confirmed earlier calls
        give (:meth:`unconfirmed_base`) and, when the turn runs beside another (a fork),
        the latest state the ledger knows. A fork can never lift a restriction."""
        out = []
        other = self.unconfirmed_base()
        if other is not None:
            out.append(other)
        with self._store._cond:
            fork = self._turn.fork
        if fork is not None:
            empty = attrs.evolve(self._turn.base, loaded=())
            out.append(apply_effect(empty, {"add": [{"name": n} for n in fork.loaded]}))
        return tuple(out)

    def unconfirmed_base(self) -> SkillSession | None:
        """For a plain call: the session the confirmed earlier calls alone give, when some
        earlier effect was worked out here rather than seen to run (None otherwise). A plain
        call must be allowed on both, so an inferred effect can never lift a restriction."""
        with self._store._cond:
            earlier = self.calls.earlier_skill_calls(self.call_id)
            confirmed = set(self._turn.confirmed)
        if not confirmed.issuperset(earlier):
            # Calls that wrote in another worker (before a crash) are recorded by a shared
            # ledger: they ran, so their effect is certain too.
            ledger = self._store.ledger
            head = ledger.head(self.calls.conversation) if ledger is not None else None
            if head is not None and head.rev == self.calls.turn:
                confirmed.update(head.calls)
        with self._store._cond:
            if confirmed.issuperset(earlier):
                return None
            session, prev = self._turn.base, self._turn.base
            for k in earlier:
                after = self._turn.after.get(k, prev)
                if k in confirmed:
                    session = apply_effect(session, effect_between(prev, after))
                prev = after
            return session

    def effect(self) -> dict[str, Any]:
        """This call's own effect: what it added and dropped (see :func:`effect_between`)."""
        after = self._before if self._written is None else self._written
        return effect_between(self._before, after)

    def saved_state(self, session: SkillSession) -> dict[str, Any]:
        """What this call writes to a framework's state (merged by
        :func:`skillcore.merge_states`): ``session`` plus the turn's base, its skill calls'
        order and this call's own effect, so the reducer combines the effects of a turn's
        calls in order whichever process ran them (:func:`skillcore.state.session.turn_state`)."""
        state = turn_state(
            session,
            turn=self.calls.turn,
            seq=self.seq,
            base=self._turn.base,
            call=self.call_id,
            effect=self.effect(),
            order=self.calls.skill_order,
        )
        state["rev"], state["parent"] = self.calls.turn, self._turn.rev
        return state

    # -- entering --------------------------------------------------------------------------

    def _begin(self) -> tuple[float, float, tuple[str, ...]]:
        start = time.monotonic()
        return (
            start + self._store.wait_seconds,
            self._turn.started + self._store.arrival_seconds,
            self.calls.earlier_skill_calls(self.call_id),
        )

    def _own(self) -> None:
        # Under the lock, once the earlier calls are known: this call's own run starts.
        if self.call_id in self.calls.skill and self.call_id not in self._turn.after:
            self._turn.busy.add(self.call_id)

    def _step(self, deadline: float, arrival: float, earlier: tuple[str, ...]) -> tuple[str, Any]:
        store = self._store
        kind, value = store._next_step(self._turn, self.calls, earlier, deadline, arrival)
        # Another call is working this one out right now: wait for its result.
        if (
            kind == "done"
            and self.call_id in self._turn.busy
            and self.call_id not in self._turn.after
            and time.monotonic() < deadline
        ):
            return "wait", None
        return kind, value

    def _unconfirmed_matters(self, until: float) -> bool:
        # A plain call that only the worked-out effect of an earlier call would allow (the
        # confirmed effects alone give other loaded skills) waits a little for that call to
        # be seen to run, rather than being refused because its thread started late.
        if self.call_id in self.calls.skill or time.monotonic() >= until:
            return False
        other = self.unconfirmed_base()
        return other is not None and other.loaded_names != self._before.loaded_names

    def _decided(self, kind: str, value: Any, began: float) -> None:
        # Under the lock: every earlier effect is known (or waiting for it timed out).
        self._before, self.timed_out = value, kind == "timeout"
        self._own()
        self._store.longest_wait = max(self._store.longest_wait, time.monotonic() - began)

    def __enter__(self) -> TurnCall:
        store = self._store
        began = time.monotonic()
        deadline, arrival, earlier = self._begin()
        confirm = began + store.confirm_seconds
        while True:
            with store._cond:
                kind, value = self._step(deadline, arrival, earlier)
                if kind == "wait":
                    store._cond.wait(timeout=0.02)
                    continue
                if kind in ("done", "timeout"):
                    self._decided(kind, value, began)
            if kind in ("done", "timeout"):
                if not self._unconfirmed_matters(confirm):
                    return self
                with store._cond:
                    store._cond.wait(timeout=0.02)
                continue
            k, session = value
            name, args = self.calls.args[k]
            result = None
            try:
                result = store.replay.call(  # type: ignore[union-attr]
                    session,
                    name,
                    args,
                    hidden=self._turn.hidden,
                    available=self._turn.available,
                    call_id=k,
                )
            finally:
                store._settle(self._turn, k, result)

    async def __aenter__(self) -> TurnCall:
        # Polling keeps this loop-agnostic (asyncio or trio, any thread) and never blocks the
        # event loop; turns have few calls, so the cost is a few short sleeps.
        store = self._store
        began = time.monotonic()
        deadline, arrival, earlier = self._begin()
        confirm = began + store.confirm_seconds
        delay = 0.0005
        while True:
            with store._cond:
                kind, value = self._step(deadline, arrival, earlier)
                if kind in ("done", "timeout"):
                    self._decided(kind, value, began)
            if kind in ("done", "timeout"):
                if not self._unconfirmed_matters(confirm):
                    return self
                kind = "wait"
            if kind == "wait":
                await anyio.sleep(delay)
                delay = min(delay * 2, 0.02)
                continue
            k, session = value
            name, args = self.calls.args[k]
            result = None
            try:
                result = await store.replay.acall(  # type: ignore[union-attr]
                    session,
                    name,
                    args,
                    hidden=self._turn.hidden,
                    available=self._turn.available,
                    call_id=k,
                )
            finally:
                store._settle(self._turn, k, result)

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


def _create_once(create: Callable[[], None]) -> None:
    """Run a ``CREATE TABLE IF NOT EXISTS``; PostgreSQL lets two workers starting at once
    both try to create it and one fails (a unique violation on its catalog): try again, the
    table then exists."""
    try:
        create()
    except Exception:
        time.sleep(0.05)
        create()


class _Connections:
    """A few reusable database connections (threads come and go in a framework's pool: one
    connection per thread would leak them)."""

    def __init__(self, connect: Callable[[], Any], keep: int = 8) -> None:
        self._connect, self._keep = connect, keep
        self._idle: list[Any] = []
        self._lock = threading.Lock()

    def acquire(self) -> Any:
        """An idle connection, or a new one."""
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None or getattr(conn, "closed", False):
            conn = self._connect()
        return conn

    def release(self, conn: Any, ok: bool = True) -> None:
        """Give ``conn`` back (closed when it failed or enough are idle)."""
        with self._lock:
            if ok and len(self._idle) < self._keep:
                self._idle.append(conn)
                return
        conn.close()

    def close(self) -> None:
        """Close the idle connections."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


# -- the latest skill state per conversation, shared by workers (fork detection) -------------


@attrs.frozen
class Head:
    """The latest skill state a :class:`Ledger` knows for a conversation: its revision (the
    turn that wrote it), the position of the call that wrote it, its loaded skills, and the
    calls of that turn that wrote (they ran, in whichever worker)."""

    rev: str
    seq: int = 0
    loaded: tuple[str, ...] = attrs.field(default=(), converter=to_tuple)
    calls: tuple[str, ...] = attrs.field(default=(), converter=to_tuple)


@runtime_checkable
class Ledger(Protocol):
    """Where workers record each conversation's latest skill state revision, so a run that
    does not start from it (two workers on one thread at once) is noticed. Both methods
    return None when all is in order, or the head that was current when it was not (a fork);
    either way the ledger then holds the caller's revision, so the conversation converges."""

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
        self._heads: OrderedDict[str, Head] = OrderedDict()

    def _set(self, key: str, head: Head) -> None:
        self._heads[key] = head
        self._heads.move_to_end(key)
        while len(self._heads) > self.max_conversations:
            self._heads.popitem(last=False)

    def head(self, key: str) -> Head | None:
        """See :meth:`Ledger.head`."""
        with self._lock:
            return self._heads.get(key)

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        """See :meth:`Ledger.observe`."""
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
        with self._lock:
            head = self._heads.get(key)
            calls = (*head.calls, call) if head is not None and head.rev == rev else (call,)
            if head is not None and head.rev == rev and head.seq > seq:
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
        self._pool = _Connections(connect)
        self._p = "?" if dialect == "sqlite" else "%s"
        create = (
            f"CREATE TABLE IF NOT EXISTS {table} (conversation TEXT PRIMARY KEY, "
            "rev TEXT NOT NULL, seq INTEGER NOT NULL, loaded TEXT NOT NULL, calls TEXT NOT NULL)"
        )

        def run() -> None:
            with self._tx() as cur:
                cur.execute(create)

        _create_once(run)

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
                self.conn = ledger._pool.acquire()
                self.cur = self.conn.cursor()
                self.cur.execute("BEGIN IMMEDIATE" if ledger.dialect == "sqlite" else "BEGIN")
                return self.cur

            def __exit__(self, exc_type: Any, *rest: Any) -> None:
                ok = False
                try:
                    self.cur.execute("COMMIT" if exc_type is None else "ROLLBACK")
                    self.cur.close()
                    ok = exc_type is None
                finally:
                    ledger._pool.release(self.conn, ok)

        return _Tx()

    def _head(self, cur: Any, key: str) -> Head | None:
        lock = "" if self.dialect == "sqlite" else " FOR UPDATE"
        cur.execute(
            f"SELECT rev, seq, loaded, calls FROM {self.table} "
            f"WHERE conversation = {self._p}{lock}",
            (key,),
        )
        row = cur.fetchone()
        if row is None:
            return None
        return Head(str(row[0]), int(row[1]), _decode_names(row[2]), _decode_names(row[3]))

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
            return self._head(cur, key)

    def advance(
        self, key: str, parent: str, rev: str, seq: int, loaded: Iterable[str], call: str = ""
    ) -> Head | None:
        """See :meth:`Ledger.advance`."""
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


def _decode_names(text: Any) -> tuple[str, ...]:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return ()
    if not isinstance(value, list):
        return ()
    return tuple(n for n in value[:1000] if isinstance(n, str))


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


#: A cheap shared signal that the skills changed: a function returning a value (a version
#: string, a file's stamp) that a deploy changes after editing the skills. Every worker's
#: :class:`RefreshGate` calls it on each check (each run), so all workers re-scan on their
#: next run after it changes, however the pacing spaces their scans otherwise.
Marker = Callable[[], object]
_UNSEEN = object()


def file_marker(path: str | os.PathLike[str]) -> Marker:
    """A :data:`Marker` reading a small file (e.g. ``skills/.version``, on a disk the workers
    share): its contents, or None while it is missing. A deploy rewrites it after changing
    the skills. One ``open`` and read of a few bytes per check."""
    where = os.fspath(path)

    def read() -> object:
        try:
            with open(where, "rb") as f:
                return f.read(256)
        except OSError:
            return None

    return read


#: A scan that took at least this long (seconds) spaces out the next one (see RefreshGate):
#: an unchanged check of some 500 local skills; smaller libraries are checked every run.
REFRESH_COST_FLOOR = 0.002
#: ... to at least this many times its own duration after it started.
REFRESH_COST_FACTOR = 20.0


class RefreshGate:
    """When to re-scan skill sources: ``refresh=True`` once per run, a number at most that
    often (seconds), ``False`` once per process. Thread-safe; one per adapter instance.

    With ``library`` (anything with a ``refresh_seconds`` attribute, like
    :class:`~skillcore.SkillLibrary`), a scan that took ``REFRESH_COST_FLOOR`` seconds or more
    (an unchanged check of some 500 local skills and up) makes the next one wait at least
    ``REFRESH_COST_FACTOR`` times as long from its start: refreshing never takes more than about
    a twentieth of the time, and the runs in between cost nothing. The trade is staleness, at
    most twenty times the check's cost: about 0.1 s at 1,000 local skills, 0.4 s at 10,000,
    8 s at 100,000 (a remote source: twenty times its listing). Smaller libraries keep the
    exact behaviour above.

    With a ``marker`` (a :data:`Marker`, e.g. :func:`file_marker`), a change of its value
    makes the next check due at once, even with ``refresh=False``: a deploy that bumps it
    after editing the skills reaches every worker on that worker's next run.
    """

    def __init__(
        self, refresh: bool | float = True, library: Any = None, marker: Marker | None = None
    ) -> None:
        #: A cheap shared signal (see :data:`Marker`): when its value changes, the next
        #: check scans at once, whatever the pacing says.
        self.marker = marker
        self._seen: object = _UNSEEN
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
            if self.marker is not None and self._marked() and self._at is not None:
                self._at, self._run = now, run
                return True
            if self._at is not None:
                if self.interval is None or (run is not None and run == self._run):
                    return False
                if now - self._at < max(self.interval, self._spacing()):
                    return False
            self._at, self._run = now, run
            return True

    def _marked(self) -> bool:
        """True when the marker's value changed since the last look (a failing marker
        counts as unchanged: the pacing still applies)."""
        try:
            value = self.marker()  # type: ignore[misc]
        except Exception:
            return False
        changed = self._seen is not _UNSEEN and value != self._seen  # the first look sets it
        self._seen = value
        return changed

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


#: ``update``'s function: the saved state (or None) -> the state to save.
Update = Callable[[dict[str, Any] | None], dict[str, Any]]


def update_state(states: StateStore, key: str, change: Update) -> dict[str, Any]:
    """Read, change and save ``key``'s state as one step when the store can
    (``states.update``, a transaction in the SQL stores), else load then save."""
    update = getattr(states, "update", None)
    if callable(update):
        return update(key, change)  # type: ignore[no-any-return]
    state = change(states.load(key))
    states.save(key, state)
    return state


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

    def update(self, key: str, change: Update) -> dict[str, Any]:
        """Read, change and save ``key``'s state atomically."""
        with self._lock:
            state = change(_decode_state(self._states.get(key)))
            self._states[key] = _encode_state(key, state)
            self._states.move_to_end(key)
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

    def update(self, key: str, change: Update) -> dict[str, Any]:
        """Read, change and save ``key``'s state in one write transaction (other processes
        on the same file wait for it)."""
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
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
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
        self._pool = _Connections(lambda: psycopg.connect(conninfo, autocommit=True))
        _create_once(
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
        self._run(f"DELETE FROM {self.table} WHERE conversation = %s", (key,))

    def update(self, key: str, change: Update) -> dict[str, Any]:
        """Read, change and save ``key``'s state in one transaction (the row is locked)."""
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
    "DEFAULT_ARRIVAL_SECONDS",
    "DEFAULT_CONFIRM_SECONDS",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_WAIT_SECONDS",
    "MAX_CONVERSATION_KEY",
    "MAX_SAVED_STATE_BYTES",
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
    "TurnStore",
    "as_store",
    "file_marker",
    "update_state",
]
