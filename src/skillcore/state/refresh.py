"""When an adapter re-scans its skill sources (:class:`RefreshGate`), and the cheap shared
signal a deploy bumps so every worker re-scans on its next run (:func:`file_marker`)."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from typing import Protocol

from skillcore.sources import O_FILE, read_fd

#: A cheap shared signal that the skills changed: a function returning a value (a version
#: string, a file's stamp) that a deploy changes after editing the skills. Every worker's
#: :class:`RefreshGate` calls it on each check (each run), so all workers re-scan on their
#: next run after it changes, however the pacing spaces their scans otherwise.
Marker = Callable[[], object]
_UNSEEN = object()
#: Bytes of a marker file read on each check (its first ones: a version, a stamp).
MAX_MARKER_BYTES = 256


def file_marker(path: str | os.PathLike[str]) -> Marker:
    """A :data:`Marker` reading a small file (e.g. ``skills/.version``, on a disk the workers
    share): its first :data:`MAX_MARKER_BYTES` bytes, or None while it is missing. A deploy
    rewrites it after changing the skills. One ``open`` and read of a few bytes per check.

    The marker usually sits in the skills folder, which others may write to, so it is read as
    a ``SKILL.md`` is: never through a symlink as its last component, never blocking (a FIFO
    planted there would otherwise hang every run), regular files only. Anything else reads
    as missing (None)."""
    where = os.fspath(path)

    def read() -> object:
        try:
            fd = os.open(where, O_FILE)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                return None
        except OSError:
            os.close(fd)
            return None
        try:
            return read_fd(fd, MAX_MARKER_BYTES)  # closes fd
        except OSError:
            return None

    return read


class ScanCost(Protocol):
    """What paces a :class:`RefreshGate`: the cost of the last scan (a
    :class:`~skillcore.SkillLibrary`)."""

    @property
    def refresh_seconds(self) -> float:
        """Seconds the last refresh after the first discovery took."""
        ...


#: A scan that took at least this long (seconds) spaces out the next one (see RefreshGate):
#: an unchanged check of some 500 local skills; smaller libraries are checked every run.
REFRESH_COST_FLOOR = 0.002
#: ... to at least this many times its own duration after it started.
REFRESH_COST_FACTOR = 20.0


class RefreshGate:
    """When to re-scan skill sources: ``refresh=True`` once per run, a number at most that
    often (seconds), ``False`` once per process. Thread-safe; one per adapter instance.

    With ``library`` (a :class:`ScanCost`, like :class:`~skillcore.SkillLibrary`), a scan
    that took ``REFRESH_COST_FLOOR`` seconds or more (an unchanged check of some 500 local
    skills and up) makes the next one wait at least ``REFRESH_COST_FACTOR`` times as long
    from its start: refreshing never takes more than about a twentieth of the time, and the
    runs in between cost nothing. The trade is staleness, at most twenty times the check's
    cost: about 0.1 s at 1,000 local skills, 0.4 s at 10,000, 8 s at 100,000 (a remote
    source: twenty times its listing). Smaller libraries keep the
    exact behaviour above.

    With a ``marker`` (a :data:`Marker`, e.g. :func:`file_marker`), a change of its value
    makes the next check due at once, even with ``refresh=False``: a deploy that bumps it
    after editing the skills reaches every worker on that worker's next run.
    """

    def __init__(
        self,
        refresh: bool | float = True,
        library: ScanCost | None = None,
        marker: Marker | None = None,
    ) -> None:
        #: A cheap shared signal (see :data:`Marker`): when its value changes, the next
        #: check scans at once, whatever the pacing says.
        self.marker = marker
        self._seen: object = _UNSEEN
        self.interval: float | None = (
            (0.0 if refresh else None) if isinstance(refresh, bool) else float(refresh)
        )
        self._library = library
        self._lock = threading.Lock()
        self._at: float | None = None
        self._run: object = None

    def _spacing(self) -> float:
        """The least time between two scans that the cost of the last one asks for."""
        cost = 0.0 if self._library is None else self._library.refresh_seconds
        if not isinstance(cost, (int, float)) or not cost >= REFRESH_COST_FLOOR:  # NaN too
            return 0.0
        return float(cost) * REFRESH_COST_FACTOR

    def due(self, run: object = None) -> bool:
        """True when a scan should start now (and records it). ``run`` identifies the run
        (e.g. an invocation id): a run never scans twice."""
        with self._lock:
            now = time.monotonic()
            if self.marker is not None and self._marked() and self._at is not None:
                self._at, self._run = now, run
                return True
            if self._at is not None:
                if self.interval is None or (run is not None and run == self._run):
                    return False
                if now - self._at < max(self.interval, self._spacing()):
                    return False
            self._at, self._run = now, run
            return True

    def _marked(self) -> bool:
        """True when the marker's value changed since the last look (a failing marker
        counts as unchanged: the pacing still applies)."""
        try:
            value = self.marker()  # type: ignore[misc]
        except Exception:
            return False
        changed = self._seen is not _UNSEEN and value != self._seen  # the first look sets it
        self._seen = value
        return changed

    def reset(self) -> None:
        """Forget the last scan (it failed): the next call is due."""
        with self._lock:
            self._at, self._run = None, None
