"""Scanning the skills of a library: every skill's ``SKILL.md`` and files, read through its
source's reader (any source skillcore reads), bounded like the library's own reads.

Caps: at most :data:`~skillcore.limits.DEFAULT_MAX_RESOURCES` files a skill besides its
``SKILL.md`` (the listing the model gets) and
:data:`~skillcore.limits.DEFAULT_MAX_RESOURCE_BYTES` a file (what one resource read gives the
model; it also bounds the patterns' work on one file). What is cut, binary or unreadable is a
:class:`ScanNote`, never a silent skip; a script cut at the cap is also a finding (SC705).
"""

from __future__ import annotations

from skillcore.library import SkillLibrary
from skillcore.limits import DEFAULT_MAX_RESOURCE_BYTES, DEFAULT_MAX_RESOURCES
from skillcore.scan.context import FileKind, file_kind
from skillcore.scan.engine import scan_text
from skillcore.scan.findings import Finding, ScanNote, ScanReport
from skillcore.scan.rules import ScanSeverity
from skillcore.sources import SKILL_FILE, ReadError, SourceReader

#: Bytes looked at for a NUL to call a file binary (as resource reads do).
_BINARY_PROBE = 8192


def scan_library(
    lib: SkillLibrary,
    max_file_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    max_files: int = DEFAULT_MAX_RESOURCES,
) -> ScanReport:
    """Scan every skill of the (discovered) library, and the folders of ``SKILL.md`` files
    discovery skipped (a skill that does not parse today may parse elsewhere)."""
    scanner = _Scanner(max_file_bytes, max_files)
    done: set[tuple[str, str]] = set()
    for meta in lib.catalog.skills:
        loc = meta.location
        done.add((loc.source, loc.directory))
        scanner.skill(lib.reader(loc.source), loc.source, loc.directory, meta.name)
    for diag in lib.catalog.errors:
        path = diag.path or ""
        if not diag.source or not (path == SKILL_FILE or path.endswith("/" + SKILL_FILE)):
            continue
        directory = path[: -len(SKILL_FILE)].rstrip("/")
        if (diag.source, directory) in done:
            continue
        done.add((diag.source, directory))
        try:
            reader = lib.reader(diag.source)
        except (KeyError, ValueError):  # pragma: no cover - a diagnostic of another source
            continue
        scanner.skill(reader, diag.source, directory, directory.rsplit("/", 1)[-1])
    return ScanReport(tuple(scanner.findings), tuple(scanner.notes), len(done), scanner.files)


class _Scanner:
    """The reads of one scan and what they found."""

    def __init__(self, max_file_bytes: int, max_files: int) -> None:
        self.max_file_bytes = max_file_bytes
        self.max_files = max_files
        self.findings: list[Finding] = []
        self.notes: list[ScanNote] = []
        self.files = 0

    def skill(self, reader: SourceReader, source: str, directory: str, name: str) -> None:
        """Scan one skill directory: its SKILL.md, then its listed files."""
        self.file(reader, source, directory, SKILL_FILE, name)
        try:
            resources, truncated = reader.list_files(directory, self.max_files)
        except ReadError as exc:
            self.notes.append(ScanNote(_join(directory, ""), f"cannot list: {exc}", source))
            return
        if truncated:
            self.notes.append(
                ScanNote(
                    _join(directory, ""),
                    f"more than {self.max_files:,} files: only the first {self.max_files:,} "
                    "were scanned",
                    source,
                )
            )
        for res in resources:
            self.file(reader, source, directory, res.path, name)

    def file(self, reader: SourceReader, source: str, directory: str, rel: str, name: str) -> None:
        """Scan one file of a skill (a note when it cannot be scanned in full)."""
        path = _join(directory, rel)
        try:
            data, whole = reader.read_head(directory, rel, self.max_file_bytes)
        except ReadError as exc:
            self.notes.append(ScanNote(path, f"not scanned: {exc.message}", source))
            return
        self.files += 1
        if b"\x00" in data[:_BINARY_PROBE]:
            self.notes.append(ScanNote(path, "binary file: not scanned", source))
            return
        if not whole:
            self.notes.append(
                ScanNote(
                    path,
                    f"larger than {self.max_file_bytes:,} bytes: only its start was scanned",
                    source,
                )
            )
            if file_kind(rel) is FileKind.SCRIPT:
                size = f"over {self.max_file_bytes:,} bytes"
                self.findings.append(
                    Finding("SC705", ScanSeverity.MEDIUM, path, 1, 1, rel, name, size, source)
                )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if whole or exc.start < len(data) - 3:  # not just a character cut by the cap
                self.notes.append(ScanNote(path, "not UTF-8 text: not scanned", source))
                return
            text = data[: exc.start].decode("utf-8")
        self.findings.extend(scan_text(path, text, name, source, rel))


def _join(directory: str, rel: str) -> str:
    if not directory:
        return rel
    return f"{directory}/{rel}" if rel else directory
