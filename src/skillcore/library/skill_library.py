"""``SkillLibrary``: the I/O shell around the pure core (discovery, reading, refresh).

Each source keeps its state between scans (:mod:`~skillcore.library.state`); a scan's
entries are parsed (:mod:`~skillcore.library.entries`) and the sources merged into one
catalog (:mod:`~skillcore.library.merge`); documents and resources are read through the
source's reader (:mod:`~skillcore.library.documents`)."""

from __future__ import annotations

import os
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillcore import events
from skillcore._escaping import single_line
from skillcore.diagnostics import Code, Diagnostic
from skillcore.errors import SkillSourceWarning
from skillcore.library.documents import DocumentReads
from skillcore.library.entries import parse_entry, scan_diagnostics
from skillcore.library.merge import merge
from skillcore.library.state import (
    Folding,
    ProgressCallback,
    SourceState,
    failed_scan,
    fold_scan,
    unchanged,
)
from skillcore.limits import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESOURCES,
    Limits,
)
from skillcore.model import Catalog, SkillMetadata
from skillcore.names import ToolNames
from skillcore.parse import ParseCache, ValidationMode, cache_disabled, default_cache_dir, gc_paused
from skillcore.policy import ToolPolicy
from skillcore.sources import (
    LocalReader,
    Scan,
    SkillSource,
    SourceReader,
    check_source,
    open_reader,
)
from skillcore.state import SkillSession
from skillcore.trust.lock_env import LOCK_ENV, LOCK_KEYS_ENV

if TYPE_CHECKING:
    from skillcore.trust import LockFile, LockPolicy, TrustTier, Verdict
    from skillcore.trust.digest_cache import DigestCache
    from skillcore.trust.signed_lock import LockKey

#: The diagnostics of a source that failed as a whole (shown through ``warnings`` too).
_SOURCE_FAILURES = frozenset({Code.SOURCE_UNREACHABLE, Code.SOURCE_STALE})

#: Bytes read from the top of each SKILL.md during discovery (frontmatter sits at the top).
DEFAULT_HEAD_BYTES = 16 * 1024


class SkillLibrary(DocumentReads):
    """Skills from one or more sources: discovery, documents, resources and sessions.

    ``SkillLibrary(["./skills", "s3://bucket/skills"])``. Later sources override earlier ones.
    The catalog is discovered on first use; :meth:`refresh` re-lists and re-reads only what
    changed, returns the *same* catalog object when nothing did, and keeps the last good
    skills of a source that fails (with a diagnostic).

    ``lock=`` (a lock file's path, a ``LockFile`` or a ``LockPolicy``; else
    ``SKILLCORE_LOCK``) verifies every skill against the lock at discovery and every file on
    each read; ``frozen=True`` also refuses skills the lock does not name (see
    :mod:`skillcore.trust` and :meth:`tier`). ``lock_keys=`` (public key paths or keys; else
    ``SKILLCORE_LOCK_KEYS``): the lock file is used only if its ``.sig`` verifies against one.
    """

    def __init__(
        self,
        sources: Iterable[SkillSource | str | os.PathLike[str]]
        | SkillSource
        | str
        | os.PathLike[str],
        *,
        mode: ValidationMode | str = ValidationMode.LENIENT,
        head_bytes: int = DEFAULT_HEAD_BYTES,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        max_resources: int = DEFAULT_MAX_RESOURCES,
        progress: ProgressCallback | None = None,
        cache: bool | str | os.PathLike[str] = True,
        lock: LockFile | LockPolicy | str | os.PathLike[str] | bool | None = None,
        frozen: bool = False,
        lock_keys: Iterable[LockKey] | None = None,
    ) -> None:
        if isinstance(sources, (str, os.PathLike, SkillSource)):
            sources = [sources]
        self.sources: tuple[SkillSource, ...] = tuple(SkillSource.coerce(s) for s in sources)
        for src in self.sources:
            # A typo'd path or a missing extra fails here, where the user named it, rather
            # than giving an agent with no skills.
            check_source(src)
        labels = [s.label for s in self.sources]
        if len(set(labels)) != len(labels):
            raise ValueError(f"source labels must be unique, got {labels}")
        self.mode = ValidationMode(mode)
        self.head_bytes = head_bytes
        self.max_file_bytes = max_file_bytes
        self.max_resources = max_resources
        self.progress = progress
        #: Where local sources keep their parse cache (None: no cache). ``cache`` may name
        #: the directory; ``SKILLCORE_NO_CACHE=1`` turns it off.
        self.cache_dir: str | os.PathLike[str] | None = None
        if cache is not False and not cache_disabled():
            self.cache_dir = default_cache_dir() if cache is True else cache
        self._readers: dict[str, SourceReader] = {}
        self._states: dict[str, SourceState] = {s.label: SourceState() for s in self.sources}
        self._catalog: Catalog | None = None
        self._dirty = False
        #: Source failures newly found by the current refresh (warned once it is merged).
        self._failures: list[Diagnostic] = []
        self._lock = threading.RLock()
        #: The clock of the stale-skill grace period (replaceable in tests).
        self._clock: Callable[[], float] = time.monotonic
        #: Seconds the last refresh after the first discovery took (``RefreshGate`` spaces
        #: scans by it).
        self.refresh_seconds = 0.0
        #: The lock in force, or None (see :func:`_lock_policy`).
        self.lock_policy: LockPolicy | None = _lock_policy(lock, frozen, lock_keys)
        #: Verdicts of the skills verified so far, by metadata identity (kept with it), the
        #: tier of each skill of the catalog, and ``{(source label, directory): lock entry}``
        #: of every skill discovery matched by name (what reads are checked against; never
        #: forgotten, so a read through an older catalog is checked too).
        self._verdicts: dict[int, tuple[Any, Verdict]] = {}
        self._tiers: dict[str, TrustTier] = {}
        self._places: dict[tuple[str, str], Any] = {}
        #: The digest cache of each local source verified so far, by label.
        self._digests: dict[str, DigestCache] = {}

    # -- readers ---------------------------------------------------------------------------

    def reader(self, source: SkillSource | str) -> SourceReader:
        """The (cached) reader of a source, by value or label. With a lock in force, every
        read of a locked skill's files through it is checked against the lock."""
        reader = self._source_reader(source)
        if self.lock_policy is None:
            return reader
        from skillcore.trust import VerifyingReader

        return VerifyingReader(reader, self._places, self.lock_policy.frozen)

    def _source_reader(self, source: SkillSource | str) -> SourceReader:
        """The source's own (cached) reader, unchecked: what discovery scans with."""
        label = source.label if isinstance(source, SkillSource) else source
        reader = self._readers.get(label)
        if reader is None:
            src = next(s for s in self.sources if s.label == label)
            reader = open_reader(src)
            reader.max_file_bytes = self.max_file_bytes
            self._readers[label] = reader
        return reader

    # -- trust -----------------------------------------------------------------------------

    def tier(self, skill: str | SkillMetadata) -> TrustTier:
        """The trust tier of a skill of the catalog (see :class:`~skillcore.trust.TrustTier`):
        whether its code may run. A skill this library does not know is untrusted."""
        from skillcore.trust import TrustTier, tier_of

        name = skill if isinstance(skill, str) else skill.name
        meta = self.catalog.get(name)  # discovers first: the tiers are decided then
        if self.lock_policy is not None:
            return self._tiers.get(name, TrustTier.UNTRUSTED)
        source = None if meta is None else self._source(meta.location.source)
        if source is None:
            return TrustTier.UNTRUSTED
        return tier_of(source, False)

    def _source(self, label: str) -> SkillSource | None:
        return next((s for s in self.sources if s.label == label), None)

    def _verify(self, catalog: Catalog) -> Catalog:
        """``catalog`` without the skills that fail the lock (a diagnostic each); the tiers
        of those kept."""
        from skillcore.trust import Bounds, verify_skill
        from skillcore.trust.discovery import verdict_diagnostics

        policy = self.lock_policy
        assert policy is not None
        bounds = Bounds(max_files=self.max_resources, max_file_bytes=self.max_file_bytes)
        verdicts: dict[int, tuple[Any, Verdict]] = {}
        kept: list[SkillMetadata] = []
        diags: list[Diagnostic] = []
        tiers: dict[str, TrustTier] = {}
        for meta in catalog.skills:
            known = self._verdicts.get(id(meta))
            if known is not None and known[0] is meta:
                verdict = known[1]
            else:
                source = self._source(meta.location.source)
                if source is None:  # pragma: no cover - a catalog holds only our sources
                    continue
                reader = partial(self._source_reader, source)
                digests = self._digest_cache(source)
                verdict = verify_skill(meta, source, reader, policy, bounds, digests)
                detail = "; ".join(d.message for d in verdict.differences[:3])
                events.skill_verified(
                    meta.name, meta.location.source, verdict.tier.value, verdict.refused, detail
                )
            verdicts[id(meta)] = (meta, verdict)
            entry = policy.lock.get(meta.name)
            if entry is not None:
                self._places[(meta.location.source, meta.location.directory)] = entry
            diags.extend(verdict_diagnostics(meta, verdict, policy.frozen))
            if not verdict.refused:
                kept.append(meta)
                tiers[meta.name] = verdict.tier
        self._verdicts = verdicts
        self._tiers = tiers
        for cache in self._digests.values():
            cache.save()
        if len(kept) == len(catalog.skills) and not diags:
            return catalog
        return Catalog(kept, (*catalog.diagnostics, *diags))

    def _digest_cache(self, source: SkillSource) -> DigestCache | None:
        """The digest cache of a local source (beside the parse cache; None without one)."""
        if self.cache_dir is None:
            return None
        found = self._digests.get(source.label)
        if found is None:
            reader = self._source_reader(source)
            if not isinstance(reader, LocalReader):
                return None
            from skillcore.trust.digest_cache import DigestCache

            found = self._digests[source.label] = DigestCache(self.cache_dir, reader.root)
        return found

    # -- discovery -------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        """The current catalog (discovered on first access)."""
        if self._catalog is None:
            return self.discover()
        return self._catalog

    @property
    def discovered(self) -> bool:
        """True once the catalog has been discovered (reading :attr:`catalog` then does no
        I/O)."""
        return self._catalog is not None

    def discover(self) -> Catalog:
        """Discover (or re-discover) every source. Same as :meth:`refresh`."""
        return self.refresh()

    def refresh(self) -> Catalog:
        """Re-scan all sources; only changed SKILL.md files are read and parsed again.

        When every source is local and its last scan was clean, an unchanged library is
        recognised without listing anything: one ``stat`` of each source root, of each
        directory that holds no skill, and of each ``SKILL.md`` (see ``LocalReader.unchanged``).
        """
        with self._lock, gc_paused(), self._measured():
            if self._catalog is not None and self._unchanged():
                return self._catalog
            self._dirty = False
            scans = [self._scan_one(src) for src in self.sources]
            if not self._dirty and self._catalog is not None:
                return self._catalog  # nothing added, removed, re-read or newly diagnosed
            return self._merge(scans)

    async def adiscover(self) -> Catalog:
        """Async :meth:`discover`: sources are scanned concurrently."""
        return await self.arefresh()

    async def arefresh(self) -> Catalog:
        """Async :meth:`refresh`; each source scans in one worker-thread hop (or natively)."""
        with self._measured():
            return await self._arefresh()

    @contextmanager
    def _measured(self) -> Iterator[None]:
        """Record what this refresh costs in :attr:`refresh_seconds`."""
        if self._catalog is None:
            # The first discovery parses everything: it says nothing of what a check costs.
            yield
            return
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            # The smaller of wall and process CPU time: a loaded machine stretches the first,
            # other threads of this process add to the second; neither is this refresh's cost.
            self.refresh_seconds = min(time.perf_counter() - wall, time.process_time() - cpu)

    async def _arefresh(self) -> Catalog:
        import anyio
        import anyio.to_thread

        if self._catalog is not None and await anyio.to_thread.run_sync(self._locked_unchanged):
            return self._catalog
        results: list[Scan | BaseException | None] = [None] * len(self.sources)

        async def one(i: int, src: SkillSource) -> None:
            try:
                reader = self._source_reader(src)
                if self._states[src.label].cache is None and isinstance(reader, LocalReader):
                    # Loading the parse cache is file I/O and JSON: keep it off the event loop.
                    known = await anyio.to_thread.run_sync(self._known, src, reader)
                else:
                    known = self._known(src, reader)
                if isinstance(reader, LocalReader):
                    results[i] = await anyio.to_thread.run_sync(self._scan_with, reader, known)
                else:
                    results[i] = await reader.ascan(self.head_bytes, known)
            except Exception as exc:
                results[i] = exc

        async with anyio.create_task_group() as tg:
            for i, src in enumerate(self.sources):
                tg.start_soon(one, i, src)
        with self._lock:
            self._dirty = False
            scans = [
                self._finish_scan(src, res)  # type: ignore[arg-type]
                for src, res in zip(self.sources, results)
            ]
            if not self._dirty and self._catalog is not None:
                return self._catalog
            if self.lock_policy is None:
                return self._merge(scans)
        # Verification reads every file of the skills it checks: off the event loop.
        return await anyio.to_thread.run_sync(self._locked_merge, scans)

    def _locked_merge(self, scans: list[tuple[SkillSource, list[Diagnostic]]]) -> Catalog:
        with self._lock:
            return self._merge(scans)

    def _unchanged(self) -> bool:
        """True when no source changed since its last clean scan (local sources only; see
        :func:`~skillcore.library.state.unchanged`)."""
        now = self._clock()
        return all(
            unchanged(self._states[src.label], self._readers.get(src.label), now)
            for src in self.sources
        )

    def _locked_unchanged(self) -> bool:
        with self._lock:
            return self._catalog is not None and self._unchanged()

    def _scan_one(self, src: SkillSource) -> tuple[SkillSource, list[Diagnostic]]:
        try:
            reader = self._source_reader(src)
            scan: Scan | BaseException = self._scan_with(reader, self._known(src, reader))
        except Exception as exc:
            scan = exc
        return self._finish_scan(src, scan)

    def _scan_with(self, reader: SourceReader, known: Mapping[str, str]) -> Scan:
        if isinstance(reader, LocalReader):
            # Unchanged top-level skills come as one {directory: stamp} dict, not one entry
            # object each (see _apply_scan). Positional: wrappers of ``scan`` pass it on.
            return reader.scan(self.head_bytes, known, True)
        return reader.scan(self.head_bytes, known)

    def _known(self, src: SkillSource, reader: SourceReader) -> Mapping[str, str]:
        """The stamps a scan may skip: the last scan's, or (before the first scan of a local
        source) the parse cache's."""
        state = self._states[src.label]
        if state.ok or self.cache_dir is None or not isinstance(reader, LocalReader):
            return state.stamps
        if state.cache is None:
            state.cache = ParseCache(
                Path(self.cache_dir), src.label, reader.root, self.mode.value, self.head_bytes
            )
            state.cached_stamps, state.cached = state.cache.load(reader.url_for)
        return state.cached_stamps

    def _finish_scan(
        self, src: SkillSource, scan: Scan | BaseException
    ) -> tuple[SkillSource, list[Diagnostic]]:
        state = self._states[src.label]
        src_diags, changed = self._apply_scan(src, state, scan)
        if state.cache is not None and state.ok:
            state.cached_stamps, state.cached = {}, {}
            state.cache.save(state.stamps, state.parsed)
        if src_diags != state.diagnostics:
            changed = True
            if not src.optional:
                self._failures += [d for d in src_diags if d.code in _SOURCE_FAILURES]
        state.diagnostics = src_diags
        if changed:
            self._dirty = True
        return src, src_diags

    def _apply_scan(
        self, src: SkillSource, state: SourceState, scan: Scan | BaseException
    ) -> tuple[list[Diagnostic], bool]:
        """Fold a scan into the source's state; returns its diagnostics and whether any
        skill file was added, removed or re-read."""
        if isinstance(scan, BaseException):
            return failed_scan(src.label, state, scan), False
        reader = self._source_reader(src)
        parse = partial(parse_entry, reader, self.mode, self.head_bytes)
        how = Folding(src.label, parse, self._clock, self.progress)
        changed = fold_scan(state, scan, how)
        return scan_diagnostics(scan, self.mode, reader), changed

    def _merge(self, scans: list[tuple[SkillSource, list[Diagnostic]]]) -> Catalog:
        with gc_paused():
            catalog = self._merge_paused(scans)
        # After the catalog is consistent: a warnings filter set to "error" raises here.
        failures, self._failures = self._failures, []
        _warn_failed(failures)
        return catalog

    def _merge_paused(self, scans: list[tuple[SkillSource, list[Diagnostic]]]) -> Catalog:
        catalog = merge(self.sources, self._states, scans)
        if self.lock_policy is not None:
            catalog = self._verify(catalog)
        old = self._catalog
        if old is not None and old.fingerprint == catalog.fingerprint and old == catalog:
            return old
        self._catalog = catalog
        events.discovered(catalog, len(self.sources))
        return catalog

    # -- sessions --------------------------------------------------------------------------

    def session(
        self,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        names: ToolNames | None = None,
    ) -> SkillSession:
        """A new, empty session over the current catalog."""
        return SkillSession(
            self.catalog, limits or Limits(), policy or ToolPolicy(), (), names or ToolNames()
        )

    def restore(
        self,
        state: Mapping[str, Any] | None,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        names: ToolNames | None = None,
    ) -> SkillSession:
        """Rebuild a session from serialized state over the current catalog (lenient: skills
        that disappeared are dropped)."""
        return SkillSession.from_state(state, self.catalog, limits, policy, names, strict=False)


def _lock_policy(
    lock: LockFile | LockPolicy | str | os.PathLike[str] | bool | None,
    frozen: bool,
    lock_keys: Iterable[LockKey] | None = None,
) -> LockPolicy | None:
    """The lock policy of a library's ``lock`` and ``frozen`` arguments. ``lock`` is a lock,
    a policy or the path of a lock file (read now: a lock that cannot be read is an error,
    never "no lock"); None: the file ``SKILLCORE_LOCK`` names, if set; False: no lock.
    ``frozen``: a skill the lock does not name is refused (needs a lock). ``lock_keys``
    (None: the paths ``SKILLCORE_LOCK_KEYS`` lists): the lock file must be signed by one of
    them, checked before it is parsed. Raises :class:`~skillcore.trust.LockError`."""
    if lock is True:
        raise TypeError("lock must be a lock, a path, None or False")
    if lock is None:
        named = os.environ.get(LOCK_ENV, "").strip()
        lock = named or None
    explicit = lock_keys is not None
    if lock_keys is None:
        listed = os.environ.get(LOCK_KEYS_ENV, "").strip()
        lock_keys = [k.strip() for k in listed.split(",") if k.strip()] if listed else None
    if (lock is None or lock is False) and not frozen:
        return None  # the trust layer is imported only when a lock is in force
    from skillcore.trust import LockError, LockFile, LockPolicy, read_lock
    from skillcore.trust.signed_lock import read_signed_lock

    if lock is None or lock is False:
        if frozen:
            raise LockError(f"frozen needs a lock: pass lock= or set {LOCK_ENV}")
        return None
    keys = None if lock_keys is None else list(lock_keys)
    if explicit and isinstance(lock, (LockPolicy, LockFile)):
        # Only a file's exact bytes carry a signature: a lock given parsed cannot be checked
        # (one given parsed was checked, if at all, by whoever read it).
        raise LockError("lock_keys need the lock as a file path, not a parsed lock")
    if isinstance(lock, LockPolicy):
        return attrs.evolve(lock, frozen=True) if frozen else lock
    if not isinstance(lock, LockFile):
        lock = read_lock(lock) if keys is None else read_signed_lock(lock, keys)
    return LockPolicy(lock, frozen)


def _warn_failed(diagnostics: list[Diagnostic]) -> None:
    """Warn (once per new failure) about a source that failed as a whole: an agent would
    otherwise run with fewer skills than configured, and the logging events are silent
    until an application configures logging. The catalog's diagnostics say the same."""
    for diag in diagnostics:
        warnings.warn(
            single_line(f"skill source {diag.source!r}: {diag.code.value}: {diag.message}"),
            SkillSourceWarning,
            stacklevel=2,
        )
