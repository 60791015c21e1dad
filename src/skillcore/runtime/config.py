"""The knobs every adapter takes, in one place, so they mean the same everywhere.

Options not given explicitly come from the environment or a settings file (see
:mod:`skillcore.runtime.settings`): :meth:`SkillConfig.build` and :meth:`SkillConfig.library` apply
that rule for every adapter.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, Union

import attrs

from skillcore._frozen import FrozenDict, to_frozen, to_frozenset
from skillcore.catalog import (
    RANKERS,
    CatalogFormat,
    CatalogOrder,
    Encoding,
    PromptMode,
    PromptTemplate,
    Ranker,
    Reranker,
    SearchStyle,
    resolve_prompt_mode,
    to_template,
)
from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.model import Catalog
from skillcore.names import ToolNames
from skillcore.parse import ValidationMode
from skillcore.policy import (
    AUTO_ALIASES,
    AliasesLike,
    PolicyMode,
    ToolAliases,
    ToolPolicy,
    UnrestrictedSkills,
    framework_aliases,
    gated_registry,
    to_aliases,
)
from skillcore.runner import Isolation, RunLimits, ScriptRunner
from skillcore.runtime import settings
from skillcore.sources import SkillSource
from skillcore.state import (
    Ledger,
    MemoryLedger,
    RefreshGate,
    Restorer,
    SubagentRules,
    SubagentScope,
    TurnStore,
)
from skillcore.state.subagents import SUBAGENT_INHERIT, scoped_catalog
from skillcore.tools import (
    DEFAULT_ENUM_LIMIT,
    DEFAULT_SUGGESTIONS,
    Approve,
    SkillToolkit,
    to_isolation,
)

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


def _config_aliases(value: AliasesLike) -> ToolAliases | Literal["auto"] | None:
    return "auto" if value == AUTO_ALIASES else to_aliases(value)


def _skill_names(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """Skill names as a tuple without repeats (one name may be given as a string)."""
    names = (value,) if isinstance(value, str) else tuple(value or ())
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise TypeError(f"skill names must be non-empty strings, got {bad[0]!r:.80}")
    return tuple(dict.fromkeys(names))


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
    always_allowed_tools: frozenset[str] = attrs.field(factory=frozenset, converter=to_frozenset)
    #: Claude-style allowed-tools names -> this agent's tools: a preset name
    #: (``"deepagents"``, ``"adk"``, ``"agents_sdk"``), a mapping, None (no aliases), or
    #: ``"auto"``: the adapter's framework preset, names only (see :func:`framework_aliases`).
    tool_aliases: ToolAliases | Literal["auto"] | None = attrs.field(
        default=AUTO_ALIASES, converter=_config_aliases
    )
    #: ``"ignore"`` (default): a loaded skill without allowed-tools adds nothing and lifts
    #: nothing under RESTRICT; ``"lift"`` (lenient opt-in): it lifts RESTRICT while loaded.
    unrestricted_skills: UnrestrictedSkills = attrs.field(
        default=UnrestrictedSkills.IGNORE, converter=UnrestrictedSkills
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
    #: Deliver images and PDFs read with the resource tool as the framework's native binary
    #: part (off by default: a model without vision input can fail on an image).
    binary_resources: bool = False
    #: ``"stable"``: the catalog text stays byte-identical for a conversation (load state
    #: travels in tool replies; prompt caches keep the history); ``"dynamic"``: loaded
    #: skills first, marked ``[Loaded]``. None: stable, or dynamic with ``"relevance"``.
    prompt_mode: PromptMode | None = attrs.field(
        default=None,
        converter=attrs.converters.optional(PromptMode),
        # Refuses stable + relevance (attrs runs validators once every field is set).
        validator=lambda self, _, mode: resolve_prompt_mode(mode, self.catalog_order),
    )
    #: The text around the catalog, with placeholders such as ``{skills_list}`` (see
    #: :class:`~skillcore.PromptTemplate`); None: the default catalog text.
    system_prompt: PromptTemplate | None = attrs.field(default=None, converter=to_template)
    #: Skills loaded when a conversation starts (it has no saved state yet); the model may
    #: unload them. Names that cannot be loaded are skipped with a ``preload.skipped`` warning.
    default_skills: tuple[str, ...] = attrs.field(default=(), converter=_skill_names)
    #: Skills loaded on every turn when they are not loaded, which the model cannot unload
    #: (``PINNED``). They count against the loaded-skill limit: at most that many.
    pinned_skills: tuple[str, ...] = attrs.field(default=(), converter=_skill_names)

    def __attrs_post_init__(self) -> None:
        self.subagent_rules()  # a bad subagent scope fails here, at build time
        # Build-time error: pinned skills that cannot all be loaded at once would evict each
        # other on every turn.
        limit = self.session_limits().max_loaded
        if len(self.pinned_skills) > limit:
            raise ValueError(
                f"{len(self.pinned_skills)} pinned_skills exceed the loaded-skill limit "
                f"({limit}): pin at most {limit} skills or raise max_loaded_skills"
            )

    #: Under RESTRICT, also leave tools the policy blocks right now out of the model's tool
    #: list (calls are still checked; skill and always-allowed tools are never hidden).
    hide_blocked_tools: bool = False
    #: Check, when a skill is loaded, that the agent has the tools its allowed-tools name:
    #: the reply lists missing ones (RECOMMEND), or the load is refused with
    #: ``TOOL_NOT_AVAILABLE`` (RESTRICT). Adapters that cannot know the agent's tools skip it.
    check_tools_available: bool = False
    #: How search ranks: ``"auto"`` (BM25 blended with the semantic ranker when
    #: ``skillcore-agents[semantic]`` is installed, else BM25), ``"bm25"`` or ``"hybrid"``.
    ranker: Ranker = attrs.field(default="auto", validator=attrs.validators.in_(RANKERS))
    #: How many skills the "skills that may fit this request" note after each user message
    #: names (none when no skill is a close match); 0 turns the note off.
    suggestions: int = attrs.field(
        default=DEFAULT_SUGGESTIONS,
        validator=attrs.validators.and_(attrs.validators.instance_of(int), attrs.validators.ge(0)),
    )
    #: An encoder added beside WordLlama or replacing it in the semantic ranker (a
    #: :class:`~skillcore.catalog.embedders.Encoding`; see docs/selection.md); None: WordLlama.
    encoding: Encoding | None = None

    #: Reorders the search tool's best candidates (a second stage: any callable
    #: ``(query, candidates) -> scores``; see :func:`skillcore.catalog.rerank`). None: the
    #: first stage's order.
    reranker: Reranker | None = None
    #: How the search tool lists results: ``"full"`` (10 skills with descriptions) or
    #: ``"compact"`` (20 skills, one short line each, for the model to choose from).
    search_style: SearchStyle = attrs.field(default=SearchStyle.FULL, converter=SearchStyle)

    #: Runs code skills bring (``run_skill_script``, hooks, ``!command``; see
    #: docs/scripts.md): a :class:`~skillcore.runner.ScriptRunner`. None (the default): the
    #: tool is not offered and no skill code runs (hooks with commands are inert).
    script_runner: ScriptRunner | None = None
    #: The least isolation a run accepts; a runner that cannot give it refuses to run.
    script_isolation: Isolation = attrs.field(default=Isolation.LIMITS, converter=to_isolation)
    #: The bounds of one run (time, CPU, memory, processes, output).
    script_limits: RunLimits = attrs.field(factory=RunLimits)
    #: ``approve(skill, script, args) -> bool`` (or an awaitable of one), asked before every
    #: run; False (or an error) declines it (``SCRIPT_DECLINED``). None: no approval step
    #: (the frameworks' own human-in-the-loop can still gate the tool).
    approve_script: Approve | None = None
    #: Overrides of the interpreter table (passed to ``command_for``); None: the defaults.
    script_interpreters: Any = None
    #: Ask the user through the framework's own human-in-the-loop before every script run
    #: the policy allows: ADK tool confirmation, the Agents SDK's ``needs_approval``. (With
    #: LangChain use ``HumanInTheLoopMiddleware(interrupt_on={"run_skill_script": True})``;
    #: the dispatcher and the MCP server use ``approve_script``.)
    confirm_scripts: bool = False
    #: Skill model names (a skill's ``model:``) -> the framework's model: a mapping, or a
    #: callable returning None for a name it does not know. While a loaded skill names a
    #: model the resolver knows, adapters use it for the following model calls (see
    #: :class:`~skillcore.runtime.model_switch.ModelSwitch`); None: skills never switch it.
    model_resolver: Any = None
    #: Replace ``!`command` `` placeholders in a skill's body with the command's output when
    #: it loads (trusted sources only, through ``script_runner``, as the skill's
    #: ``allowed-tools`` allow ``Bash(<command>)``). Off by default.
    shell_preprocessing: bool = False
    #: How a subagent's skill session starts: ``"isolated"`` (no loaded skills) or
    #: ``"inherit"`` (the parent's loaded skills it may see, under the parent's
    #: restrictions). A scope in ``subagent_skills`` may say otherwise for its subagent.
    subagent_inherit: str = attrs.field(
        default="isolated", validator=attrs.validators.in_(SUBAGENT_INHERIT)
    )
    #: Per subagent name: the skills it may see (a :class:`~skillcore.SubagentScope`, or a
    #: mapping of its fields: ``allow``, ``deny``, ``inherit``).
    subagent_skills: Mapping[str, Any] = attrs.field(factory=FrozenDict, converter=to_frozen)
    #: Skills the orchestrator (the top-level agent) never sees or loads; a subagent sees
    #: one only when its ``allow`` list names it.
    hidden_skills: tuple[str, ...] = attrs.field(default=(), converter=_skill_names)

    def subagent_config(self) -> SkillConfig:
        """The options of a subagent's skill layer: these, without configured skills (a
        forked child starts as its scope says), hidden skills (its scope decides what it
        sees) or a validation mode (it shares the parent's library)."""
        return attrs.evolve(
            self, default_skills=(), pinned_skills=(), hidden_skills=(), validation_mode=None
        )

    def subagent_rules(self) -> SubagentRules:
        """The subagent rules these options describe (checked: a bad scope is a TypeError or
        ValueError here, at build time)."""
        default = self.subagent_inherit
        scopes = {
            name: {"inherit": default, **scope} if isinstance(scope, Mapping) else scope
            for name, scope in self.subagent_skills.items()
        }
        return SubagentRules(scopes, self.hidden_skills, SubagentScope(inherit=default))

    @classmethod
    def build(cls, config: SkillConfig | None = None, **options: Any) -> SkillConfig:
        """``config`` as given, or one built from keyword options (not both): how every
        adapter constructor takes its options. Options not given come from the settings
        (``SKILLCORE_*`` variables, ``skills.yaml``; see :mod:`skillcore.runtime.settings`)."""
        if config is None:
            return cls(**settings.current().config_options(options))
        if options:
            raise TypeError(
                f"pass either config= or options ({', '.join(sorted(options))}), not both"
            )
        return config

    def library(
        self,
        sources: Sources | None,
        backend: Any = None,
        thread: Callable[[], str | None] | None = None,
    ) -> SkillLibrary:
        """The library for ``sources`` (used as is when it already is one).

        ``sources`` None: the configured ones (``SKILLCORE_SOURCES``, or ``sources`` in the
        settings file); with ``enabled`` off in the settings, a library without sources: no
        catalog, no skill tools. Sources given here are explicit and win over ``enabled``
        (a warning says it is ignored). With a deepagents ``backend``, ``sources`` are paths
        in it (or ``(path, label)`` tuples) and ``thread`` names the running conversation
        (see :func:`skillcore.runtime.deepagents.backend_library`)."""
        found = settings.current()
        if sources is not None and found.get("enabled") is False:
            # Explicit code beats files and environment for every key: dropping the library
            # would also drop its pinned (restricting) skills.
            warnings.warn(
                settings.ConfigWarning(
                    f"{found.origin['enabled']}: enabled is off but ignored: the sources are "
                    "given in code, and explicit arguments win (leave sources out to use the "
                    "configured ones)"
                ),
                stacklevel=4,
            )
        if sources is None:
            if found.get("enabled") is False:
                return SkillLibrary([], cache=False)
            sources = found.get("sources")
            if sources is None:
                raise ValueError(
                    "no skill sources: pass sources, or set SKILLCORE_SOURCES (or 'sources' "
                    f"in {settings.SETTINGS_FILE} or [tool.skillcore] of pyproject.toml)"
                )
        mode = self.validation_mode or ValidationMode(found.get("validation_mode", "lenient"))
        if backend is not None:
            from skillcore.runtime.deepagents import backend_library

            if isinstance(sources, SkillLibrary):
                raise ValueError("pass paths in the backend as sources, not a SkillLibrary")
            return backend_library(
                backend,
                # Only backend paths are valid here; backend_sources refuses anything else
                # with a SourceError, entry by entry, so the wider type is passed on as is.
                sources,  # type: ignore[arg-type]
                thread=thread or (lambda: None),
                mode=mode,
            )
        if isinstance(sources, SkillLibrary):
            if self.validation_mode is not None:
                raise ValueError(
                    "validation_mode applies to sources given as paths or URLs; "
                    "pass mode= to SkillLibrary instead"
                )
            return sources
        lock = settings.lock_policy(found)
        return SkillLibrary(sources, mode=mode, cache=found.get("cache", True), lock=lock or False)

    def session_limits(self) -> Limits:
        """``limits`` if given, else the two budgets as :class:`Limits`."""
        if self.limits is not None:
            return self.limits
        return Limits(max_loaded=self.max_loaded_skills, catalog_budget=self.max_description_budget)

    def policy(
        self,
        also_allowed: Iterable[str] = (),
        gated: Iterable[str] = (),
        framework: str | None = None,
    ) -> ToolPolicy:
        """The tool policy (``also_allowed`` adds adapter-specific always-allowed tools;
        ``gated`` names the adapter's skill-gated tools; ``framework``: the adapter's alias
        preset, which ``tool_aliases="auto"`` stands for)."""
        aliases = self.tool_aliases
        return ToolPolicy(
            self.allowed_tools_policy,
            self.always_allowed_tools | set(also_allowed),
            framework_aliases(framework) if aliases == AUTO_ALIASES else aliases,
            self.unrestricted_skills,
            gated_tools=frozenset(gated),
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
            default_skills=self.default_skills,
            pinned_skills=self.pinned_skills,
            binary_resources=self.binary_resources,
            prompt_mode=self.prompt_mode,
            system_prompt=self.system_prompt,
            check_tools_available=self.check_tools_available,
            ranker=self.ranker,
            suggestions=self.suggestions,
            reranker=self.reranker,
            search_style=self.search_style,
            script_runner=self.script_runner,
            shell_preprocessing=self.shell_preprocessing,
            script_isolation=self.script_isolation,
            script_limits=self.script_limits,
            approve_script=self.approve_script,
            script_interpreters=self.script_interpreters,
            confirm_scripts=self.confirm_scripts,
            encoding=self.encoding,
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

    def touch_paths(self, paths: Iterable[str]) -> None:
        """Report the paths the work touches now (replacing the earlier report): a skill
        with ``paths:`` is offered to the model only while one of them matches its globs.
        Applies to this agent's conversations from their next model call on."""
        self.restore.touch(paths)


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
    #: Call order of the tool calls of a turn (see :class:`~skillcore.runtime.TurnStore`).
    turns: TurnStore
    #: Saved state -> session over the current catalog (see :class:`Restorer`).
    restore: Restorer

    @classmethod
    def build(
        cls,
        sources: Sources | None,
        config: SkillConfig | None = None,
        *,
        refresh: bool | float | None = None,
        also_allowed: Iterable[str] = (),
        gated: Iterable[str] = (),
        backend: Any = None,
        thread: Callable[[], str | None] | None = None,
        ledger: Ledger | None = None,
        framework: str | None = None,
        **options: Any,
    ) -> AdapterParts:
        """The parts for ``sources`` and ``config`` (or its fields as ``options``);
        ``also_allowed`` adds adapter-specific always-allowed tools; ``gated`` names the
        skill-gated tools (the adapter's ``tools=``); ``backend`` and ``thread``: see
        :meth:`SkillConfig.library`. ``refresh`` None: the configured interval
        (``SKILLCORE_REFRESH``), else once per run. ``ledger``: where workers sharing the
        saved state record each conversation's latest revision (None: this process only).
        ``framework``: the adapter's tool-alias preset (``tool_aliases="auto"``)."""
        cfg = SkillConfig.build(config, **options)
        if refresh is None:
            refresh = settings.current().get("refresh", True)
        gated = gated_registry(gated, cfg.names().all())
        library = cfg.library(sources, backend, thread)
        limits, policy, toolkit = (
            cfg.session_limits(),
            cfg.policy(also_allowed, gated, framework),
            cfg.toolkit(library),
        )
        names = toolkit.names
        if toolkit.preset and library.discovered:
            # Already discovered: unknown configured skills are reported now, at build time
            # (otherwise when the catalog is first discovered).
            toolkit.check_preset(library.catalog)
        # Skills hidden from the orchestrator are out of the catalog its sessions hold.
        view = OrchestratorCatalog(library, cfg.subagent_rules())
        restore = Restorer(view, limits, policy, names)
        gate = RefreshGate(refresh, library)  # paced by the library's scan cost
        # Earlier calls of a turn are worked out again; overlapping runs in this process are
        # noticed (pass a shared ledger to notice them across workers).
        turns = TurnStore(replay=toolkit, ledger=MemoryLedger() if ledger is None else ledger)
        return cls(cfg, library, limits, policy, toolkit, names, gate, turns, restore)

    def attach(self, adapter: AdapterAttributes) -> None:
        """Set every part as an attribute of ``adapter`` (``adapter.library``, ``.toolkit``,
        ...), the public names each adapter documents."""
        for field in attrs.fields(type(self)):
            setattr(adapter, field.name, getattr(self, field.name))


class OrchestratorCatalog:
    """The library's catalog without the skills hidden from the orchestrator (memoized per
    catalog object: the same object while the catalog is unchanged)."""

    def __init__(self, library: SkillLibrary, rules: SubagentRules) -> None:
        self.library, self.rules = library, rules
        self._last: tuple[Catalog, Catalog] | None = None

    def __call__(self) -> Catalog:
        """The orchestrator's catalog now."""
        catalog, last = self.library.catalog, self._last
        if last is not None and last[0] is catalog:
            return last[1]
        scoped = scoped_catalog(catalog, self.rules.orchestrator_keep(catalog))
        self._last = (catalog, scoped)
        return scoped


def check_toolkit_options(config: SkillConfig | None, options: Mapping[str, Any]) -> None:
    """Refuse ``config`` and keyword ``options`` given with a ready :class:`SkillToolkit`
    (the adapters that take one): they shape only a toolkit built from sources. Raises
    TypeError (caller misuse)."""
    if config is not None or options:
        raise TypeError("options apply only when sources or a SkillLibrary are given")


def with_gated_tools(base: ToolPolicy, gated: Iterable[str], names: ToolNames) -> ToolPolicy:
    """``base`` with an adapter's skill-gated tools (its ``tools=``, checked by
    :func:`~skillcore.policy.gating.gated_registry` against the skill tool ``names``) added
    to those it already gates."""
    registry = gated_registry(gated, names.all())
    return attrs.evolve(base, gated_tools=base.gated_tools | registry)
