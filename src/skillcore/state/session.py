"""The session of one conversation, as one import: the immutable :class:`SkillSession`, its
transitions and queries (which tools it allows, which loaded skills the model still sees:
:mod:`~skillcore.state.transitions`), the values they return
(:mod:`~skillcore.state.outcomes`), its saved form (:mod:`~skillcore.state.schema`), restoring
it (:mod:`~skillcore.state.repair`) and merging the writes of one turn
(:mod:`~skillcore.state.merge`).
"""

from __future__ import annotations

from skillcore.codes import OutcomeCode
from skillcore.limits import Limits
from skillcore.policy.rules import PolicyMode, ToolDecision, ToolPolicy
from skillcore.state.merge import apply_effect, effect_between, merge_states, turn_state
from skillcore.state.outcomes import LoadRequest, Outcome, ResourceRequest, ScriptRequestPlan
from skillcore.state.repair import Restored, restore_session
from skillcore.state.schema import (
    MAX_CALL_ID,
    MAX_STATE_ENTRIES,
    MAX_STATE_RESOURCES,
    MAX_STATE_STRING,
    STATE_SCHEMA,
    LoadedSkill,
    loaded_names_of,
)
from skillcore.state.transitions import SkillSession

__all__ = [
    "MAX_CALL_ID",
    "MAX_STATE_ENTRIES",
    "MAX_STATE_RESOURCES",
    "MAX_STATE_STRING",
    "STATE_SCHEMA",
    "Limits",
    "LoadRequest",
    "LoadedSkill",
    "Outcome",
    "OutcomeCode",
    "PolicyMode",
    "ResourceRequest",
    "Restored",
    "ScriptRequestPlan",
    "SkillSession",
    "ToolDecision",
    "ToolPolicy",
    "apply_effect",
    "effect_between",
    "loaded_names_of",
    "merge_states",
    "restore_session",
    "turn_state",
]
