"""The immutable ``SkillSession`` and its pure transitions (no I/O, clock or randomness).

Every transition returns a new session (or the very same one when refused) plus an outcome
whose ``code`` is stable and whose ``message`` is written for the model.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import attrs

from skillcore import events
from skillcore._frozen import to_tuple
from skillcore._text import quoted_excerpt, single_line, skill_content_marker
from skillcore.codes import Coded, OutcomeCode
from skillcore.errors import StateError
from skillcore.limits import Limits
from skillcore.model import Catalog, Resource, ResourceKind, SkillDocument, SkillMetadata
from skillcore.names import ToolNames
from skillcore.paths import path_problem
from skillcore.policy.rules import (
    Arguments,
    DecisionCode,
    PolicyMode,
    ToolDecision,
    ToolPattern,
    ToolPolicy,
    UnrestrictedSkills,
    decide,
    names_tool,
    normalize_tool_name,
)


@attrs.frozen
class Outcome(Coded):
    """What a transition did. ``ok`` is False for refusals and failures."""

    code: OutcomeCode
    message: str
    skill: str | None = None


@attrs.frozen
class LoadRequest:
    """Phase one of a load accepted: the shell should read this skill's document."""

    name: str
    #: The skill is loaded but its instructions are gone from what the model sees: send the
    #: body again (:attr:`OutcomeCode.REDELIVERED`) instead of loading.
    redeliver: bool = False
    #: The agent's tool names, when the adapter knows them (see
    #: :meth:`SkillSession.missing_tools`); None skips the check.
    available: frozenset[str] | None = None


@attrs.frozen
class ResourceRequest:
    """Phase one of a resource read accepted: the shell should read ``path`` of ``name``."""

    name: str
    path: str


@attrs.frozen(cache_hash=True)
class LoadedSkill:
    """A skill loaded in a session, with the resource listing the model was shown.

    Its ``allowed-tools`` are deliberately not here: policy inputs always come from the
    current catalog's metadata, never from stored state (a tampered or stale checkpoint must
    not be able to widen a restriction).
    """

    name: str
    resources: tuple[Resource, ...] = attrs.field(default=(), converter=to_tuple)
    resources_truncated: bool = False
    #: The id of the tool call whose reply last delivered the instructions (``LOADED`` or
    #: ``REDELIVERED``), recorded when skillcore answered it; None when no reply of skillcore
    #: did (configured or requested skills, older states). Delivery is proven by this id
    #: alone, never by reply text (see :meth:`SkillSession.delivered`).
    delivery: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-native form used in session state."""
        data: dict[str, Any] = {
            "name": self.name,
            "resources": [[r.path, r.kind.value, r.size] for r in self.resources],
            "truncated": self.resources_truncated,
        }
        if self.delivery is not None:
            data["call"] = self.delivery
        return data

    @classmethod
    def from_json(cls, data: Any) -> LoadedSkill:
        """Inverse of :meth:`to_json`; raises StateError (with a short message) on malformed
        data. Unknown keys, such as ``allowed_tools`` written by older versions, are ignored."""
        if not isinstance(data, Mapping):
            raise StateError(f"a loaded-skill entry must be an object, got {_kind(data)}")
        name = data.get("name")
        if not isinstance(name, str) or not name or len(name) > MAX_STATE_STRING:
            raise StateError(f"a loaded-skill entry needs a short string 'name', got {_kind(name)}")
        raw = data.get("resources", ())
        if not isinstance(raw, (list, tuple)) or len(raw) > MAX_STATE_RESOURCES:
            raise StateError(
                f"'resources' of {name[:80]!r} must be a list of at most "
                f"{MAX_STATE_RESOURCES} entries"
            )
        resources = tuple(_resource_from_json(name, item) for item in raw)
        truncated = data.get("truncated", False)
        if not isinstance(truncated, bool):
            raise StateError(f"'truncated' of {name[:80]!r} must be a boolean")
        return cls(name, resources, truncated, _call_id(data.get("call")))


def _call_id(value: Any) -> str | None:
    """A recorded delivery id as saved; anything else (absent in older states, malformed or
    over :data:`MAX_CALL_ID` characters) reads as "not delivered", which only ever makes the
    instructions reach the model once more."""
    if isinstance(value, str) and 0 < len(value) <= MAX_CALL_ID:
        return value
    return None


#: Bounds on serialized state, so hostile state costs little to reject.
MAX_STATE_ENTRIES = 1_000
MAX_STATE_RESOURCES = 10_000
MAX_STATE_STRING = 4_096
#: Longest tool-call id recorded as a skill's delivery (provider ids are a few dozen).
MAX_CALL_ID = 256


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


def _kind(value: Any) -> str:
    """A bounded description of a value for error messages (never its repr)."""
    return type(value).__name__


def _resource_from_json(skill: str, item: Any) -> Resource:
    if not isinstance(item, (list, tuple)) or len(item) != 3:
        raise StateError(f"a resource of {skill[:80]!r} must be [path, kind, size]")
    path, kind, size = item
    if not isinstance(path, str) or len(path) > MAX_STATE_STRING:
        raise StateError(f"a resource path of {skill[:80]!r} must be a short string")
    if not isinstance(kind, str) or kind not in _RESOURCE_KINDS:
        kinds = ", ".join(sorted(_RESOURCE_KINDS))
        raise StateError(f"a resource kind of {skill[:80]!r} must be one of {kinds}")
    if size is not None and (
        not isinstance(size, int) or isinstance(size, bool) or not 0 <= size < 2**63
    ):
        raise StateError(f"a resource size of {skill[:80]!r} must be a non-negative integer")
    return Resource(path, ResourceKind(kind), size)


_RESOURCE_KINDS = frozenset(k.value for k in ResourceKind)


def _check_loaded(instance: SkillSession, attribute: attrs.Attribute[Any], value: Any) -> None:
    names = [s.name for s in value]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate loaded skills: {names}")
    if len(names) > instance.limits.max_loaded:
        raise ValueError(
            f"{len(names)} loaded skills exceed max_loaded={instance.limits.max_loaded}"
        )
    missing = [n for n in names if not _loadable(instance.catalog, n)]
    if missing:
        raise ValueError(f"loaded skills not loadable from the catalog: {missing}")


def _loadable(catalog: Catalog, name: str) -> bool:
    """In the catalog and loadable by the model: the only skills a session can hold (so a
    saved state can never hold what the model's own calls could not load)."""
    meta = catalog.get(name)
    return meta is not None and not meta.disable_model_invocation


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
        may have cleared it): a tool output carrying the same text under any other call id
        proves nothing, since it is not skillcore's answer. ``None`` as the id stands for a
        reply of the load tool itself whose id the framework removed from the request (ADK
        does for its own ids with models that pair calls by position): it counts for a
        skill with a recorded delivery. Adapters pass ``None`` only for replies whose tool
        name, which the framework sets from the call, is the load tool's.
        """
        wanted = self.deliveries
        if not wanted:
            return frozenset()
        by_name = {n: skill_content_marker(n) for n in wanted.values()}
        found: set[str] = set()
        for call_id, content in replies:
            if call_id is None:
                text = _head(content)
                for name, marker in by_name.items():
                    if name not in found and text.startswith(marker):
                        found.add(name)
                        break
            else:
                owner = wanted.get(call_id)
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

    @property
    def slots_left(self) -> int:
        """How many more skills can be loaded."""
        return self.limits.max_loaded - len(self.loaded)

    # -- transitions -----------------------------------------------------------------------

    def begin_load(
        self,
        name: str,
        *,
        hidden: Collection[str] = (),
        available: Collection[str] | None = None,
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
        """
        meta = self.catalog.get(name)
        if meta is None:
            return Outcome(OutcomeCode.SKILL_NOT_FOUND, self._not_found(name), name)
        if meta.disable_model_invocation:
            return Outcome(OutcomeCode.DISABLED, self._disabled(name), name)
        if self.is_loaded(name):
            if name in hidden:
                return LoadRequest(name, redeliver=True)
            return Outcome(
                OutcomeCode.ALREADY_LOADED,
                f"Skill {name!r} is already loaded; its instructions are earlier in this "
                "conversation. Follow them; there is no need to load it again.",
                name,
            )
        if self.slots_left <= 0:
            return Outcome(
                OutcomeCode.LOAD_LIMIT_REACHED,
                f"Cannot load {name!r}: {len(self.loaded)} of {self.limits.max_loaded} skills "
                f"are already loaded ({', '.join(self.loaded_names)}). Call "
                f"{self.names.unload} for a skill you no longer need to free a slot, then try "
                "again.",
                name,
            )
        have = None if available is None else frozenset(available)
        if have is not None and self.policy.mode is PolicyMode.RESTRICT:
            missing = self.missing_tools(name, have)
            if missing:
                from skillcore.tools.replies import tools_not_available_reason  # replies imports us

                return Outcome(
                    OutcomeCode.TOOL_NOT_AVAILABLE, tools_not_available_reason(name, missing), name
                )
        return LoadRequest(name, available=have)

    def finish_load(
        self,
        document: SkillDocument,
        *,
        redeliver: bool = False,
        available: Collection[str] | None = None,
        call_id: str | None = None,
    ) -> tuple[SkillSession, Outcome]:
        """Phase two: add the loaded document. Re-checks phase one, so it is safe to call on
        a session that changed while the document was being read. ``redeliver``: phase one
        found the skill loaded but out of the model's sight; if it still is loaded, the
        outcome is ``REDELIVERED`` and only the delivery record changes. ``available``: as
        for :meth:`begin_load`. ``call_id``: the id of the tool call being answered, recorded
        as the skill's delivery (:attr:`LoadedSkill.delivery`)."""
        first = self.begin_load(
            document.name, hidden=(document.name,) if redeliver else (), available=available
        )
        if isinstance(first, Outcome):
            return self, first
        call_id = _call_id(call_id)
        if first.redeliver:
            outcome = Outcome(
                OutcomeCode.REDELIVERED,
                f"Skill {document.name!r} was loaded earlier; its instructions are sent again.",
                document.name,
            )
            if call_id is None:
                return self, outcome
            loaded = tuple(
                attrs.evolve(s, delivery=call_id) if s.name == document.name else s
                for s in self.loaded
            )
            return attrs.evolve(self, loaded=loaded), outcome
        resources = document.resources[: self.limits.max_resources]
        truncated = document.resources_truncated or len(document.resources) > len(resources)
        entry = LoadedSkill(document.name, resources, truncated, call_id)
        new = attrs.evolve(self, loaded=(*self.loaded, entry))
        return new, Outcome(OutcomeCode.LOADED, f"Loaded skill {document.name!r}.", document.name)

    def unload(self, name: str, *, pinned: Collection[str] = ()) -> tuple[SkillSession, Outcome]:
        """Remove a loaded skill (frees a slot and lifts its tool restriction). ``pinned``:
        the skills configured to stay loaded (``SkillConfig.pinned_skills``); unloading one
        is refused as ``PINNED``."""
        if name in pinned and self.is_loaded(name):
            return self, Outcome(
                OutcomeCode.PINNED,
                f"Skill {name!r} is pinned: it stays loaded for the whole conversation and "
                "cannot be unloaded. Keep following its instructions.",
                name,
            )
        if not self.is_loaded(name):
            loaded = ", ".join(self.loaded_names) or "none"
            return self, Outcome(
                OutcomeCode.NOT_LOADED,
                f"Skill {name!r} is not loaded, so there is nothing to unload. "
                f"Loaded skills: {loaded}.",
                name,
            )
        new = attrs.evolve(self, loaded=tuple(s for s in self.loaded if s.name != name))
        still = new.unlocked_tools
        locked = tuple(t for t in self.gated_by(name) if t not in still)
        from skillcore.tools.replies import tools_locked_again  # replies imports this module

        return new, Outcome(
            OutcomeCode.UNLOADED,
            f"Unloaded skill {name!r}; its instructions no longer apply. "
            f"{new.slots_left} of {self.limits.max_loaded} slots are free."
            + tools_locked_again(locked),
            name,
        )

    def to_ensure(self, names: Iterable[str]) -> tuple[str, ...]:
        """Of ``names``, the skills :meth:`ensure_loaded` would add (in the catalog, loadable,
        not loaded yet; once each, in order): the documents the shell should read."""
        out: list[str] = []
        for name in names:
            if name not in out and _loadable(self.catalog, name) and not self.is_loaded(name):
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
        session, outcomes, seen = self, list[Outcome](), set[str]()
        for name in names:
            if name in seen:
                continue
            seen.add(name)
            meta = session.catalog.get(name)
            if meta is None:
                missing = session._not_found(name)
                outcomes.append(Outcome(OutcomeCode.SKILL_NOT_FOUND, missing, name))
                continue
            if meta.disable_model_invocation:
                outcomes.append(Outcome(OutcomeCode.DISABLED, session._disabled(name), name))
                continue
            if session.is_loaded(name):
                continue
            document = documents.get(name)
            if document is None or document.name != name:
                outcomes.append(
                    session.fail_load(name, OutcomeCode.READ_FAILED, "its document was not read")
                )
                continue
            if session.slots_left <= 0 and name in pinned:
                evict = next((s.name for s in session.loaded if s.name not in pinned), None)
                if evict is not None:
                    session, out = session.unload(evict)
                    outcomes.append(out)
            session, out = session.finish_load(document)
            outcomes.append(out)
        return session, tuple(outcomes)

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
            from skillcore.tools.replies import tool_locked_reason  # replies imports this module

            reason = tool_locked_reason(name, self.unlockers(name), self.names.load)
            return ToolDecision(False, DecisionCode.TOOL_LOCKED, reason, name)
        return decide(
            name,
            self.policy,
            ((s.name, self._allowed_tools(s.name)) for s in self.loaded),
            _skill_tool_set(self.names),
            self.names.unload if can_unload else None,
            arguments,
            pinned,
        )

    def _allowed_tools(self, name: str) -> tuple[str, ...] | None:
        # A skill's gated tools are allowed while it is loaded: it names them so they can
        # be used. A skill without allowed-tools (None) stays unrestricted, unless such
        # skills do not lift RESTRICT (unrestricted_skills="ignore"): then its gated tools
        # are its entries, or it could never use the tools it unlocks.
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

    def begin_resource(self, name: str, path: str) -> ResourceRequest | Outcome:
        """Phase one of reading a resource file: a refusal, or a request for the file.

        Only files of a *loaded* skill are readable, by a path relative to its directory.
        """
        meta = self.catalog.get(name)
        if meta is None:
            return Outcome(OutcomeCode.SKILL_NOT_FOUND, self._not_found(name), name)
        if meta.disable_model_invocation:
            return Outcome(OutcomeCode.DISABLED, self._disabled(name), name)
        if not self.is_loaded(name):
            return Outcome(
                OutcomeCode.NOT_LOADED,
                f"Skill {name!r} is not loaded. Call {self.names.load} for it first; its "
                "reply lists the files you can read.",
                name,
            )
        problem = _path_problem(path)
        if problem is not None:
            return Outcome(
                OutcomeCode.PATH_REJECTED,
                f"Cannot read {quoted_excerpt(path)} of skill {name!r}: {problem}. Do not retry "
                "this path; give one relative to the skill directory, as listed when the skill was "
                "loaded.",
                name,
            )
        return ResourceRequest(name, path)

    def fail_load(self, name: str, code: OutcomeCode, detail: str) -> Outcome:
        """The outcome for a load whose document could not be read (session unchanged)."""
        return Outcome(code, f"Could not load skill {name!r}: {detail}", name)

    def with_catalog(self, catalog: Catalog) -> tuple[SkillSession, tuple[str, ...]]:
        """Rebind to a refreshed catalog; loaded skills that vanished (or are no longer
        loadable by the model) are dropped and named.

        Dropping (rather than keeping a skill whose metadata is gone) keeps the catalog the
        only policy input: sources that fail keep their last good skills, so a skill vanishes
        only when it was removed, and its rules go with it.
        """
        if catalog is self.catalog:
            return self, ()
        kept = tuple(s for s in self.loaded if _loadable(catalog, s.name))
        dropped = tuple(s.name for s in self.loaded if not _loadable(catalog, s.name))
        return attrs.evolve(self, catalog=catalog, loaded=kept), dropped

    @staticmethod
    def _disabled(name: str) -> str:
        return f"Skill {name!r} can only be invoked by the user, not used by the model."

    def _not_found(self, name: str) -> str:
        # Lazy: ranking (difflib, its index) is not needed to discover and render a catalog.
        from skillcore.catalog.ranking import close_names

        close = close_names(self.catalog, name)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        return (
            f"No skill named {quoted_excerpt(name)}.{hint} Call {self.names.search} with "
            "keywords to find available skills."
        )

    # -- rendering -------------------------------------------------------------------------

    def render_catalog(self, format: str | None = None, budget: int | None = None) -> str:
        """The catalog text for the system prompt (empty when there are no skills)."""
        from skillcore.catalog.render import CatalogFormat, render_catalog

        fmt = CatalogFormat(format) if format else CatalogFormat.MARKDOWN
        return render_catalog(self, fmt, self.limits.catalog_budget if budget is None else budget)

    # -- serialization ---------------------------------------------------------------------

    def to_state(self, *, turn: str | None = None, seq: int = 0) -> dict[str, Any]:
        """The saved state: a JSON-native dict without the catalog (see :data:`STATE_SCHEMA`).

        ``turn``/``seq`` mark a write made by a call of one model turn, for
        :func:`merge_states`.
        """
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
    ) -> SkillSession:
        """Rebuild a session from :meth:`to_state` output over ``catalog``.

        Raises only :class:`StateError` (with a short message), whatever ``state`` holds. With
        ``strict=False``, loaded skills that are no longer in the catalog (or beyond the
        limit, or repeated) are dropped instead.
        """
        limits = limits or Limits()
        base = cls(catalog, limits, policy or ToolPolicy(), (), names or ToolNames())
        try:
            entries = _loaded_entries(state)
        except RecursionError:
            raise StateError("session state is nested too deeply") from None
        if entries is None:
            return base
        if not strict:
            entries = _fitting(entries, catalog, limits.max_loaded)
        try:
            return attrs.evolve(base, loaded=tuple(entries))
        except ValueError as exc:
            raise StateError(f"session state does not fit the catalog: {str(exc)[:300]}") from None


#: The saved state format, owned here. A JSON object::
#:
#:     {"schema": "skillcore.session/1",
#:      "loaded": [{"name": str, "resources": [[path, kind, size|null], ...],
#:                  "truncated": bool, "call": str}, ...],   # "call": optional
#:      "turn": str, "seq": int,     # only on writes made by a call of a model turn:
#:      "base": [entries], "order": [call ids],        # the turn's base and skill calls
#:      "effects": {call id: {"add": [entries], "drop": [names]}}}   # (merge_states folds)
#:
#: The catalog and each skill's ``allowed-tools`` are never stored: they come from the
#: current catalog on every restore. ``call`` (added later, optional: older states lack it and
#: read as "not delivered") is the id of the tool call whose reply last delivered the skill's
#: instructions (:attr:`LoadedSkill.delivery`), at most one per loaded skill.
STATE_SCHEMA = "skillcore.session/1"
#: Also read: the same format under the name a development build wrote for a while (the
#: format id must not follow where the module lives).
_SCHEMA_ALIASES = frozenset({STATE_SCHEMA, "skillcore.state.session/1"})


def _loaded_entries(state: Any) -> list[LoadedSkill] | None:
    """The loaded entries of a serialized state (None for no state); raises StateError."""
    if state is None or (isinstance(state, Mapping) and not state):
        return None
    if not isinstance(state, Mapping):
        raise StateError(f"session state must be an object, got {_kind(state)}")
    schema = state.get("schema")
    if not isinstance(schema, str) or schema not in _SCHEMA_ALIASES:
        shown = repr(schema[:40]) if isinstance(schema, str) else _kind(schema)
        raise StateError(f"unsupported session state schema {shown} (expected {STATE_SCHEMA!r})")
    raw = state.get("loaded", ())
    if not isinstance(raw, (list, tuple)) or len(raw) > MAX_STATE_ENTRIES:
        raise StateError(f"session state 'loaded' must be a list of at most {MAX_STATE_ENTRIES}")
    return [LoadedSkill.from_json(item) for item in raw]


def _fitting(entries: list[LoadedSkill], catalog: Catalog, max_loaded: int) -> list[LoadedSkill]:
    seen: set[str] = set()
    kept: list[LoadedSkill] = []
    for e in entries:
        if _loadable(catalog, e.name) and e.name not in seen and len(kept) < max_loaded:
            kept.append(e)
            seen.add(e.name)
    return kept


@attrs.frozen
class Restored:
    """What :func:`restore_session` made of a saved state."""

    session: SkillSession
    #: Why the state was not used as it was (None when it was): unreadable state was reset,
    #: or loaded skills that left the catalog were dropped.
    note: str | None = None

    @property
    def repaired(self) -> bool:
        """True when the saved state should be replaced by ``session.to_state()``."""
        return self.note is not None


def restore_session(
    state: Any,
    catalog: Catalog,
    limits: Limits | None = None,
    policy: ToolPolicy | None = None,
    names: ToolNames | None = None,
) -> Restored:
    """How every adapter reads saved state: never raises for what the state holds.

    Unreadable state (hand-edited, tampered, from an incompatible version) resets to an empty
    session; loaded skills no longer in the catalog are dropped. Either way the reason is
    reported (events ``state.reset`` / ``state.repaired``) and returned as ``note`` so the
    adapter can persist the repaired state and tell the model.
    """
    try:
        session = SkillSession.from_state(state, catalog, limits, policy, names, strict=False)
    except StateError as exc:
        note = f"unreadable skill state was reset to an empty session ({exc})"
        events.emit("state.reset", {"reason": str(exc)})
        return Restored(SkillSession.from_state(None, catalog, limits, policy, names), note)
    kept = set(session.loaded_names)
    stored = loaded_names_of(state)
    if stored != list(session.loaded_names):
        gone = single_line(", ".join(n for n in stored if n not in kept)[:300]) or "duplicates"
        note = f"loaded skills no longer available were dropped: {gone}"
        events.emit("state.repaired", {"dropped": gone})
        return Restored(session, note)
    return Restored(session)


@functools.lru_cache(maxsize=4096)
def _gated_of(meta: SkillMetadata, gated: frozenset[str]) -> tuple[str, ...]:
    # Asked for every loaded skill on every tool call under RESTRICT: memoised.
    from skillcore.policy.gating import skill_gated_tools  # only agents with gated tools need it

    return tuple(t for t in skill_gated_tools(meta) if t in gated)


@functools.lru_cache(maxsize=64)
def _skill_tool_set(names: ToolNames) -> frozenset[str]:
    return frozenset(names.all())


def _path_problem(path: str) -> str | None:
    """Why ``path`` cannot name a file of a skill directory (None when it can)."""
    problem = path_problem(path, max_chars=MAX_STATE_STRING)
    return None if problem is None else problem.value


def loaded_names_of(state: Any) -> list[str]:
    """Names of loaded skills in a serialized state, without needing the catalog (names of
    malformed entries are left out; never raises)."""
    if not isinstance(state, Mapping):
        return []
    raw = state.get("loaded")
    if not isinstance(raw, (list, tuple)):
        return []
    return [
        item["name"]
        for item in raw[:MAX_STATE_ENTRIES]
        if isinstance(item, Mapping) and isinstance(item.get("name"), str)
    ]


def _seq(state: Mapping[str, Any]) -> int:
    seq = state.get("seq", 0)
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else 0


def effect_between(before: SkillSession, after: SkillSession) -> dict[str, Any]:
    """The effect of one call as JSON: ``{"add": [loaded-skill entries], "drop": [names]}``
    (entries ``after`` has that ``before`` lacks or holds otherwise, e.g. a redelivery's new
    call id, and the names ``before`` has that ``after`` lacks)."""
    had = {s.name: s for s in before.loaded}
    has = {s.name for s in after.loaded}
    return {
        "add": [s.to_json() for s in after.loaded if had.get(s.name) != s],
        "drop": [s.name for s in before.loaded if s.name not in has],
    }


def apply_effect(session: SkillSession, effect: Mapping[str, Any]) -> SkillSession:
    """``session`` with an :func:`effect_between` effect applied (an added entry for a loaded
    name replaces it in place); entries that do not fit (unknown skill, over the limit,
    malformed) are left out. Never raises."""
    drop = {n for n in _effect_list(effect, "drop") if isinstance(n, str)}
    loaded = [s for s in session.loaded if s.name not in drop]
    for raw in _effect_list(effect, "add"):
        try:
            entry = LoadedSkill.from_json(raw)
        except StateError:
            continue
        at = next((i for i, s in enumerate(loaded) if s.name == entry.name), None)
        if at is None:
            loaded.append(entry)
        else:
            loaded[at] = entry
    kept = _fitting(loaded, session.catalog, session.limits.max_loaded)
    if tuple(kept) == session.loaded:
        return session
    return attrs.evolve(session, loaded=tuple(kept))


def _effect_list(effect: Any, key: str) -> list[Any]:
    value = effect.get(key) if isinstance(effect, Mapping) else None
    return list(value[:MAX_STATE_ENTRIES]) if isinstance(value, (list, tuple)) else []


def turn_state(
    session: SkillSession,
    *,
    turn: str,
    seq: int,
    base: SkillSession,
    call: str,
    effect: Mapping[str, Any],
    order: Iterable[str],
) -> dict[str, Any]:
    """The state a call of a model turn writes: ``session`` (the turn as this call saw it)
    plus ``turn``, ``seq`` (the call's position), the turn's ``base`` entries, the skill
    calls' ``order`` and this call's own effect under ``effects``, so :func:`merge_states`
    can combine the effects of all calls in order (see :data:`STATE_SCHEMA`)."""
    state = session.to_state(turn=turn, seq=seq)
    state["base"] = [s.to_json() for s in base.loaded]
    state["order"] = list(order)[:MAX_STATE_ENTRIES]
    state["effects"] = {call: dict(effect)}
    return state


def _fold(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any] | None:
    """Two writes of one turn combined: every call's effect, applied to the turn's base in
    call order (None when either lacks the fields; the older rule then applies)."""
    le, re_, base, order = (
        left.get("effects"),
        right.get("effects"),
        right.get("base"),
        right.get("order"),
    )
    if not (
        isinstance(le, Mapping)
        and isinstance(re_, Mapping)
        and isinstance(base, list)
        and isinstance(order, list)
        and len(le) + len(re_) <= MAX_STATE_ENTRIES
        and len(base) <= MAX_STATE_ENTRIES
    ):
        return None
    effects = {**le, **re_}
    loaded = [e for e in base if isinstance(e, Mapping) and isinstance(e.get("name"), str)]
    for call in order[:MAX_STATE_ENTRIES]:
        effect = effects.get(call) if isinstance(call, str) else None
        if not isinstance(effect, Mapping):
            continue
        drop = {n for n in _effect_list(effect, "drop") if isinstance(n, str)}
        loaded = [e for e in loaded if e["name"] not in drop]
        names = {e["name"] for e in loaded}
        for entry in _effect_list(effect, "add"):
            name = entry.get("name") if isinstance(entry, Mapping) else None
            if isinstance(name, str) and name not in names:
                loaded.append(entry)
                names.add(name)
    winner = right if _seq(right) >= _seq(left) else left
    return {**winner, "effects": effects, "loaded": loaded[:MAX_STATE_ENTRIES]}


def merge_states(left: Any, right: Any) -> Any:
    """Reducer for frameworks that merge parallel state writes (LangGraph channels).

    Writes of the calls of one model turn carry ``turn``, the turn's ``base``, the skill
    calls' ``order`` and each call's own effect (:func:`turn_state`): two writes of one turn
    combine into the base with every effect applied in call order, whatever order the writes
    arrive in and whichever process made them, so no effect is ever dropped (DESIGN §3.11).
    Writes without those fields keep the older rule (the higher ``seq`` of a turn wins).
    Otherwise the newer write wins. Never raises.
    """
    if right is None:
        return left
    if left is None or not isinstance(left, Mapping) or not isinstance(right, Mapping):
        return right
    lt, rt = left.get("turn"), right.get("turn")
    if isinstance(lt, str) and lt == rt:
        folded = _fold(left, right)
        if folded is not None:
            return folded
        if _seq(left) > _seq(right):
            return left
    return right


__all__ = [
    "MAX_CALL_ID",
    "MAX_STATE_ENTRIES",
    "STATE_SCHEMA",
    "Limits",
    "LoadRequest",
    "LoadedSkill",
    "Outcome",
    "OutcomeCode",
    "PolicyMode",
    "ResourceRequest",
    "Restored",
    "SkillSession",
    "ToolDecision",
    "ToolPolicy",
    "apply_effect",
    "effect_between",
    "loaded_names_of",
    "merge_states",
    "restore_session",
    "turn_state",
]
