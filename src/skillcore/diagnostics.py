"""Structured diagnostics: discovery never raises for a bad skill, it records one of these."""

from __future__ import annotations

import enum

import attrs


class Severity(str, enum.Enum):
    """How bad a diagnostic is. ``ERROR`` means the skill was skipped."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class Code(str, enum.Enum):
    """Stable diagnostic codes (their values never change between releases)."""

    SOURCE_UNREACHABLE = "SOURCE_UNREACHABLE"
    SOURCE_STALE = "SOURCE_STALE"
    SOURCE_LIMIT = "SOURCE_LIMIT"
    READ_FAILED = "READ_FAILED"
    TOO_LARGE = "TOO_LARGE"
    BINARY_FILE = "BINARY_FILE"
    DECODE_ERROR = "DECODE_ERROR"
    EMPTY_FILE = "EMPTY_FILE"
    NO_FRONTMATTER = "NO_FRONTMATTER"
    UNTERMINATED_FRONTMATTER = "UNTERMINATED_FRONTMATTER"
    YAML_ERROR = "YAML_ERROR"
    YAML_FALLBACK = "YAML_FALLBACK"
    YAML_TOO_COMPLEX = "YAML_TOO_COMPLEX"
    NOT_A_MAPPING = "NOT_A_MAPPING"
    MISSING_FIELD = "MISSING_FIELD"
    INVALID_TYPE = "INVALID_TYPE"
    INVALID_NAME = "INVALID_NAME"
    NAME_MISMATCH = "NAME_MISMATCH"
    FIELD_TOO_LONG = "FIELD_TOO_LONG"
    UNKNOWN_FIELD = "UNKNOWN_FIELD"
    SYMLINK_ESCAPE = "SYMLINK_ESCAPE"
    UNSAFE_PATH = "UNSAFE_PATH"
    SHADOWED = "SHADOWED"
    DUPLICATE_NAME = "DUPLICATE_NAME"
    # Frontmatter hardening: a key given twice, and text that carried control/bidi characters.
    DUPLICATE_KEY = "DUPLICATE_KEY"
    UNSAFE_CHARACTERS = "UNSAFE_CHARACTERS"
    # Reading hostile trees: a name that is not UTF-8, a skill kept through a failed re-read.
    UNDECODABLE_NAME = "UNDECODABLE_NAME"
    SKILL_STALE = "SKILL_STALE"
    # Discovery that finds nothing, or finds a near miss: a source without any skill, a file
    # named ``skill.md`` (or another case variant), a ``SKILL.md`` that is not a file.
    EMPTY_SOURCE = "EMPTY_SOURCE"
    MISNAMED_SKILL_FILE = "MISNAMED_SKILL_FILE"
    SKILL_FILE_NOT_A_FILE = "SKILL_FILE_NOT_A_FILE"
    # A description that is still a placeholder (``TODO: ...``, as ``skillcore new`` writes it).
    PLACEHOLDER_DESCRIPTION = "PLACEHOLDER_DESCRIPTION"
    # A ``dependencies`` entry that names no skill in the catalog.
    MISSING_DEPENDENCY = "MISSING_DEPENDENCY"
    # A rule of the Agent Skills reference validator broken (``validate --mode reference``).
    REFERENCE_RULE = "REFERENCE_RULE"
    # A ``SKILL.md`` longer than the spec's guidance (see ``skillcore.limits``).
    SKILL_TOO_LONG = "SKILL_TOO_LONG"
    # Invisible characters (tag characters, zero-width characters, BOM, soft hyphen) in a
    # SKILL.md: kept, and shown escaped wherever the text reaches a model or a terminal.
    INVISIBLE_CHARACTERS = "INVISIBLE_CHARACTERS"
    # A ``hooks`` entry that cannot be read (the entry is dropped; the others are kept).
    INVALID_HOOK = "INVALID_HOOK"
    # A well-known index entry that cannot be used, and an artifact whose SHA-256 is not the
    # index's digest (the skill is refused; the rest of the index is kept).
    INVALID_INDEX_ENTRY = "INVALID_INDEX_ENTRY"
    DIGEST_MISMATCH = "DIGEST_MISMATCH"
    # Lock verification: a skill whose files differ from its lock entry (refused), and a
    # skill the lock does not name (refused in frozen mode, else a warning).
    LOCK_MISMATCH = "LOCK_MISMATCH"
    NOT_LOCKED = "NOT_LOCKED"


@attrs.frozen
class Diagnostic:
    """One finding about a source, a skill file or a field, with a stable ``code``."""

    severity: Severity
    code: Code
    message: str
    source: str = ""
    path: str = ""
    field: str | None = None

    def format(self) -> str:
        """One line: ``severity CODE path [field]: message``."""
        where = self.path or self.source or "-"
        field = f" [{self.field}]" if self.field else ""
        return f"{self.severity.value:<7} {self.code.value} {where}{field}: {self.message}"

    def to_dict(self) -> dict[str, str | None]:
        """A JSON-native view (used by ``skillcore validate --json``)."""
        return {
            "severity": self.severity.value,
            "code": self.code.value,
            "message": self.message,
            "source": self.source,
            "path": self.path,
            "field": self.field,
        }
