"""The adapter face: everything an adapter needs from the core beyond the user face
(:mod:`skillcore`), whichever layer defines it: the session's saved form and its merge, where a
session lives while calls run and how a turn's calls are ordered, the tools' specs and replies,
and the configuration adapters share. An adapter package imports :mod:`skillcore`,
:mod:`skillcore.runtime` and :mod:`skillcore.testing` only (an import-linter contract).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore import events
    from skillcore._recent import Recent
    from skillcore.catalog import query_text, resolve_prompt_mode
    from skillcore.errors import install_hint, require
    from skillcore.limits import BRIDGE_GRACE_SECONDS
    from skillcore.parse.reference import reference_properties
    from skillcore.policy import RawInput, ToolPattern, parse_tool_list
    from skillcore.policy.skill_options import touched_paths
    from skillcore.runner import bridge
    from skillcore.runner.base import Isolation, ScriptRequest, ScriptResult
    from skillcore.runtime.call_placement import (
        History,
        enter_turn,
        locate_turn,
        saved_rev,
        wants_tools,
    )
    from skillcore.runtime.config import (
        AdapterAttributes,
        AdapterParts,
        OrchestratorCatalog,
        SkillConfig,
        Sources,
        check_toolkit_options,
        with_gated_tools,
    )
    from skillcore.runtime.model_calls import ModelCalls
    from skillcore.runtime.model_switch import ModelOverride, ModelResolver, ModelSwitch
    from skillcore.runtime.profiles import (
        DEFAULT_CONTEXT_KEY,
        ProfileChoice,
        ProfileRestorer,
        ProfileStateStore,
        SkillProfiles,
        read_selector,
        tag_state,
    )
    from skillcore.runtime.settings import ConfigError, ConfigWarning, load_settings
    from skillcore.runtime.subagents import current_fork, fork_decision, running_fork
    from skillcore.state import (
        MAX_TURN_CALLS,
        STATE_SCHEMA,
        CatalogMemo,
        ForkCheck,
        ForkGuard,
        LoadedSkill,
        LoadRequest,
        MarkedStore,
        ResourceRequest,
        Restored,
        SavedSession,
        SessionRef,
        SessionStore,
        TurnCall,
        TurnCalls,
        TurnIndex,
        TurnStore,
        apply_effect,
        as_store,
        effect_between,
        loaded_names_of,
        merge_states,
        removes_tools,
        restore_session,
        saved_fork,
        update_state,
    )
    from skillcore.tools import (
        ERROR_PREFIX,
        ArgumentError,
        DeliveryIndex,
        ForkRequest,
        Forks,
        Reinjection,
        ToolSpec,
        load_replies,
        parse_json_object,
        preview_decision,
        replies,
    )

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "BRIDGE_GRACE_SECONDS": "skillcore.limits",
        "DEFAULT_CONTEXT_KEY": "skillcore.runtime.profiles",
        "ERROR_PREFIX": "skillcore.tools",
        "MAX_TURN_CALLS": "skillcore.state",
        "STATE_SCHEMA": "skillcore.state",
        "AdapterAttributes": "skillcore.runtime.config",
        "AdapterParts": "skillcore.runtime.config",
        "ArgumentError": "skillcore.tools",
        "CatalogMemo": "skillcore.state",
        "ConfigError": "skillcore.runtime.settings",
        "ConfigWarning": "skillcore.runtime.settings",
        "DeliveryIndex": "skillcore.tools",
        "ForkCheck": "skillcore.state",
        "ForkGuard": "skillcore.state",
        "ForkRequest": "skillcore.tools",
        "Forks": "skillcore.tools",
        "OrchestratorCatalog": "skillcore.runtime.config",
        "History": "skillcore.runtime.call_placement",
        "Isolation": "skillcore.runner.base",
        "LoadRequest": "skillcore.state",
        "LoadedSkill": "skillcore.state",
        "MarkedStore": "skillcore.state",
        "ModelCalls": "skillcore.runtime.model_calls",
        "ModelOverride": "skillcore.runtime.model_switch",
        "ModelResolver": "skillcore.runtime.model_switch",
        "ModelSwitch": "skillcore.runtime.model_switch",
        "ProfileChoice": "skillcore.runtime.profiles",
        "ProfileRestorer": "skillcore.runtime.profiles",
        "ProfileStateStore": "skillcore.runtime.profiles",
        "RawInput": "skillcore.policy",
        "Recent": "skillcore._recent",
        "Reinjection": "skillcore.tools",
        "ResourceRequest": "skillcore.state",
        "Restored": "skillcore.state",
        "SavedSession": "skillcore.state",
        "ScriptRequest": "skillcore.runner.base",
        "ScriptResult": "skillcore.runner.base",
        "SessionRef": "skillcore.state",
        "SessionStore": "skillcore.state",
        "SkillConfig": "skillcore.runtime.config",
        "SkillProfiles": "skillcore.runtime.profiles",
        "Sources": "skillcore.runtime.config",
        "ToolPattern": "skillcore.policy",
        "ToolSpec": "skillcore.tools",
        "TurnCall": "skillcore.state",
        "TurnCalls": "skillcore.state",
        "TurnIndex": "skillcore.state",
        "TurnStore": "skillcore.state",
        "apply_effect": "skillcore.state",
        "as_store": "skillcore.state",
        "bridge": "skillcore.runner.bridge",
        "check_toolkit_options": "skillcore.runtime.config",
        "current_fork": "skillcore.runtime.subagents",
        "fork_decision": "skillcore.runtime.subagents",
        "running_fork": "skillcore.runtime.subagents",
        "effect_between": "skillcore.state",
        "enter_turn": "skillcore.runtime.call_placement",
        "events": "skillcore",
        "install_hint": "skillcore.errors",
        "load_replies": "skillcore.tools",
        "load_settings": "skillcore.runtime.settings",
        "loaded_names_of": "skillcore.state",
        "locate_turn": "skillcore.runtime.call_placement",
        "merge_states": "skillcore.state",
        "parse_json_object": "skillcore.tools",
        "parse_tool_list": "skillcore.policy",
        "preview_decision": "skillcore.tools",
        "query_text": "skillcore.catalog",
        "read_selector": "skillcore.runtime.profiles",
        "reference_properties": "skillcore.parse.reference",
        "replies": "skillcore.tools.replies",
        "require": "skillcore.errors",
        "resolve_prompt_mode": "skillcore.catalog",
        "removes_tools": "skillcore.state",
        "restore_session": "skillcore.state",
        "saved_fork": "skillcore.state",
        "saved_rev": "skillcore.runtime.call_placement",
        "tag_state": "skillcore.runtime.profiles",
        "touched_paths": "skillcore.policy.skill_options",
        "update_state": "skillcore.state",
        "wants_tools": "skillcore.runtime.call_placement",
        "with_gated_tools": "skillcore.runtime.config",
    },
)
