"""skillcore: Agent Skills for every agent framework, done once.

The core is framework-agnostic: sources and discovery (:class:`SkillLibrary`), the immutable
:class:`SkillSession` with pure transitions, budgeted catalog rendering, the allowed-tools
policy, and the four skill tools (:class:`SkillToolkit`) that adapters expose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillcore import replies
    from skillcore.binary import BinaryPayload
    from skillcore.codes import OutcomeCode
    from skillcore.config import SkillConfig
    from skillcore.coordination import (
        RefreshGate,
        SessionRef,
        SessionStore,
        TurnCalls,
        TurnStore,
    )
    from skillcore.diagnostics import Code, Diagnostic, Severity
    from skillcore.errors import MissingDependencyError, SkillcoreError, SourceError, StateError
    from skillcore.examples import examples_path
    from skillcore.library import ResourceContent, SkillLibrary
    from skillcore.model import (
        Catalog,
        Resource,
        ResourceKind,
        SkillDocument,
        SkillLocation,
        SkillMetadata,
    )
    from skillcore.names import ToolNames
    from skillcore.parsing import ValidationMode, parse_skill_file
    from skillcore.policy import (
        ALIAS_PRESETS,
        DecisionCode,
        PolicyMode,
        ToolAliases,
        ToolDecision,
        ToolPattern,
        ToolPolicy,
        UnrestrictedSkills,
    )
    from skillcore.profiles import ProfileChoice, SkillProfiles
    from skillcore.prompt import PromptMode, PromptTemplate
    from skillcore.relevance import CatalogOrder
    from skillcore.render import CatalogFormat, CatalogView, catalog_view
    from skillcore.search import SearchHit, search_skills
    from skillcore.session import (
        STATE_SCHEMA,
        Limits,
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
    from skillcore.sources import (
        ReadError,
        SkillSource,
        SourceReader,
        project_sources,
        register_reader,
    )
    from skillcore.specs import ArgumentError, ToolSpec
    from skillcore.tools import SkillToolkit, ToolResult

# Names are imported on first use (PEP 562), so ``import skillcore`` stays light: a program
# that only needs one part does not pay for the rest (YAML, attrs classes, the tools).
# A value naming ``skillcore.<name>`` itself is a submodule.
_LAZY: dict[str, str] = {
    "replies": "skillcore.replies",
    "OutcomeCode": "skillcore.codes",
    "SkillConfig": "skillcore.config",
    "SkillProfiles": "skillcore.profiles",
    "ProfileChoice": "skillcore.profiles",
    "RefreshGate": "skillcore.coordination",
    "SessionRef": "skillcore.coordination",
    "SessionStore": "skillcore.coordination",
    "TurnCalls": "skillcore.coordination",
    "TurnStore": "skillcore.coordination",
    "Code": "skillcore.diagnostics",
    "examples_path": "skillcore.examples",
    "Diagnostic": "skillcore.diagnostics",
    "Severity": "skillcore.diagnostics",
    "MissingDependencyError": "skillcore.errors",
    "SkillcoreError": "skillcore.errors",
    "SourceError": "skillcore.errors",
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
    "ValidationMode": "skillcore.parsing",
    "parse_skill_file": "skillcore.parsing",
    "DecisionCode": "skillcore.policy",
    "PolicyMode": "skillcore.policy",
    "ToolDecision": "skillcore.policy",
    "ToolPattern": "skillcore.policy",
    "ToolPolicy": "skillcore.policy",
    "ToolAliases": "skillcore.policy",
    "UnrestrictedSkills": "skillcore.policy",
    "ALIAS_PRESETS": "skillcore.policy",
    "CatalogOrder": "skillcore.relevance",
    "PromptMode": "skillcore.prompt",
    "PromptTemplate": "skillcore.prompt",
    "CatalogFormat": "skillcore.render",
    "CatalogView": "skillcore.render",
    "catalog_view": "skillcore.render",
    "SearchHit": "skillcore.search",
    "search_skills": "skillcore.search",
    "STATE_SCHEMA": "skillcore.session",
    "Limits": "skillcore.session",
    "BinaryPayload": "skillcore.binary",
    "LoadedSkill": "skillcore.session",
    "LoadRequest": "skillcore.session",
    "Outcome": "skillcore.session",
    "ResourceRequest": "skillcore.session",
    "Restored": "skillcore.session",
    "SkillSession": "skillcore.session",
    "loaded_names_of": "skillcore.session",
    "merge_states": "skillcore.session",
    "restore_session": "skillcore.session",
    "ReadError": "skillcore.sources",
    "SkillSource": "skillcore.sources",
    "SourceReader": "skillcore.sources",
    "project_sources": "skillcore.sources",
    "register_reader": "skillcore.sources",
    "ArgumentError": "skillcore.specs",
    "ToolSpec": "skillcore.specs",
    "SkillToolkit": "skillcore.tools",
    "ToolResult": "skillcore.tools",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'skillcore' has no attribute {name!r}")
    import importlib

    imported = importlib.import_module(module)
    value = imported if module == f"skillcore.{name}" else getattr(imported, name)
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
    "DecisionCode",
    "Diagnostic",
    "Limits",
    "LoadRequest",
    "LoadedSkill",
    "MissingDependencyError",
    "Outcome",
    "OutcomeCode",
    "PolicyMode",
    "ProfileChoice",
    "PromptMode",
    "PromptTemplate",
    "ReadError",
    "RefreshGate",
    "Resource",
    "ResourceContent",
    "ResourceKind",
    "ResourceRequest",
    "Restored",
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
    "SkillToolkit",
    "SkillcoreError",
    "SourceError",
    "SourceReader",
    "StateError",
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
    "catalog_view",
    "examples_path",
    "loaded_names_of",
    "merge_states",
    "parse_skill_file",
    "project_sources",
    "register_reader",
    "replies",
    "restore_session",
    "search_skills",
]
