"""skillcore: Agent Skills for every agent framework, done once.

The core is framework-agnostic: sources and discovery (:class:`SkillLibrary`), the immutable
:class:`SkillSession` with pure transitions, budgeted catalog rendering, the allowed-tools
policy, and the four skill tools (:class:`SkillToolkit`) that adapters expose.
"""

from __future__ import annotations

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
