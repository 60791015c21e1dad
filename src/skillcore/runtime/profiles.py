"""Skill profiles: several named sets of skill sources, policy and limits served by one agent,
one of them selected per run (multi-tenant agents).

Users register the profiles up front; each adapter builds its parts (library, toolkit,
policy, call order) once per profile and, on every run, hands the selector value it finds in
its runtime (LangChain ``runtime.context``, ADK session state, the Agents SDK run context, an
explicit argument) to :meth:`SkillProfiles.select`. The selection rule lives here only:

- a value equal to a registered profile name selects that profile;
- no value at all (``None``, a missing key or attribute) selects the configured ``default``
  profile, or none when there is no default;
- anything else (an unknown name, a non-string, a selector that raised) selects **no
  profile**, never the default: a forged or mistyped selection must not widen what a run sees.

"No profile" is fail-closed: the run gets an empty catalog (no skills, no skill tools, nothing
loadable) and the refusal is reported as the ``profile.refused`` event. With nothing loaded
the allowed-tools policy blocks nothing in any profile, so no profile's policy is weakened.

Load state is never carried from one profile to another: adapters with one state slot per
conversation tag the saved state with its profile (:func:`tag_state`) and
:class:`ProfileRestorer` resets a state saved under another profile (``profile.switched``);
adapters that can key state per profile (ADK) keep one key per profile.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar

import attrs

from skillcore import events
from skillcore.library import SkillLibrary
from skillcore.runtime.config import SkillConfig, Sources
from skillcore.state import Restored

__all__ = [
    "DEFAULT_CONTEXT_KEY",
    "MAX_PROFILES",
    "PROFILE_NAME",
    "PROFILE_STATE_FIELD",
    "ProfileChoice",
    "ProfileRestorer",
    "ProfileSpec",
    "ProfileStateStore",
    "SkillProfiles",
    "read_selector",
    "tag_state",
]

T = TypeVar("T")

#: What a profile name may be: it becomes part of state keys, so no separators or spaces.
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: At most this many profiles per adapter (each holds a library and its caches).
MAX_PROFILES = 1_000
#: The field of a saved session state that names the profile it was saved under.
PROFILE_STATE_FIELD = "profile"
#: Where the profiled adapters read a run's profile by default: this key (or attribute) of
#: the run context (LangChain ``context=``, the OpenAI adapters' context).
DEFAULT_CONTEXT_KEY = "skill_profile"

#: What a profile value may be: a config (over the adapter's ``sources``), sources (with the
#: adapter's config), or both as ``(sources, config)``.
ProfileSpec = SkillConfig | Sources | tuple[Sources, SkillConfig]


class _Unreadable:
    """The selector value when reading it raised (never a registered name)."""

    def __repr__(self) -> str:
        return "<unreadable selector>"


_UNREADABLE = _Unreadable()


@attrs.frozen
class ProfileChoice(Generic[T]):
    """The outcome of :meth:`SkillProfiles.select`: a registered profile, or no profile."""

    #: The selected profile's name; None when the selection was refused.
    name: str | None
    #: The selected profile's parts (an adapter's per-profile object); for a refused selection
    #: the fail-closed parts, over no skills.
    item: T
    #: Why no profile was selected (None when one was).
    refused: str | None = None

    @property
    def ok(self) -> bool:
        """True when a registered profile was selected."""
        return self.refused is None


def _split(spec: Any, sources: Sources | None, config: SkillConfig) -> tuple[Any, SkillConfig]:
    if isinstance(spec, SkillConfig):
        if sources is None:
            raise ValueError("a profile given as a SkillConfig needs the adapter's sources=")
        return sources, spec
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], SkillConfig):
        return spec[0], spec[1]
    return spec, config


class SkillProfiles(Generic[T]):
    """Named profiles, each built once by an adapter, and the per-run selection rule.

    ``profiles`` maps a name to a :data:`ProfileSpec`; ``make(name, library, config)``
    builds an adapter's per-profile object (``name`` None for the fail-closed one, over no
    skills). Profiles given as the same ``sources`` object (and validation mode) share one
    :class:`~skillcore.SkillLibrary`.
    """

    def __init__(
        self,
        profiles: Mapping[str, Any],
        make: Callable[[str | None, SkillLibrary, SkillConfig], T],
        *,
        sources: Sources | None = None,
        config: SkillConfig | None = None,
        default: str | None = None,
    ) -> None:
        base = config or SkillConfig()
        if not profiles:
            raise ValueError("profiles must name at least one profile")
        if len(profiles) > MAX_PROFILES:
            raise ValueError(f"at most {MAX_PROFILES} profiles, got {len(profiles)}")
        for name in profiles:
            if not isinstance(name, str) or not PROFILE_NAME.fullmatch(name):
                raise ValueError(
                    f"profile name {name!r} must match {PROFILE_NAME.pattern} "
                    "(letters, digits, '_', '.', '-'; at most 64)"
                )
        if default is not None and default not in profiles:
            raise ValueError(f"default profile {default!r} is not one of the profiles")
        libraries: dict[tuple[int, Any], SkillLibrary] = {}
        keep: list[Any] = []  # the sources objects keyed by id stay alive while building
        specs = {n: _split(s, sources, base) for n, s in profiles.items()}
        prefixes = {c.tool_name_prefix for _, c in specs.values()}
        if len(prefixes) > 1:
            raise ValueError(
                f"every profile must use the same tool_name_prefix, got {sorted(prefixes)}: "
                "the framework registers the skill tools once"
            )
        built: dict[str, T] = {}
        for name, (src, cfg) in specs.items():
            if isinstance(src, SkillLibrary):
                library = cfg.library(src)
            else:
                key = (id(src), cfg.validation_mode)
                keep.append(src)
                if key not in libraries:
                    libraries[key] = cfg.library(src)
                library = libraries[key]
            built[name] = make(name, library, attrs.evolve(cfg, validation_mode=None))
        self._items: dict[str, T] = built
        self.default = default
        closed_config = specs[default or next(iter(specs))][1]
        #: The fail-closed parts: the same options over no skills at all.
        self.closed: T = make(
            None, SkillLibrary([]), attrs.evolve(closed_config, validation_mode=None)
        )

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __getitem__(self, name: str) -> T:
        return self._items[name]

    def items(self) -> Iterator[tuple[str, T]]:
        """(name, parts) of every registered profile."""
        return iter(self._items.items())

    def select(self, value: object) -> ProfileChoice[T]:
        """The profile ``value`` selects (see the module docstring for the rule); never raises.

        A refused selection is reported as the ``profile.refused`` event."""
        if value is None:
            if self.default is not None:
                return ProfileChoice(self.default, self._items[self.default])
            return self._refuse("no skill profile was selected and there is no default")
        if isinstance(value, str) and value in self._items:
            return ProfileChoice(value, self._items[value])
        shown = repr(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        kind = "unknown skill profile" if isinstance(value, str) else "malformed skill profile"
        return self._refuse(f"{kind} {shown}; the run gets no skills")

    def _refuse(self, reason: str) -> ProfileChoice[T]:
        events.emit("profile.refused", {"reason": reason})
        return ProfileChoice(None, self.closed, reason)


def read_selector(context: Any, select: str | Callable[[Any], object]) -> object:
    """The selector value in a run's ``context``: ``select(context)`` for a function, else the
    key (mapping) or attribute named ``select``; None when absent. A function that raises
    gives a value no profile matches (the run fails closed)."""
    if context is None:
        return None
    try:
        if callable(select):
            return select(context)
        if isinstance(context, Mapping) or callable(getattr(context, "get", None)):
            # Mappings and mapping-like state objects (ADK's ``State`` has ``get`` only).
            return context.get(select)
        return getattr(context, select, None)
    except Exception:
        return _UNREADABLE


def tag_state(state: dict[str, Any], profile: str | None) -> dict[str, Any]:
    """``state`` (a :meth:`~skillcore.SkillSession.to_state` dict) marked with its profile."""
    state[PROFILE_STATE_FIELD] = profile
    return state


class ProfileRestorer:
    """A restorer (saved state -> :class:`~skillcore.runtime.Restored`) for one profile: a state
    saved under another profile (or untagged) restores as an empty session, reported as repaired so
    the adapter persists the reset, and as the ``profile.switched`` event."""

    def __init__(self, restore: Callable[[Any], Restored], profile: str | None) -> None:
        self._restore, self.profile = restore, profile
        # The last foreign state reported (a reference, so its id cannot be reused).
        self._reported: Any = None

    def __call__(self, state: Any) -> Restored:
        """The session saved in ``state`` if it was saved under this profile; never raises."""
        if not state or not isinstance(state, Mapping):
            return self._restore(state)
        saved = state.get(PROFILE_STATE_FIELD)
        if saved == self.profile and (saved is None or isinstance(saved, str)):
            return self._restore(state)
        before = repr(saved)[:70] if saved is None or isinstance(saved, str) else "<malformed>"
        if self._reported is not state:  # once per state object, not on every hook
            self._reported = state
            events.emit("profile.switched", {"previous": before, "current": repr(self.profile)})
        note = (
            f"the skill profile changed from {before} to {self.profile!r}: loaded skills were reset"
        )
        # The empty session over the current catalog (the wrapped restorer tracks refreshes).
        return Restored(self._restore(None).session, note)


class ProfileStateStore:
    """One profile's view of a shared :class:`~skillcore.state.saved.StateStore`: its
    keys are ``"<key>@<profile>"``, so the same conversation keeps one saved state per profile and a
    state is never restored under another profile."""

    def __init__(self, store: Any, profile: str | None) -> None:
        self.store, self.profile = store, profile

    def _key(self, key: str) -> str:
        # "@" followed by a profile name, or by nothing for the fail-closed parts.
        return f"{key}@{self.profile or ''}"

    def load(self, key: str) -> dict[str, Any] | None:
        """The state saved for ``key`` under this profile (None if there is none)."""
        return self.store.load(self._key(key))  # type: ignore[no-any-return]

    def save(self, key: str, state: dict[str, Any]) -> None:
        """Save ``key``'s state under this profile."""
        self.store.save(self._key(key), state)

    def delete(self, key: str) -> None:
        """Forget ``key``'s state under this profile."""
        self.store.delete(self._key(key))
