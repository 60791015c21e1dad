"""skillcore: Agent Skills for every agent framework, done once.

The core is framework-agnostic: sources and discovery (:class:`SkillLibrary`), the immutable
:class:`SkillSession` with pure transitions, budgeted catalog rendering, the allowed-tools
policy, and the four skill tools (:class:`SkillToolkit`) that adapters expose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillcore.config import SkillConfig
    from skillcore.coordination import SessionCoordinator
    from skillcore.diagnostics import Code, Diagnostic, Severity
    from skillcore.errors import MissingDependencyError, SkillcoreError, SourceError, StateError
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
    from skillcore.policy import DecisionCode, PolicyMode, ToolDecision, ToolPattern, ToolPolicy
    from skillcore.render import CatalogFormat, CatalogView, catalog_view
    from skillcore.search import SearchHit, search_skills
    from skillcore.session import (
        STATE_SCHEMA,
        Limits,
        LoadedSkill,
        LoadRequest,
        Outcome,
        OutcomeCode,
        SkillSession,
        loaded_names_of,
        merge_states,
    )
    from skillcore.sources import (
        ReadError,
        SkillSource,
        SourceReader,
        project_sources,
        register_reader,
    )
    from skillcore.tools import ArgumentError, SessionStore, SkillToolkit, ToolResult, ToolSpec

# Names are imported on first use (PEP 562), so ``import skillcore`` stays light: a program
# that only needs one part does not pay for the rest (YAML, attrs classes, the tools).
_LAZY: dict[str, str] = {
    "SkillConfig": "skillcore.config",
    "SessionCoordinator": "skillcore.coordination",
    "Code": "skillcore.diagnostics",
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
    "CatalogFormat": "skillcore.render",
    "CatalogView": "skillcore.render",
    "catalog_view": "skillcore.render",
    "SearchHit": "skillcore.search",
    "search_skills": "skillcore.search",
    "STATE_SCHEMA": "skillcore.session",
    "Limits": "skillcore.session",
    "LoadedSkill": "skillcore.session",
    "LoadRequest": "skillcore.session",
    "Outcome": "skillcore.session",
    "OutcomeCode": "skillcore.session",
    "SkillSession": "skillcore.session",
    "loaded_names_of": "skillcore.session",
    "merge_states": "skillcore.session",
    "ReadError": "skillcore.sources",
    "SkillSource": "skillcore.sources",
    "SourceReader": "skillcore.sources",
    "project_sources": "skillcore.sources",
    "register_reader": "skillcore.sources",
    "ArgumentError": "skillcore.tools",
    "SessionStore": "skillcore.tools",
    "SkillToolkit": "skillcore.tools",
    "ToolResult": "skillcore.tools",
    "ToolSpec": "skillcore.tools",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'skillcore' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "STATE_SCHEMA",
    "ArgumentError",
    "Catalog",
    "CatalogFormat",
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
    "ReadError",
    "Resource",
    "ResourceContent",
    "ResourceKind",
    "SearchHit",
    "SessionCoordinator",
    "SessionStore",
    "Severity",
    "SkillConfig",
    "SkillDocument",
    "SkillLibrary",
    "SkillLocation",
    "SkillMetadata",
    "SkillSession",
    "SkillSource",
    "SkillToolkit",
    "SkillcoreError",
    "SourceError",
    "SourceReader",
    "StateError",
    "ToolDecision",
    "ToolNames",
    "ToolPattern",
    "ToolPolicy",
    "ToolResult",
    "ToolSpec",
    "ValidationMode",
    "__version__",
    "catalog_view",
    "loaded_names_of",
    "merge_states",
    "parse_skill_file",
    "project_sources",
    "register_reader",
    "search_skills",
]
