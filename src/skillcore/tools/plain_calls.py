"""The checks of plain (non-skill) tool calls: the allowed-tools decision, which calls must be
decided in call order, and the decision for a call about to run as every adapter makes it
(turn order, inferred earlier calls, the ``tool.blocked`` event). A part of
:class:`~skillcore.tools.toolkit.SkillToolkit`; the rule itself is
:meth:`skillcore.SkillSession.check_tool`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore import events
from skillcore.policy.rules import (
    Arguments,
    DecisionCode,
    PolicyMode,
    ToolDecision,
    ToolPolicy,
    normalize_tool_name,
)
from skillcore.state.session import SkillSession
from skillcore.state.stores import SessionStore, as_store
from skillcore.state.turns import CallInTurn
from skillcore.tools import replies


class PlainCallChecks:
    """Checks of plain tool calls (see the module docstring)."""

    if TYPE_CHECKING:
        # Provided by the toolkit this is part of.
        @property
        def pinned_skills(self) -> tuple[str, ...]: ...

        def is_skill_tool(self, name: str) -> bool: ...

    def check_tool(
        self,
        session: SkillSession,
        tool_name: str,
        arguments: Arguments = None,
    ) -> ToolDecision:
        """The allowed-tools decision for a plain tool call (skill tools always pass); a
        query: nothing is reported (see :meth:`check_call`)."""
        return session.check_tool(tool_name, arguments=arguments, pinned=self.pinned_skills)

    def guards(self, policy: ToolPolicy, tool_name: str) -> bool:
        """True when a plain call of ``tool_name`` must be decided in call order and checked
        (:meth:`check_call`): never for skill tools; under RECOMMEND (which never blocks)
        only for skill-gated tools."""
        if self.is_skill_tool(tool_name):
            return False
        return policy.mode is not PolicyMode.RECOMMEND or (
            bool(policy.gated_tools) and normalize_tool_name(tool_name) in policy.gated_tools
        )

    def check_call(
        self,
        target: SkillSession | SessionStore,
        tool_name: str,
        *,
        can_unload: bool = True,
        arguments: Arguments = None,
    ) -> ToolDecision:
        """The decision for a plain tool call about to run, as every adapter makes it: on the
        store's session, refused when the store waited in vain for the earlier skill calls
        of its turn (``timed_out``, see :class:`~skillcore.TurnCall`) or cannot be placed in
        its turn (``refused``: its ids repeat, or it is past the bound), and reported as a
        ``tool.blocked`` event when blocked. Reply with :func:`replies.blocked`.
        ``can_unload=False``: the caller has no unload tool (the reason says so).
        ``arguments``: the call's arguments (mapping or JSON text), for argument patterns
        such as ``Bash(git:*)``; None when the caller cannot see them (such entries then
        do not allow the call)."""
        store = as_store(target)
        session = store.read()
        turn = store if isinstance(store, CallInTurn) else None
        timed_out = turn is not None and turn.timed_out
        if turn is not None and turn.refused is not None:
            # The call cannot be placed in its turn: never decided as if it came first.
            reason = replies.turn_refused_reason(turn.refused, tool_name)
            decision = ToolDecision(False, DecisionCode(turn.refused.value), reason, tool_name)
        elif timed_out:
            reason = replies.turn_incomplete_reason(tool_name)
            decision = ToolDecision(False, DecisionCode.TOOL_BLOCKED, reason, tool_name)
        else:
            decision = session.check_tool(
                tool_name, can_unload=can_unload, arguments=arguments, pinned=self.pinned_skills
            )
            # Earlier calls of the turn worked out here, not seen to run (a resume after a
            # crash): the call must also pass without them, so an inference never lifts
            # a restriction.
            # So must it when its turn runs beside another on the same conversation (a
            # fork): on the latest state too.
            also = turn.also_check() if turn is not None and decision.allowed else ()
            for other in also:
                decision = other.check_tool(
                    tool_name, can_unload=can_unload, arguments=arguments, pinned=self.pinned_skills
                )
                if not decision.allowed:
                    break
        if not decision.allowed:
            events.tool_blocked(tool_name, session.loaded_names, timed_out)
        return decision


__all__ = ["PlainCallChecks"]
