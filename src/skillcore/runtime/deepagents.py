"""Libraries over deepagents backends: one catalog per run scope (thread, store namespace)
when the backend's files depend on the run. The backend reader itself is
:mod:`skillcore.sources.deepagents`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import attrs

from skillcore._recent import Recent
from skillcore.library import SkillLibrary, SourceState
from skillcore.model import Catalog
from skillcore.sources import SourceSpec, backend_sources

#: Conversations (scopes) whose catalogs a :class:`ScopedLibrary` keeps at most (least
#: recently used first out; a scope seen again is discovered again).
MAX_SCOPES = 256


def _class_names(obj: Any) -> set[str]:
    return {c.__name__ for c in type(obj).__mro__}


def run_scope(backend: Any, thread: str | None) -> Hashable | None:
    """What decides the files ``backend`` shows in the current run, or None when they are
    the same in every run (a directory, a sandbox, a store with a fixed namespace).

    ``StateBackend`` shows the files of the running thread (``thread``); a ``StoreBackend``
    shows one namespace of one store, both resolved from the run (its namespace factory may
    read the user from the runtime); a ``CompositeBackend`` combines its routes. Evaluated
    inside the run, the value is the backend's own signal of which files it shows.
    """
    names = _class_names(backend)
    if "CompositeBackend" in names:
        parts = [run_scope(getattr(backend, "default", None), thread)]
        routes = getattr(backend, "routes", {}) or {}
        parts.extend(run_scope(routes[prefix], thread) for prefix in sorted(routes))
        return None if all(p is None for p in parts) else tuple(parts)
    if "StateBackend" in names:
        return ("thread", thread)
    if "StoreBackend" in names:
        try:
            store = backend._get_store()
            namespace = backend._get_namespace()
        except Exception:  # outside a run or a factory that needs one: scope by thread
            return ("thread", thread)
        # A fixed store and namespace is the same in every run.
        if getattr(backend, "_store", None) is store and not _reads_runtime(backend):
            return None
        return ("store", id(store), tuple(namespace))
    return None


def _reads_runtime(backend: Any) -> bool:
    """True unless the namespace factory gives the same value with and without a runtime."""
    factory = getattr(backend, "_namespace", None)
    if not callable(factory):
        return True
    try:
        return bool(factory(None) != backend._get_namespace())
    except Exception:
        return True


@attrs.define
class _Scope:
    states: dict[str, SourceState]
    catalog: Catalog | None = None
    dirty: bool = False


class ScopedLibrary(SkillLibrary):
    """A :class:`SkillLibrary` that keeps one catalog per scope (conversation, namespace).

    ``scope()`` is evaluated on every use, inside the run; each scope has its own catalog and
    change stamps, so conversations never see each other's skills, and a refresh of a scope
    reads again only what changed in it. At most ``max_scopes`` scopes are kept.
    """

    def __init__(
        self,
        sources: Any,
        *,
        scope: Callable[[], Hashable],
        max_scopes: int = MAX_SCOPES,
        **options: Any,
    ) -> None:
        self._scope_of = scope
        self._scopes: Recent[Hashable, _Scope] = Recent(max_scopes)
        self._scopes_lock = threading.Lock()
        super().__init__(sources, **options)

    def _slot(self) -> _Scope:
        try:
            key = self._scope_of()
        except Exception:  # no run to tell the scope: the shared fallback scope
            key = None
        with self._scopes_lock:
            slot = self._scopes.get(key, refresh=True)
            if slot is None:
                slot = _Scope({s.label: SourceState() for s in self.sources})
                self._scopes.set(key, slot)
            return slot

    # The three pieces of per-scan state of SkillLibrary, kept per scope.
    @property
    def _states(self) -> dict[str, SourceState]:
        return self._slot().states

    @_states.setter
    def _states(self, value: dict[str, SourceState]) -> None:
        self._slot().states = value

    @property
    def _catalog(self) -> Catalog | None:
        return self._slot().catalog

    @_catalog.setter
    def _catalog(self, value: Catalog | None) -> None:
        self._slot().catalog = value

    @property
    def _dirty(self) -> bool:
        return self._slot().dirty

    @_dirty.setter
    def _dirty(self, value: bool) -> None:
        self._slot().dirty = value


def backend_library(
    backend: Any,
    sources: Iterable[SourceSpec] | SourceSpec,
    *,
    thread: Callable[[], str | None] = lambda: None,
    max_scopes: int = MAX_SCOPES,
    **options: Any,
) -> SkillLibrary:
    """The library for skill folders in ``backend`` (see :func:`backend_sources`).

    A backend whose files depend on the run (:func:`run_scope`: ``StateBackend``, a store
    namespace read from the runtime, a composite of those) gets a :class:`ScopedLibrary`:
    one catalog per thread / namespace, ``thread()`` naming the running conversation.
    Other backends get a plain :class:`SkillLibrary`. ``options`` go to the library.
    """
    srcs = backend_sources(backend, sources)
    probe = run_scope(backend, "?")
    if probe is None:
        return SkillLibrary(srcs, **options)
    return ScopedLibrary(
        srcs, scope=lambda: run_scope(backend, thread()), max_scopes=max_scopes, **options
    )
