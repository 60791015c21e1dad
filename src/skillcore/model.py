"""Immutable values: skill metadata, resources, documents and the merged catalog."""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Iterator, Mapping
from operator import attrgetter
from typing import Any

import attrs

from skillcore._frozen import FrozenDict, to_frozen, to_tuple
from skillcore.diagnostics import Diagnostic, Severity

try:  # the BLAKE2 module itself: ``hashlib`` would also load OpenSSL (ms of cold start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b


class ResourceKind(str, enum.Enum):
    """What a file inside a skill directory is, by the folder it lives in."""

    SCRIPT = "script"
    REFERENCE = "reference"
    ASSET = "asset"
    OTHER = "other"

    @classmethod
    def for_path(cls, rel_path: str) -> ResourceKind:
        """Classify by the first path segment (``scripts/``, ``references/``, ``assets/``)."""
        head = rel_path.split("/", 1)[0]
        return _KIND_BY_DIR.get(head, cls.OTHER)


_KIND_BY_DIR = {
    "scripts": ResourceKind.SCRIPT,
    "references": ResourceKind.REFERENCE,
    "assets": ResourceKind.ASSET,
}


@attrs.frozen
class Resource:
    """A file of a skill, by its path relative to the skill directory."""

    path: str
    kind: ResourceKind
    size: int | None = None


@attrs.frozen
class SkillLocation:
    """Where a skill lives: the source label, the skill directory inside it and a display URL."""

    source: str
    directory: str
    url: str


def _tuple_of_str(value: Any) -> tuple[str, ...]:
    if type(value) is tuple:
        # Already the right shape: the common case during discovery (a loop, not all() over
        # a generator: this runs four times per skill).
        for v in value:
            if type(v) is not str:
                break
        else:
            return value
    return tuple(str(v) for v in value)


@attrs.frozen(cache_hash=True)
class SkillMetadata:
    """Everything the frontmatter of one ``SKILL.md`` says, validated and typed."""

    name: str
    description: str
    location: SkillLocation
    license: str | None = None
    compatibility: str | None = None
    metadata: FrozenDict[str, str] = attrs.field(factory=FrozenDict, converter=to_frozen)
    allowed_tools: tuple[str, ...] | None = attrs.field(
        default=None, converter=attrs.converters.optional(_tuple_of_str)
    )
    version: str | None = None
    triggers: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    file_patterns: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    #: Rank among skills: lower numbers come first (default 0; negative ranks earlier).
    priority: int = 0
    dependencies: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)
    disable_model_invocation: bool = False
    user_invocable: bool = True
    argument_hint: str | None = None
    #: The skill's hooks in the normal form of :mod:`skillcore.parse.hooks` (event -> matcher
    #: groups); read as values by :func:`skillcore.state.hooks.skill_hooks`.
    hooks: FrozenDict[str, Any] = attrs.field(factory=FrozenDict, converter=to_frozen)
    extra: FrozenDict[str, Any] = attrs.field(factory=FrozenDict, converter=to_frozen)
    #: A cheap change marker of the file (size/mtime/etag/blob id), used by refresh.
    stamp: str = ""
    #: The section headings of the body (from the part of the file discovery reads; see
    #: ``skillcore.parse.headings``): search matches their words, weighted below the
    #: description's. Never shown to the model.
    headings: tuple[str, ...] = attrs.field(default=(), converter=_tuple_of_str)

    @property
    def declares_allowed_tools(self) -> bool:
        """True when the skill restricts tools (an empty ``allowed-tools`` list counts)."""
        return self.allowed_tools is not None

    @property
    def forked(self) -> bool:
        """True for ``context: fork``: the skill runs as the task of a subagent, with its own
        context, instead of loading into the agent that asks for it."""
        return self.extra.get("context") == "fork"

    @property
    def agent(self) -> str | None:
        """The subagent a forked skill names (``agent:``; None when it names none). A value
        that is not text is kept as its text, so it names no subagent the host has rather
        than falling back to the default one."""
        agent = self.extra.get("agent")
        return None if agent is None else str(agent).strip() or None


def _trusted_constructor(cls: type) -> Callable[..., Any]:
    """A constructor of ``cls`` taking every field positionally that sets the slots as given,
    without converters or validators.

    Only for values that already have the exact types the converters produce and were
    checked as ``__init__`` would (:func:`indexed_catalog`). Generated from ``attrs.fields``
    so it follows the class; ``tests/core/library/test_cold_load_paths.py`` holds the result
    equal to ``__init__``'s.
    """
    names = [a.name for a in attrs.fields(cls)]
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def trusted({', '.join(names)}):", "    self = _new(_cls)"]
    for name in names:
        env[f"_set_{name}"] = cls.__dict__[name].__set__
        lines.append(f"    _set_{name}(self, {name})")
    if "_attrs_cached_hash" in cls.__dict__:
        env["_set_hash"] = cls.__dict__["_attrs_cached_hash"].__set__
        lines.append("    _set_hash(self, None)")
    lines.append("    return self")
    exec("\n".join(lines), env)  # source built above from field names only
    return env["trusted"]  # type: ignore[no-any-return]


def _defaults_constructor(cls: type, as_given: Collection[str] = ()) -> Callable[..., Any]:
    """A constructor of ``cls`` equal to ``__init__`` (same parameters, same values) that
    runs a field's converter only on a value given: a default is stored as it is, already
    converted and shared (these values are immutable).

    For the parser, which gives a few fields of twenty: ``__init__`` also converts every
    default and builds a new empty mapping for each mapping field. Generated from
    ``attrs.fields``; classes with validators or a post-init are refused (it would skip
    them). ``tests/core/parse/test_discovery_shortcuts.py`` holds it equal to ``__init__``.
    ``as_given``: fields whose given value is stored as it is, the caller giving it in the
    converted form already.
    """
    if hasattr(cls, "__attrs_post_init__"):
        raise TypeError(f"{cls.__name__} has a post-init")
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    params: list[str] = []
    body = ["    self = _new(_cls)"]
    for a in attrs.fields(cls):
        if a.validator is not None or not a.init:
            raise TypeError(f"{cls.__name__}.{a.name} has a validator or is not in __init__")
        env[f"_set_{a.name}"] = cls.__dict__[a.name].__set__
        value = a.name
        if a.default is attrs.NOTHING:
            params.append(a.name)
        else:
            default = a.default
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.factory()
            if a.converter is not None:
                converted = a.converter(default)
                if converted is not default:
                    raise TypeError(f"{cls.__name__}.{a.name}: the default is not converted")
            env[f"_d_{a.name}"] = default
            params.append(f"{a.name}=_d_{a.name}")
            if a.name in as_given:
                pass  # stored as given
            elif a.converter is to_frozen:
                # What ``to_frozen`` returns for a FrozenDict (the parser's mappings are
                # made as ones), without the call.
                env[f"_c_{a.name}"], env["_FrozenDict"] = a.converter, FrozenDict
                value = (
                    f"{a.name} if {a.name} is _d_{a.name} or type({a.name}) is _FrozenDict "
                    f"else _c_{a.name}({a.name})"
                )
            elif a.converter is not None:
                env[f"_c_{a.name}"] = a.converter
                value = f"{a.name} if {a.name} is _d_{a.name} else _c_{a.name}({a.name})"
        if a.default is attrs.NOTHING and a.converter is not None:
            env[f"_c_{a.name}"] = a.converter
            value = f"_c_{a.name}({a.name})"
        body.append(f"    _set_{a.name}(self, {value})")
    if "_attrs_cached_hash" in cls.__dict__:
        env["_set_hash"] = cls.__dict__["_attrs_cached_hash"].__set__
        body.append("    _set_hash(self, None)")
    body.append("    return self")
    exec("\n".join([f"def made({', '.join(params)}):", *body]), env)  # from field names only
    return env["made"]  # type: ignore[no-any-return]


#: ``SkillMetadata(...)`` for the parser: the same value, without converting the defaults, nor
#: the list fields, which the parser gives as tuples of text (``cap_list``,
#: ``parse_allowed_tools``): a second check of each item would find nothing to change.
#: ``tests/core/parse/test_warm_discovery_shortcuts.py`` holds the parser to it.
parsed_metadata: Callable[..., SkillMetadata] = _defaults_constructor(
    SkillMetadata, as_given=("allowed_tools", "triggers", "file_patterns", "dependencies")
)


@attrs.frozen
class SkillDocument:
    """A loaded skill: metadata, the Markdown body and the (capped) resource listing."""

    metadata: SkillMetadata
    body: str
    resources: tuple[Resource, ...] = ()
    resources_truncated: bool = False
    #: Where ``body`` starts in the text of ``SKILL.md`` (characters, without a BOM): a load
    #: cut short names the offset of the rest in the file from it.
    body_start: int = 0

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.metadata.name


def _fingerprint(skills: tuple[SkillMetadata, ...]) -> str:
    # The hash of one text of every skill's line, fed in blocks: the same digest as the whole
    # text at once, without building it (a block's text stays in the CPU cache; the whole
    # text of 100,000 skills is ~30 MB, built, encoded and hashed in three passes).
    digest = blake2b(digest_size=12)
    for start in range(0, len(skills), _FINGERPRINT_BLOCK):
        block = skills[start : start + _FINGERPRINT_BLOCK]
        text = "".join(
            [f"{s.name}\x1f{s.location.url}\x1f{s.stamp}\x1f{s.description}\x1e" for s in block]
        )
        digest.update(text.encode())
    return digest.hexdigest()


#: Skills per block of :func:`_fingerprint`.
_FINGERPRINT_BLOCK = 512


def _priority_of(skill: SkillMetadata) -> int:
    return skill.priority


_name_of = attrgetter("name")
_hidden = attrgetter("disable_model_invocation")


def _check_unique(skills: tuple[SkillMetadata, ...], index: Mapping[str, SkillMetadata]) -> None:
    if len(index) != len(skills):
        raise ValueError("catalog skill names must be unique")


def _visibility(
    skills: tuple[SkillMetadata, ...], index: Mapping[str, SkillMetadata]
) -> tuple[tuple[SkillMetadata, ...], frozenset[str]]:
    """The skills the model may see, and their names (``index``: every skill by name)."""
    if any(map(_hidden, skills)):
        visible = tuple(s for s in skills if not s.disable_model_invocation)
        return visible, frozenset(map(_name_of, visible))
    return skills, frozenset(index)  # the usual case: every skill is visible


@attrs.frozen(eq=False)
class Catalog:
    """The merged, ordered set of skills of all sources, with diagnostics and a fingerprint.

    Order is precedence order: skills of the highest-precedence (last) source first, each
    source's skills by name.
    """

    #: Names are unique (checked when the catalog is built).
    skills: tuple[SkillMetadata, ...] = attrs.field(default=(), converter=to_tuple)
    diagnostics: tuple[Diagnostic, ...] = attrs.field(default=(), converter=to_tuple)
    fingerprint: str = attrs.field()
    _index: Mapping[str, SkillMetadata] = attrs.field(init=False, eq=False, repr=False, hash=False)
    _visible: tuple[SkillMetadata, ...] = attrs.field(init=False, eq=False, repr=False, hash=False)
    _visible_names: frozenset[str] = attrs.field(init=False, eq=False, repr=False, hash=False)
    _by_priority: tuple[SkillMetadata, ...] | None = attrs.field(
        init=False, default=None, eq=False, repr=False, hash=False
    )

    @fingerprint.default
    def _default_fingerprint(self) -> str:
        return _fingerprint(self.skills)

    def __attrs_post_init__(self) -> None:
        # Few passes over the skills, each in C: a catalog of 100,000 skills is built on
        # every discovery that changes anything.
        skills = self.skills
        index = dict(zip(map(_name_of, skills), skills))
        _check_unique(skills, index)
        object.__setattr__(self, "_index", index)
        # Computed once: rendering asks for them on every model call.
        visible, visible_names = _visibility(skills, index)
        object.__setattr__(self, "_visible", visible)
        object.__setattr__(self, "_visible_names", visible_names)

    def __eq__(self, other: object) -> bool:
        # The fields attrs would compare, the fingerprint first: it tells most different
        # catalogs apart at once, where comparing the skills walks every one of them.
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Catalog)
        return self is other or (
            self.fingerprint == other.fingerprint
            and self.diagnostics == other.diagnostics
            and self.skills == other.skills
        )

    def __hash__(self) -> int:
        # Equal catalogs have equal fingerprints (a field compared by ``__eq__``): hashing it
        # spares hashing every skill (memoised rules look catalogs up on each render).
        return hash(self.fingerprint)

    def get(self, name: str) -> SkillMetadata | None:
        """The skill called ``name``, or None."""
        return self._index.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self) -> Iterator[SkillMetadata]:
        return iter(self.skills)

    def __len__(self) -> int:
        return len(self.skills)

    @property
    def names(self) -> tuple[str, ...]:
        """Skill names in precedence order."""
        return tuple(s.name for s in self.skills)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        """Diagnostics of severity ERROR."""
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def model_visible(self) -> tuple[SkillMetadata, ...]:
        """Skills the model may see and load (``disable-model-invocation`` ones excluded)."""
        return self._visible

    @property
    def by_priority(self) -> tuple[SkillMetadata, ...]:
        """:attr:`model_visible` skills in the order they fill a catalog budget: ``priority``
        ascending (lower numbers come first), then precedence order. Computed on first use."""
        ranked = self._by_priority
        if ranked is None:
            visible = self._visible
            # Most catalogs set no priority: then the order is the precedence order itself.
            ranked = (
                tuple(sorted(visible, key=_priority_of))  # stable: precedence breaks ties
                if any(s.priority for s in visible)
                else visible
            )
            object.__setattr__(self, "_by_priority", ranked)
        return ranked

    @property
    def model_visible_names(self) -> frozenset[str]:
        """Names of :attr:`model_visible` skills."""
        return self._visible_names


class _LazyFingerprint:
    """The ``fingerprint`` slot of :class:`Catalog`, hashed on its first read when the
    catalog was built without it (:func:`indexed_catalog` stores None): a start from the
    parse cache renders without ever reading it (6 ms at 10,000 skills). Reading it gives
    the value ``__init__`` would have stored; attrs (init, repr, eq, evolve, pickling)
    reads and writes the slot through this descriptor."""

    __slots__ = ("slot",)

    def __init__(self, slot: Any) -> None:
        self.slot = slot

    def __get__(self, obj: Catalog | None, owner: type | None = None) -> Any:
        if obj is None:
            return self.slot
        value = self.slot.__get__(obj, owner)
        if value is None:
            value = _fingerprint(obj.skills)
            self.slot.__set__(obj, value)
        return value

    def __set__(self, obj: Catalog, value: str) -> None:
        self.slot.__set__(obj, value)


setattr(Catalog, "fingerprint", _LazyFingerprint(Catalog.__dict__["fingerprint"]))  # noqa: B010
_trusted_catalog = _trusted_constructor(Catalog)


def indexed_catalog(
    skills: tuple[SkillMetadata, ...],
    diagnostics: tuple[Diagnostic, ...],
    index: dict[str, SkillMetadata],
) -> Catalog:
    """``Catalog(skills, diagnostics)`` for skills already indexed by name in ``index``
    (``SkillLibrary`` builds that dict while merging its sources): the same catalog, without
    a second pass to index 100,000 skills. ``index`` becomes the catalog's own."""
    _check_unique(skills, index)
    visible, visible_names = _visibility(skills, index)
    return _trusted_catalog(  # type: ignore[no-any-return]
        skills=skills,
        diagnostics=diagnostics,
        fingerprint=None,  # hashed on first read (_LazyFingerprint)
        _index=index,
        _visible=visible,
        _visible_names=visible_names,
        _by_priority=None,
    )
