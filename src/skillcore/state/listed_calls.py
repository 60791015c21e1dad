"""The calls of one model turn, as the model listed them (:class:`TurnCalls`), and what works
an earlier skill call out again (:class:`Replayer`, giving a :class:`Replayed`)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, Protocol

import attrs

from skillcore._frozen import FrozenDict, to_frozenset, to_tuple
from skillcore.codes import OutcomeCode
from skillcore.state.transitions import SkillSession

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
    value.

    A call is placed by its id, so a turn whose ids repeat cannot be placed when it calls a
    skill tool (``ids_repeat``: each of its calls is refused), and a call listed past the
    :data:`MAX_TURN_CALLS` tracked (``listed`` counts them all) is refused too
    (:meth:`refusal`): neither is ever decided on the turn's starting state."""

    conversation: str
    turn: str
    order: tuple[str, ...] = attrs.field(converter=to_tuple)
    skill: frozenset[str] = attrs.field(converter=to_frozenset)
    #: Skill call id -> (tool name, arguments as the model sent them).
    args: FrozenDict[str, tuple[str, Any]] = attrs.field(
        factory=lambda: FrozenDict({}), converter=_frozen_args, eq=False
    )
    #: How many calls the model listed, when more than ``order`` holds (past the bound).
    listed: int = 0
    #: The model listed some call id twice (or more) in a turn that calls a skill tool.
    ids_repeat: bool = False

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
        every = [(c[0], c[1], c[2] if len(c) > 2 else None) for c in calls]
        pairs = every[:MAX_TURN_CALLS]
        skill = {i for i, name, _ in pairs if is_skill(name)}
        args = {i: (name, a) for i, name, a in pairs if i in skill and a is not None}
        # Repeated ids matter only when a skill call changes the state between positions;
        # every call of a turn with none is decided on the turn's base anyway.
        repeat = len({c[0] for c in every}) < len(every) and any(is_skill(c[1]) for c in every)
        order = tuple(i for i, _, _ in pairs)
        return cls(conversation, turn, order, skill, args, len(every), repeat)

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

    def refusal(self, call_id: str) -> OutcomeCode | None:
        """Why ``call_id`` cannot be placed in its turn and is refused (None: it can be):
        the turn's ids repeat, or the call is listed past the bound."""
        if self.ids_repeat:
            return OutcomeCode.TURN_CALL_IDS_REPEAT
        if len(self.order) < self.listed and call_id not in self.order:
            return OutcomeCode.TURN_TOO_LONG
        return None

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


class Replayed(Protocol):
    """What :class:`Replayer` gives for one call (a :class:`~skillcore.ToolResult`): the
    session after it and whether the call changed it."""

    @property
    def session(self) -> SkillSession:
        """The session after the call."""
        ...

    @property
    def changed(self) -> bool:
        """True when the call changed the session."""
        ...


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
    ) -> Replayed:
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
    ) -> Replayed:
        """Async :meth:`call`."""
        ...
