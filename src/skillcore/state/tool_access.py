"""Which tools a session allows and offers: the allowed-tools decision for a call, skill-gated
tools and what unlocks them, and the agent's tools a skill names but the agent lacks.

A mixin of :class:`~skillcore.state.transitions.SkillSession`: the policy inputs always come
from the session's current catalog, never from stored state.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from skillcore.model import Catalog, SkillMetadata
from skillcore.names import ToolNames
from skillcore.policy.rules import (
    Arguments,
    DecisionCode,
    PolicyMode,
    ToolDecision,
    ToolPattern,
    ToolPolicy,
    UnrestrictedSkills,
    decide,
    decide_script,
    names_tool,
    normalize_tool_name,
)
from skillcore.state.schema import LoadedSkill
from skillcore.texts import tool_locked_reason


class ToolAccess:
    """The tool queries of a session (see :class:`~skillcore.state.transitions.SkillSession`)."""

    __slots__ = ()

    if TYPE_CHECKING:
        # Fields of the session class this is mixed into.
        catalog: Catalog
        policy: ToolPolicy
        loaded: tuple[LoadedSkill, ...]
        names: ToolNames

    def check_tool(
        self,
        tool_name: str,
        *,
        can_unload: bool = True,
        arguments: Arguments = None,
        pinned: Collection[str] = (),
    ) -> ToolDecision:
        """Decide whether a tool call is allowed under the session's policy.

        The skill tools themselves are always allowed, so the model can always unload;
        ``can_unload=False`` (a caller without the unload tool) drops that advice.
        ``arguments`` (mapping, JSON text, or a free-form tool's
        :class:`~skillcore.policy.RawInput`; None when not seen) are checked against
        argument patterns such as ``Bash(git:*)`` on shell tools; unseen, such an entry
        does not allow the call. ``pinned``: the configured pinned skills (the reason of a
        refusal does not advise unloading while one is loaded).

        A skill-gated tool (``policy.gated_tools``) is refused (``TOOL_LOCKED``), in every
        mode, unless a loaded skill names it; then, under RESTRICT, naming it counts as an
        allowed-tools entry of that skill, and the usual rule decides.
        """
        name = normalize_tool_name(tool_name)
        if name in self.policy.gated_tools and name not in self.unlocked_tools:
            reason = tool_locked_reason(name, self.unlockers(name), self.names.load)
            return ToolDecision(False, DecisionCode.TOOL_LOCKED, reason, name)
        # With no loaded skill declaring allowed-tools nothing restricts (invariant 5): the
        # gated tools a skill without the field unlocks are not a restriction of their own.
        declares = any(self._declared_tools(s.name) is not None for s in self.loaded)
        return decide(
            name,
            self.policy,
            ((s.name, self._allowed_tools(s.name) if declares else None) for s in self.loaded),
            _skill_tool_set(self.names),
            self.names.unload if can_unload else None,
            arguments,
            pinned,
        )

    def check_script(self, skill: str, script: str, tool_name: str | None = None) -> ToolDecision:
        """Decide a run of ``script`` of loaded skill ``skill`` under the session's policy
        (see :func:`~skillcore.policy.rules.decide_script`: under RESTRICT a skill allows
        only its own scripts, with ``run_skill_script`` or ``run_skill_script(<path>)`` in
        its allowed-tools). ``tool_name``: the script tool's configured name (default the
        session's). Gated like any tool: a gated script tool no loaded skill unlocks is
        refused (``TOOL_LOCKED``) in every mode."""
        tool = tool_name or self.names.script
        name = normalize_tool_name(tool)
        if name in self.policy.gated_tools and name not in self.unlocked_tools:
            reason = tool_locked_reason(name, self.unlockers(name), self.names.load)
            return ToolDecision(False, DecisionCode.TOOL_LOCKED, reason, name)
        declares = any(self._declared_tools(s.name) is not None for s in self.loaded)
        canonical = ToolNames().script
        return decide_script(
            tool,
            skill,
            script,
            self.policy,
            ((s.name, self._allowed_tools(s.name) if declares else None) for s in self.loaded),
            frozenset({canonical, name}),
        )

    def _allowed_tools(self, name: str) -> tuple[str, ...] | None:
        # A skill's gated tools are allowed while it is loaded: it names them so they can
        # be used. A skill without allowed-tools (None) stays unrestricted under the lenient
        # unrestricted_skills="lift"; by default ("ignore") it does not lift RESTRICT, so its
        # gated tools are its entries, or it could never use the tools it unlocks.
        tools = self._declared_tools(name)
        gated = self.gated_by(name)
        if not gated:
            return tools
        if tools is None:
            ignore = self.policy.unrestricted_skills is UnrestrictedSkills.IGNORE
            return gated if ignore else None
        return (*tools, *gated)

    def _declared_tools(self, name: str) -> tuple[str, ...] | None:
        # The current catalog is the only policy input. A value that is not a tuple of
        # strings cannot be read, so it restricts to nothing (fails closed).
        meta = self.catalog.get(name)
        tools = meta.allowed_tools if meta is not None else ()
        if tools is None:
            return None
        if not isinstance(tools, tuple) or not all(isinstance(t, str) for t in tools):
            return ()
        return tools

    # -- skill-gated tools and the agent's tool list ------------------------------------------

    def gated_by(self, name: str) -> tuple[str, ...]:
        """The registered gated tools (``policy.gated_tools``) skill ``name`` unlocks while
        loaded, as its current catalog metadata names them."""
        gated = self.policy.gated_tools
        meta = self.catalog.get(name) if gated else None
        if meta is None:
            return ()
        return _gated_of(meta, gated)

    @property
    def unlocked_tools(self) -> frozenset[str]:
        """Gated tools a loaded skill unlocks (offered and callable now)."""
        if not self.policy.gated_tools:
            return frozenset()
        return frozenset(t for s in self.loaded for t in self.gated_by(s.name))

    def unlockers(self, tool_name: str) -> tuple[str, ...]:
        """The catalog's loadable skills that unlock gated tool ``tool_name``."""
        name = normalize_tool_name(tool_name)
        if name not in self.policy.gated_tools:
            return ()
        from skillcore.policy.gating import unlockers_index  # only agents with gated tools need it

        return unlockers_index(self.catalog).get(name, ())

    def offered_tools(self, tools: Iterable[str], *, hide_blocked: bool = False) -> list[str]:
        """Which of ``tools`` (the agent's tool names, in order) to show the model now.

        Gated tools are left out while no loaded skill unlocks them. ``hide_blocked``:
        under RESTRICT, tools the policy blocks by name right now are left out too (the skill
        tools and always-allowed tools never are; a tool allowed only for some arguments,
        such as ``Bash(git:*)``, stays). Hiding is cosmetic: calls are checked either way.
        """
        gated, unlocked = self.policy.gated_tools, self.unlocked_tools
        restrict = hide_blocked and self.policy.mode is PolicyMode.RESTRICT and bool(self.loaded)
        if not gated and not restrict:
            return list(tools)  # the usual case, on every model call: nothing to leave out
        patterns = self._entry_patterns() if restrict else ()
        out = []
        for tool in tools:
            name = normalize_tool_name(tool)
            if name in gated and name not in unlocked:
                continue
            if restrict and self._blocked_by_name(name, patterns):
                continue
            out.append(tool)
        return out

    def _entry_patterns(self) -> tuple[ToolPattern, ...]:
        return tuple(
            ToolPattern.parse(entry)
            for skill in self.loaded
            for entry in self._allowed_tools(skill.name) or ()
        )

    def _blocked_by_name(self, name: str, patterns: tuple[ToolPattern, ...]) -> bool:
        # An entry naming the tool allows it at least for some arguments: not hidden. Checked
        # first, since the full decision builds a reason for every blocked name.
        aliases = self.policy.aliases
        if any(names_tool(pattern, name, aliases) for pattern in patterns):
            return False
        return not self.check_tool(name).allowed

    def missing_tools(self, name: str, available: Collection[str]) -> tuple[str, ...]:
        """The allowed-tools entries of skill ``name`` that match none of ``available`` (the
        agent's tool names), directly, by wildcard or through ``policy.aliases``. The skill
        tools and registered gated tools count as available."""
        declared = self._declared_tools(name)
        if not declared:
            return ()
        have = {normalize_tool_name(t) for t in available}
        have |= _skill_tool_set(self.names) | self.policy.gated_tools
        aliases = self.policy.aliases
        missing: list[str] = []
        for entry in declared:
            pattern = ToolPattern.parse(entry)
            if any(names_tool(pattern, tool, aliases) for tool in have):
                continue
            if pattern.entry not in missing:
                missing.append(pattern.entry)
        return tuple(missing)

    def unmatched_tools(self, name: str, available: Collection[str]) -> tuple[str, ...]:
        """Under RESTRICT, the allowed-tools entries of skill ``name`` when *none* of them
        names one of ``available`` (the agent's tool names; the skill tools and gated tools
        count, as in :meth:`missing_tools`): loaded, the skill would block every tool of
        the agent but the always-allowed ones, the usual sign of Claude-style names
        (``Read``, ``Bash``) without tool aliases. Empty otherwise (also for a skill
        declaring an empty list, a deliberate lock-down)."""
        if self.policy.mode is not PolicyMode.RESTRICT:
            return ()
        declared = self._declared_tools(name)
        if not declared:
            return ()
        missing = self.missing_tools(name, available)
        entries = {ToolPattern.parse(e).entry for e in declared}
        return missing if len(missing) == len(entries) else ()


@functools.lru_cache(maxsize=4096)
def _gated_of(meta: SkillMetadata, gated: frozenset[str]) -> tuple[str, ...]:
    # Asked for every loaded skill on every tool call under RESTRICT: memoised.
    from skillcore.policy.gating import skill_gated_tools  # only agents with gated tools need it

    return tuple(t for t in skill_gated_tools(meta) if t in gated)


@functools.lru_cache(maxsize=64)
def _skill_tool_set(names: ToolNames) -> frozenset[str]:
    return frozenset(names.all())


__all__ = ["ToolAccess"]
