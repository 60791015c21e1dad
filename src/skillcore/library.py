"""``SkillLibrary``: the I/O shell around the pure core (discovery, reading, refresh)."""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from pathlib import Path
from typing import Any

import attrs

from skillcore import events
from skillcore._text import describe
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.limits import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RESOURCE_BYTES,
    DEFAULT_MAX_RESOURCES,
    Limits,
)
from skillcore.model import (
    Catalog,
    SkillDocument,
    SkillLocation,
    SkillMetadata,
    indexed_catalog,
)
from skillcore.names import ToolNames
from skillcore.parse.cache import ParseCache, cache_disabled, default_cache_dir, gc_paused
from skillcore.parse.frontmatter import (
    FRONTMATTER_HEAD_BYTES,
    MAX_FRONTMATTER_BYTES,
    ParseResult,
    ValidationMode,
    body_of,
    decode_text,
    parse_skill_file,
)
from skillcore.policy.rules import ToolPolicy
from skillcore.sources.base import (
    SKILL_FILE,
    LocalReader,
    ReadError,
    Scan,
    ScanEntry,
    SkillSource,
    SourceReader,
    SourceUnavailable,
    open_reader,
)
from skillcore.state.session import OutcomeCode, SkillSession

#: Bytes read from the top of each SKILL.md during discovery (frontmatter sits at the top).
DEFAULT_HEAD_BYTES = 16 * 1024

#: Seconds a skill keeps its last good version when its SKILL.md turns unreadable, empty or
#: truncated (an editor or a deploy caught mid-save). Seconds, not a number of refreshes:
#: callers refresh anywhere from every model call to every few minutes, and a save window is
#: a wall-clock matter. The first failing refresh always keeps the skill; a refresh after the
#: grace period drops it.
SKILL_GRACE_SECONDS = 30.0
#: Failures a save in progress can produce (anything else drops the skill at once).
_TRANSIENT_CODES = frozenset({Code.READ_FAILED, Code.EMPTY_FILE, Code.UNTERMINATED_FRONTMATTER})

ProgressCallback = Callable[[int, int], None]


@attrs.frozen
class ResourceContent:
    """A resource file read from a skill: its text, or a description when it is binary."""

    skill: str
    path: str
    size: int
    text: str | None
    binary: bool = False
    #: The bytes of a binary file (empty for text), for :mod:`skillcore.tools.binary`.
    data: bytes = attrs.field(default=b"", repr=False)


#: A local source with more skills than this is checked in turns on refresh (see
#: ``SkillLibrary._unchanged``): an unchanged check of all stamps costs ~2.5 µs a skill.
ROLLING_CHECK_FROM = 500
#: ``SKILL.md`` stamps such a source checks per refresh (a fraction of a millisecond).
ROLLING_CHECK_FILES = 32
#: ... and all of them at least this often (seconds): the bound on how long an edit made in
#: place to an existing ``SKILL.md`` of a large source can go unseen.
FULL_CHECK_SECONDS = 10.0


@attrs.define
class _SourceState:
    """What the last good scan of one source produced (for cheap refresh)."""

    stamps: dict[str, str] = attrs.field(factory=dict)
    parsed: dict[str, ParseResult] = attrs.field(factory=dict)
    ok: bool = False
    #: Diagnostics the last scan reported (to tell whether anything changed).
    diagnostics: list[Diagnostic] | None = None
    #: Skill directory -> when its SKILL.md started failing (it is kept meanwhile).
    failing_since: dict[str, float] = attrs.field(factory=dict)
    #: The on-disk parse cache of a local source (None: not used).
    cache: ParseCache | None = None
    #: Entries read from the parse cache before the first scan (stamps and results by skill
    #: directory); a result is used only when the scan finds the same stamp.
    cached_stamps: dict[str, str] = attrs.field(factory=dict)
    cached: dict[str, ParseResult] = attrs.field(factory=dict)
    #: When every ``SKILL.md`` stamp was last checked (see ``SkillLibrary._unchanged``).
    checked_at: float = float("-inf")


class SkillLibrary:
    """Skills from one or more sources: discovery, documents, resources and sessions.

    ``SkillLibrary(["./skills", "s3://bucket/skills"])``. Later sources override earlier ones.
    The catalog is discovered on first use; :meth:`refresh` re-lists and re-reads only what
    changed, returns the *same* catalog object when nothing did, and keeps the last good
    skills of a source that fails (with a diagnostic).
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
    ) -> None:
        if isinstance(sources, (str, os.PathLike, SkillSource)):
            sources = [sources]
        self.sources: tuple[SkillSource, ...] = tuple(SkillSource.coerce(s) for s in sources)
        events.check_sources(self.sources)
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
        self._states: dict[str, _SourceState] = {s.label: _SourceState() for s in self.sources}
        self._catalog: Catalog | None = None
        self._dirty = False
        self._lock = threading.RLock()
        #: The clock of the stale-skill grace period (replaceable in tests).
        self._clock: Callable[[], float] = time.monotonic
        #: Seconds the last refresh after the first discovery took (``RefreshGate`` spaces
        #: scans by it).
        self.refresh_seconds = 0.0

    # -- readers ---------------------------------------------------------------------------

    def reader(self, source: SkillSource | str) -> SourceReader:
        """The (cached) reader of a source, by value or label."""
        label = source.label if isinstance(source, SkillSource) else source
        reader = self._readers.get(label)
        if reader is None:
            src = next(s for s in self.sources if s.label == label)
            reader = open_reader(src)
            reader.max_file_bytes = self.max_file_bytes
            self._readers[label] = reader
        return reader

    # -- discovery -------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        """The current catalog (discovered on first access)."""
        if self._catalog is None:
            return self.discover()
        return self._catalog

    def discover(self) -> Catalog:
        """Discover (or re-discover) every source. Same as :meth:`refresh`."""
        return self.refresh()

    def refresh(self) -> Catalog:
        """Re-scan all sources; only changed SKILL.md files are read and parsed again.

        When every source is local and its last scan was clean, an unchanged library is
        recognised without listing anything: one ``stat`` of each source root, of each
        directory that holds no skill, and of each ``SKILL.md`` (see ``LocalReader.unchanged``).
        """
        with self._lock, gc_paused():
            started = self._cost_start()
            try:
                if self._catalog is not None and self._unchanged():
                    return self._catalog
                self._dirty = False
                scans = [self._scan_one(src) for src in self.sources]
                if not self._dirty and self._catalog is not None:
                    return self._catalog  # nothing added, removed, re-read or newly diagnosed
                return self._merge(scans)
            finally:
                self._cost_end(started)

    async def adiscover(self) -> Catalog:
        """Async :meth:`discover`: sources are scanned concurrently."""
        return await self.arefresh()

    async def arefresh(self) -> Catalog:
        """Async :meth:`refresh`; each source scans in one worker-thread hop (or natively)."""
        started = self._cost_start()
        try:
            return await self._arefresh()
        finally:
            self._cost_end(started)

    def _cost_start(self) -> tuple[float, float] | None:
        # The first discovery parses everything: it says nothing of what a later check costs.
        if self._catalog is None:
            return None
        return time.perf_counter(), time.process_time()

    def _cost_end(self, started: tuple[float, float] | None) -> None:
        if started is not None:
            # The smaller of wall and process CPU time: a loaded machine stretches the first,
            # other threads of this process add to the second; neither is this refresh's cost.
            wall, cpu = time.perf_counter() - started[0], time.process_time() - started[1]
            self.refresh_seconds = min(wall, cpu)

    async def _arefresh(self) -> Catalog:
        import anyio
        import anyio.to_thread

        if self._catalog is not None and await anyio.to_thread.run_sync(self._locked_unchanged):
            return self._catalog
        results: list[Scan | BaseException | None] = [None] * len(self.sources)

        async def one(i: int, src: SkillSource) -> None:
            try:
                reader = self.reader(src)
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
            return self._merge(scans)

    def _unchanged(self) -> bool:
        """True when no source changed since its last clean scan (local sources only).

        A source of more than :data:`ROLLING_CHECK_FROM` skills is checked in turns: its root
        and skill-less directories every time (skills added, removed or renamed show at
        once), :data:`ROLLING_CHECK_FILES` of its ``SKILL.md`` stamps each time, and all of
        them at least every :data:`FULL_CHECK_SECONDS`."""
        now = self._clock()
        for src in self.sources:
            state = self._states[src.label]
            reader = self._readers.get(src.label)
            if (
                not state.ok
                or state.diagnostics
                or state.failing_since
                or not isinstance(reader, LocalReader)
            ):
                return False
            files = None
            if len(state.stamps) > ROLLING_CHECK_FROM:
                if now - state.checked_at < FULL_CHECK_SECONDS:
                    files = ROLLING_CHECK_FILES
                else:
                    state.checked_at = now
            if not reader.unchanged(state.stamps, files):
                return False
        return True

    def _locked_unchanged(self) -> bool:
        with self._lock:
            return self._catalog is not None and self._unchanged()

    def _scan_one(self, src: SkillSource) -> tuple[SkillSource, list[Diagnostic]]:
        try:
            reader = self.reader(src)
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
        state.diagnostics = src_diags
        if changed:
            self._dirty = True
        return src, src_diags

    def _apply_scan(
        self, src: SkillSource, state: _SourceState, scan: Scan | BaseException
    ) -> tuple[list[Diagnostic], bool]:
        """Fold a scan into the source's state; returns its diagnostics and whether any
        skill file was added, removed or re-read."""
        if isinstance(scan, BaseException):
            msg = str(scan) if isinstance(scan, SourceUnavailable) else describe(scan)
            if state.ok:
                kept = sum(1 for r in state.parsed.values() if r.metadata is not None)
                stale = Diagnostic(
                    Severity.WARNING,
                    Code.SOURCE_STALE,
                    f"source failed ({msg}); keeping its {kept} "
                    "skill files from the last successful scan",
                    src.label,
                )
                return [stale], False
            return [Diagnostic(Severity.ERROR, Code.SOURCE_UNREACHABLE, msg, src.label)], False
        reader = self.reader(src)
        entries = scan.entries
        unchanged = scan.unchanged
        reused = _reused(state, unchanged) if unchanged and self.progress is None else None
        if unchanged and reused is None:
            # One by one: progress to report per entry, or a result to find elsewhere.
            entries, unchanged = scan.all_entries(), {}
        parsed: dict[str, ParseResult] = {}
        stamps: dict[str, str] = {}
        if reused is not None:
            # Skills found unchanged keep their result as a whole: no entry object, no
            # per-skill step (100,000 of them on a cold load from the parse cache).
            parsed = reused
            stamps = dict(unchanged)
            if state.failing_since:
                for directory in unchanged:
                    state.failing_since.pop(directory, None)
        total = len(entries) + len(parsed)
        changed = total != len(state.parsed) or not state.ok
        # Parsing allocates many small containers and none of them form cycles: pausing the
        # cyclic GC for the loop saves ~10% at 10,000 skills (it is restored right after).
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            now: float | None = None
            for i, entry in enumerate(entries):
                directory = entry.directory
                old = state.parsed.get(directory)
                stamp = entry.stamp
                if entry.error is not None:
                    result = ParseResult(None, (entry.error,))
                    stamp = ""  # never matches: read again next time
                    changed = True
                elif entry.head is None and old is not None:
                    result = old
                elif entry.head is None and directory in state.cached:
                    result = state.cached[directory]  # same stamp as when it was cached
                else:
                    result = self._parse_entry(reader, entry)
                    changed = True
                if result.metadata is None and old is not None and old.metadata is not None:
                    now = self._clock() if now is None else now
                    last_good = self._keep_stale(src, state, directory, old, result, now)
                    if last_good is not None:
                        result, stamp = last_good, ""  # '' never matches: re-read next time
                else:
                    state.failing_since.pop(directory, None)
                parsed[directory] = result
                stamps[directory] = stamp
                if self.progress is not None and (i % 200 == 0 or i == total - 1):
                    self.progress(i + 1, total)
        finally:
            if gc_was_enabled:
                gc.enable()
        state.parsed = parsed
        state.stamps = stamps
        state.ok = True
        return self._scan_diagnostics(src, scan), changed

    def _scan_diagnostics(self, src: SkillSource, scan: Scan) -> list[Diagnostic]:
        """A scan's findings in this library's mode, plus a word when it found no skill."""
        diags = list(scan.diagnostics)
        if self.mode is ValidationMode.STRICT:
            # The spec names the file exactly; a case variant is a warning only in lenient mode.
            diags = [
                attrs.evolve(d, severity=Severity.ERROR)
                if d.code is Code.MISNAMED_SKILL_FILE
                else d
                for d in diags
            ]
        if not scan.entries and not scan.unchanged:
            diags.append(
                Diagnostic(
                    # The spec's validators refuse a folder without SKILL.md; lenient
                    # discovery of a still-empty folder only warns.
                    Severity.ERROR if self.mode is ValidationMode.STRICT else Severity.WARNING,
                    Code.EMPTY_SOURCE,
                    f"no skills found in {self.reader(src).url_for('')}: no directory in it "
                    f"holds a {SKILL_FILE} file",
                    src.label,
                )
            )
        return diags

    def _keep_stale(
        self,
        src: SkillSource,
        state: _SourceState,
        directory: str,
        old: ParseResult,
        failed: ParseResult,
        now: float,
    ) -> ParseResult | None:
        """The last good version of a skill whose SKILL.md just failed in a way a save in
        progress can cause, while the grace period lasts; None to drop it."""
        causes = [d for d in failed.diagnostics if d.severity is Severity.ERROR]
        if not causes or any(d.code not in _TRANSIENT_CODES for d in causes):
            state.failing_since.pop(directory, None)
            return None
        since = state.failing_since.setdefault(directory, now)
        if now - since > SKILL_GRACE_SECONDS:
            state.failing_since.pop(directory, None)
            return None
        cause = causes[0]
        stale = Diagnostic(
            Severity.WARNING,
            Code.SKILL_STALE,
            f"{cause.message.removeprefix('skipped: ')} ({cause.code.value}); keeping the last "
            f"good version for up to {SKILL_GRACE_SECONDS:g} s in case it is being saved",
            src.label,
            cause.path,
        )
        return attrs.evolve(old, diagnostics=(stale,))

    def _parse_entry(self, reader: SourceReader, entry: ScanEntry) -> ParseResult:
        location = SkillLocation(
            reader.source.label, entry.directory, reader.url_for(entry.directory)
        )
        path = f"{entry.directory}/{SKILL_FILE}" if entry.directory else SKILL_FILE
        head = entry.head
        if head is None:  # known stamp but no cached parse (should not happen); read again
            try:
                head = reader.read_file(entry.directory, SKILL_FILE, self.head_bytes)
            except ReadError as exc:
                return ParseResult(None, (_read_diag(reader, path, exc),))
        result = parse_skill_file(
            head,
            directory_name=entry.dir_name,
            location=location,
            path=path,
            mode=self.mode,
            complete=entry.complete,
            stamp=entry.stamp,
        )
        if result.need_more:
            # Frontmatter longer than the head: read a prefix that holds any frontmatter under
            # the cap, whatever the size of the body after it.
            try:
                more, complete = reader.read_head(
                    entry.directory, SKILL_FILE, FRONTMATTER_HEAD_BYTES
                )
            except ReadError as exc:
                return ParseResult(None, (_read_diag(reader, path, exc),))
            if more:
                result = parse_skill_file(
                    more,
                    directory_name=entry.dir_name,
                    location=location,
                    path=path,
                    mode=self.mode,
                    complete=complete,
                    stamp=entry.stamp,
                )
            if not more or result.need_more:
                result = ParseResult(
                    None,
                    (
                        Diagnostic(
                            Severity.ERROR,
                            Code.YAML_TOO_COMPLEX,
                            f"skipped: frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes",
                            reader.source.label,
                            path,
                        ),
                    ),
                )
        return result

    def _merge(self, scans: list[tuple[SkillSource, list[Diagnostic]]]) -> Catalog:
        with gc_paused():
            return self._merge_paused(scans)

    def _merge_paused(self, scans: list[tuple[SkillSource, list[Diagnostic]]]) -> Catalog:
        diagnostics: list[Diagnostic] = []
        chosen: dict[str, SkillMetadata] = {}
        for src, scan_diags in scans:  # lowest precedence first
            diagnostics.extend(scan_diags)
            parsed = self._states[src.label].parsed  # in no particular order
            # One pass over the results (each touched once: at 100,000 skills the passes
            # over memory cost more than the steps), then the usual case, no name twice and
            # none overridden, needs only the diagnostics in directory order.
            in_source: dict[str, SkillMetadata] = {}
            noisy: list[str] = []
            count = 0
            for directory, result in parsed.items():
                if result.diagnostics:
                    noisy.append(directory)
                meta = result.metadata
                if meta is not None:
                    in_source[meta.name] = meta
                    count += 1
            if len(in_source) == count and chosen.keys().isdisjoint(in_source.keys()):
                noisy.sort()
                diagnostics.extend(chain.from_iterable(parsed[d].diagnostics for d in noisy))
                if chosen:
                    chosen.update(in_source)
                else:
                    chosen = in_source
            else:
                order = sorted(parsed)
                self._merge_source(src, list(map(parsed.__getitem__, order)), diagnostics, chosen)
        # Precedence order: skills of the last (highest precedence) source first.
        if len(self.sources) == 1:
            names = sorted(chosen)  # one rank: the name decides
            # Skills named like their directories are in that order already.
            in_order = names == list(chosen)  # by identity: no string is compared
            skills = list(chosen.values()) if in_order else list(map(chosen.__getitem__, names))
        else:
            rank = {s.label: i for i, s in enumerate(self.sources)}
            skills = sorted(chosen.values(), key=lambda m: (-rank[m.location.source], m.name))
        diagnostics.extend(missing_dependencies(chosen))
        catalog = indexed_catalog(tuple(skills), tuple(diagnostics), chosen)
        old = self._catalog
        if old is not None and old.fingerprint == catalog.fingerprint and old == catalog:
            return old
        self._catalog = catalog
        events.discovered(catalog, len(self.sources))
        return catalog

    @staticmethod
    def _merge_source(
        src: SkillSource,
        results: list[ParseResult],
        diagnostics: list[Diagnostic],
        chosen: dict[str, SkillMetadata],
    ) -> None:
        """Fold one source's results (in directory order) into ``chosen``, naming each skill
        defined twice in the source and each skill overriding a lower source's."""
        in_source: dict[str, SkillMetadata] = {}
        for result in results:
            diagnostics.extend(result.diagnostics)
            meta = result.metadata
            if meta is None:
                continue
            if meta.name in in_source:
                diagnostics.append(
                    Diagnostic(
                        Severity.WARNING,
                        Code.DUPLICATE_NAME,
                        f"skill {meta.name!r} is defined twice in this source; keeping "
                        f"{in_source[meta.name].location.directory!r}",
                        src.label,
                        meta.location.directory,
                        "name",
                    )
                )
                continue
            in_source[meta.name] = meta
            previous = chosen.get(meta.name)
            if previous is not None:
                diagnostics.append(
                    Diagnostic(
                        Severity.WARNING,
                        Code.SHADOWED,
                        f"skill {meta.name!r} from {src.label!r} overrides the one in "
                        f"{previous.location.source!r} ({previous.location.url})",
                        src.label,
                        meta.location.directory,
                        "name",
                    )
                )
            chosen[meta.name] = meta

    # -- documents and resources -----------------------------------------------------------

    def _meta(self, name: str | SkillMetadata) -> SkillMetadata:
        if isinstance(name, SkillMetadata):
            return name
        meta = self.catalog.get(name)
        if meta is None:
            raise ReadError(OutcomeCode.SKILL_NOT_FOUND, f"no skill named {name!r}")
        return meta

    def _document_from(
        self, meta: SkillMetadata, data: bytes, listing: tuple[Any, bool]
    ) -> SkillDocument:
        text, _err, msg = decode_text(data)
        if text is None:
            raise ReadError(OutcomeCode.DECODE_ERROR, f"SKILL.md {msg}")
        resources, truncated = listing
        return SkillDocument(meta, body_of(text), resources, truncated)

    def read_document(
        self, name: str | SkillMetadata, max_bytes: int | None = None
    ) -> SkillDocument:
        """Read a skill's full SKILL.md (at most ``max_bytes``, default the library's
        ``max_file_bytes``) and list its resources. Raises ReadError."""
        meta = self._meta(name)
        reader = self.reader(meta.location.source)
        data = self._read_skill_file(reader, meta, max_bytes)
        listing = reader.list_files(meta.location.directory, self.max_resources)
        return self._document_from(meta, data, listing)

    async def aread_document(
        self, name: str | SkillMetadata, max_bytes: int | None = None
    ) -> SkillDocument:
        """Async :meth:`read_document`."""
        import anyio.to_thread

        meta = self._meta(name)
        reader = self.reader(meta.location.source)
        if type(reader).aread_file is SourceReader.aread_file and type(reader).alist_files is (
            SourceReader.alist_files
        ):
            # One thread hop for both reads instead of two.
            return await anyio.to_thread.run_sync(self.read_document, meta, max_bytes)
        data = await self._aread_skill_file(reader, meta, max_bytes)
        listing = await reader.alist_files(meta.location.directory, self.max_resources)
        return self._document_from(meta, data, listing)

    def _read_skill_file(
        self, reader: SourceReader, meta: SkillMetadata, max_bytes: int | None = None
    ) -> bytes:
        cap = self.max_file_bytes if max_bytes is None else max_bytes
        try:
            return reader.read_file(meta.location.directory, SKILL_FILE, cap)
        except ReadError as exc:
            raise _doc_error(exc) from None

    async def _aread_skill_file(
        self, reader: SourceReader, meta: SkillMetadata, max_bytes: int | None = None
    ) -> bytes:
        cap = self.max_file_bytes if max_bytes is None else max_bytes
        try:
            return await reader.aread_file(meta.location.directory, SKILL_FILE, cap)
        except ReadError as exc:
            raise _doc_error(exc) from None

    def read_resource(
        self,
        name: str | SkillMetadata,
        path: str,
        max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    ) -> ResourceContent:
        """Read one file of a skill, confined to its directory and capped. Raises ReadError."""
        meta = self._meta(name)
        reader = self.reader(meta.location.source)
        data = reader.read_file(meta.location.directory, path, max_bytes)
        return _content(meta.name, path, data)

    async def aread_resource(
        self,
        name: str | SkillMetadata,
        path: str,
        max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    ) -> ResourceContent:
        """Async :meth:`read_resource`."""
        meta = self._meta(name)
        reader = self.reader(meta.location.source)
        data = await reader.aread_file(meta.location.directory, path, max_bytes)
        return _content(meta.name, path, data)

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


def _reused(state: _SourceState, unchanged: Mapping[str, str]) -> dict[str, ParseResult] | None:
    """``{directory: result}`` of the skills a scan found unchanged: the last scan's results,
    or before the first scan the parse cache's; None when some must be found one by one."""
    old = state.parsed
    try:
        if old:
            return dict(zip(unchanged, map(old.__getitem__, unchanged)))
        cached = state.cached
        if cached.keys() == unchanged.keys():  # a cold load of an unchanged library
            return cached  # dropped from the state once the scan is applied: no copy needed
        return dict(zip(unchanged, map(cached.__getitem__, unchanged)))
    except KeyError:
        return None


def _doc_error(exc: ReadError) -> ReadError:
    if exc.missing:
        return ReadError(
            OutcomeCode.READ_FAILED,
            "its SKILL.md is gone (deleted after discovery); the skill list may be out of date",
        )
    if exc.code is OutcomeCode.RESOURCE_NOT_FOUND:  # e.g. SKILL.md swapped for a FIFO
        return ReadError(OutcomeCode.READ_FAILED, f"cannot read its SKILL.md: {exc.message}")
    return exc


def _read_diag(reader: SourceReader, path: str, exc: ReadError) -> Diagnostic:
    return Diagnostic(
        Severity.ERROR, Code.READ_FAILED, f"skipped: {exc.message}", reader.source.label, path
    )


def _content(skill: str, path: str, data: bytes) -> ResourceContent:
    if b"\x00" in data[:8192]:
        return ResourceContent(skill, path, len(data), None, True, data)
    try:
        return ResourceContent(skill, path, len(data), data.decode("utf-8"))
    except UnicodeDecodeError:
        return ResourceContent(skill, path, len(data), None, True, data)


def missing_dependencies(skills: Mapping[str, SkillMetadata]) -> list[Diagnostic]:
    """A warning for each ``dependencies`` entry that names no skill in ``skills`` (the
    merged catalog by name): the model would be told to load a skill it cannot."""
    found: list[Diagnostic] = []
    for meta in skills.values():
        if not meta.dependencies:
            continue
        absent = [d for d in meta.dependencies if d not in skills]
        if absent:
            found.append(
                Diagnostic(
                    Severity.WARNING,
                    Code.MISSING_DEPENDENCY,
                    f"skill {meta.name!r} depends on {', '.join(map(repr, absent))}, which "
                    "no source provides",
                    meta.location.source,
                    f"{meta.location.directory}/SKILL.md",
                    "dependencies",
                )
            )
    return found
