"""skillcore: Agent Skills for every agent framework, done once.

The core is framework-agnostic: sources and discovery (:class:`SkillLibrary`), the immutable
:class:`SkillSession` with pure transitions, budgeted catalog rendering, the allowed-tools
policy, and the four skill tools (:class:`SkillToolkit`) that adapters expose.
"""

from __future__ import annotations

from skillcore import replies
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

__version__ = "0.1.0"

__all__ = [
    "STATE_SCHEMA",
    "ArgumentError",
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
    "TurnCalls",
    "TurnStore",
    "ValidationMode",
    "__version__",
    "catalog_view",
    "loaded_names_of",
    "merge_states",
    "parse_skill_file",
    "project_sources",
    "register_reader",
    "replies",
    "restore_session",
    "search_skills",
]
