"""The state of one conversation: the session's pure transitions and where sessions live while
calls run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.state.announced_turns import TurnIndex
    from skillcore.state.forks import ForkCheck, saved_fork, saved_rev
    from skillcore.state.hooks import Hook, HookEvent, hooks_for, shell_command_refusal
    from skillcore.state.invocation import (
        Invocation,
        begin_invoke,
        expand,
        injects_state,
        parse_invocation,
        user_skills,
    )
    from skillcore.state.ledger import Ledger, MemoryLedger, SQLLedger
    from skillcore.state.listed_calls import MAX_TURN_CALLS, TurnCalls
    from skillcore.state.merge import apply_effect, effect_between, merge_states
    from skillcore.state.outcomes import LoadRequest, Outcome, ResourceRequest, ScriptRequestPlan
    from skillcore.state.overrides import ModelChoice, removes_tools
    from skillcore.state.refresh import RefreshGate, file_marker
    from skillcore.state.restore import CatalogMemo, Restored, Restorer, restore_session
    from skillcore.state.saved import (
        MemoryStateStore,
        PostgresStateStore,
        SavedSession,
        SQLiteStateStore,
        StateStore,
        update_state,
    )
    from skillcore.state.schema import STATE_SCHEMA, LoadedSkill, loaded_names_of
    from skillcore.state.stores import MarkedStore, SessionRef, SessionStore, as_store
    from skillcore.state.subagents import ForkGuard, SubagentRules, SubagentScope
    from skillcore.state.substitution import Substituted, argument_names, substitute_arguments
    from skillcore.state.token import StateSigner
    from skillcore.state.transitions import SkillSession
    from skillcore.state.turn_order import CallInTurn, TurnCall, TurnStore

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "MAX_TURN_CALLS": "skillcore.state.listed_calls",
        "STATE_SCHEMA": "skillcore.state.schema",
        "CallInTurn": "skillcore.state.turn_order",
        "CatalogMemo": "skillcore.state.restore",
        "ForkCheck": "skillcore.state.forks",
        "ForkGuard": "skillcore.state.subagents",
        "SubagentRules": "skillcore.state.subagents",
        "SubagentScope": "skillcore.state.subagents",
        "Hook": "skillcore.state.hooks",
        "Invocation": "skillcore.state.invocation",
        "HookEvent": "skillcore.state.hooks",
        "Ledger": "skillcore.state.ledger",
        "LoadRequest": "skillcore.state.outcomes",
        "LoadedSkill": "skillcore.state.schema",
        "MarkedStore": "skillcore.state.stores",
        "MemoryLedger": "skillcore.state.ledger",
        "MemoryStateStore": "skillcore.state.saved",
        "ModelChoice": "skillcore.state.overrides",
        "Outcome": "skillcore.state.outcomes",
        "PostgresStateStore": "skillcore.state.saved",
        "RefreshGate": "skillcore.state.refresh",
        "ResourceRequest": "skillcore.state.outcomes",
        "Restored": "skillcore.state.restore",
        "Restorer": "skillcore.state.restore",
        "SQLLedger": "skillcore.state.ledger",
        "SQLiteStateStore": "skillcore.state.saved",
        "SavedSession": "skillcore.state.saved",
        "ScriptRequestPlan": "skillcore.state.outcomes",
        "SessionRef": "skillcore.state.stores",
        "SessionStore": "skillcore.state.stores",
        "SkillSession": "skillcore.state.transitions",
        "StateSigner": "skillcore.state.token",
        "StateStore": "skillcore.state.saved",
        "Substituted": "skillcore.state.substitution",
        "argument_names": "skillcore.state.substitution",
        "begin_invoke": "skillcore.state.invocation",
        "expand": "skillcore.state.invocation",
        "injects_state": "skillcore.state.invocation",
        "parse_invocation": "skillcore.state.invocation",
        "substitute_arguments": "skillcore.state.substitution",
        "user_skills": "skillcore.state.invocation",
        "TurnCall": "skillcore.state.turn_order",
        "TurnCalls": "skillcore.state.listed_calls",
        "TurnIndex": "skillcore.state.announced_turns",
        "TurnStore": "skillcore.state.turn_order",
        "apply_effect": "skillcore.state.merge",
        "as_store": "skillcore.state.stores",
        "effect_between": "skillcore.state.merge",
        "file_marker": "skillcore.state.refresh",
        "hooks_for": "skillcore.state.hooks",
        "loaded_names_of": "skillcore.state.schema",
        "merge_states": "skillcore.state.merge",
        "removes_tools": "skillcore.state.overrides",
        "restore_session": "skillcore.state.restore",
        "saved_fork": "skillcore.state.forks",
        "saved_rev": "skillcore.state.forks",
        "shell_command_refusal": "skillcore.state.hooks",
        "update_state": "skillcore.state.saved",
    },
)
