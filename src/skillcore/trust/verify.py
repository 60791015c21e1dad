"""Verification against a lock: the trust tiers, the differences between a skill and its lock
entry, and the reader that checks every byte it hands out.

The rule of the tiers is :func:`tier_of`; code (scripts, hooks, ``!command``) runs only
from a skill whose tier :attr:`TrustTier.runs_code`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING

import attrs

from skillcore import events
from skillcore.codes import OutcomeCode
from skillcore.model import Resource
from skillcore.paths import normalise_relpath, path_problem
from skillcore.sources import SKILL_FILE, ReadError, Scan, SkillSource, SourceReader
from skillcore.trust.digests import file_digest
from skillcore.trust.lockfile import LockedSkill, LockFile

if TYPE_CHECKING:
    from skillcore.trust.snapshot import Snapshot


class TrustTier(str, enum.Enum):
    """How far a skill is trusted.

    ``trusted``: its source is trusted (``SkillSource.runs_code``: a local folder, or a source
    marked ``trusted=True``) and no lock vouches for it. ``pinned``: its files match the lock
    (whatever its source). ``untrusted``: neither; it can be read, its code never runs.
    """

    TRUSTED = "trusted"
    PINNED = "pinned"
    UNTRUSTED = "untrusted"

    @property
    def runs_code(self) -> bool:
        """Whether code of a skill of this tier may run (scripts, hooks, ``!command``)."""
        return self is not TrustTier.UNTRUSTED


def tier_of(source: SkillSource, matched: bool, pins: bool = True) -> TrustTier:
    """The tier of a skill of ``source`` whose files ``matched`` its lock entry (False: not
    locked). ``pins``: whether the lock may grant the pinned tier (a lock named by an
    untrusted settings file verifies but grants nothing)."""
    if matched and pins:
        return TrustTier.PINNED
    return TrustTier.TRUSTED if source.runs_code else TrustTier.UNTRUSTED


@attrs.frozen
class Difference:
    """One way a skill differs from its lock entry."""

    skill: str
    #: ``changed``, ``added``, ``removed``, ``moved`` (another source or directory),
    #: ``unreadable`` or ``not-locked``.
    kind: str
    path: str = ""
    expected: str = ""
    found: str = ""

    @property
    def message(self) -> str:
        """One line for a user: which file, expected and found."""
        where = f"{self.path}: " if self.path else ""
        if self.kind == "changed":
            return f"{where}changed: expected {self.expected}, found {self.found}"
        if self.kind == "added":
            return f"{where}added: not in the lock (found {self.found})"
        if self.kind == "removed":
            return f"{where}removed: the lock expects {self.expected}"
        if self.kind == "moved":
            return f"moved: the lock expects folder {self.expected!r}, found {self.found!r}"
        if self.kind == "not-locked":
            return "not in the lock"
        return f"{where}{self.kind}: {self.found}"


def compare(locked: LockedSkill, directory: str, snap: Snapshot) -> list[Difference]:
    """Every difference between a skill (its directory in its source and its files as read
    now) and its lock entry; empty when they match. The source's label is not compared: it
    is how this process names the source (a path given relatively, a URL), not content."""
    name = locked.name
    out: list[Difference] = []
    if locked.directory != directory:
        out.append(Difference(name, "moved", "", locked.directory or ".", directory or "."))
    if snap.tree == locked.tree:
        return out
    for path in sorted(set(locked.files) | set(snap.files)):
        want, got = locked.files.get(path), snap.files.get(path)
        if want == got:
            continue
        if want is None:
            out.append(Difference(name, "added", path, "", got or ""))
        elif got is None:
            out.append(Difference(name, "removed", path, want, ""))
        else:
            out.append(Difference(name, "changed", path, want, got))
    return out


@attrs.frozen
class LockPolicy:
    """A lock in force: the lock, whether it is frozen (a skill it does not name is refused)
    and whether a match grants the pinned tier."""

    lock: LockFile
    frozen: bool = False
    pins: bool = True


def _refused(entry: LockedSkill, detail: str) -> ReadError:
    events.lock_refused_read(entry.name, entry.source, detail)
    name = entry.name
    return ReadError(
        OutcomeCode.READ_FAILED,
        f"skill {name!r} does not match the lock: {detail}; it is refused until the lock is "
        "updated (skillcore update)",
    )


class VerifyingReader(SourceReader):
    """A source's reader whose reads of locked skills are checked against the lock: every
    file read is digested as read and compared with its locked digest (a file swapped after
    discovery is caught on the bytes handed out, never by a ``stat``), and a listing must
    name exactly the locked files. Scanning goes to the source's own reader."""

    def __init__(
        self,
        inner: SourceReader,
        places: Mapping[tuple[str, str], LockedSkill],
        frozen: bool,
    ) -> None:
        super().__init__(inner.source)
        self.inner = inner
        #: ``{(source label, directory): entry}`` of every skill discovery matched by name
        #: to a lock entry (refused ones too, so that an old session's read fails).
        self.places = places
        self.frozen = frozen
        self.max_file_bytes = inner.max_file_bytes

    def _entry(self, directory: str) -> LockedSkill | None:
        entry = self.places.get((self.source.label, directory))
        if entry is None and self.frozen:
            raise ReadError(
                OutcomeCode.READ_FAILED,
                f"{self.inner.url_for(directory)} is not in the lock (frozen): refused",
            )
        return entry

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        return self.inner.scan(head_bytes, known)

    def url_for(self, directory: str) -> str:
        return self.inner.url_for(directory)

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        entry = self._entry(directory)
        data = self.inner.read_file(directory, rel_path, max_bytes)
        if entry is not None:
            check_bytes(entry, rel_path, data)
        return data

    def read_head(self, directory: str, rel_path: str, max_bytes: int) -> tuple[bytes, bool]:
        # A head cannot be checked against the digest of the whole file: read it whole.
        data = self.read_file(directory, rel_path, max(self.max_file_bytes, max_bytes))
        return data[:max_bytes], len(data) <= max_bytes

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        entry = self._entry(directory)
        listed, truncated = self.inner.list_files(directory, max_entries)
        if entry is not None:
            found = {r.path for r in listed} - {SKILL_FILE}
            want = set(entry.files) - {SKILL_FILE}
            if truncated or found != want:
                extra = sorted(found - want)[:3]
                gone = sorted(want - found)[:3]
                raise _refused(entry, f"files added {extra}, removed {gone}")
        return listed, truncated


def check_bytes(entry: LockedSkill, rel_path: str, data: bytes) -> None:
    """Raise a ReadError unless ``data`` is what the lock records for ``rel_path``."""
    path = normalise_relpath(rel_path) if path_problem(rel_path) is None else rel_path
    want = entry.files.get(path)
    if want is None:
        raise _refused(entry, f"{path!r} is not in the lock")
    got = file_digest(data)
    if got != want:
        raise _refused(entry, f"{path!r} changed: expected {want}, found {got}")


__all__ = [
    "Difference",
    "LockPolicy",
    "TrustTier",
    "VerifyingReader",
    "check_bytes",
    "compare",
    "tier_of",
]
