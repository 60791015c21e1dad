"""What one parse works with and gives back: the validation mode, the result, and the per-file
context whose diagnostics the field readers add to."""

from __future__ import annotations

import enum
from collections.abc import Callable

import attrs

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import SkillLocation, SkillMetadata, _defaults_constructor
from skillcore.parse.values import Clean, Cleaner, unchanged


class ValidationMode(str, enum.Enum):
    """LENIENT follows the agentskills client guide; STRICT applies the spec to the letter."""

    LENIENT = "lenient"
    STRICT = "strict"


@attrs.frozen
class ParseResult:
    """The outcome of parsing one ``SKILL.md``: metadata (None when skipped) and diagnostics."""

    metadata: SkillMetadata | None
    diagnostics: tuple[Diagnostic, ...] = ()
    #: True when the head ended before the frontmatter did; the caller should read more.
    need_more: bool = False
    body_offset: int = 0


#: ``ParseResult(...)`` (the same value) without attrs' call per field: one per skill parsed.
parse_result: Callable[..., ParseResult] = _defaults_constructor(ParseResult)


class ParseContext:
    """One file's parse: where its diagnostics come from, what they collect, and what the
    field readers share (one per file: a plain class, cheaper to make than attrs)."""

    __slots__ = (
        "body_offset",
        "clean",
        "cleaner",
        "diags",
        "directory_name",
        "headings",
        "location",
        "mode",
        "path",
        "source",
        "stamp",
        "strict",
    )

    def __init__(
        self,
        location: SkillLocation,
        path: str,
        mode: ValidationMode,
        directory_name: str = "",
        stamp: str = "",
    ) -> None:
        self.source = location.source
        self.path = path
        self.mode = mode
        self.location = location
        self.directory_name = directory_name
        self.stamp = stamp
        self.strict = mode is ValidationMode.STRICT  # read once: enum access is not free
        #: What the parse found so far (a skip reports its own diagnostic only).
        self.diags: list[Diagnostic] = []
        #: Removes unsafe characters from kept text (None when the text has none to remove).
        self.cleaner: Cleaner | None = None
        self.clean: Clean = unchanged
        #: Where the body starts in the file's text (once the frontmatter is found).
        self.body_offset = 0
        #: The body's section headings read from the same text.
        self.headings: tuple[str, ...] = ()

    def diag(self, sev: Severity, code: Code, message: str, field: str | None = None) -> Diagnostic:
        return Diagnostic(sev, code, message, self.source, self.path, field)

    def problem(self, code: Code, message: str, field: str | None = None) -> Diagnostic:
        """An error in strict mode, a warning in lenient mode."""
        sev = Severity.ERROR if self.mode is ValidationMode.STRICT else Severity.WARNING
        return self.diag(sev, code, message, field)


def skip(ctx: ParseContext, code: Code, message: str, field: str | None = None) -> ParseResult:
    """The file is skipped for this one reason (earlier findings are not reported)."""
    return ParseResult(None, (ctx.diag(Severity.ERROR, code, f"skipped: {message}", field),))


def fail(ctx: ParseContext, code: Code, message: str, field: str) -> ParseResult:
    """The file is skipped, with everything found so far."""
    ctx.diags.append(ctx.diag(Severity.ERROR, code, f"skipped: {message}", field))
    return ParseResult(None, tuple(ctx.diags))
