"""The immutable ``SkillSession`` and its pure transitions (no I/O, clock or randomness):
loading, unloading, reading resources, rebinding to a new catalog, saving and restoring; and
its queries: which tools it allows and offers (the allowed-tools decision, skill-gated tools
and what unlocks them, the agent's tools a skill names but the agent lacks; the policy inputs
always come from the current catalog, never from stored state), and which loaded skills'
instructions the model still sees (proven only by the reply to the very call recorded as
each skill's delivery, never by text a tool output could forge).

Every transition returns a new session (or the very same one when refused) plus an outcome:
a stable ``code`` and the facts behind it (:mod:`skillcore.state.outcomes`), never prose; the
outcome's ``message`` is worded in :mod:`skillcore.outcome_texts`.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from skillcore._escaping import skill_content_marker
from skillcore._frozen import to_tuple
from skillcore.codes import DecisionCode, OutcomeCode
from skillcore.errors import StateError
from skillcore.limits import Limits
from skillcore.model import Catalog, SkillDocument, SkillMetadata
from skillcore.names import ToolNames
from skillcore.outcome_texts import (
    LOAD_FAILED,
    NOT_LOADED_FOR_RESOURCE,
    NOT_LOADED_FOR_SCRIPT,
    SCRIPT_BLOCKED,
    USER_SKILL_NOT_FOUND,
    script_approval_reason,
    tool_disallowed_reason,
    tool_locked_reason,
)
from skillcore.paths import path_problem
from skillcore.policy import (
    Arguments,
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
from skillcore.policy.skill_options import touched_paths
from skillcore.state.overrides import ModelChoice, disallowed_by, model_choice, paths_hidden

if TYPE_CHECKING:
    from skillcore.state.outcomes import LoadRequest, Outcome, ResourceRequest, ScriptRequestPlan
    from skillcore.state.schema import LoadedSkill

# The outcomes and the saved state's schema are imported where a transition or the state
# needs them: a fresh session renders its catalog without either (a start from the parse
# cache imports neither).


def _check_loaded(instance: SkillSession, attribute: attrs.Attribute[Any], value: Any) -> None:
    names = [s.name for s in value]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate loaded skills: {names}")
    if len(names) > instance.limits.max_loaded:
        raise ValueError(
            f"{len(names)} loaded skills exceed max_loaded={instance.limits.max_loaded}"
        )
    if not names:
        return  # nothing to find in the catalog (a fresh session imports no schema)
    from skillcore.state.schema import loadable

    missing = [s.name for s in value if not loadable(instance.catalog, s.name, s.by_user)]
    if missing:
        raise ValueError(f"loaded skills not loadable from the catalog: {missing}")


@attrs.frozen(cache_hash=True)
class SkillSession:
    """The skill state of one agent conversation. Immutable; transitions return new sessions.

    Invariants (checked by validators on every ``attrs.evolve``): loaded skills are in the
    catalog, unique, and at most ``limits.max_loaded``.
    """

    catalog: Catalog
    limits: Limits = attrs.field(factory=Limits)
    policy: ToolPolicy = attrs.field(factory=ToolPolicy)
    loaded: tuple[LoadedSkill, ...] = attrs.field(
        default=(), converter=to_tuple, validator=_check_loaded
    )
    names: ToolNames = attrs.field(factory=ToolNames)
    #: The paths the work touches, as the host reports them (not saved with the state): a
    #: skill with ``paths:`` is offered to the model only while one matches.
    touched_paths: frozenset[str] = attrs.field(factory=frozenset, converter=touched_paths)

    # -- queries ---------------------------------------------------------------------------

    @property
    def loaded_names(self) -> tuple[str, ...]:
        """Names of loaded skills, in load order."""
        return tuple(s.name for s in self.loaded)

    def is_loaded(self, name: str) -> bool:
        """True if ``name`` is loaded."""
        return any(s.name == name for s in self.loaded)

    def loaded_skill(self, name: str) -> LoadedSkill | None:
        """The loaded entry for ``name``, or None."""
        for skill in self.loaded:
            if skill.name == name:
                return skill
        return None

    @property
    def slots_left(self) -> int:
        """How many more skills can be loaded."""
        return self.limits.max_loaded - len(self.loaded)

    # -- which tools it allows and offers (policy inputs come from the current catalog,
    # never from stored state) -------------------------------------------------------

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
        barred = self._barred(name)
        if barred is not None:
            return barred
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
        barred = self._barred(name)
        if barred is not None:
            return barred
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

    def _barred(self, name: str) -> ToolDecision | None:
        """The refusal every mode gives ``name`` before the allowed-tools rule: a gated tool
        no loaded skill unlocks (``TOOL_LOCKED``), or one a loaded skill's
        ``disallowed-tools`` removes; None when neither applies."""
        if name in self.policy.gated_tools and name not in self.unlocked_tools:
            reason = tool_locked_reason(name, self.unlockers(name), self.names.load)
            return ToolDecision(False, DecisionCode.TOOL_LOCKED, reason, name)
        return self._disallowed(name)

    def _disallowed(self, name: str) -> ToolDecision | None:
        # Skill tools are never removed: the model can always unload the skill that removes.
        if name in _skill_tool_set(self.names) and name != self.names.script:
            return None
        found = disallowed_by(self.catalog, self.loaded_names, name, self.policy.aliases)
        if found is None:
            return None
        reason = tool_disallowed_reason(name, *found)
        return ToolDecision(False, DecisionCode.TOOL_DISALLOWED, reason, name)

    @property
    def model_choice(self) -> ModelChoice:
        """The model and effort the loaded skills ask for (the last loaded skill naming one
        wins; see :func:`skillcore.state.overrides.model_choice`)."""
        return model_choice(self.catalog, self.loaded_names)

    @property
    def hidden_by_paths(self) -> frozenset[str]:
        """Skills with ``paths:`` the work touches none of (see :attr:`touched_paths`): not
        in the catalog the model sees, and refused to its load tool (the user can still
        load them)."""
        return paths_hidden(self.catalog, self.touched_paths)

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
        from skillcore.policy import unlockers_index  # only agents with gated tools need it

        return unlockers_index(self.catalog).get(name, ())

    def offered_tools(self, tools: Iterable[str], *, hide_blocked: bool = False) -> list[str]:
        """Which of ``tools`` (the agent's tool names, in order) to show the model now.

        Gated tools are left out while no loaded skill unlocks them, and tools a loaded
        skill's ``disallowed-tools`` removes are left out in every mode. ``hide_blocked``:
        under RESTRICT, tools the policy blocks by name right now are left out too (the skill
        tools and always-allowed tools never are; a tool allowed only for some arguments,
        such as ``Bash(git:*)``, stays). Hiding is cosmetic: calls are checked either way.
        """
        gated, unlocked = self.policy.gated_tools, self.unlocked_tools
        restrict = hide_blocked and self.policy.mode is PolicyMode.RESTRICT and bool(self.loaded)
        removes = self._removes_tools()
        if not gated and not restrict and not removes:
            return list(tools)  # the usual case, on every model call: nothing to leave out
        patterns = self._entry_patterns() if restrict else ()
        out = []
        for tool in tools:
            name = normalize_tool_name(tool)
            if name in gated and name not in unlocked:
                continue
            if removes and self._disallowed(name) is not None:
                continue
            if restrict and self._blocked_by_name(name, patterns):
                continue
            out.append(tool)
        return out

    def _removes_tools(self) -> bool:
        # Cheap: most skills have no extra frontmatter keys at all.
        for skill in self.loaded:
            meta = self.catalog.get(skill.name)
            if meta is not None and meta.extra:
                return True
        return False

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

    # -- which loaded skills' instructions the model still sees (proven only by the
    # reply to the very call recorded as each delivery) -------------------------------

    @property
    def deliveries(self) -> dict[str, str]:
        """``{call id: skill name}``: the recorded delivery of each loaded skill that has one
        (:attr:`LoadedSkill.delivery`), what :meth:`delivered` looks for."""
        return {s.delivery: s.name for s in self.loaded if s.delivery is not None}

    def delivered(self, replies: Iterable[tuple[str | None, object]]) -> frozenset[str]:
        """The loaded skills whose instructions the model still sees, from the tool replies
        it receives (newest first: the scan stops once all are found), each ``(call id,
        content)`` as the adapter read them from its framework's messages.

        A skill counts only through the reply to the very call recorded as its delivery,
        and only while that reply still opens with its ``<skill_content>`` (a context editor
        may have cleared it): a tool output carrying the same text under any other call id,
        or under none (``None``), proves nothing, since it is not skillcore's answer.
        Adapters pass only replies shown to answer a call of the load tool (models repeat
        call ids: another tool's reply may carry the load's), with the id the framework
        gave that call (see :class:`~skillcore.tools.reinjection.DeliveryIndex`).
        """
        wanted = self.deliveries
        if not wanted:
            return frozenset()
        by_name = {n: skill_content_marker(n) for n in wanted.values()}
        found: set[str] = set()
        for call_id, content in replies:
            owner = wanted.get(call_id) if isinstance(call_id, str) else None
            if owner is None or owner in found:
                continue
            if _head(content).startswith(by_name[owner]):
                found.add(owner)
            if len(found) == len(by_name):
                break
        return frozenset(found)

    def undelivered(self, replies: Iterable[tuple[str | None, object]]) -> frozenset[str]:
        """Loaded skills whose instructions the model does not see (see :meth:`delivered`):
        loading one sends them again (``REDELIVERED``) and adapters repeat them in the
        system prompt."""
        return frozenset(self.loaded_names) - self.delivered(replies)

    # -- transitions -----------------------------------------------------------------------

    def begin_load(
        self,
        name: str,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
        by_user: bool = False,
    ) -> LoadRequest | Outcome:
        """Phase one of loading: a refusal, or a request for the skill's document.

        ``hidden``: loaded skills whose load reply the model can no longer see (history
        trimmed, compacted or restored). Loading one delivers it again, since "already
        loaded, see above" would point the model at instructions it no longer has.
        ``available``: the agent's tool names, when the adapter knows them (None skips the
        check). Under RESTRICT a skill whose allowed-tools name tools the agent lacks is
        refused (``TOOL_NOT_AVAILABLE``): loaded, it would block the work it describes.
        Under RECOMMEND the load goes ahead and its reply names them (see
        :meth:`missing_tools`).
        ``by_user``: the user's own invocation (``/name``) asks, under the user's rules
        (:meth:`user_refusal`); a skill already loaded is delivered again. A skill with
        ``paths:`` loads for the user (or the configuration) whatever the work touches."""
        from skillcore.state.outcomes import LoadRequest, Outcome

        refused = self.user_refusal(name) if by_user else self._unusable(name)
        if refused is not None:
            return refused
        if not by_user and not self.is_loaded(name) and name in self.hidden_by_paths:
            return Outcome(OutcomeCode.PATHS_NOT_TOUCHED, name)
        if self.is_loaded(name):
            if name in hidden or by_user:
                return LoadRequest(name, redeliver=True, by_user=by_user)
            return Outcome(OutcomeCode.ALREADY_LOADED, name)
        if self.slots_left <= 0:
            facts = {
                "loaded": self.loaded_names,
                "max_loaded": self.limits.max_loaded,
                "unload_tool": self.names.unload,
            }
            return Outcome(OutcomeCode.LOAD_LIMIT_REACHED, name, facts)
        have = None if available is None else frozenset(available)
        if have is not None and self.policy.mode is PolicyMode.RESTRICT:
            missing = self.missing_tools(name, have)
            if missing:
                return Outcome(OutcomeCode.TOOL_NOT_AVAILABLE, name, {"missing": missing})
        return LoadRequest(name, available=have, by_user=by_user)

    def finish_load(
        self,
        document: SkillDocument,
        *,
        redeliver: bool = False,
        available: Collection[str] | None = None,
        call_id: str | None = None,
        by_user: bool = False,
    ) -> tuple[SkillSession, Outcome]:
        """Phase two: add the loaded document. Re-checks phase one, so it is safe to call on
        a session that changed while the document was being read. ``redeliver``: phase one
        found the skill loaded but out of the model's sight; if it still is loaded, the
        outcome is ``REDELIVERED`` and only the delivery record changes. ``available``: as
        for :meth:`begin_load`. ``call_id``: the id of the tool call being answered, recorded
        as the skill's delivery (:attr:`LoadedSkill.delivery`). ``by_user``: as for
        :meth:`begin_load`; the entry records it (:attr:`LoadedSkill.by_user`)."""
        from skillcore.state.outcomes import Outcome
        from skillcore.state.schema import LoadedSkill, delivery_id

        first = self.begin_load(
            document.name,
            hidden=(document.name,) if redeliver else (),
            available=available,
            by_user=by_user,
        )
        if isinstance(first, Outcome):
            return self, first
        call_id = delivery_id(call_id)
        if first.redeliver:
            outcome = Outcome(OutcomeCode.REDELIVERED, document.name)
            if call_id is None:
                return self, outcome
            loaded = tuple(
                attrs.evolve(s, delivery=call_id) if s.name == document.name else s
                for s in self.loaded
            )
            return attrs.evolve(self, loaded=loaded), outcome
        resources = document.resources[: self.limits.max_resources]
        truncated = document.resources_truncated or len(document.resources) > len(resources)
        entry = LoadedSkill(document.name, resources, truncated, call_id, by_user=by_user)
        new = attrs.evolve(self, loaded=(*self.loaded, entry))
        return new, Outcome(OutcomeCode.LOADED, document.name)

    def unload(self, name: str, *, pinned: Collection[str] = ()) -> tuple[SkillSession, Outcome]:
        """Remove a loaded skill (frees a slot and lifts its tool restriction). ``pinned``:
        the skills configured to stay loaded (``SkillConfig.pinned_skills``); unloading one
        is refused as ``PINNED``."""
        from skillcore.state.outcomes import Outcome

        if name in pinned and self.is_loaded(name):
            return self, Outcome(OutcomeCode.PINNED, name)
        if not self.is_loaded(name):
            return self, Outcome(OutcomeCode.NOT_LOADED, name, {"loaded": self.loaded_names})
        new = attrs.evolve(self, loaded=tuple(s for s in self.loaded if s.name != name))
        still = new.unlocked_tools
        locked = tuple(t for t in self.gated_by(name) if t not in still)
        facts = {"slots_free": new.slots_left, "max_loaded": self.limits.max_loaded}
        return new, Outcome(OutcomeCode.UNLOADED, name, {**facts, "locked": locked})

    def to_ensure(self, names: Iterable[str]) -> tuple[str, ...]:
        """Of ``names``, the skills :meth:`ensure_loaded` would add (in the catalog, loadable,
        not loaded yet; once each, in order): the documents the shell should read."""
        from skillcore.state.schema import loadable

        out: list[str] = []
        for name in names:
            if name not in out and loadable(self.catalog, name) and not self.is_loaded(name):
                out.append(name)
        return tuple(out)

    def ensure_loaded(
        self,
        names: Iterable[str],
        documents: Mapping[str, SkillDocument],
        *,
        pinned: Collection[str] = (),
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        """Load each of ``names`` that is not loaded yet, in order: how configured skills
        (``default_skills``, ``pinned_skills``) enter a conversation at turn start.

        ``documents``: the documents read for :meth:`to_ensure`'s names (a name without one
        is ``READ_FAILED``). The model's load rules apply (unknown, ``disable-model-invocation``
        and over-limit names are refused, one outcome each), except that a skill in
        ``pinned`` is never refused for lack of a slot: the earliest loaded skill that is not
        pinned is unloaded to make room (an ``UNLOADED`` outcome), so afterwards every
        loadable, readable pinned skill is loaded (at most ``max_loaded`` may be pinned).
        """
        from skillcore.state.outcomes import Outcome

        session, outcomes, seen = self, list[Outcome](), set[str]()
        for name in names:
            if name in seen:
                continue
            seen.add(name)
            refused = session._unusable(name)
            if refused is not None:
                outcomes.append(refused)
                continue
            if session.is_loaded(name):
                continue
            document = documents.get(name)
            if document is None or document.name != name:
                outcomes.append(session.fail_load(name, OutcomeCode.READ_FAILED, None))
                continue
            if session.slots_left <= 0 and name in pinned:
                evict = next((s.name for s in session.loaded if s.name not in pinned), None)
                if evict is not None:
                    session, out = session.unload(evict)
                    outcomes.append(out)
            session, out = session.finish_load(document, by_user=True)
            outcomes.append(out)
        return session, tuple(outcomes)

    def begin_resource(self, name: str, path: str) -> ResourceRequest | Outcome:
        """Phase one of reading a resource file: a refusal, or a request for the file.

        Only files of a *loaded* skill are readable, by a path relative to its directory.
        """
        from skillcore.state.outcomes import Outcome, ResourceRequest
        from skillcore.state.schema import MAX_STATE_STRING

        refused = self._unusable(name)
        if refused is not None:
            return refused
        if not self.is_loaded(name):
            facts = {"load_tool": self.names.load}
            return Outcome(OutcomeCode.NOT_LOADED, name, facts, NOT_LOADED_FOR_RESOURCE)
        problem = path_problem(path, max_chars=MAX_STATE_STRING)
        if problem is not None:
            facts = {"path": path, "problem": problem.value}
            return Outcome(OutcomeCode.PATH_REJECTED, name, facts)
        return ResourceRequest(name, path)

    def begin_script(
        self,
        name: str,
        script: str,
        *,
        trusted: bool,
        source: str = "",
        args: tuple[str, ...] = (),
        stdin: str | None = None,
        tool: str | None = None,
        approved: bool = False,
    ) -> ScriptRequestPlan | Outcome:
        """Phase one of running a skill's script: a refusal, or a plan for the shell.

        Only a *loaded* skill's files run, by a path relative to its directory under the
        same path rule as resources, only when the skill's source is ``trusted`` to run code
        (``source``: its label, for the reply), and only when the policy allows the run
        (:meth:`check_script`). Whether the path is one the listing shows, and the rest,
        is checked by the shell when it reads the files. ``tool``: the script tool's name.
        Under APPROVE a run its skill does not pre-approve runs only when ``approved`` (the
        user approved it through the framework); else it is refused (``SCRIPT_DECLINED``).
        """
        from skillcore.state.outcomes import Outcome, ScriptRequestPlan
        from skillcore.state.schema import MAX_STATE_STRING

        refused = self._unusable(name)
        if refused is not None:
            return refused
        if not self.is_loaded(name):
            facts = {"load_tool": self.names.load}
            return Outcome(OutcomeCode.NOT_LOADED, name, facts, NOT_LOADED_FOR_SCRIPT)
        problem = path_problem(script, max_chars=MAX_STATE_STRING)
        if problem is not None:
            facts = {"path": script, "problem": problem.value}
            return Outcome(OutcomeCode.PATH_REJECTED, name, facts)
        if not trusted:
            return Outcome(OutcomeCode.SCRIPT_UNTRUSTED, name, {"source": source})
        decision = self.check_script(name, script.strip(), tool)
        if not decision.allowed:
            code = OutcomeCode(decision.code.value)
            return Outcome(code, name, {"reason": decision.reason}, SCRIPT_BLOCKED)
        if decision.needs_approval and not approved:
            reason = script_approval_reason(name, script.strip())
            return Outcome(OutcomeCode.SCRIPT_DECLINED, name, {"reason": reason}, SCRIPT_BLOCKED)
        return ScriptRequestPlan(name, script.strip(), args, stdin, decision.reason)

    def fail_load(self, name: str, code: OutcomeCode, detail: str | None) -> Outcome:
        """The outcome for a load whose document could not be read (session unchanged):
        ``detail`` says why (None: it was not read)."""
        from skillcore.state.outcomes import Outcome

        return Outcome(code, name, {"detail": detail}, LOAD_FAILED)

    def with_catalog(self, catalog: Catalog) -> tuple[SkillSession, tuple[str, ...]]:
        """Rebind to a refreshed catalog; loaded skills that vanished (or are no longer
        loadable by the model) are dropped and named.

        Dropping (rather than keeping a skill whose metadata is gone) keeps the catalog the
        only policy input: sources that fail keep their last good skills, so a skill vanishes
        only when it was removed, and its rules go with it.
        """
        from skillcore.state.schema import loadable

        if catalog is self.catalog:
            return self, ()
        kept = tuple(s for s in self.loaded if loadable(catalog, s.name, s.by_user))
        dropped = tuple(s.name for s in self.loaded if not loadable(catalog, s.name, s.by_user))
        return attrs.evolve(self, catalog=catalog, loaded=kept), dropped

    def _unusable(self, name: str) -> Outcome | None:
        """The refusal of any request about ``name`` that the model cannot use: not in the
        catalog (with close names), or invocable by the user only."""
        from skillcore.state.outcomes import Outcome

        meta = self.catalog.get(name)
        if meta is None:
            # Lazy: the hint (difflib, its index) is not needed to discover and render a catalog.
            from skillcore.typos import close_names

            facts = {
                "close": tuple(close_names(self.catalog, name)),
                "search_tool": self.names.search,
            }
            return Outcome(OutcomeCode.SKILL_NOT_FOUND, name, facts)
        if meta.disable_model_invocation and not self._held_by_user(name):
            # A user-only skill the user invoked stays usable (its resources, its scripts).
            return Outcome(OutcomeCode.DISABLED, name)
        return None

    def _held_by_user(self, name: str) -> bool:
        entry = self.loaded_skill(name)
        return entry is not None and entry.by_user

    def user_refusal(self, name: str) -> Outcome | None:
        """The refusal of the user's own invocation of ``name`` (``/name``), or None.

        A skill not in the catalog, or hidden from both the model and the user
        (``disable-model-invocation`` with ``user-invocable: false``), is not found (nothing
        says it exists); one with ``user-invocable: false`` is the model's alone
        (``NOT_USER_INVOCABLE``). ``disable-model-invocation`` skills are the user's to load.
        """
        from skillcore.state.outcomes import Outcome

        meta = self.catalog.get(name)
        if meta is None or (meta.disable_model_invocation and not meta.user_invocable):
            return Outcome(OutcomeCode.SKILL_NOT_FOUND, name, None, USER_SKILL_NOT_FOUND)
        if not meta.user_invocable:
            return Outcome(OutcomeCode.NOT_USER_INVOCABLE, name)
        return None

    # -- serialization ---------------------------------------------------------------------

    def to_state(self, *, turn: str | None = None, seq: int = 0) -> dict[str, Any]:
        """The saved state: a JSON-native dict without the catalog (see :data:`STATE_SCHEMA`).

        ``turn``/``seq`` mark a write made by a call of one model turn, for
        :func:`merge_states`.
        """
        from skillcore.state.schema import STATE_SCHEMA

        state: dict[str, Any] = {
            "schema": STATE_SCHEMA,
            "loaded": [s.to_json() for s in self.loaded],
        }
        if turn is not None:
            state["turn"], state["seq"] = turn, seq
        return state

    @classmethod
    def from_state(
        cls,
        state: Mapping[str, Any] | None,
        catalog: Catalog,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        names: ToolNames | None = None,
        *,
        strict: bool = True,
        touched: frozenset[str] = frozenset(),
    ) -> SkillSession:
        """Rebuild a session from :meth:`to_state` output over ``catalog``.

        Raises only :class:`StateError` (with a short message), whatever ``state`` holds. With
        ``strict=False``, loaded skills that are no longer in the catalog (or beyond the
        limit, or repeated) are dropped instead. ``touched``: the host's
        :attr:`touched_paths` (not part of the saved state).
        """
        from skillcore.state.schema import fitting, loaded_entries

        limits = limits or Limits()
        base = cls(catalog, limits, policy or ToolPolicy(), (), names or ToolNames(), touched)
        try:
            entries = loaded_entries(state)
        except RecursionError:
            raise StateError("session state is nested too deeply") from None
        if entries is None:
            return base
        if not strict:
            entries = fitting(entries, catalog, limits.max_loaded)
        try:
            return attrs.evolve(base, loaded=tuple(entries))
        except ValueError as exc:
            raise StateError(f"session state does not fit the catalog: {str(exc)[:300]}") from None


@functools.lru_cache(maxsize=4096)
def _gated_of(meta: SkillMetadata, gated: frozenset[str]) -> tuple[str, ...]:
    # Asked for every loaded skill on every tool call under RESTRICT: memoised.
    from skillcore.policy import skill_gated_tools  # only agents with gated tools need it

    return tuple(t for t in skill_gated_tools(meta) if t in gated)


@functools.lru_cache(maxsize=64)
def _skill_tool_set(names: ToolNames) -> frozenset[str]:
    return frozenset(names.all())


def _head(content: object) -> str:
    """The text a tool reply opens with: a string, or the first text block of a content
    list (LangChain, OpenAI and Anthropic shapes); "" for anything else."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content:
        block = content[0]
        if isinstance(block, str):
            return block
        if isinstance(block, dict):
            text = block.get("text")
            return text if isinstance(text, str) else ""
        text = getattr(block, "text", None)
        return text if isinstance(text, str) else ""
    return ""


__all__ = ["LoadRequest", "Outcome", "ResourceRequest", "SkillSession"]
