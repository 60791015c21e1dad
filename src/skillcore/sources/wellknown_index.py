"""The well-known skills index (``/.well-known/agent-skills/index.json``): its format, read
strictly and bounded (Agent Skills Discovery via Well-Known URIs, v0.2.0).

:func:`parse_index` turns the index bytes into entries and per-entry problems. It never
raises anything but :class:`IndexFormatError` (the whole index is unusable: not JSON, not
the known schema, no ``skills`` array); one bad entry is a problem, the others are kept.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from skillcore._escaping import quoted_excerpt, single_line
from skillcore.diagnostics import Severity
from skillcore.errors import SkillcoreError
from skillcore.parse import ValidationMode, check_name

#: Where the index lives on an origin.
INDEX_PATH = "/.well-known/agent-skills/index.json"
#: The ``$schema`` identifiers this reader understands (compared exactly; opaque, never fetched).
KNOWN_SCHEMAS = ("https://schemas.agentskills.io/discovery/0.2.0/schema.json",)
#: The entry types of v0.2.0.
SKILL_MD = "skill-md"
ARCHIVE = "archive"
#: The proposal's limit on ``description`` (the Agent Skills spec's).
MAX_DESCRIPTION = 1024
#: Longest ``url`` accepted in an entry.
MAX_URL_CHARS = 2048
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
# ASCII, and no whitespace, controls or backslashes in a URL reference (RFC 3986 allows none;
# other characters are percent-encoded).
_BAD_URL_CHAR = re.compile(r"[\x00-\x20\x7f-\x9f\\]")


class IndexFormatError(SkillcoreError, ValueError):
    """The index as a whole cannot be used (the message says why)."""


@attrs.frozen
class IndexEntry:
    """One usable skill entry of the index."""

    name: str
    kind: str
    description: str
    #: The ``url`` as written (resolved against the index URL by the reader).
    url: str
    #: ``sha256:`` followed by 64 lowercase hex digits.
    digest: str


@attrs.frozen
class EntryProblem:
    """Why entry number ``position`` (0-based) of ``skills`` was skipped."""

    position: int
    #: The entry's name when it had a usable one (a diagnostic's path), else "".
    name: str
    message: str
    severity: Severity = Severity.ERROR


@attrs.frozen
class ParsedIndex:
    """The usable entries (in index order) and the problems of the others."""

    entries: tuple[IndexEntry, ...]
    problems: tuple[EntryProblem, ...]
    #: How many entries the index has beyond ``max_entries`` (not examined).
    omitted: int = 0


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A key given twice is read differently by different JSON parsers: refuse it.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise IndexFormatError(f"the key {quoted_excerpt(key)} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise IndexFormatError(f"{name} is not JSON")


def load_json(data: bytes) -> Any:
    """``data`` as strict JSON (UTF-8, no duplicate keys, no NaN/Infinity, bounded nesting)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IndexFormatError(
            f"the index is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise IndexFormatError(
            f"the index is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise IndexFormatError("the index is nested too deeply to be read") from None


def parse_index(data: bytes, max_entries: int) -> ParsedIndex:
    """The entries of an index document; at most ``max_entries`` are examined."""
    doc = load_json(data)
    if not isinstance(doc, dict):
        raise IndexFormatError(f"the index is a JSON {_kind(doc)}, not an object")
    schema = doc.get("$schema")
    if schema is None:
        # v0.1.0 (no $schema) has no digests: nothing in it could be verified.
        raise IndexFormatError(
            "the index has no $schema (a v0.1.0 index, which has no digests to verify "
            f"skills by); supported: {', '.join(KNOWN_SCHEMAS)}"
        )
    if schema not in KNOWN_SCHEMAS:
        shown = quoted_excerpt(schema) if isinstance(schema, str) else f"a JSON {_kind(schema)}"
        raise IndexFormatError(f"unknown $schema {shown}; supported: {', '.join(KNOWN_SCHEMAS)}")
    skills = doc.get("skills")
    if not isinstance(skills, list):
        what = "missing" if skills is None else f"a JSON {_kind(skills)}"
        raise IndexFormatError(f"the index's 'skills' must be an array, it is {what}")
    entries: list[IndexEntry] = []
    problems: list[EntryProblem] = []
    seen: set[str] = set()
    for position, raw in enumerate(skills[:max_entries]):
        entry = _entry(position, raw)
        if isinstance(entry, EntryProblem):
            problems.append(entry)
        elif entry.name in seen:
            problems.append(
                EntryProblem(position, entry.name, "skipped: a second entry with the same name")
            )
        else:
            seen.add(entry.name)
            entries.append(entry)
    return ParsedIndex(tuple(entries), tuple(problems), max(0, len(skills) - max_entries))


def _entry(position: int, raw: object) -> IndexEntry | EntryProblem:
    if not isinstance(raw, dict):
        return EntryProblem(
            position, "", f"skipped: the entry is a JSON {_kind(raw)}, not an object"
        )
    name = raw.get("name")
    if not isinstance(name, str):
        return _field_problem(position, "", "name", name)
    usable, problem = check_name(name, ValidationMode.STRICT)
    if not usable or problem is not None:
        # Names become folder names and tool arguments: the spec's form exactly.
        return EntryProblem(position, "", f"skipped: {single_line(problem or 'invalid name')}")
    for field in ("type", "description", "url", "digest"):
        if not isinstance(raw.get(field), str):
            return _field_problem(position, name, field, raw.get(field))
    kind, description, url, digest = raw["type"], raw["description"], raw["url"], raw["digest"]
    if kind not in (SKILL_MD, ARCHIVE):
        return EntryProblem(
            position,
            name,
            f"skipped: unknown type {quoted_excerpt(kind)} (supported: {SKILL_MD}, {ARCHIVE})",
            Severity.WARNING,
        )
    if len(description) > MAX_DESCRIPTION:
        return EntryProblem(
            position,
            name,
            f"skipped: description is {len(description)} characters long (limit {MAX_DESCRIPTION})",
        )
    if not url or len(url) > MAX_URL_CHARS or not url.isascii() or _BAD_URL_CHAR.search(url):
        return EntryProblem(
            position, name, f"skipped: url {quoted_excerpt(url)} is not a usable URL reference"
        )
    if _DIGEST.fullmatch(digest) is None:
        return EntryProblem(
            position,
            name,
            f"skipped: digest {quoted_excerpt(digest)} is not 'sha256:' and 64 lowercase "
            "hex digits",
        )
    return IndexEntry(name, kind, description, url, digest)


def _field_problem(position: int, name: str, field: str, value: object) -> EntryProblem:
    what = "missing" if value is None else f"a JSON {_kind(value)}"
    return EntryProblem(position, name, f"skipped: '{field}' must be a string, it is {what}")


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"
