"""The immutable ``SkillSession`` and its pure transitions (no I/O, clock or randomness).

Every transition returns a new session (or the very same one when refused) plus an outcome
whose ``code`` is stable and whose ``message`` is written for the model.
"""

from __future__ import annotations

import difflib
import enum
import functools
from collections.abc import Mapping
from typing import Any

import attrs

from skillcore.errors import StateError
from skillcore.model import Catalog, Resource, ResourceKind, SkillDocument
from skillcore.names import ToolNames
from skillcore.policy import PolicyMode, ToolDecision, ToolPolicy, decide

STATE_SCHEMA = "skillcore.session/1"


def _positive(instance: Any, attribute: attrs.Attribute[Any], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{attribute.name} must be a non-negative integer, got {value!r}")


@attrs.frozen
class Limits:
    """Budgets of a session. All are validated on construction and on ``attrs.evolve``."""

    max_loaded: int = attrs.field(default=10, validator=_positive)
    catalog_budget: int = attrs.field(default=16_000, validator=_positive)
    max_resources: int = attrs.field(default=200, validator=_positive)
    max_file_bytes: int = attrs.field(default=10 * 1024 * 1024, validator=_positive)
    max_resource_bytes: int = attrs.field(default=256 * 1024, validator=_positive)


class OutcomeCode(str, enum.Enum):
    """Stable codes of transition outcomes and tool results."""

    LOADED = "LOADED"
    UNLOADED = "UNLOADED"
    RESOURCE_READ = "RESOURCE_READ"
    SEARCH_RESULTS = "SEARCH_RESULTS"
    SKILL_NOT_FOUND = "SKILL_NOT_FOUND"
    ALREADY_LOADED = "ALREADY_LOADED"
    LOAD_LIMIT_REACHED = "LOAD_LIMIT_REACHED"
    DISABLED = "DISABLED"
    NOT_LOADED = "NOT_LOADED"
    READ_FAILED = "READ_FAILED"
    TOO_LARGE = "TOO_LARGE"
    DECODE_ERROR = "DECODE_ERROR"
    BINARY_RESOURCE = "BINARY_RESOURCE"
    RESOURCE_NOT_FOUND = "RESOURCE_NOT_FOUND"
    PATH_REJECTED = "PATH_REJECTED"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    TOOL_BLOCKED = "TOOL_BLOCKED"


#: Codes after which retrying the same call cannot succeed.
TERMINAL_CODES = frozenset(
    {
        OutcomeCode.SKILL_NOT_FOUND,
        OutcomeCode.DISABLED,
        OutcomeCode.RESOURCE_NOT_FOUND,
        OutcomeCode.PATH_REJECTED,
        OutcomeCode.BINARY_RESOURCE,
        OutcomeCode.TOO_LARGE,
        OutcomeCode.DECODE_ERROR,
        OutcomeCode.UNKNOWN_TOOL,
    }
)


@attrs.frozen
class Outcome:
    """What a transition did. ``ok`` is False for refusals and failures."""

    code: OutcomeCode
    message: str
    skill: str | None = None

    @property
    def ok(self) -> bool:
        """True for LOADED, UNLOADED, RESOURCE_READ and SEARCH_RESULTS."""
        return self.code in _OK

    @property
    def terminal(self) -> bool:
        """True when retrying the same call cannot succeed."""
        return self.code in TERMINAL_CODES


_OK = frozenset(
    {
        OutcomeCode.LOADED,
        OutcomeCode.UNLOADED,
        OutcomeCode.RESOURCE_READ,
        OutcomeCode.SEARCH_RESULTS,
    }
)


@attrs.frozen
class LoadRequest:
    """Phase one of a load accepted: the shell should read this skill's document."""

    name: str


@attrs.frozen(cache_hash=True)
class LoadedSkill:
    """A skill loaded in a session, with what the model was told about it."""

    name: str
    resources: tuple[Resource, ...] = attrs.field(default=(), converter=tuple)
    resources_truncated: bool = False
    allowed_tools: tuple[str, ...] | None = attrs.field(
        default=None, converter=attrs.converters.optional(tuple)
    )

    def to_json(self) -> dict[str, Any]:
        """JSON-native form used in session state."""
        return {
            "name": self.name,
            "resources": [[r.path, r.kind.value, r.size] for r in self.resources],
            "truncated": self.resources_truncated,
            "allowed_tools": None if self.allowed_tools is None else list(self.allowed_tools),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LoadedSkill:
        """Inverse of :meth:`to_json`; raises StateError on malformed data."""
        try:
            name = data["name"]
            if not isinstance(name, str):
                raise TypeError("name")
            resources = tuple(
                Resource(str(p), ResourceKind(k), None if s is None else int(s))
                for p, k, s in data.get("resources", ())
            )
            tools = data.get("allowed_tools")
            if tools is not None and not all(isinstance(t, str) for t in tools):
                raise TypeError("allowed_tools")
            return cls(name, resources, bool(data.get("truncated", False)), tools)
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(f"malformed loaded-skill entry {data!r}: {exc}") from exc


def _check_loaded(instance: SkillSession, attribute: attrs.Attribute[Any], value: Any) -> None:
    names = [s.name for s in value]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate loaded skills: {names}")
    if len(names) > instance.limits.max_loaded:
        raise ValueError(
            f"{len(names)} loaded skills exceed max_loaded={instance.limits.max_loaded}"
        )
    missing = [n for n in names if n not in instance.catalog]
    if missing:
        raise ValueError(f"loaded skills not in the catalog: {missing}")


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
        default=(), converter=tuple, validator=_check_loaded
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
    def slots_left(self) -> int:
        """How many more skills can be loaded."""
        return self.limits.max_loaded - len(self.loaded)

    # -- transitions -----------------------------------------------------------------------

    def begin_load(self, name: str) -> LoadRequest | Outcome:
        """Phase one of loading: a refusal, or a request for the skill's document."""
        meta = self.catalog.get(name)
        if meta is None:
            return Outcome(OutcomeCode.SKILL_NOT_FOUND, self._not_found(name), name)
        if meta.disable_model_invocation:
            return Outcome(
                OutcomeCode.DISABLED,
                f"Skill {name!r} can only be invoked by the user, not loaded by the model.",
                name,
            )
        if self.is_loaded(name):
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
        return LoadRequest(name)

    def finish_load(self, document: SkillDocument) -> tuple[SkillSession, Outcome]:
        """Phase two: add the loaded document. Re-checks phase one, so it is safe to call on
        a session that changed while the document was being read."""
        first = self.begin_load(document.name)
        if isinstance(first, Outcome):
            return self, first
        resources = document.resources[: self.limits.max_resources]
        truncated = document.resources_truncated or len(document.resources) > len(resources)
        entry = LoadedSkill(document.name, resources, truncated, document.metadata.allowed_tools)
        new = attrs.evolve(self, loaded=(*self.loaded, entry))
        return new, Outcome(OutcomeCode.LOADED, f"Loaded skill {document.name!r}.", document.name)

    def unload(self, name: str) -> tuple[SkillSession, Outcome]:
        """Remove a loaded skill (frees a slot and lifts its tool restriction)."""
        if not self.is_loaded(name):
            loaded = ", ".join(self.loaded_names) or "none"
            return self, Outcome(
                OutcomeCode.NOT_LOADED,
                f"Skill {name!r} is not loaded, so there is nothing to unload. "
                f"Loaded skills: {loaded}.",
                name,
            )
        new = attrs.evolve(self, loaded=tuple(s for s in self.loaded if s.name != name))
        return new, Outcome(
            OutcomeCode.UNLOADED,
            f"Unloaded skill {name!r}; its instructions no longer apply. "
            f"{new.slots_left} of {self.limits.max_loaded} slots are free.",
            name,
        )

    def check_tool(self, tool_name: str) -> ToolDecision:
        """Decide whether a tool call is allowed under the session's policy.

        The skill tools themselves are always allowed, so the model can always unload.
        """
        return decide(
            tool_name,
            self.policy,
            ((s.name, s.allowed_tools) for s in self.loaded),
            _skill_tool_set(self.names),
            self.names.unload,
        )

    def fail_load(self, name: str, code: OutcomeCode, detail: str) -> Outcome:
        """The outcome for a load whose document could not be read (session unchanged)."""
        return Outcome(code, f"Could not load skill {name!r}: {detail}", name)

    def with_catalog(self, catalog: Catalog) -> tuple[SkillSession, tuple[str, ...]]:
        """Rebind to a refreshed catalog; loaded skills that vanished are dropped and named."""
        if catalog is self.catalog:
            return self, ()
        kept = tuple(s for s in self.loaded if s.name in catalog)
        dropped = tuple(s.name for s in self.loaded if s.name not in catalog)
        return attrs.evolve(self, catalog=catalog, loaded=kept), dropped

    def _not_found(self, name: str) -> str:
        visible = [s.name for s in self.catalog.model_visible]
        close = difflib.get_close_matches(name, visible, n=3, cutoff=0.6)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        return (
            f"No skill named {name!r}.{hint} Call {self.names.search} with keywords to find "
            "available skills."
        )

    # -- rendering -------------------------------------------------------------------------

    def render_catalog(self, format: str | None = None, budget: int | None = None) -> str:
        """The catalog text for the system prompt (empty when there are no skills)."""
        from skillcore.render import CatalogFormat, render_catalog

        fmt = CatalogFormat(format) if format else CatalogFormat.MARKDOWN
        return render_catalog(self, fmt, self.limits.catalog_budget if budget is None else budget)

    # -- serialization ---------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """A JSON-native dict of the loaded state; the catalog is *not* included."""
        return {"schema": STATE_SCHEMA, "loaded": [s.to_json() for s in self.loaded]}

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

        With ``strict=False``, loaded skills that are no longer in the catalog (or beyond the
        limit) are dropped instead of raising :class:`StateError`.
        """
        limits = limits or Limits()
        base = cls(catalog, limits, policy or ToolPolicy(), (), names or ToolNames())
        if not state:
            return base
        if not isinstance(state, Mapping) or state.get("schema") != STATE_SCHEMA:
            raise StateError(
                f"unsupported session state (expected schema {STATE_SCHEMA!r}): {state!r:.200}"
            )
        raw = state.get("loaded", ())
        if not isinstance(raw, (list, tuple)):
            raise StateError("session state 'loaded' must be a list")
        entries = [LoadedSkill.from_json(item) for item in raw]
        if not strict:
            seen: set[str] = set()
            kept = []
            for e in entries:
                if e.name in catalog and e.name not in seen and len(kept) < limits.max_loaded:
                    kept.append(e)
                    seen.add(e.name)
            entries = kept
        try:
            return attrs.evolve(base, loaded=tuple(entries))
        except ValueError as exc:
            raise StateError(f"session state does not fit the catalog: {exc}") from exc


@functools.lru_cache(maxsize=64)
def _skill_tool_set(names: ToolNames) -> frozenset[str]:
    return frozenset(names.all())


def loaded_names_of(state: Mapping[str, Any] | None) -> list[str]:
    """Names of loaded skills in a serialized state, without needing the catalog."""
    if not state:
        return []
    return [item.get("name") for item in state.get("loaded", ()) if isinstance(item, Mapping)]


def merge_states(left: Mapping[str, Any] | None, right: Mapping[str, Any] | None) -> Any:
    """Reducer for frameworks that merge parallel state writes (LangGraph channels).

    Writes produced in the same turn carry ``turn`` and ``seq`` (from
    :class:`~skillcore.coordination.SessionCoordinator`); the highest ``seq`` of a turn holds
    every earlier change of that turn, so it wins whatever order the writes arrive in.
    Otherwise the newer write wins. Either way the result is a state some sequence of valid
    transitions produced, so the session invariants hold.
    """
    if right is None:
        return left
    if left is None:
        return right
    lt, rt = left.get("turn"), right.get("turn")
    if lt is not None and lt == rt and int(left.get("seq", 0)) > int(right.get("seq", 0)):
        return left
    return right


__all__ = [
    "STATE_SCHEMA",
    "Limits",
    "LoadRequest",
    "LoadedSkill",
    "Outcome",
    "OutcomeCode",
    "PolicyMode",
    "SkillSession",
    "ToolDecision",
    "ToolPolicy",
    "loaded_names_of",
    "merge_states",
]
