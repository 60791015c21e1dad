"""Subagents and forked skills: which skills a subagent may see and start with, and the tool
rule a forked child runs under.

A skill with ``context: fork`` does not load into the agent that asks for it: its
instructions become the task of a child agent (the subagent its ``agent:`` field names),
which runs with its own context and its own skill session and answers once. The rules here
are pure values over sessions and catalogs; adapters translate them to their framework's
subagent mechanism:

- :class:`SubagentScope` says which skills one subagent may see (an allow list, a deny list)
  and whether it starts with none loaded (``"isolated"``) or with the parent's loaded skills
  (``"inherit"``, still under the parent's restrictions);
- :class:`SubagentRules` gathers the scopes and the skills hidden from the orchestrator (the
  top-level agent), which only a subagent whose allow list names them can see;
- :class:`ForkGuard` is the rule every tool call of a forked child passes on top of its own
  session: the forked skill's ``allowed-tools`` (so the child never gets a tool its skill does
  not allow under RESTRICT, whatever else it loads) and, when inheriting, the parent's session.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

import attrs

from skillcore._frozen import FrozenDict, to_frozen, to_frozenset
from skillcore.model import Catalog, SkillMetadata
from skillcore.policy import Arguments, ToolDecision
from skillcore.state.schema import LoadedSkill, loadable
from skillcore.state.transitions import SkillSession

__all__ = [
    "DEFAULT_SUBAGENT",
    "SUBAGENT_INHERIT",
    "ForkGuard",
    "SubagentRules",
    "SubagentScope",
    "fork_agent",
    "scoped_catalog",
]

#: How a subagent starts: with no loaded skills, or with the parent's (visible) ones.
SUBAGENT_INHERIT = ("isolated", "inherit")
#: The subagent a forked skill without ``agent:`` runs in (as Claude Code does).
DEFAULT_SUBAGENT = "general-purpose"


def fork_agent(meta: SkillMetadata) -> str | None:
    """The subagent ``meta`` runs in when it is a forked skill (``context: fork``), else None.
    ``agent:`` names it (text only; anything else: the default subagent)."""
    if not meta.forked:
        return None
    agent = meta.agent
    return agent if agent else DEFAULT_SUBAGENT


def _names(value: Iterable[str] | None) -> frozenset[str] | None:
    return None if value is None else to_frozenset(value)


@attrs.frozen
class SubagentScope:
    """Which skills one subagent may see and load, and how it starts.

    ``allow`` None: every skill the orchestrator sees; a set: only those (a skill hidden from
    the orchestrator is visible only when named here). ``deny`` always wins.
    """

    inherit: str = attrs.field(default="isolated", validator=attrs.validators.in_(SUBAGENT_INHERIT))
    allow: frozenset[str] | None = attrs.field(default=None, converter=_names)
    deny: frozenset[str] = attrs.field(factory=frozenset, converter=to_frozenset)

    def sees(self, name: str, hidden: Collection[str]) -> bool:
        """Whether this subagent may see ``name`` (``hidden``: the host's hidden skills)."""
        if name in self.deny:
            return False
        if self.allow is None:
            return name not in hidden
        return name in self.allow


def _scope(value: Any) -> SubagentScope:
    if isinstance(value, SubagentScope):
        return value
    if isinstance(value, Mapping):
        return SubagentScope(**value)
    raise TypeError(f"a subagent scope must be a SubagentScope or a mapping, got {value!r:.80}")


def _scopes(value: Mapping[str, Any] | None) -> FrozenDict[str, SubagentScope]:
    scopes = {str(name): _scope(scope) for name, scope in (value or {}).items()}
    return to_frozen(scopes)


def scoped_catalog(catalog: Catalog, keep: Collection[str] | None) -> Catalog:
    """``catalog`` with only the skills named in ``keep`` (None: ``catalog`` itself); the
    diagnostics stay. Rendering and loading over it know only those skills."""
    if keep is None:
        return catalog
    return Catalog(tuple(s for s in catalog.skills if s.name in keep), catalog.diagnostics)


@attrs.frozen
class SubagentRules:
    """The host's rules for subagents: one scope per subagent name (``default`` for the
    rest), the skills hidden from the orchestrator, and how subagents start by default."""

    scopes: FrozenDict[str, SubagentScope] = attrs.field(factory=FrozenDict, converter=_scopes)
    #: Skills the orchestrator never sees or loads; visible to a subagent only when its allow
    #: list names them.
    hidden: frozenset[str] = attrs.field(factory=frozenset, converter=to_frozenset)
    #: The scope of a subagent without its own.
    default: SubagentScope = attrs.field(factory=SubagentScope, converter=_scope)

    def scope(self, agent: str) -> SubagentScope:
        """The scope of subagent ``agent``."""
        return self.scopes.get(agent, self.default)

    def orchestrator_keep(self, catalog: Catalog) -> frozenset[str] | None:
        """The names the orchestrator keeps of ``catalog`` (None: all of them)."""
        if not self.hidden:
            return None
        return frozenset(n for n in catalog.names if n not in self.hidden)

    def agent_keep(self, agent: str, catalog: Catalog) -> frozenset[str]:
        """The names subagent ``agent`` keeps of ``catalog``."""
        scope = self.scope(agent)
        return frozenset(n for n in catalog.names if scope.sees(n, self.hidden))

    def child_session(self, agent: str, parent: SkillSession, catalog: Catalog) -> SkillSession:
        """Where subagent ``agent`` starts, over its own ``catalog`` (already scoped): no
        loaded skills (``isolated``), or the parent's loaded skills it may see, up to its
        limit (``inherit``; their instructions are delivered to it again, as it has none of
        the parent's history). The parent's restrictions stay on it through
        :class:`ForkGuard`."""
        start = SkillSession(catalog, parent.limits, parent.policy, (), parent.names)
        if self.scope(agent).inherit != "inherit":
            return start
        kept = [
            LoadedSkill(s.name, s.resources, s.resources_truncated, None, s.counts)
            for s in parent.loaded
            if loadable(catalog, s.name)
        ]
        return attrs.evolve(start, loaded=tuple(kept[: parent.limits.max_loaded]))


def _own_session(skill: SkillMetadata, parent: SkillSession) -> SkillSession:
    """A session with only the forked skill loaded: its ``allowed-tools`` as the only rule."""
    # A skill only users may invoke still runs forked: its rule must hold in the child.
    meta = attrs.evolve(skill, disable_model_invocation=False)
    catalog = Catalog((meta,))
    return SkillSession(
        catalog, parent.limits, parent.policy, (LoadedSkill(meta.name),), parent.names
    )


@attrs.frozen
class ForkGuard:
    """The rule of one forked run: every tool call of the child must pass its own session
    (the adapter checks it), the forked skill's ``allowed-tools`` and, when the child
    inherits, the parent's session as it was at the fork."""

    #: The forked skill.
    skill: str
    #: The subagent running it.
    agent: str
    #: A session with only the forked skill loaded.
    own: SkillSession
    #: The parent's session at the fork (``inherit``), else None.
    parent: SkillSession | None = None

    @classmethod
    def of(
        cls, skill: SkillMetadata, agent: str, parent: SkillSession, rules: SubagentRules
    ) -> ForkGuard:
        """The guard of ``skill`` forked into ``agent`` from ``parent``."""
        inherits = rules.scope(agent).inherit == "inherit"
        return cls(skill.name, agent, _own_session(skill, parent), parent if inherits else None)

    def check_tool(self, tool_name: str, *, arguments: Arguments = None) -> ToolDecision:
        """The decision of the forked skill's rule, then the parent's (first refusal wins)."""
        decision = self.own.check_tool(tool_name, arguments=arguments, pinned=(self.skill,))
        if decision.allowed and self.parent is not None:
            decision = self.parent.check_tool(tool_name, arguments=arguments, can_unload=False)
        return decision

    def check_script(self, skill: str, script: str, tool_name: str) -> ToolDecision:
        """A run of ``script`` of skill ``skill`` (loaded in the child) under the forked
        skill's rule, then the parent's: under RESTRICT a skill allows only its own scripts,
        so a forked skill that declares allowed-tools lets no script of another run."""
        decision = self.own.check_script(skill, script, tool_name)
        if decision.allowed and self.parent is not None:
            decision = self.parent.check_script(skill, script, tool_name)
        return decision
