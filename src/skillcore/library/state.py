"""What a library keeps of each source between scans, and how one scan folds into it: results
reused by stamp, changed files parsed, and the grace period of a skill caught mid-save."""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping

import attrs

from skillcore._escaping import describe
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.parse import ParseCache, ParseResult
from skillcore.sources import LocalReader, Scan, ScanEntry, SourceReader, SourceUnavailable

#: Seconds a skill keeps its last good version when its SKILL.md turns unreadable, empty or
#: truncated (an editor or a deploy caught mid-save). Seconds, not a number of refreshes:
#: callers refresh anywhere from every model call to every few minutes, and a save window is
#: a wall-clock matter. The first failing refresh always keeps the skill; a refresh after the
#: grace period drops it.
SKILL_GRACE_SECONDS = 30.0
#: Failures a save in progress can produce (anything else drops the skill at once).
_TRANSIENT_CODES = frozenset({Code.READ_FAILED, Code.EMPTY_FILE, Code.UNTERMINATED_FRONTMATTER})

ProgressCallback = Callable[[int, int], None]

#: A local source with more skills than this is checked in turns on refresh (see
#: ``SkillLibrary._unchanged``): an unchanged check of all stamps costs ~2.5 µs a skill.
ROLLING_CHECK_FROM = 500
#: ``SKILL.md`` stamps such a source checks per refresh (a fraction of a millisecond).
ROLLING_CHECK_FILES = 32
#: ... and all of them at least this often (seconds): the bound on how long an edit made in
#: place to an existing ``SKILL.md`` of a large source can go unseen.
FULL_CHECK_SECONDS = 10.0


@attrs.define
class SourceState:
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


def failed_scan(label: str, state: SourceState, exc: BaseException) -> list[Diagnostic]:
    """The diagnostic of a source whose scan failed: its last good skills are kept (stale),
    or it is unreachable."""
    msg = str(exc) if isinstance(exc, SourceUnavailable) else describe(exc)
    if state.ok:
        kept = sum(1 for r in state.parsed.values() if r.metadata is not None)
        stale = Diagnostic(
            Severity.WARNING,
            Code.SOURCE_STALE,
            f"source failed ({msg}); keeping its {kept} skill files from the last successful scan",
            label,
        )
        return [stale]
    return [Diagnostic(Severity.ERROR, Code.SOURCE_UNREACHABLE, msg, label)]


@attrs.frozen
class Folding:
    """How a library folds a scan: its parser of one entry, its clock (of the grace period)
    and who hears of the progress."""

    label: str
    parse: Callable[[ScanEntry], ParseResult]
    clock: Callable[[], float]
    progress: ProgressCallback | None = None


def fold_scan(state: SourceState, scan: Scan, how: Folding) -> bool:
    """Fold a scan into the source's state; whether any skill file was added, removed or
    re-read."""
    entries = scan.entries
    unchanged = scan.unchanged
    reused = _reused(state, unchanged) if unchanged and how.progress is None else None
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
        changed = _fold_entries(state, entries, total, parsed, stamps, how) or changed
    finally:
        if gc_was_enabled:
            gc.enable()
    state.parsed = parsed
    state.stamps = stamps
    state.ok = True
    return changed


def _fold_entries(
    state: SourceState,
    entries: tuple[ScanEntry, ...],
    total: int,
    parsed: dict[str, ParseResult],
    stamps: dict[str, str],
    how: Folding,
) -> bool:
    """Each entry's result and stamp into ``parsed`` and ``stamps``; whether any was read."""
    changed = False
    now: float | None = None
    progress, failing_since = how.progress, state.failing_since
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
            result = how.parse(entry)
            changed = True
        if result.metadata is None and old is not None and old.metadata is not None:
            now = how.clock() if now is None else now
            last_good = keep_stale(how.label, state, directory, old, result, now)
            if last_good is not None:
                result, stamp = last_good, ""  # '' never matches: re-read next time
        elif failing_since:  # usually empty: no call to pop from it
            failing_since.pop(directory, None)
        parsed[directory] = result
        stamps[directory] = stamp
        if progress is not None and (i % 200 == 0 or i == total - 1):
            progress(i + 1, total)
    return changed


def keep_stale(
    label: str,
    state: SourceState,
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
        label,
        cause.path,
    )
    return attrs.evolve(old, diagnostics=(stale,))


def _reused(state: SourceState, unchanged: Mapping[str, str]) -> dict[str, ParseResult] | None:
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


def unchanged(state: SourceState, reader: SourceReader | None, now: float) -> bool:
    """True when a local source did not change since its last clean scan.

    A source of more than :data:`ROLLING_CHECK_FROM` skills is checked in turns: its root
    and skill-less directories every time (skills added, removed or renamed show at
    once), :data:`ROLLING_CHECK_FILES` of its ``SKILL.md`` stamps each time, and all of
    them at least every :data:`FULL_CHECK_SECONDS`."""
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
    return reader.unchanged(state.stamps, files)
