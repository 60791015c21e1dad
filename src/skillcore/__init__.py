"""skillcore: Agent Skills for every agent framework, done once.

The core is framework-agnostic: sources and discovery (:class:`SkillLibrary`), the immutable
:class:`SkillSession` with pure transitions, budgeted catalog rendering, the allowed-tools
policy, and the four skill tools (:class:`SkillToolkit`) that adapters expose.

This face holds what users construct, read and catch. What only adapter authors need is in
:mod:`skillcore.runtime`; the conformance suite adapters run is :mod:`skillcore.testing`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.catalog import (
        CatalogFormat,
        CatalogOrder,
        CatalogView,
        PromptMode,
        PromptTemplate,
        SearchHit,
        catalog_view,
        relevant_catalog,
        render_catalog,
        search_skills,
    )
    from skillcore.codes import DecisionCode, OutcomeCode
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
    from skillcore.parse import ValidationMode, parse_skill_file
    from skillcore.policy import (
        ALIAS_PRESETS,
        PolicyMode,
        ProgramOptions,
        ToolAliases,
        ToolDecision,
        ToolPolicy,
        UnrestrictedSkills,
    )
    from skillcore.runtime import (
        ConfigError,
        ConfigWarning,
        ProfileChoice,
        SkillConfig,
        SkillProfiles,
        load_settings,
    )
    from skillcore.sources import (
        ReadError,
        SkillSource,
        SourceReader,
        backend_sources,
        project_sources,
        register_reader,
    )
    from skillcore.state import (
        Ledger,
        MemoryLedger,
        MemoryStateStore,
        Outcome,
        PostgresStateStore,
        RefreshGate,
        SkillSession,
        SQLiteStateStore,
        SQLLedger,
        StateStore,
        SubagentRules,
        SubagentScope,
        file_marker,
    )
    from skillcore.state.invocation import Invocation, parse_invocation, user_skills
    from skillcore.state.substitution import substitute_arguments
    from skillcore.tools import BinaryPayload, SkillToolkit, ToolResult
    from skillcore.tools.invoke import InvocationResult

# Each name is imported from its module on first use (see skillcore._faces): ``import
# skillcore`` stays light, a program that needs one part does not pay for the rest.
__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "ALIAS_PRESETS": "skillcore.policy.aliases",
        "BinaryPayload": "skillcore.tools.binary",
        "Catalog": "skillcore.model",
        "CatalogFormat": "skillcore.catalog.render",
        "CatalogOrder": "skillcore.catalog.relevance",
        "CatalogView": "skillcore.catalog.render",
        "Code": "skillcore.diagnostics",
        "ConfigError": "skillcore.runtime.settings",
        "ConfigWarning": "skillcore.runtime.settings",
        "DecisionCode": "skillcore.codes",
        "Diagnostic": "skillcore.diagnostics",
        "Ledger": "skillcore.state.ledger",
        "Invocation": "skillcore.state.invocation",
        "InvocationResult": "skillcore.tools.invoke",
        "Limits": "skillcore.limits",
        "MemoryLedger": "skillcore.state.ledger",
        "MemoryStateStore": "skillcore.state.saved",
        "MissingDependencyError": "skillcore.errors",
        "Outcome": "skillcore.state.outcomes",
        "OutcomeCode": "skillcore.codes",
        "PolicyMode": "skillcore.policy.rules",
        "PostgresStateStore": "skillcore.state.saved",
        "ProfileChoice": "skillcore.runtime.profiles",
        "ProgramOptions": "skillcore.policy.rules",
        "PromptMode": "skillcore.catalog.prompt",
        "PromptTemplate": "skillcore.catalog.prompt",
        "ReadError": "skillcore.sources.errors",
        "RefreshGate": "skillcore.state.refresh",
        "Resource": "skillcore.model",
        "ResourceContent": "skillcore.library.documents",
        "ResourceKind": "skillcore.model",
        "SQLLedger": "skillcore.state.ledger",
        "SQLiteStateStore": "skillcore.state.saved",
        "SearchHit": "skillcore.catalog.search",
        "Severity": "skillcore.diagnostics",
        "SkillConfig": "skillcore.runtime.config",
        "SkillDocument": "skillcore.model",
        "SkillLibrary": "skillcore.library.skill_library",
        "SkillLocation": "skillcore.model",
        "SkillMetadata": "skillcore.model",
        "SkillProfiles": "skillcore.runtime.profiles",
        "SkillSession": "skillcore.state.transitions",
        "SkillSource": "skillcore.sources.source",
        "SkillSourceWarning": "skillcore.errors",
        "SkillToolkit": "skillcore.tools.toolkit",
        "SkillcoreError": "skillcore.errors",
        "SourceError": "skillcore.errors",
        "SourceNotFoundError": "skillcore.errors",
        "SourceReader": "skillcore.sources.reader",
        "StateError": "skillcore.errors",
        "StateStore": "skillcore.state.saved",
        "SubagentRules": "skillcore.state.subagents",
        "SubagentScope": "skillcore.state.subagents",
        "ToolAliases": "skillcore.policy.aliases",
        "ToolDecision": "skillcore.policy.rules",
        "ToolNames": "skillcore.names",
        "ToolPolicy": "skillcore.policy.rules",
        "ToolResult": "skillcore.tools.calls",
        "UnrestrictedSkills": "skillcore.policy.rules",
        "ValidationMode": "skillcore.parse.context",
        "catalog_view": "skillcore.catalog.render",
        "backend_sources": "skillcore.sources.deepagents",
        "examples_path": "skillcore.examples",
        "file_marker": "skillcore.state.refresh",
        "load_settings": "skillcore.runtime.settings",
        "parse_invocation": "skillcore.state.invocation",
        "parse_skill_file": "skillcore.parse.frontmatter",
        "project_sources": "skillcore.sources.project",
        "register_reader": "skillcore.sources.registry",
        "relevant_catalog": "skillcore.catalog.relevance",
        "render_catalog": "skillcore.catalog.render",
        "search_skills": "skillcore.catalog.search",
        "substitute_arguments": "skillcore.state.substitution",
        "user_skills": "skillcore.state.invocation",
    },
)

__version__ = "0.1.0"
__all__ = [*__all__, "__version__"]
