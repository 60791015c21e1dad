"""Skills published at an origin's well-known index (Agent Skills Discovery via Well-Known URIs,
v0.2.0): ``wellknown+https://example.com`` reads ``https://example.com/.well-known/agent-skills/
index.json``.

Every artifact is checked against the index's SHA-256 digest before anything in it is used; a
mismatch refuses that skill with a ``DIGEST_MISMATCH`` diagnostic (URL, expected and found
digests) and keeps the others. Archives are unpacked in memory by the archive reader's rules
(entries, bytes, ratio, traversal, links). A skill is served from the verified copy of the last
scan; an unchanged digest is not downloaded again. Plain ``http://`` is accepted for loopback
hosts only; artifacts and redirects stay on the index's origin unless ``allowed_hosts`` lists
another host. Storage options (all optional) are the fields of :class:`WellKnownLimits` and
``allowed_hosts`` (a list of host names).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit

import attrs

from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import SourceError
from skillcore.model import Resource
from skillcore.sources.archive import ArchiveLimits, ArchiveReader
from skillcore.sources.errors import ReadError, SourceUnavailable
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.scan import Scan, ScanEntry
from skillcore.sources.source import SKILL_FILE, SkillSource
from skillcore.sources.wellknown_http import FetchError, fetch, origin, url_problem
from skillcore.sources.wellknown_index import (
    ARCHIVE,
    INDEX_PATH,
    IndexEntry,
    IndexFormatError,
    parse_index,
)

#: URL schemes of this source.
SCHEMES = ("wellknown+https", "wellknown+http")


@attrs.frozen
class WellKnownLimits:
    """Bounds on what one scan of a well-known source fetches and keeps."""

    #: Bytes of ``index.json``.
    max_index_bytes: int = 1024 * 1024
    #: Entries of the index examined (the rest are reported, not read).
    max_skills: int = 1_000
    #: Bytes of one archive artifact (a ``skill-md`` artifact is capped by ``max_file_bytes``).
    max_archive_bytes: int = 32 * 1024 * 1024
    #: Bytes downloaded in one scan, all artifacts together.
    max_total_bytes: int = 256 * 1024 * 1024
    #: Seconds for one request (connecting, redirects and reading together).
    timeout: float = 10.0
    #: Seconds for one whole scan; entries not reached in time are reported and skipped.
    max_scan_seconds: float = 120.0
    #: Entries of one archive, and the bytes they unpack to.
    max_members: int = 2_000
    max_uncompressed_bytes: int = 64 * 1024 * 1024


_NUMBERS = tuple(f.name for f in attrs.fields(WellKnownLimits))


def check_wellknown_source(source: SkillSource) -> None:
    """Refuse a bad URL or bad storage options where the library is built (SourceError)."""
    open_wellknown_reader(source)  # builds the reader only: nothing is fetched


def open_wellknown_reader(source: SkillSource) -> SourceReader:
    """Reader factory for ``wellknown+https://HOST[:PORT]`` (``wellknown+http://`` to loopback)."""
    opts = source.fsspec_options()
    defaults = WellKnownLimits()
    try:
        given = {k: type(getattr(defaults, k))(opts.pop(k)) for k in _NUMBERS if k in opts}
        if not all(v > 0 for v in given.values()):  # (NaN is not above 0 either)
            raise ValueError("every limit must be above 0")
        limits = WellKnownLimits(**given)
    except (TypeError, ValueError) as exc:
        raise SourceError(
            f"skill source {source.url!r}: a bad limit in storage_options ({exc})"
        ) from None
    hosts = opts.pop("allowed_hosts", ())
    if not isinstance(hosts, (list, tuple)) or not all(isinstance(h, str) for h in hosts):
        raise SourceError(f"skill source {source.url!r}: allowed_hosts must be a list of hosts")
    if opts:
        raise SourceError(
            f"skill source {source.url!r}: unknown storage options {sorted(opts)} (known: "
            f"{', '.join([*_NUMBERS, 'allowed_hosts'])})"
        )
    return WellKnownReader(
        source, index_url(source.url), limits, frozenset(h.lower() for h in hosts)
    )


def index_url(url: str) -> str:
    """The index URL of a ``wellknown+`` source URL; SourceError for anything but an origin."""
    scheme, sep, rest = url.partition("+")
    if scheme != "wellknown" or not sep:
        raise SourceError(f"{url!r} is not a wellknown+https:// URL")
    parts = urlsplit(rest)
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise SourceError(
            f"{url!r}: give the origin only (wellknown+https://HOST[:PORT]); the index is "
            f"always {INDEX_PATH}"
        )
    problem = url_problem(rest)
    if problem is not None:
        raise SourceError(f"skill source {url!r}: {problem}")
    return f"{parts.scheme}://{parts.netloc}{INDEX_PATH}"


@attrs.frozen
class _Verified:
    """One skill's artifact, fetched and matching its digest."""

    entry: IndexEntry
    url: str
    #: The SKILL.md bytes (``skill-md``), or the unpacked archive.
    text: bytes | None
    archive: _VerifiedArchive | None


class _VerifiedArchive(ArchiveReader):
    """An archive reader over bytes already fetched and verified (never re-read)."""

    def __init__(self, source: SkillSource, url: str, data: bytes, limits: ArchiveLimits) -> None:
        super().__init__(source, url, "", {}, limits)
        self._index = self._build(data, url)

    def _load(self) -> Any:
        return self._index

    def has_root_skill(self) -> bool:
        """Whether ``SKILL.md`` sits at the archive's root (the proposal requires it)."""
        return self._index is not None and SKILL_FILE in self._index.files

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """What the archive reader refused inside the archive (unsafe members)."""
        return self._index.diagnostics if self._index is not None else ()


class WellKnownReader(SourceReader):
    """Reads the skills an origin lists in its well-known index."""

    def __init__(
        self, source: SkillSource, index: str, limits: WellKnownLimits, hosts: frozenset[str]
    ) -> None:
        super().__init__(source)
        self.index_url = index
        self.limits = limits
        self.allowed_hosts = hosts
        self._skills: dict[str, _Verified] = {}
        self._lock = threading.Lock()

    def url_for(self, directory: str) -> str:
        """The artifact URL of a skill (the index URL for the source itself)."""
        found = self._skills.get(directory)
        return found.url if found is not None else self.index_url

    # -- where requests may go ---------------------------------------------------------------

    def _host_problem(self, url: str) -> str | None:
        problem = url_problem(url)
        if problem is not None:
            return problem
        if origin(url) == origin(self.index_url):
            return None
        host = urlsplit(url).hostname or ""
        if host.lower() in self.allowed_hosts:
            return None
        return (
            f"{host} is not the index's origin; list it in the source's allowed_hosts to "
            "fetch from it"
        )

    def _may_follow(self, from_url: str, to_url: str) -> str | None:
        if urlsplit(from_url).scheme == "https" and urlsplit(to_url).scheme != "https":
            return "a redirect from https to http"
        return self._host_problem(to_url)

    def _get(self, url: str, max_bytes: int, timeout: float) -> tuple[bytes, str]:
        return fetch(url, max_bytes=max_bytes, timeout=timeout, may_follow=self._may_follow)

    # -- scanning ----------------------------------------------------------------------------

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """Fetch the index and every changed artifact, verify them, and report the skills."""
        try:
            data, base = self._get(self.index_url, self.limits.max_index_bytes, self.limits.timeout)
        except FetchError as exc:
            raise SourceUnavailable(f"cannot fetch the skills index: {exc}") from exc
        try:
            parsed = parse_index(data, self.limits.max_skills)
        except IndexFormatError as exc:
            raise SourceUnavailable(f"skills index {self.index_url} refused: {exc}") from exc
        diags = [
            self._problem_diag(p.name, p.position, p.message, p.severity) for p in parsed.problems
        ]
        if parsed.omitted:
            diags.append(
                self.diag(
                    Code.SOURCE_LIMIT,
                    f"the index lists {parsed.omitted} skills more than the limit of "
                    f"{self.limits.max_skills} (max_skills); they are not read",
                    "",
                    Severity.WARNING,
                )
            )
        with self._lock:
            verified = self._verify_all(parsed.entries, base, diags)
            self._skills = verified
        entries = [self._scan_entry(v, head_bytes, known, diags) for v in verified.values()]
        return Scan(tuple(e for e in entries if e is not None), tuple(diags))

    def _problem_diag(
        self, name: str, position: int, message: str, severity: Severity
    ) -> Diagnostic:
        where = name or f"skills[{position}]"
        return self.diag(
            Code.INVALID_INDEX_ENTRY, f"{self.index_url} {where}: {message}", where, severity
        )

    def _verify_all(
        self, entries: tuple[IndexEntry, ...], base: str, diags: list[Diagnostic]
    ) -> dict[str, _Verified]:
        out: dict[str, _Verified] = {}
        budget = self.limits.max_total_bytes
        deadline = time.monotonic() + self.limits.max_scan_seconds
        for entry in entries:
            previous = self._skills.get(entry.name)
            url = urljoin(base, entry.url)  # RFC 3986: against where the index came from
            if previous is not None and previous.entry == entry and previous.url == url:
                out[entry.name] = previous  # same digest: verified already, not fetched again
                continue
            left = deadline - time.monotonic()
            over = self._over_scan_limits(left, budget)
            if over is not None:
                diags.append(self.diag(Code.SOURCE_LIMIT, over, entry.name))
                continue
            result = self._verify(entry, url, budget, min(left, self.limits.timeout))
            if isinstance(result, Diagnostic):
                diags.append(result)
                continue
            budget -= len(result[1])
            out[entry.name] = result[0]
            if result[0].archive is not None:
                diags.extend(self._inside(entry.name, result[0].archive.diagnostics))
        return out

    def _over_scan_limits(self, left: float, budget: int) -> str | None:
        """Why the scan fetches no more artifacts (time or bytes used up), or None."""
        if left <= 0:
            return (
                f"skipped: the scan ran out of time ({self.limits.max_scan_seconds:g} s, "
                "max_scan_seconds) before this skill was fetched"
            )
        if budget <= 0:
            return (
                f"skipped: the scan already downloaded {self.limits.max_total_bytes} bytes "
                "(max_total_bytes)"
            )
        return None

    def _cap(self, entry: IndexEntry, budget: int) -> tuple[int, str]:
        """The byte cap of one artifact and the limit it comes from."""
        own, name = (
            (self.limits.max_archive_bytes, "max_archive_bytes")
            if entry.kind == ARCHIVE
            else (self.max_file_bytes, "the library's max_file_bytes")
        )
        return (own, name) if own <= budget else (budget, "what is left of max_total_bytes")

    def _verify(
        self, entry: IndexEntry, url: str, budget: int, timeout: float
    ) -> tuple[_Verified, bytes] | Diagnostic:
        """Fetch one artifact and check it against its digest (and, for an archive, unpack it)."""
        refused = self._host_problem(url)
        if refused is not None:
            return self.diag(Code.INVALID_INDEX_ENTRY, f"skipped: {url}: {refused}", entry.name)
        cap, limit = self._cap(entry, budget)
        try:
            data, _ = self._get(url, cap, timeout)
        except FetchError as exc:
            if exc.too_large:
                return self.diag(Code.TOO_LARGE, f"skipped: {exc} ({limit})", entry.name)
            return self.diag(
                Code.READ_FAILED, f"skipped: cannot fetch the artifact: {exc}", entry.name
            )
        found = "sha256:" + hashlib.sha256(data).hexdigest()
        if found != entry.digest:
            return self.diag(
                Code.DIGEST_MISMATCH,
                f"refused: the artifact at {url} does not match the index: expected "
                f"{entry.digest}, found {found}",
                entry.name,
            )
        if entry.kind != ARCHIVE:
            return _Verified(entry, url, data, None), data
        limits = ArchiveLimits(
            self.limits.max_members,
            self.limits.max_uncompressed_bytes,
            self.limits.max_archive_bytes,
        )
        try:
            archive = _VerifiedArchive(self.source, url, data, limits)
        except SourceUnavailable as exc:
            return self.diag(Code.UNSAFE_PATH, f"refused: {exc}", entry.name)
        if not archive.has_root_skill():
            return self.diag(
                Code.READ_FAILED,
                f"refused: the archive at {url} has no {SKILL_FILE} at its root",
                entry.name,
            )
        return _Verified(entry, url, None, archive), data

    def _inside(self, name: str, found: tuple[Diagnostic, ...]) -> list[Diagnostic]:
        return [attrs.evolve(d, path=f"{name}/{d.path}" if d.path else name) for d in found]

    def _scan_entry(
        self, skill: _Verified, head_bytes: int, known: Mapping[str, str], diags: list[Diagnostic]
    ) -> ScanEntry | None:
        name, stamp = skill.entry.name, skill.entry.digest
        if known.get(name) == stamp:
            return ScanEntry(name, name, stamp, None)
        try:
            head, complete = self.read_head(name, SKILL_FILE, head_bytes)
        except ReadError as exc:
            diags.append(self.diag(Code.READ_FAILED, f"skipped: {exc.message}", name))
            return None
        size = len(skill.text) if skill.text is not None else None
        return ScanEntry(name, name, stamp, head, complete, size=size)

    # -- reading -----------------------------------------------------------------------------

    def _skill(self, directory: str) -> _Verified:
        found = self._skills.get(directory)
        if found is None:
            raise ReadError(
                OutcomeCode.READ_FAILED, f"{self.index_url} lists no skill {directory!r} now"
            )
        return found

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """A file of a verified skill: its SKILL.md, or a member of its archive (capped)."""
        rel = safe_relpath(rel_path)
        skill = self._skill(directory)
        if skill.archive is not None:
            return skill.archive.read_file("", rel, max_bytes)
        if rel != SKILL_FILE or skill.text is None:
            raise ReadError(
                OutcomeCode.RESOURCE_NOT_FOUND,
                f"no file {rel_path!r} in the skill directory (a skill-md skill has only "
                f"{SKILL_FILE})",
                missing=True,
            )
        if len(skill.text) > max_bytes:
            raise ReadError(
                OutcomeCode.TOO_LARGE,
                f"{rel_path!r} is {len(skill.text)} bytes, over the {max_bytes}-byte limit",
            )
        return skill.text

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """The resources of an archive skill; a ``skill-md`` skill has none."""
        found = self._skills.get(directory)
        if found is None or found.archive is None:
            return (), False
        return found.archive.list_files("", max_entries)
