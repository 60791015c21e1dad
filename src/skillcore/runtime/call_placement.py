"""How every adapter places a tool call in its model turn: the turn found in the
conversation's history, the facts a load needs gathered only when the turn loads a skill,
and the revision of the saved state the turn starts from."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from skillcore.policy import PolicyMode, ToolPolicy
from skillcore.state import SessionStore, SkillSession, TurnCall, TurnCalls, TurnStore
from skillcore.tools import SkillToolkit

#: A conversation's model turns, newest first, as :meth:`TurnCalls.locate` reads them.
History = Iterable[tuple[str | None, Iterable[tuple[str, str, Any]]]]


def saved_rev(raw: object) -> str:
    """The revision a saved state value records ("" when it has none)."""
    rev = raw.get("rev") if isinstance(raw, Mapping) else None
    return rev if isinstance(rev, str) else ""


def locate_turn(
    toolkit: SkillToolkit, conversation: str, call_id: str, history: History
) -> TurnCalls:
    """The turn of ``call_id`` among the conversation's model turns (see
    :meth:`TurnCalls.locate`)."""
    return TurnCalls.locate(conversation, call_id, history, toolkit.is_skill_tool)


def turn_loads(toolkit: SkillToolkit, calls: TurnCalls) -> bool:
    """Whether the turn loads a skill: only a load reads which skills the model no longer
    sees and which tools the agent has."""
    return toolkit.names.load in calls.args_tools()


def wants_tools(toolkit: SkillToolkit, calls: TurnCalls, policy: ToolPolicy) -> bool:
    """Whether the turn needs the agent's tool names: a load, with the tool check configured
    or under RESTRICT (a skill naming none of them is warned about)."""
    wanted = toolkit.check_tools_available or policy.mode is PolicyMode.RESTRICT
    return wanted and turn_loads(toolkit, calls)


def enter_turn(
    toolkit: SkillToolkit,
    turns: TurnStore,
    calls: TurnCalls,
    call_id: str,
    base: SkillSession | SessionStore,
    *,
    rev: str,
    hidden: Callable[[], Collection[str]],
    available: Collection[str] | None = None,
) -> TurnCall:
    """The call's store in its turn (see :meth:`TurnStore.enter`); ``hidden`` (the loaded
    skills whose delivery the model no longer receives) is asked for only when the turn
    loads a skill, and ``available`` (the agent's tool names) passed only then too."""
    load = turn_loads(toolkit, calls)
    return turns.enter(
        calls,
        call_id,
        base,
        hidden=hidden() if load else frozenset(),
        available=available if load else None,
        rev=rev,
    )


__all__ = ["History", "enter_turn", "locate_turn", "saved_rev", "turn_loads", "wants_tools"]
