"""The saved form of a session: its loaded-skill entries, the state format and the bounds that
make hostile state cheap to reject. Reading state back never trusts it: entries are checked one
by one and fitted to the current catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillcore._frozen import to_tuple
from skillcore.errors import StateError
from skillcore.model import Catalog, Resource, ResourceKind

#: Bounds on serialized state, so hostile state costs little to reject.
MAX_STATE_ENTRIES = 1_000
MAX_STATE_RESOURCES = 10_000
MAX_STATE_STRING = 4_096
#: Longest tool-call id recorded as a skill's delivery (provider ids are a few dozen).
MAX_CALL_ID = 256


#: The saved state format, owned here. A JSON object::
#:
#:     {"schema": "skillcore.session/2",
#:      "loaded": [{"name": str, "counts": {kind: int, ...},
#:                  "truncated": bool, "call": str}, ...],   # "call": optional
#:      "turn": str, "seq": int,     # only on writes made by a call of a model turn:
#:      "base": [entries], "order": [call ids],        # the turn's base and skill calls
#:      "effects": {call id: {"add": [entries], "drop": [names]}}}   # (merge_states folds)
#:
#: The catalog and each skill's ``allowed-tools`` are never stored: they come from the
#: current catalog on every restore. Nor are resource listings (version 2): an entry keeps
#: how many files of each kind its skill listed, so saved state grows with the number of
#: loaded skills only, never with their listings (a token or store row stays far below its
#: cap whatever the skills hold). ``call`` (optional: states lack it and read as "not
#: delivered") is the id of the tool call whose reply last delivered the skill's
#: instructions (:attr:`LoadedSkill.delivery`), at most one per loaded skill.
STATE_SCHEMA = "skillcore.session/2"
#: Also read: version 1, whose entries hold the listing itself (``"resources": [[path, kind,
#: size|null], ...]``; read as its counts), under its two names (a development build wrote
#: the second for a while; the format id must not follow where the module lives).
_SCHEMA_ALIASES = frozenset({STATE_SCHEMA, "skillcore.session/1", "skillcore.state/1"})
#: The largest count of one kind of file an entry may claim.
_MAX_COUNT = 2**31


def _counts_of(resources: tuple[Resource, ...]) -> tuple[tuple[str, int], ...]:
    found: dict[str, int] = {}
    for r in resources:
        found[r.kind.value] = found.get(r.kind.value, 0) + 1
    return tuple(sorted(found.items()))


@attrs.frozen(cache_hash=True)
class LoadedSkill:
    """A skill loaded in a session: how many files of each kind its listing showed the model,
    whether the listing was cut, and which call delivered its instructions.

    Its ``allowed-tools`` are deliberately not here: policy inputs always come from the
    current catalog's metadata, never from stored state (a tampered or stale checkpoint must
    not be able to widen a restriction).
    """

    name: str
    #: The listing the model was shown, when this process loaded the skill (empty after a
    #: restore: listings are not saved, see :data:`STATE_SCHEMA`). Not part of equality.
    resources: tuple[Resource, ...] = attrs.field(
        default=(), converter=to_tuple, eq=False, repr=False
    )
    resources_truncated: bool = False
    #: The id of the tool call whose reply last delivered the instructions (``LOADED`` or
    #: ``REDELIVERED``), recorded when skillcore answered it; None when no reply of skillcore
    #: did (configured or requested skills, older states). Delivery is proven by this id
    #: alone, never by reply text (see :meth:`SkillSession.delivered`).
    delivery: str | None = None
    #: ``(kind, count)`` pairs of the listing, sorted by kind (saved; the listing is not).
    counts: tuple[tuple[str, int], ...] = attrs.field(converter=to_tuple)
    #: Loaded by the user's own invocation (``/name``): what lets a session hold a skill
    #: with ``disable-model-invocation`` (see :func:`loadable`). Saved as ``"user": true``.
    by_user: bool = attrs.field(default=False, kw_only=True)

    @counts.default
    def _listed(self) -> tuple[tuple[str, int], ...]:
        return _counts_of(self.resources)

    @property
    def resource_count(self) -> int:
        """How many files the listing showed."""
        return sum(n for _kind, n in self.counts)

    def to_json(self) -> dict[str, Any]:
        """JSON-native form used in session state."""
        data: dict[str, Any] = {
            "name": self.name,
            "counts": dict(self.counts),
            "truncated": self.resources_truncated,
        }
        if self.delivery is not None:
            data["call"] = self.delivery
        if self.by_user:
            data["user"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> LoadedSkill:
        """Inverse of :meth:`to_json` (and of version 1's entries, listing included); raises
        StateError (with a short message) on malformed data. Unknown keys, such as
        ``allowed_tools`` written by older versions, are ignored."""
        if not isinstance(data, Mapping):
            raise StateError(f"a loaded-skill entry must be an object, got {_kind(data)}")
        name = data.get("name")
        if not isinstance(name, str) or not name or len(name) > MAX_STATE_STRING:
            raise StateError(f"a loaded-skill entry needs a short string 'name', got {_kind(name)}")
        truncated = data.get("truncated", False)
        if not isinstance(truncated, bool):
            raise StateError(f"'truncated' of {name[:80]!r} must be a boolean")
        call = delivery_id(data.get("call"))
        by_user = data.get("user", False) is True  # anything else: not the user's (fails closed)
        if "counts" not in data:  # version 1: the listing itself
            resources = _listing_from_json(name, data.get("resources", ()))
            return cls(name, resources, truncated, call, by_user=by_user)
        counts = _counts_from_json(name, data["counts"])
        return cls(name, (), truncated, call, counts, by_user=by_user)


def _listing_from_json(name: str, raw: Any) -> tuple[Resource, ...]:
    if not isinstance(raw, (list, tuple)) or len(raw) > MAX_STATE_RESOURCES:
        raise StateError(
            f"'resources' of {name[:80]!r} must be a list of at most {MAX_STATE_RESOURCES} entries"
        )
    return tuple(_resource_from_json(name, item) for item in raw)


def _counts_from_json(name: str, raw: Any) -> tuple[tuple[str, int], ...]:
    if not isinstance(raw, Mapping) or len(raw) > len(_RESOURCE_KINDS):
        raise StateError(f"'counts' of {name[:80]!r} must be an object of resource kinds")
    for kind, n in raw.items():
        if kind not in _RESOURCE_KINDS:
            kinds = ", ".join(sorted(_RESOURCE_KINDS))
            raise StateError(f"a resource kind of {name[:80]!r} must be one of {kinds}")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 < n < _MAX_COUNT:
            raise StateError(f"a resource count of {name[:80]!r} must be a positive integer")
    return tuple(sorted(raw.items()))


def delivery_id(value: Any) -> str | None:
    """A recorded delivery id as saved; anything else (absent in older states, malformed or
    over :data:`MAX_CALL_ID` characters) reads as "not delivered", which only ever makes the
    instructions reach the model once more."""
    if isinstance(value, str) and 0 < len(value) <= MAX_CALL_ID:
        return value
    return None


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


def loadable(catalog: Catalog, name: str, by_user: bool = False) -> bool:
    """In the catalog and loadable by the model, or (``by_user``: an entry the user's own
    invocation loaded) by the user: the only skills a session can hold (so a saved state can
    never hold what neither could load)."""
    meta = catalog.get(name)
    if meta is None:
        return False
    if not meta.disable_model_invocation:
        return True
    return by_user and meta.user_invocable


def loaded_entries(state: Any) -> list[LoadedSkill] | None:
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


def fitting(entries: list[LoadedSkill], catalog: Catalog, max_loaded: int) -> list[LoadedSkill]:
    seen: set[str] = set()
    kept: list[LoadedSkill] = []
    for e in entries:
        if loadable(catalog, e.name, e.by_user) and e.name not in seen and len(kept) < max_loaded:
            kept.append(e)
            seen.add(e.name)
    return kept


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


__all__ = [
    "MAX_CALL_ID",
    "MAX_STATE_ENTRIES",
    "MAX_STATE_RESOURCES",
    "MAX_STATE_STRING",
    "STATE_SCHEMA",
    "LoadedSkill",
    "delivery_id",
    "fitting",
    "loadable",
    "loaded_entries",
    "loaded_names_of",
]
