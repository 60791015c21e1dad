"""skillcore: Agent Skills for every agent framework, done once.

The core is framework-agnostic: sources and discovery (:class:`SkillLibrary`), the immutable
:class:`SkillSession` with pure transitions, budgeted catalog rendering, the allowed-tools
policy, and the four skill tools (:class:`SkillToolkit`) that adapters expose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillcore.catalog.prompt import PromptMode, PromptTemplate
    from skillcore.catalog.relevance import (
        CatalogOrder,
        relevant_catalog,
    )
    from skillcore.catalog.render import (
        CatalogFormat,
        CatalogView,
        catalog_view,
        render_catalog,
    )
    from skillcore.catalog.search import SearchHit, search_skills
    from skillcore.codes import OutcomeCode
    from skillcore.diagnostics import Code, Diagnostic, Severity
    from skillcore.errors import (
        MissingDependencyError,
        SkillcoreError,
        SkillSourceWarning,
        SourceError,
        SourceNotFoundError,
        StateError,
    )
    from skillcore.examples import examples_path
    from skillcore.library import ResourceContent, SkillLibrary
    from skillcore.limits import Limits
    from skillcore.model import (
        Catalog,
        Resource,
        ResourceKind,
        SkillDocument,
        SkillLocation,
        SkillMetadata,
    )
    from skillcore.names import ToolNames
    from skillcore.parse.frontmatter import ValidationMode, parse_skill_file
    from skillcore.policy.rules import (
        ALIAS_PRESETS,
        DecisionCode,
        PolicyMode,
        ProgramOptions,
        RawInput,
        ToolAliases,
        ToolDecision,
        ToolPattern,
        ToolPolicy,
        UnrestrictedSkills,
    )
    from skillcore.runtime.config import SkillConfig
    from skillcore.runtime.profiles import ProfileChoice, SkillProfiles
    from skillcore.runtime.settings import (
        ConfigError,
        ConfigWarning,
        load_settings,
    )
    from skillcore.sources.base import (
        ReadError,
        SkillSource,
        SourceReader,
        project_sources,
        register_reader,
    )
    from skillcore.sources.deepagents import backend_sources
    from skillcore.state.ledger import Ledger, MemoryLedger, SQLLedger
    from skillcore.state.refresh import RefreshGate, file_marker
    from skillcore.state.saved import (
        MemoryStateStore,
        PostgresStateStore,
        SavedSession,
        SQLiteStateStore,
        StateStore,
    )
    from skillcore.state.session import (
        STATE_SCHEMA,
        LoadedSkill,
        LoadRequest,
        Outcome,
        ResourceRequest,
        Restored,
        SkillSession,
        loaded_names_of,
        merge_states,
        restore_session,
    )
    from skillcore.state.stores import SessionRef, SessionStore
    from skillcore.state.turn_calls import TurnCalls
    from skillcore.state.turns import TurnStore
    from skillcore.tools import replies
    from skillcore.tools.binary import BinaryPayload
    from skillcore.tools.specs import ArgumentError, ToolSpec
    from skillcore.tools.toolkit import SkillToolkit, ToolResult

# Names are imported on first use (PEP 562), so ``import skillcore`` stays light: a program
# that only needs one part does not pay for the rest (YAML, attrs classes, the tools).
# A value whose last part is ``<name>`` itself is a submodule.
_LAZY: dict[str, str] = {
    "replies": "skillcore.tools.replies",
    "OutcomeCode": "skillcore.codes",
    "SkillConfig": "skillcore.runtime.config",
    "SkillProfiles": "skillcore.runtime.profiles",
    "ProfileChoice": "skillcore.runtime.profiles",
    "RefreshGate": "skillcore.state.refresh",
    "SessionRef": "skillcore.state.stores",
    "SessionStore": "skillcore.state.stores",
    "TurnCalls": "skillcore.state.turn_calls",
    "TurnStore": "skillcore.state.turns",
    "Code": "skillcore.diagnostics",
    "examples_path": "skillcore.examples",
    "Diagnostic": "skillcore.diagnostics",
    "Severity": "skillcore.diagnostics",
    "MissingDependencyError": "skillcore.errors",
    "SkillcoreError": "skillcore.errors",
    "SourceError": "skillcore.errors",
    "SourceNotFoundError": "skillcore.errors",
    "SkillSourceWarning": "skillcore.errors",
    "StateError": "skillcore.errors",
    "ResourceContent": "skillcore.library",
    "SkillLibrary": "skillcore.library",
    "Catalog": "skillcore.model",
    "Resource": "skillcore.model",
    "ResourceKind": "skillcore.model",
    "SkillDocument": "skillcore.model",
    "SkillLocation": "skillcore.model",
    "SkillMetadata": "skillcore.model",
    "ToolNames": "skillcore.names",
    "ValidationMode": "skillcore.parse.frontmatter",
    "parse_skill_file": "skillcore.parse.frontmatter",
    "DecisionCode": "skillcore.policy.rules",
    "PolicyMode": "skillcore.policy.rules",
    "ProgramOptions": "skillcore.policy.rules",
    "RawInput": "skillcore.policy.rules",
    "ToolDecision": "skillcore.policy.rules",
    "ToolPattern": "skillcore.policy.rules",
    "ToolPolicy": "skillcore.policy.rules",
    "ToolAliases": "skillcore.policy.rules",
    "UnrestrictedSkills": "skillcore.policy.rules",
    "ALIAS_PRESETS": "skillcore.policy.rules",
    "CatalogOrder": "skillcore.catalog.relevance",
    "PromptMode": "skillcore.catalog.prompt",
    "PromptTemplate": "skillcore.catalog.prompt",
    "CatalogFormat": "skillcore.catalog.render",
    "CatalogView": "skillcore.catalog.render",
    "catalog_view": "skillcore.catalog.render",
    "render_catalog": "skillcore.catalog.render",
    "SearchHit": "skillcore.catalog.search",
    "search_skills": "skillcore.catalog.search",
    "STATE_SCHEMA": "skillcore.state.session",
    "Limits": "skillcore.limits",
    "BinaryPayload": "skillcore.tools.binary",
    "LoadedSkill": "skillcore.state.session",
    "LoadRequest": "skillcore.state.session",
    "Outcome": "skillcore.state.session",
    "ResourceRequest": "skillcore.state.session",
    "Restored": "skillcore.state.session",
    "SkillSession": "skillcore.state.session",
    "loaded_names_of": "skillcore.state.session",
    "merge_states": "skillcore.state.session",
    "restore_session": "skillcore.state.session",
    "ReadError": "skillcore.sources.base",
    "SkillSource": "skillcore.sources.base",
    "SourceReader": "skillcore.sources.base",
    "project_sources": "skillcore.sources.base",
    "register_reader": "skillcore.sources.base",
    "ArgumentError": "skillcore.tools.specs",
    "ToolSpec": "skillcore.tools.specs",
    "SkillToolkit": "skillcore.tools.toolkit",
    "ToolResult": "skillcore.tools.toolkit",
    "Ledger": "skillcore.state.ledger",
    "MemoryLedger": "skillcore.state.ledger",
    "MemoryStateStore": "skillcore.state.saved",
    "PostgresStateStore": "skillcore.state.saved",
    "SQLLedger": "skillcore.state.ledger",
    "SQLiteStateStore": "skillcore.state.saved",
    "SavedSession": "skillcore.state.saved",
    "StateStore": "skillcore.state.saved",
    "file_marker": "skillcore.state.refresh",
    "relevant_catalog": "skillcore.catalog.relevance",
    "ConfigError": "skillcore.runtime.settings",
    "ConfigWarning": "skillcore.runtime.settings",
    "load_settings": "skillcore.runtime.settings",
    "backend_sources": "skillcore.sources.deepagents",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'skillcore' has no attribute {name!r}")
    import importlib

    imported = importlib.import_module(module)
    value = imported if module.rpartition(".")[2] == name else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "ALIAS_PRESETS",
    "STATE_SCHEMA",
    "ArgumentError",
    "BinaryPayload",
    "Catalog",
    "CatalogFormat",
    "CatalogOrder",
    "CatalogView",
    "Code",
    "ConfigError",
    "ConfigWarning",
    "DecisionCode",
    "Diagnostic",
    "Ledger",
    "Limits",
    "LoadRequest",
    "LoadedSkill",
    "MemoryLedger",
    "MemoryStateStore",
    "MissingDependencyError",
    "Outcome",
    "OutcomeCode",
    "PolicyMode",
    "PostgresStateStore",
    "ProfileChoice",
    "ProgramOptions",
    "PromptMode",
    "PromptTemplate",
    "RawInput",
    "ReadError",
    "RefreshGate",
    "Resource",
    "ResourceContent",
    "ResourceKind",
    "ResourceRequest",
    "Restored",
    "SQLLedger",
    "SQLiteStateStore",
    "SavedSession",
    "SearchHit",
    "SessionRef",
    "SessionStore",
    "Severity",
    "SkillConfig",
    "SkillDocument",
    "SkillLibrary",
    "SkillLocation",
    "SkillMetadata",
    "SkillProfiles",
    "SkillSession",
    "SkillSource",
    "SkillSourceWarning",
    "SkillToolkit",
    "SkillcoreError",
    "SourceError",
    "SourceNotFoundError",
    "SourceReader",
    "StateError",
    "StateStore",
    "ToolAliases",
    "ToolDecision",
    "ToolNames",
    "ToolPattern",
    "ToolPolicy",
    "ToolResult",
    "ToolSpec",
    "TurnCalls",
    "TurnStore",
    "UnrestrictedSkills",
    "ValidationMode",
    "__version__",
    "backend_sources",
    "catalog_view",
    "examples_path",
    "file_marker",
    "load_settings",
    "loaded_names_of",
    "merge_states",
    "parse_skill_file",
    "project_sources",
    "register_reader",
    "relevant_catalog",
    "render_catalog",
    "replies",
    "restore_session",
    "search_skills",
]
