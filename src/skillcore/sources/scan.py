"""What a scan of a source finds: the scan types and the diagnostics every reader reports."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping

import attrs

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import _defaults_constructor
from skillcore.sources.source import SKILL_FILE, SkillSource


@attrs.frozen
class ScanEntry:
    """One skill directory found by a scan."""

    #: Skill directory relative to the source root ('' when the root is the skill).
    directory: str
    #: Name of the directory (used to check the skill's name).
    dir_name: str
    stamp: str
    #: Head bytes of SKILL.md; None when the stamp matched a known one (unchanged).
    head: bytes | None
    #: True when ``head`` is the whole file.
    complete: bool = False
    #: Why SKILL.md could not be read this time (``head`` is then None). The library keeps
    #: the skill's last good version for a grace period instead of dropping it at once.
    error: Diagnostic | None = None
    #: Size of SKILL.md in bytes, when the scan knows it (the length checks use it).
    size: int | None = None
    #: The body's section headings when the scan read them (``head`` is then only the
    #: frontmatter); None: the parser reads them from ``head``.
    headings: tuple[str, ...] | None = None
    #: Whether the skill directory holds an entry named ``agents`` (Codex's folder, see
    #: :mod:`skillcore.parse.codex`), when the scan looked from the directory it read
    #: ``SKILL.md`` in; None: not looked (the library checks the path itself).
    agents: bool | None = None


#: ``ScanEntry(...)`` (the same value) without attrs' call per field: a local scan makes one
#: per skill it reads.
scan_entry: Callable[..., ScanEntry] = _defaults_constructor(ScanEntry)


@attrs.frozen
class Scan:
    """What one scan of a source found."""

    entries: tuple[ScanEntry, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    #: Top-level skill directories whose SKILL.md has its known stamp, ``{directory: stamp}``
    #: in the order of the known stamps, when the caller asked for them apart from ``entries``
    #: (``LocalReader.scan(..., unchanged_apart=True)``): each stands for
    #: ``ScanEntry(directory, directory, stamp, None)``. One small dict instead of an object
    #: per skill: an unchanged library of 100,000 skills is mostly this.
    unchanged: Mapping[str, str] = attrs.field(factory=dict, hash=False)

    def all_entries(self) -> tuple[ScanEntry, ...]:
        """``entries`` with the ``unchanged`` ones as entries too, in directory order."""
        if not self.unchanged:
            return self.entries
        found = [ScanEntry(d, d, stamp, None) for d, stamp in self.unchanged.items()]
        found.extend(self.entries)
        found.sort(key=_directory_of)
        return tuple(found)


def _directory_of(entry: ScanEntry) -> str:
    return entry.directory


def source_diagnostic(
    code: Code,
    message: str,
    source: SkillSource,
    path: str,
    severity: Severity = Severity.ERROR,
) -> Diagnostic:
    """A diagnostic about ``path`` of ``source`` (ERROR unless told)."""
    return Diagnostic(severity, code, message, source.label, path)


def misnamed_skill_file(name: str) -> bool:
    """True for a case variant of ``SKILL.md`` (``skill.md``, ``Skill.md``, ...): the guide
    asks for a file "named exactly ``SKILL.md``", so it is reported, not read."""
    return name != SKILL_FILE and name.lower() == SKILL_FILE.lower()


def misnamed_diagnostic(source: SkillSource, path: str) -> Diagnostic:
    """A WARNING; the library makes it an ERROR in strict mode."""
    name = posixpath.basename(path)
    return source_diagnostic(
        Code.MISNAMED_SKILL_FILE,
        f"{name!r} is not read as a skill: the file must be named exactly {SKILL_FILE} "
        "(case matters); rename it",
        source,
        path,
        Severity.WARNING,
    )


def not_a_file_diagnostic(source: SkillSource, path: str, what: str) -> Diagnostic:
    """``SKILL.md`` at ``path`` is no file (a directory, a link to one): skipped, a WARNING."""
    return source_diagnostic(
        Code.SKILL_FILE_NOT_A_FILE,
        f"skipped: {SKILL_FILE} is {what}, not a file",
        source,
        path,
        Severity.WARNING,
    )
