"""Reading saved state back: repaired or reset, never raising for what it holds (every
adapter), and over the current catalog (:func:`restore_session` and its helpers)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

import attrs

from skillcore import events
from skillcore._escaping import single_line
from skillcore._recent import Recent
from skillcore.errors import StateError
from skillcore.limits import Limits
from skillcore.model import Catalog
from skillcore.names import ToolNames
from skillcore.policy import ToolPolicy
from skillcore.policy.skill_options import touched_paths
from skillcore.state.schema import loaded_names_of
from skillcore.state.transitions import SkillSession


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
    touched: frozenset[str] = frozenset(),
) -> Restored:
    """How every adapter reads saved state: never raises for what the state holds.

    Unreadable state (hand-edited, tampered, from an incompatible version) resets to an empty
    session; loaded skills no longer in the catalog are dropped. Either way the reason is
    reported (events ``state.reset`` / ``state.repaired``) and returned as ``note`` so the
    adapter can persist the repaired state and tell the model. ``touched``: the paths the
    work touches (:attr:`SkillSession.touched_paths`).
    """
    try:
        session = SkillSession.from_state(
            state, catalog, limits, policy, names, strict=False, touched=touched
        )
    except StateError as exc:
        note = f"unreadable skill state was reset to an empty session ({exc})"
        events.emit("state.reset", {"reason": str(exc)})
        empty = SkillSession.from_state(None, catalog, limits, policy, names, touched=touched)
        return Restored(empty, note)
    kept = set(session.loaded_names)
    stored = loaded_names_of(state)
    if stored != list(session.loaded_names):
        gone = single_line(", ".join(n for n in stored if n not in kept)[:300]) or "duplicates"
        note = f"loaded skills no longer available were dropped: {gone}"
        events.emit("state.repaired", {"dropped": gone})
        return Restored(session, note)
    return Restored(session)


#: State objects whose restored session a :class:`Restorer` remembers: one per conversation
#: running at once in a process (threads of a worker), so they do not evict each other.
RESTORED_KEPT = 256


class Restorer:
    """How adapters read saved state: :func:`~skillcore.runtime.restore_session` over the current
    catalog, remembering recent results. Frameworks hand every hook of a run the same state
    object until it changes (LangGraph state, ADK session state values are replaced, never
    mutated), so an identity check saves re-validating it, and a repair is reported once."""

    def __init__(
        self, catalog: Callable[[], Catalog], limits: Limits, policy: ToolPolicy, names: ToolNames
    ) -> None:
        self.catalog, self.limits, self.policy, self.names = catalog, limits, policy, names
        #: The paths the work touches, given to every session restored (see
        #: :attr:`SkillSession.touched_paths`); set through :meth:`touch`.
        self.touched: frozenset[str] = frozenset()
        # Keyed by the state object's id; each entry holds a reference to that object, so its
        # id cannot be reused while the entry lives (a hit is also checked by identity).
        self._memo: Recent[int, tuple[Any, Catalog, frozenset[str], Restored]] = Recent(
            RESTORED_KEPT
        )
        self._memo_key: tuple[Catalog | None, frozenset[str] | None] = (None, None)
        self._lock = threading.Lock()

    def touch(self, paths: Iterable[str]) -> None:
        """Report the paths the work touches now (replacing the earlier ones; bounded, see
        :func:`skillcore.policy.skill_options.touched_paths`)."""
        self.touched = touched_paths(paths)

    def __call__(self, state: Any) -> Restored:
        """The session saved in ``state`` (None: an empty one); never raises."""
        catalog, touched = self.catalog(), self.touched
        with self._lock:
            if self._memo_key[0] is not catalog or self._memo_key[1] is not touched:
                # Entries made over another catalog or paths can never hit again: dropping
                # them frees the old catalogs they hold.
                self._memo = Recent(RESTORED_KEPT)
                self._memo_key = (catalog, touched)
            last = self._memo.get(id(state))
        if last is not None and last[0] is state and last[1] is catalog and last[2] is touched:
            return last[3]
        restored = restore_session(state, catalog, self.limits, self.policy, self.names, touched)
        with self._lock:
            if self._memo_key[0] is catalog and self._memo_key[1] is touched:
                self._memo.set(id(state), (state, catalog, touched, restored))
        return restored


T = TypeVar("T")


class CatalogMemo(Generic[T]):
    """A value derived from a catalog (e.g. framework tool objects for its specs), rebuilt only
    when the catalog object changes: adapters ask on every model call."""

    def __init__(self, build: Callable[[Catalog], T]) -> None:
        self._build = build
        self._cached: tuple[Catalog, T] | None = None

    def __call__(self, catalog: Catalog) -> T:
        """The value for ``catalog``."""
        cached = self._cached
        if cached is None or cached[0] is not catalog:
            cached = self._cached = (catalog, self._build(catalog))
        return cached[1]


__all__ = [
    "Restored",
    "restore_session",
]
