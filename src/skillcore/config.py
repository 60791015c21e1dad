"""The knobs every adapter takes, in one place, so they mean the same everywhere."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any, Union

import attrs

from skillcore.coordination import RefreshGate, Restorer, TurnStore
from skillcore.library import SkillLibrary
from skillcore.names import ToolNames
from skillcore.parsing import ValidationMode
from skillcore.policy import (
    PolicyMode,
    ToolAliases,
    ToolPolicy,
    UnrestrictedSkills,
    to_aliases,
)
from skillcore.relevance import CatalogOrder
from skillcore.render import CatalogFormat
from skillcore.session import Limits
from skillcore.sources import SkillSource
from skillcore.tools import DEFAULT_ENUM_LIMIT, SkillToolkit

#: What adapters accept as ``sources``: a ready library, one source, or several.
Sources = Union[
    SkillLibrary,
    SkillSource,
    str,
    "os.PathLike[str]",
    Iterable[Union[SkillSource, str, "os.PathLike[str]"]],
]


def _optional_mode(value: ValidationMode | str | None) -> ValidationMode | None:
    return None if value is None else ValidationMode(value)


@attrs.frozen
class SkillConfig:
    """Adapter options with one meaning in every adapter.

    ``limits`` (a full :class:`Limits`) overrides ``max_loaded_skills`` and
    ``max_description_budget``; ``validation_mode`` applies only when sources are given as
    paths/URLs (a ready :class:`SkillLibrary` has its own mode).
    """

    max_loaded_skills: int = attrs.field(default=attrs.fields(Limits).max_loaded.default)
    max_description_budget: int = attrs.field(default=attrs.fields(Limits).catalog_budget.default)
    allowed_tools_policy: PolicyMode = attrs.field(
        default=PolicyMode.RECOMMEND, converter=PolicyMode
    )
    always_allowed_tools: frozenset[str] = attrs.field(factory=frozenset, converter=frozenset)
    #: Claude-style allowed-tools names -> this agent's tools: a preset name
    #: (``"deepagents"``, ``"adk"``, ``"agents_sdk"``), a mapping, or None (no aliases).
    tool_aliases: ToolAliases | None = attrs.field(default=None, converter=to_aliases)
    #: ``"lift"``: a loaded skill without allowed-tools lifts RESTRICT; ``"ignore"``: it
    #: does not (stricter).
    unrestricted_skills: UnrestrictedSkills = attrs.field(
        default=UnrestrictedSkills.LIFT, converter=UnrestrictedSkills
    )
    catalog_format: CatalogFormat = attrs.field(
        default=CatalogFormat.MARKDOWN, converter=CatalogFormat
    )
    validation_mode: ValidationMode | None = attrs.field(default=None, converter=_optional_mode)
    tool_name_prefix: str = ""
    include_resource_tool: bool = True
    enum_limit: int = DEFAULT_ENUM_LIMIT
    limits: Limits | None = None
    #: Measures the catalog budget: ``len`` (characters) or a token counter (``str -> int``).
    budget_counter: Callable[[str], int] = len
    #: How unloaded skills fill the catalog budget: ``"precedence"`` (the same skills for
    #: every conversation) or ``"relevance"`` (ranked for the latest user message).
    catalog_order: CatalogOrder = attrs.field(
        default=CatalogOrder.PRECEDENCE, converter=CatalogOrder
    )

    @classmethod
    def build(cls, config: SkillConfig | None = None, **options: Any) -> SkillConfig:
        """``config`` as given, or one built from keyword options (not both): how every
        adapter constructor takes its options."""
        if config is None:
            return cls(**options)
        if options:
            raise TypeError(
                f"pass either config= or options ({', '.join(sorted(options))}), not both"
            )
        return config

    def library(
        self,
        sources: Sources,
        backend: Any = None,
        thread: Callable[[], str | None] | None = None,
    ) -> SkillLibrary:
        """The library for ``sources`` (used as is when it already is one).

        With a deepagents ``backend``, ``sources`` are paths in it (or ``(path, label)``
        tuples) and ``thread`` names the running conversation (see
        :func:`skillcore.backends.deepagents.backend_library`)."""
        if backend is not None:
            from skillcore.backends.deepagents import backend_library

            if isinstance(sources, SkillLibrary):
                raise ValueError("pass paths in the backend as sources, not a SkillLibrary")
            mode = self.validation_mode or ValidationMode.LENIENT
            return backend_library(
                backend,
                sources,
                thread=thread or (lambda: None),
                mode=mode,  # type: ignore[arg-type]
            )
        if isinstance(sources, SkillLibrary):
            if self.validation_mode is not None:
                raise ValueError(
                    "validation_mode applies to sources given as paths or URLs; "
                    "pass mode= to SkillLibrary instead"
                )
            return sources
        return SkillLibrary(sources, mode=self.validation_mode or ValidationMode.LENIENT)  # type: ignore[arg-type]

    def session_limits(self) -> Limits:
        """``limits`` if given, else the two budgets as :class:`Limits`."""
        if self.limits is not None:
            return self.limits
        return Limits(max_loaded=self.max_loaded_skills, catalog_budget=self.max_description_budget)

    def policy(self, also_allowed: Iterable[str] = ()) -> ToolPolicy:
        """The tool policy (``also_allowed`` adds adapter-specific always-allowed tools)."""
        return ToolPolicy(
            self.allowed_tools_policy,
            self.always_allowed_tools | set(also_allowed),
            self.tool_aliases,
            self.unrestricted_skills,
        )

    def names(self) -> ToolNames:
        """The (prefixed) tool names."""
        return ToolNames.prefixed(self.tool_name_prefix)

    def toolkit(self, library: SkillLibrary) -> SkillToolkit:
        """A toolkit over ``library`` with these options."""
        return SkillToolkit(
            library,
            names=self.names(),
            include_resource_tool=self.include_resource_tool,
            catalog_format=self.catalog_format,
            enum_limit=self.enum_limit,
            budget_counter=self.budget_counter,
            catalog_order=self.catalog_order,
        )


class AdapterAttributes:
    """The attributes every adapter exposes, set by :meth:`AdapterParts.attach`."""

    config: SkillConfig
    library: SkillLibrary
    limits: Limits
    policy: ToolPolicy
    toolkit: SkillToolkit
    names: ToolNames
    refresh: RefreshGate
    turns: TurnStore
    restore: Restorer


@attrs.frozen
class AdapterParts:
    """What every adapter builds from its options (library, toolkit, policy, call order,
    refresh gate, state restorer), built one way."""

    config: SkillConfig
    library: SkillLibrary
    limits: Limits
    policy: ToolPolicy
    toolkit: SkillToolkit
    names: ToolNames
    #: When to re-scan the sources (see :class:`~skillcore.RefreshGate`).
    refresh: RefreshGate
    #: Call order of the tool calls of a turn (see :class:`~skillcore.TurnStore`).
    turns: TurnStore
    #: Saved state -> session over the current catalog (see :class:`Restorer`).
    restore: Restorer

    @classmethod
    def build(
        cls,
        sources: Sources,
        config: SkillConfig | None = None,
        *,
        refresh: bool | float = True,
        also_allowed: Iterable[str] = (),
        backend: Any = None,
        thread: Callable[[], str | None] | None = None,
        **options: Any,
    ) -> AdapterParts:
        """The parts for ``sources`` and ``config`` (or its fields as ``options``);
        ``also_allowed`` adds adapter-specific always-allowed tools; ``backend`` and
        ``thread``: see :meth:`SkillConfig.library`."""
        cfg = SkillConfig.build(config, **options)
        library = cfg.library(sources, backend, thread)
        limits, policy, toolkit = (
            cfg.session_limits(),
            cfg.policy(also_allowed),
            cfg.toolkit(library),
        )
        names = toolkit.names
        restore = Restorer(lambda: library.catalog, limits, policy, names)
        gate = RefreshGate(refresh, library)  # paced by the library's scan cost
        return cls(cfg, library, limits, policy, toolkit, names, gate, TurnStore(), restore)

    def attach(self, adapter: AdapterAttributes) -> None:
        """Set every part as an attribute of ``adapter`` (``adapter.library``, ``.toolkit``,
        ...), the public names each adapter documents."""
        for field in attrs.fields(type(self)):
            setattr(adapter, field.name, getattr(self, field.name))
