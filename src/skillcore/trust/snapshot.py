"""What a skill holds now, read through its source's reader: every file's digest, bounded,
and what the source resolved it to (a Git commit, an S3 ETag, a zip's digest, an MCP
server's listed digests, a well-known index's URL and the entry's digest)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import attrs

from skillcore._frozen import FrozenDict
from skillcore.errors import SkillcoreError
from skillcore.limits import DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_RESOURCES
from skillcore.model import SkillMetadata
from skillcore.sources import MAX_SKILL_BYTES, SKILL_FILE, LocalReader, ReadError, SourceReader
from skillcore.trust.digest_cache import DigestCache
from skillcore.trust.digests import file_digest, tree_digest
from skillcore.trust.lockfile import LockedSkill

#: The most bytes of one skill's files read to lock or verify it (the SEP-2640 per-skill
#: limit, which an MCP server's skills stay under anyway).
MAX_LOCKED_SKILL_BYTES = MAX_SKILL_BYTES


class SnapshotError(SkillcoreError):
    """A skill whose files cannot all be read within the bounds: it cannot be locked or
    verified (verification refuses it)."""


@attrs.frozen
class Bounds:
    """How much of one skill is read: files, bytes of one file, bytes in all."""

    max_files: int = DEFAULT_MAX_RESOURCES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_total_bytes: int = MAX_LOCKED_SKILL_BYTES


def _flat(files: Mapping[str, str]) -> FrozenDict[str, str]:
    return files if isinstance(files, FrozenDict) else FrozenDict(files)


@attrs.frozen
class Snapshot:
    """The files of one skill as read now: ``{relative path: digest}`` and the tree digest."""

    # A flat mapping of text to text: one copy, not a deep freeze (verification builds one
    # per skill).
    files: FrozenDict[str, str] = attrs.field(converter=_flat)
    tree: str = attrs.field()

    @tree.default
    def _tree(self) -> str:
        return tree_digest(self.files)


def snapshot(
    reader: SourceReader,
    directory: str,
    bounds: Bounds = Bounds(),
    digests: DigestCache | None = None,
) -> Snapshot:
    """Read every file of the skill at ``directory`` (``SKILL.md`` and its listing) and
    digest it (a local file whose stamps match its entry in ``digests`` is not read again).
    Raises :class:`SnapshotError` past a bound or when a file cannot be read."""
    if isinstance(reader, LocalReader):
        fast = _local(reader, directory, bounds, digests)
        if fast is not None:
            return fast
    listed, truncated = reader.list_files(directory, bounds.max_files)
    if truncated or len(listed) + 1 > bounds.max_files:
        raise SnapshotError(f"it has more than {bounds.max_files} files")
    paths = [SKILL_FILE, *(r.path for r in listed if r.path != SKILL_FILE)]
    files: dict[str, str] = {}
    budget = bounds.max_total_bytes
    for path in paths:
        try:
            data = reader.read_file(directory, path, min(bounds.max_file_bytes, budget))
        except ReadError as exc:
            raise SnapshotError(f"cannot read {path!r}: {exc}") from None
        budget -= len(data)
        files[path] = file_digest(data)
    return Snapshot(files)


def _local(
    reader: LocalReader, directory: str, bounds: Bounds, digests: DigestCache | None
) -> Snapshot | None:
    """The snapshot of a local skill in one pass (None: the reader's path decides)."""
    from skillcore.trust.local_tree import TreeTooLarge, local_tree

    if digests is not None:
        known = digests.skill(directory.strip("/"))
        if known is not None:  # every folder and file as recorded: no listing, no read
            return Snapshot(known[0], known[1])
    try:
        tree = local_tree(
            reader,
            directory,
            bounds.max_files,
            bounds.max_file_bytes,
            bounds.max_total_bytes,
            digests,
        )
    except TreeTooLarge as exc:
        raise SnapshotError(f"it has {exc}") from None
    except OSError:
        return None  # gone or unreadable: the reader's path says why
    if tree is None:
        return None
    return Snapshot(tree)


def resolved(reader: SourceReader, directory: str) -> dict[str, Any]:
    """What the source resolved the skill at ``directory`` to, by key (empty for a folder or
    a storage that has no such reference). Best effort: a failure leaves a key out."""
    kind = type(reader).__name__
    try:
        if kind == "GitReader":
            pinned = reader.git.pinned  # type: ignore[attr-defined]
            return {"git_commit": str(pinned.commit)} if pinned is not None else {}
        if kind == "S3Reader":
            return _s3(reader, directory)
        if kind == "ArchiveReader":
            return _archive(reader)
        if kind == "WellKnownReader":
            found = reader._skills.get(directory)  # type: ignore[attr-defined]
            if found is None:
                return {}
            return {"wellknown_index": reader.index_url, "wellknown_digest": found.entry.digest}  # type: ignore[attr-defined]
        if kind == "McpReader":
            entry = reader.entries.get(directory)  # type: ignore[attr-defined]
            if entry is None:
                return {}
            digests = {} if entry.files is None else {p: d for p, (d, _s) in entry.files.items()}
            return {"mcp_uri": entry.uri, "mcp_digests": digests}
    except Exception:  # a reference is informative; the file digests are what is verified
        return {}
    return {}


def _s3(reader: Any, directory: str) -> dict[str, Any]:
    found = reader._list(reader._key(directory))  # one listing of the skill's prefix
    key = reader._key(directory, SKILL_FILE)
    info = found.get(key) or {}
    out: dict[str, Any] = {}
    if info.get("ETag"):
        out["s3_etag"] = str(info["ETag"]).strip('"')
    if info.get("VersionId"):
        out["s3_version_id"] = str(info["VersionId"])
    return out


def _archive(reader: Any) -> dict[str, Any]:
    import fsspec

    fs, path = fsspec.url_to_fs(reader.target, **reader.target_options)
    if int(fs.info(path).get("size") or 0) > reader.limits.max_archive_bytes:
        return {}
    return {"archive_sha256": hashlib.sha256(bytes(fs.cat_file(path))).hexdigest()}


def locked_skill(
    reader: SourceReader, meta: SkillMetadata, bounds: Bounds = Bounds()
) -> LockedSkill:
    """The lock entry of one discovered skill. Raises :class:`SnapshotError`."""
    directory = meta.location.directory
    snap = snapshot(reader, directory, bounds)
    return LockedSkill(
        meta.name,
        meta.location.source,
        directory,
        snap.files,
        resolved(reader, directory),
        meta.version,
    )


__all__ = [
    "MAX_LOCKED_SKILL_BYTES",
    "Bounds",
    "Snapshot",
    "SnapshotError",
    "locked_skill",
    "resolved",
    "snapshot",
]
