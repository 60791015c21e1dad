"""The entries of an MCP server's ``skills/list`` (the Skills extension): their shape and
limits checked, and the SKILL.md head discovery makes of one (no file is fetched)."""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Mapping
from typing import Any

import attrs

from skillcore.errors import SkillcoreError
from skillcore.paths import PathProblem
from skillcore.sources.errors import ReadError
from skillcore.sources.mcp_spec import MAX_SKILL_BYTES, MAX_SKILL_FILES
from skillcore.sources.reader import safe_relpath
from skillcore.sources.source import SKILL_FILE

_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


@attrs.frozen
class SkillEntry:
    """A verified-shape ``Skill`` entry as held by the host."""

    uri: str
    #: The skill's path on the server (the URI between the scheme and ``/SKILL.md``).
    path: str
    frontmatter: Mapping[str, Any]
    #: File path (relative to the skill) -> (digest, size); None when ``"dynamic"``.
    files: Mapping[str, tuple[str, int]] | None
    #: The name the skill gets in the catalog (namespaced or disambiguated if needed).
    local_name: str
    stamp: str


class InvalidEntry(SkillcoreError, ValueError):
    """A ``skills/list`` entry that breaks the extension's rules."""


def parse_entry(raw: Any) -> SkillEntry:
    """Check one raw entry's shape and limits. Raises :class:`InvalidEntry`."""
    if not isinstance(raw, Mapping):
        raise InvalidEntry("an entry is not an object")
    uri, fm, res = raw.get("uri"), raw.get("frontmatter"), raw.get("resources")
    if not isinstance(uri, str) or not uri.endswith("/" + SKILL_FILE) or "://" not in uri:
        raise InvalidEntry(f"entry uri {str(uri)[:200]!r} is not the URI of a SKILL.md")
    root = uri[: -len(SKILL_FILE)]
    path = root.split("://", 1)[1].strip("/")
    name = fm.get("name") if isinstance(fm, Mapping) else None
    if not isinstance(name, str) or not isinstance(fm.get("description"), str):  # type: ignore[union-attr]
        raise InvalidEntry(f"{uri[:200]}: frontmatter lacks a string name and description")
    if posixpath.basename(path) != name:
        raise InvalidEntry(f"{uri[:200]}: the last path segment is not the skill name {name!r}")
    files: dict[str, tuple[str, int]] | None
    if res == "dynamic":
        files = None
    elif isinstance(res, list):
        if len(res) > MAX_SKILL_FILES:
            raise InvalidEntry(f"{uri[:200]}: lists {len(res)} files (limit {MAX_SKILL_FILES})")
        files = {}
        total = 0
        for item in res:
            if not isinstance(item, Mapping):
                raise InvalidEntry(f"{uri[:200]}: a resource is not an object")
            f_uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
            if not isinstance(f_uri, str) or not f_uri.startswith(root):
                raise InvalidEntry(f"{uri[:200]}: file {str(f_uri)[:200]!r} is outside the skill")
            try:
                rel = safe_relpath(_unquote_path(f_uri[len(root) :]))
            except ReadError as exc:
                if exc.problem is PathProblem.HIDDEN:
                    continue  # neither listed nor read, as in a local folder
                raise InvalidEntry(f"{uri[:200]}: {exc.message}") from None
            if not isinstance(digest, str) or not _DIGEST.match(digest):
                raise InvalidEntry(f"{uri[:200]}: {rel!r} has no valid sha256 digest")
            if type(size) is not int or size < 0:
                raise InvalidEntry(f"{uri[:200]}: {rel!r} has no valid size")
            if rel in files:
                raise InvalidEntry(f"{uri[:200]}: {rel!r} is listed twice")
            total += size
            files[rel] = (digest, size)
        if total > MAX_SKILL_BYTES:
            raise InvalidEntry(f"{uri[:200]}: its files total {total} bytes (limit 16 MiB)")
        if SKILL_FILE not in files:
            raise InvalidEntry(f"{uri[:200]}: the file list does not include SKILL.md")
    else:
        raise InvalidEntry(f"{uri[:200]}: resources must be a list of files or 'dynamic'")
    stamp = hashlib.sha256(
        json.dumps([uri, fm, res], sort_keys=True, default=str).encode()
    ).hexdigest()[:32]
    return SkillEntry(uri, path, dict(fm), files, name, stamp)  # type: ignore[arg-type]


def _unquote_path(path: str) -> str:
    from urllib.parse import unquote

    return "/".join(unquote(s) for s in path.split("/"))


def entry_head(entry: SkillEntry) -> bytes:
    """A SKILL.md head made of the entry's frontmatter (JSON is YAML), under the local name.
    Discovery never fetches SKILL.md itself."""
    fm = dict(entry.frontmatter)
    fm["name"] = entry.local_name
    return b"---\n" + json.dumps(fm, ensure_ascii=True).encode() + b"\n---\n"
