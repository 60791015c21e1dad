"""What a scan's entries become: each changed ``SKILL.md`` parsed (read further when its
frontmatter outgrows the head), and the scan's findings in the library's mode."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import attrs

from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import SkillLocation
from skillcore.parse import (
    CODEX_FILE,
    FRONTMATTER_HEAD_BYTES,
    MAX_CODEX_BYTES,
    MAX_FRONTMATTER_BYTES,
    ParseResult,
    ValidationMode,
    read_codex_interface,
    with_codex_interface,
)
from skillcore.sources import (
    SKILL_FILE,
    LocalReader,
    ReadError,
    Scan,
    ScanEntry,
    SourceReader,
)

if TYPE_CHECKING:
    from skillcore.parse import parse_skill_file
else:

    def parse_skill_file(*args: Any, **kwargs: Any) -> ParseResult:
        """The parser, imported on the first parse (a start from the parse cache parses
        nothing): this stand-in then gives its name to the parser itself, so later parses
        pay no extra call, unless something else took the name meanwhile (a test counting
        parses)."""
        global parse_skill_file
        from skillcore.parse import parse_skill_file as parse

        if parse_skill_file is _FIRST_PARSE:
            parse_skill_file = parse
        return parse(*args, **kwargs)

    _FIRST_PARSE = parse_skill_file


def parse_entry(
    reader: SourceReader, mode: ValidationMode, head_bytes: int, entry: ScanEntry
) -> ParseResult:
    """The parse result of one scanned ``SKILL.md`` (read again when the scan brought no
    head, and read further when its frontmatter is longer than the head)."""
    location = SkillLocation(reader.source.label, entry.directory, reader.url_for(entry.directory))
    path = f"{entry.directory}/{SKILL_FILE}" if entry.directory else SKILL_FILE
    head = entry.head
    if head is None:  # known stamp but no cached parse (should not happen); read again
        try:
            head = reader.read_file(entry.directory, SKILL_FILE, head_bytes)
        except ReadError as exc:
            return ParseResult(None, (read_diag(reader, path, exc),))
    # Called directly, not through ``_parse``: one call layer less for every skill.
    result = parse_skill_file(
        head,
        directory_name=entry.dir_name,
        location=location,
        path=path,
        mode=mode,
        complete=entry.complete,
        stamp=entry.stamp,
        size=entry.size,
        headings=entry.headings,
    )
    if result.need_more:
        # Frontmatter longer than the head: read a prefix that holds any frontmatter under
        # the cap, whatever the size of the body after it.
        try:
            more, complete = reader.read_head(entry.directory, SKILL_FILE, FRONTMATTER_HEAD_BYTES)
        except ReadError as exc:
            return ParseResult(None, (read_diag(reader, path, exc),))
        if more:
            result = _parse(more, complete, entry, location, path, mode)
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
    if (
        result.metadata is not None
        and entry.agents is not False  # the scan found no ``agents`` entry
        and isinstance(reader, LocalReader)
    ):
        result = _with_codex(reader, entry.directory, result, entry.agents)
    return result


def _with_codex(
    reader: SourceReader, directory: str, result: ParseResult, agents: bool | None = None
) -> ParseResult:
    """``result`` with Codex's ``agents/openai.yaml`` read into it, when the skill has one
    (see :mod:`skillcore.parse.codex`). Local sources only: elsewhere it would cost a
    request per skill; a missing file costs one failed open. ``agents``: whether the scan
    found an ``agents`` entry in the skill directory (None: it did not look)."""
    assert result.metadata is not None
    # A plain existence check first (nothing is read through it): most skills have no
    # ``agents/`` folder, and a confined read of a missing file costs as much as the parse.
    # The local scan answers it from the directory it read SKILL.md in (no path to resolve).
    root = getattr(reader, "root", None)
    if (
        agents is None
        and isinstance(root, str)
        and not os.path.lexists(os.path.join(root, directory, "agents"))
    ):
        return result
    try:
        data = reader.read_file(directory, CODEX_FILE, MAX_CODEX_BYTES)
    except ReadError as exc:
        if exc.code is OutcomeCode.RESOURCE_NOT_FOUND:
            return result
        data = b"\xff" * (MAX_CODEX_BYTES + 1)  # unreadable: read as refused (fails closed)
    found = read_codex_interface(data)
    path = f"{directory}/{CODEX_FILE}" if directory else CODEX_FILE
    diags = tuple(
        Diagnostic(Severity.WARNING, Code.INVALID_TYPE, p, reader.source.label, path)
        for p in found.problems
    )
    meta = with_codex_interface(result.metadata, found)
    return attrs.evolve(result, metadata=meta, diagnostics=(*result.diagnostics, *diags))


def _parse(
    data: bytes,
    complete: bool,
    entry: ScanEntry,
    location: SkillLocation,
    path: str,
    mode: ValidationMode,
    headings: tuple[str, ...] | None = None,
) -> ParseResult:
    return parse_skill_file(
        data,
        directory_name=entry.dir_name,
        location=location,
        path=path,
        mode=mode,
        complete=complete,
        stamp=entry.stamp,
        size=entry.size,
        headings=headings,
    )


def scan_diagnostics(scan: Scan, mode: ValidationMode, reader: SourceReader) -> list[Diagnostic]:
    """A scan's findings in this library's mode, plus a word when it found no skill."""
    diags = list(scan.diagnostics)
    if mode is ValidationMode.STRICT:
        # The spec names the file exactly; a case variant is a warning only in lenient mode.
        diags = [
            attrs.evolve(d, severity=Severity.ERROR) if d.code is Code.MISNAMED_SKILL_FILE else d
            for d in diags
        ]
    if not scan.entries and not scan.unchanged:
        diags.append(
            Diagnostic(
                # The spec's validators refuse a folder without SKILL.md; lenient
                # discovery of a still-empty folder only warns.
                Severity.ERROR if mode is ValidationMode.STRICT else Severity.WARNING,
                Code.EMPTY_SOURCE,
                f"no skills found in {reader.url_for('')}: no directory in it "
                f"holds a {SKILL_FILE} file",
                reader.source.label,
            )
        )
    return diags


def read_diag(reader: SourceReader, path: str, exc: ReadError) -> Diagnostic:
    return Diagnostic(
        Severity.ERROR, Code.READ_FAILED, f"skipped: {exc.message}", reader.source.label, path
    )
