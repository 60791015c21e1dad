"""``skills.lock``: what a lock records of each skill, and its file format.

The file is JSON written deterministically (keys sorted, two-space indent, one trailing
newline, no timestamps), so re-locking an unchanged library gives the same bytes and a change
shows as a small diff. Reading is strict and bounded: a file that is too large, is not JSON,
has an unknown version or key, a malformed digest, an unsafe path, or a tree digest that does
not match its files is a :class:`LockError`, never "no lock".
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillcore._frozen import FrozenDict, thaw, to_frozen
from skillcore.errors import SkillcoreError
from skillcore.paths import path_problem
from skillcore.trust.digests import DIGEST_PATTERN, tree_digest
from skillcore.trust.lock_env import LOCK_ENV, LOCK_KEYS_ENV

#: The file ``skillcore lock`` writes by default.
LOCK_FILE = "skills.lock"
#: The format version this release writes and reads.
LOCK_VERSION = 1
#: The largest lock file read (bytes): about 20,000 skills of a few files each.
MAX_LOCK_BYTES = 16 * 1024 * 1024
#: Keys of one skill's entry (``version`` may be null).
_SKILL_KEYS = frozenset({"source", "directory", "version", "resolved", "files", "tree"})


class LockError(SkillcoreError, ValueError):
    """A lock file that cannot be read, parsed or trusted; the message names the file."""


@attrs.frozen
class LockedSkill:
    """One skill as locked: where it came from, its files' digests and its tree digest."""

    name: str
    #: The label of the source it was found in.
    source: str
    #: Its directory relative to the source root ('' when the root is the skill).
    directory: str
    #: ``{relative path: sha256 digest}`` of every file, ``SKILL.md`` included.
    files: FrozenDict[str, str] = attrs.field(converter=to_frozen)
    #: What the source resolved the skill to (a Git commit, an S3 ETag or version id, a
    #: zip's sha256, an MCP server's URI and listed digests), by key; empty for a folder.
    resolved: FrozenDict[str, Any] = attrs.field(factory=FrozenDict, converter=to_frozen)
    #: The skill's ``version`` field, when it has one.
    version: str | None = None
    tree: str = attrs.field()

    @tree.default
    def _tree(self) -> str:
        return tree_digest(self.files)


@attrs.frozen
class LockFile:
    """A whole lock: its skills by name."""

    skills: FrozenDict[str, LockedSkill] = attrs.field(factory=FrozenDict, converter=to_frozen)

    @classmethod
    def of(cls, skills: Iterable[LockedSkill]) -> LockFile:
        """A lock of ``skills`` (later ones replace earlier ones of the same name)."""
        return cls({s.name: s for s in skills})

    def get(self, name: str) -> LockedSkill | None:
        """The locked skill called ``name``, or None."""
        return self.skills.get(name)

    def render(self) -> str:
        """The file's text (deterministic; see the module)."""
        data = {
            "lock_version": LOCK_VERSION,
            "skills": {
                name: {
                    "source": s.source,
                    "directory": s.directory,
                    "version": s.version,
                    "resolved": thaw(s.resolved),
                    "files": dict(s.files),
                    "tree": s.tree,
                }
                for name, s in self.skills.items()
            },
        }
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _fail(where: str, what: str) -> LockError:
    return LockError(f"lock file {where}: {what}")


def _text(value: Any, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, f"{what} must be text, got {type(value).__name__}")
    return value


def _entry(name: Any, raw: Any, where: str) -> LockedSkill:
    name = _text(name, where, "a skill name")
    if not isinstance(raw, Mapping):
        raise _fail(where, f"skill {name[:80]!r} is not an object")
    unknown = set(raw) - _SKILL_KEYS
    missing = _SKILL_KEYS - set(raw)
    if unknown or missing:
        raise _fail(
            where,
            f"skill {name[:80]!r}: unknown keys {sorted(unknown)[:5]}, missing {sorted(missing)}",
        )
    files = raw["files"]
    if not isinstance(files, Mapping) or not files:
        raise _fail(where, f"skill {name[:80]!r}: files must be a non-empty object")
    for path, digest in files.items():
        path = _text(path, where, "a file path")
        if path_problem(path) is not None:
            raise _fail(where, f"skill {name[:80]!r}: unsafe path {path[:120]!r}")
        if not isinstance(digest, str) or not DIGEST_PATTERN.match(digest):
            raise _fail(where, f"skill {name[:80]!r}: {path[:120]!r} has no sha256 digest")
    resolved = raw["resolved"]
    if not isinstance(resolved, Mapping):
        raise _fail(where, f"skill {name[:80]!r}: resolved must be an object")
    version = raw["version"]
    if version is not None:
        version = _text(version, where, "version")
    tree = _text(raw["tree"], where, "tree")
    skill = LockedSkill(
        name,
        _text(raw["source"], where, "source"),
        _text(raw["directory"], where, "directory"),
        files,
        resolved,
        version,
    )
    if skill.tree != tree:
        raise _fail(where, f"skill {name[:80]!r}: its tree digest does not match its files")
    return skill


def parse_lock(text: str, where: str = LOCK_FILE) -> LockFile:
    """A lock from its text. Raises :class:`LockError`."""
    if len(text) > MAX_LOCK_BYTES:
        raise _fail(where, f"larger than {MAX_LOCK_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _fail(where, f"not valid JSON ({str(exc)[:200]})") from None
    if not isinstance(data, Mapping) or set(data) != {"lock_version", "skills"}:
        raise _fail(where, "expected an object with lock_version and skills")
    if data["lock_version"] != LOCK_VERSION:
        raise _fail(where, f"lock_version {str(data['lock_version'])[:20]} is not {LOCK_VERSION}")
    skills = data["skills"]
    if not isinstance(skills, Mapping):
        raise _fail(where, "skills must be an object")
    return LockFile({s.name: s for s in (_entry(n, r, where) for n, r in skills.items())})


def read_lock_bytes(path: str | os.PathLike[str]) -> bytes:
    """A lock file's exact bytes, bounded (what a signature covers). Raises LockError."""
    where = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOCK_BYTES + 1)
    except OSError as exc:
        raise _fail(where, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_LOCK_BYTES:
        raise _fail(where, f"larger than {MAX_LOCK_BYTES} bytes")
    return data


def read_lock(path: str | os.PathLike[str]) -> LockFile:
    """Read and parse a lock file, bounded. Raises :class:`LockError` (a missing file too)."""
    return parse_lock_bytes(read_lock_bytes(path), os.fspath(path))


def parse_lock_bytes(data: bytes, where: str) -> LockFile:
    """A lock from a file's bytes (UTF-8 JSON). Raises :class:`LockError`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _fail(where, "not UTF-8 text") from None
    return parse_lock(text, where)


def write_lock(path: str | os.PathLike[str], lock: LockFile) -> None:
    """Write ``lock`` to ``path`` (through a temporary file: a reader never sees half)."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    tmp.write_text(lock.render(), encoding="utf-8")
    os.replace(tmp, target)


__all__ = [
    "LOCK_ENV",
    "LOCK_FILE",
    "LOCK_KEYS_ENV",
    "LOCK_VERSION",
    "MAX_LOCK_BYTES",
    "LockError",
    "LockFile",
    "LockedSkill",
    "parse_lock",
    "parse_lock_bytes",
    "read_lock",
    "read_lock_bytes",
    "write_lock",
]
