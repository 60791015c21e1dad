"""How the calls of a turn are decided in the model's call order, in one process or split by a
crash between several (:class:`TurnStore`, one :class:`TurnCall` per call).

A call's session is the turn's base after the earlier *skill* calls. Those are pure
transitions of the base, so a call works out an earlier call's effect itself when that call
did not run here (it ran in a process that crashed, or has not started): it never waits for
another process. It waits only for an earlier call running in this process (its file reads,
up to ``wait_seconds``) or about to start (``arrival_seconds``, a fraction of a second). A
plain call must be allowed both on that session and on the one the calls seen to run give
(here, or in another worker through a shared ledger), so an inferred effect can never lift a
restriction; when only the inferred effect would allow it, it first waits up to
``confirm_seconds`` for that call to be seen to run. This cannot deadlock: a call only waits
for calls listed before it, and every wait is bounded. See docs/architecture.md.
"""

from __future__ import annotations

import abc
import threading
import time
from collections.abc import Collection
from types import TracebackType
from typing import Any

import anyio
import attrs

from skillcore import events
from skillcore._recent import Recent
from skillcore.codes import OutcomeCode
from skillcore.state.fork_reach import fork_can_refuse
from skillcore.state.ledger import Head, Ledger, stored_id
from skillcore.state.listed_calls import Replayed, Replayer, TurnCalls
from skillcore.state.merge import apply_effect, effect_between, turn_state
from skillcore.state.stores import MarkedStore, SessionStore
from skillcore.state.transitions import SkillSession

#: How long a call waits for an earlier skill call of its turn that is running in this
#: process (its file reads); past it, the earlier call is worked out again here.
DEFAULT_WAIT_SECONDS = 10.0
#: How long a call waits for an earlier skill call of its turn to show up in this process
#: before working its effect out itself (it may have run in another process, before a crash).
DEFAULT_ARRIVAL_SECONDS = 0.2
#: How long the plain calls of one turn whose permission hangs on an earlier skill call's
#: worked-out effect (e.g. ``[unload_skill(<restricting>), Write]`` with the unload's thread
#: scheduled late) wait, together, for that call to be seen to run before they are decided
#: without it (refused): a budget per turn, so calls entered one after another do not each
#: wait it again.
DEFAULT_CONFIRM_SECONDS = 1.0
#: Finished turns kept per store (least recently used are dropped first).
DEFAULT_MAX_TURNS = 1024


class _Turn:
    __slots__ = (
        "after",
        "available",
        "base",
        "busy",
        "checked",
        "checking",
        "confirm_until",
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
        self.results: dict[str, Replayed] = {}
        #: Skill calls that ran in this process (their effect is certain, not inferred).
        self.confirmed: set[str] = set()
        #: When the turn's confirm budget ends (set by the first plain call that waits).
        self.confirm_until: float | None = None
        self.entered: set[str] = set()
        self.busy: set[str] = set()
        self.done: set[str] = set()
        #: Whether the ledger check of the turn's start is done (or not needed): made by
        #: the turn's first ledger write, or by the first plain call whose decision a fork
        #: could change, whichever comes first; the call making it holds ``checking``, the
        #: turn's other calls wait for it.
        self.checked = True
        self.checking = threading.Lock()


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
        self._turns: Recent[tuple[str, str], _Turn] = Recent(lambda: self.max_turns)
        #: Turns found forked (their latest head), kept past the turn so a retry of it
        #: fails closed too.
        self._forks: Recent[tuple[str, str], Head] = Recent(lambda: self.max_turns)
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
        with self._cond:
            turn = self._turns.get(calls.key, refresh=True)
            if turn is None:
                start = base if isinstance(base, SkillSession) else base.read()
                turn = _Turn(start, hidden, available)
                turn.rev = rev if isinstance(rev, str) else ""
                turn.checked = self.ledger is None or rev is None
                # Found forked when it ran before in this process: a retry fails closed too.
                turn.fork = self._forks.get(calls.key)
                self._turns.set(calls.key, turn)
            if call_id in calls.skill:
                turn.entered.add(call_id)
            self._cond.notify_all()
        return TurnCall(self, turn, calls, call_id, live)

    def _check(self, turn: _Turn, calls: TurnCalls) -> None:
        """Check the ledger once for the turn's start, for a plain call whose decision a
        fork could change, unless the turn's first write already did (see
        :meth:`TurnCall.write`); the turn's other calls wait for it. A check that raises
        leaves the turn unchecked: a retry checks again, never trusting a turn whose fork
        check did not happen (and the ledger answers a fork it already found again)."""
        if turn.checked:
            return
        with turn.checking:
            if turn.checked:
                return
            head = self.ledger.observe(  # type: ignore[union-attr]
                calls.conversation, turn.rev, calls.turn, turn.base.loaded_names
            )
            if head is not None:
                self._forked(turn, calls, head, "turn start")
            turn.checked = True

    def _forked(self, turn: _Turn, calls: TurnCalls, head: Head, at: str) -> None:
        with self._cond:
            new = turn.fork is None
            if new:
                turn.fork = head
            self._forks.set(calls.key, turn.fork)  # type: ignore[arg-type]
        if new:  # the ledger answers a fork to each of the turn's operations: reported once
            events.emit(
                "state.forked",
                {
                    "conversation": calls.conversation,
                    "expected": turn.rev,
                    "found": head.rev,
                    "at": at,
                },
            )

    def _finish(self, view: TurnCall, failed: bool = False) -> None:
        turn, calls, call_id = view._turn, view.calls, view.call_id
        with self._cond:
            if call_id in calls.skill:
                if call_id not in turn.after and not view._unrecorded:
                    turn.after[call_id] = view._before  # refused or failed: no effect
                # A call that raised before it wrote did not run: an effect another call
                # worked out for it stays an inference (it never reaches saved state).
                if not failed or view._written is not None:
                    turn.confirmed.add(call_id)
                turn.busy.discard(call_id)
            turn.done.add(call_id)
            if turn.done >= set(calls.order) and self._turns.get(calls.key) is turn:
                self._turns.pop(calls.key)
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

    def _settle(self, turn: _Turn, call_id: str, result: Replayed | None) -> None:
        with self._cond:
            turn.busy.discard(call_id)
            if result is not None and call_id not in turn.after:
                turn.after[call_id] = result.session
                turn.results[call_id] = result
            self._cond.notify_all()


class CallInTurn(abc.ABC):
    """The store of one call placed in its turn (a :class:`TurnCall`): a
    :class:`SessionStore` that also tells :class:`~skillcore.SkillToolkit` how to decide the
    call in its turn's order. Nominal (an ABC, not a protocol): the toolkit asks on every
    call, and a protocol's ``isinstance`` costs tens of microseconds."""

    #: 1-based position of the call in its turn (0 if it is not listed): its results' ``seq``.
    seq: int
    #: True when waiting for an earlier skill call of the turn failed: a plain call is refused.
    timed_out: bool
    #: Why the call cannot be placed in its turn (it is then refused, whatever it is), or None.
    refused: OutcomeCode | None

    @abc.abstractmethod
    def read(self) -> SkillSession:
        """The session this call is decided on."""

    @abc.abstractmethod
    def write(self, session: SkillSession) -> None:
        """Record ``session`` as the session after this call."""

    @abc.abstractmethod
    def settled(self) -> Replayed | None:
        """The result another call already worked out for this skill call (None if none)."""

    @abc.abstractmethod
    def also_check(self, tool_name: str | None = None) -> tuple[SkillSession, ...]:
        """Sessions a plain call of ``tool_name`` (None: any tool) must also be allowed on
        (besides :meth:`read`'s)."""


class TurnCall(CallInTurn):
    """One call's view of its turn: a :class:`SessionStore` and a context manager that
    works out the earlier skill calls' effects (waiting briefly for those running here).
    ``timed_out`` tells whether that failed (no ``replay`` and an earlier call never
    finished); ``seq`` is the position of this call in its turn (writes of later calls win
    in :func:`skillcore.runtime.merge_states`)."""

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
        #: Set when this call's write failed to reach the ledger (its effect is unknown).
        self._unrecorded = False
        self.seq = calls.position(call_id)
        self.timed_out = False
        #: Why the call cannot be placed in its turn (see :meth:`TurnCalls.refusal`): then
        #: it is refused, whatever it is, without waiting for or working out other calls.
        self.refused: OutcomeCode | None = calls.refusal(call_id)

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
        """Record ``session`` as the session after this call (and write to the live store,
        if any, the turn's base with the effects of the calls seen to run so far). With a
        ledger, the write is recorded there; the turn's first write also checks the turn's
        start (one ledger operation), and the turn's plain calls wait for it rather than
        making their own check."""
        turn, ledger = self._turn, self._store.ledger
        if ledger is None or turn.checked:
            self._write(session)
            return
        with turn.checking:
            self._write(session)
            turn.checked = True

    def _write(self, session: SkillSession) -> None:
        self._written = session
        with self._store._cond:
            self._turn.after[self.call_id] = session
            self._turn.confirmed.add(self.call_id)
            latest = self._ran()
        if isinstance(self._live, MarkedStore):
            self._live.write_marked(latest, {"rev": self.calls.turn, "parent": self._turn.rev})
        elif self._live is not None:
            self._live.write(latest)
        ledger = self._store.ledger
        if ledger is not None:
            try:
                head = ledger.advance(
                    self.calls.conversation,
                    self._turn.rev,
                    self.calls.turn,
                    self.seq,
                    latest.loaded_names,
                    self.call_id,
                )
            except BaseException:
                # The write did not reach the ledger: the call fails and its effect is
                # unknown, not "none" (later calls work it out and, as it is not confirmed,
                # must also pass without it); a retry runs it again.
                self._written, self._unrecorded = None, True
                with self._store._cond:
                    self._turn.after.pop(self.call_id, None)
                    self._turn.confirmed.discard(self.call_id)
                raise
            if head is not None:
                self._store._forked(self._turn, self.calls, head, "write")

    def _ran(self) -> SkillSession:
        # Under the lock: the turn's base with the effects of the skill calls seen to run
        # (this one included), in call order, over the unbroken known prefix. An effect only
        # worked out for a call that has not run (or never will) is left out, so live state
        # never holds an inference (it could lift a restriction).
        session = prev = self._turn.base
        for k in self.calls.skill_order:
            after = self._turn.after.get(k)
            if after is None:
                break
            if k in self._turn.confirmed:
                session = apply_effect(session, effect_between(prev, after))
            prev = after
        return session

    def settled(self) -> Replayed | None:
        """The result another call already worked out for this skill call (None if none):
        the call returns it, so its reply matches what the later calls were decided on."""
        with self._store._cond:
            result = self._turn.results.get(self.call_id)
        if result is not None and result.changed:
            self.write(result.session)  # its effect is this call's own write (and is recorded)
        return result

    def also_check(self, tool_name: str | None = None) -> tuple[SkillSession, ...]:
        """Sessions a plain call must also be allowed on: the one the confirmed earlier calls
        give (:meth:`unconfirmed_base`) and, when the turn runs beside another (a fork),
        the latest state the ledger knows. A fork can never lift a restriction. The ledger
        is asked (once per turn) unless its write already answered or no fork could refuse
        a call of ``tool_name`` (:func:`fork_can_refuse`; None: any tool)."""
        out = []
        other = self.unconfirmed_base()
        if other is not None:
            out.append(other)
        turn = self._turn
        if not turn.checked and (tool_name is None or fork_can_refuse(turn.base, tool_name)):
            self._store._check(turn, self.calls)
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
            if head is not None and head.rev == stored_id(self.calls.turn):
                wrote = set(head.calls)  # as the ledger spells ids (long ones as digests)
                confirmed.update(k for k in earlier if stored_id(k) in wrote)
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
        :func:`skillcore.runtime.merge_states`): ``session`` plus the turn's base, its skill calls'
        order and this call's own effect, so the reducer combines the effects of a turn's
        calls in order whichever process ran them (:func:`skillcore.state.merge.turn_state`)."""
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

    def _unconfirmed_matters(self) -> bool:
        # A plain call that only the worked-out effect of an earlier call would allow (the
        # confirmed effects alone give other loaded skills) waits a little for that call to
        # be seen to run, rather than being refused because its thread started late. The
        # wait is the turn's, started by its first such call: an earlier call that never
        # runs delays the turn once, not each later call again.
        turn = self._turn
        if self.call_id in self.calls.skill or _past(turn.confirm_until):
            return False
        other = self.unconfirmed_base()
        if other is None or other.loaded_names == self._before.loaded_names:
            return False
        with self._store._cond:
            if turn.confirm_until is None:
                turn.confirm_until = time.monotonic() + self._store.confirm_seconds
            return not _past(turn.confirm_until)

    def _decided(self, kind: str, value: Any, began: float) -> None:
        # Under the lock: every earlier effect is known (or waiting for it timed out).
        self._before, self.timed_out = value, kind == "timeout"
        self._own()
        self._store.longest_wait = max(self._store.longest_wait, time.monotonic() - began)

    def _advance(
        self,
        began: float,
        deadline: float,
        arrival: float,
        earlier: tuple[str, ...],
    ) -> tuple[str, Any]:
        """One step of entering: ``("ready", None)``, ``("wait", None)``, or ``("replay",
        (call id, session, tool, arguments))`` for an earlier call to work out here."""
        with self._store._cond:
            kind, value = self._step(deadline, arrival, earlier)
            if kind == "wait":
                return "wait", None
            if kind in ("done", "timeout"):
                self._decided(kind, value, began)
        if kind in ("done", "timeout"):
            return ("wait", None) if self._unconfirmed_matters() else ("ready", None)
        k, session = value
        name, args = self.calls.args[k]
        return "replay", (k, session, name, args)

    def _bounds(self) -> tuple[float, float, float, tuple[str, ...]]:
        began = time.monotonic()
        deadline, arrival, earlier = self._begin()
        return began, deadline, arrival, earlier

    def __enter__(self) -> TurnCall:
        if self.refused is not None:
            return self  # decided without the other calls: refused
        store, bounds = self._store, self._bounds()
        while True:
            kind, value = self._advance(*bounds)
            if kind == "ready":
                return self
            if kind == "wait":
                with store._cond:
                    store._cond.wait(timeout=0.02)
                continue
            k, session, name, args = value
            result: Replayed | None = None
            try:
                result = store.replay.call(  # type: ignore[union-attr]
                    session, name, args, **self.context, call_id=k
                )
            finally:
                store._settle(self._turn, k, result)

    async def __aenter__(self) -> TurnCall:
        # Polling keeps this loop-agnostic (asyncio or trio, any thread) and never blocks the
        # event loop; turns have few calls, so the cost is a few short sleeps.
        if self.refused is not None:
            return self  # decided without the other calls: refused
        store, bounds = self._store, self._bounds()
        delay = 0.0005
        while True:
            kind, value = self._advance(*bounds)
            if kind == "ready":
                return self
            if kind == "wait":
                await anyio.sleep(delay)
                delay = min(delay * 2, 0.02)
                continue
            k, session, name, args = value
            result = None
            try:
                result = await store.replay.acall(  # type: ignore[union-attr]
                    session, name, args, **self.context, call_id=k
                )
            finally:
                store._settle(self._turn, k, result)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._store._finish(self, failed=exc_type is not None)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)


def _past(moment: float | None) -> bool:
    return moment is not None and time.monotonic() >= moment
