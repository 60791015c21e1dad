"""Skill files over MCP: ``skill://`` URIs, the resources (listing and reading), and the Skills
extension's ``skills/list`` and ``skills/get`` (SEP-2640). A part of
:class:`~skillcore.apps.mcp_server.SkillMCPServer`.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

import anyio

from skillcore._text import single_line
from skillcore.codes import OutcomeCode
from skillcore.errors import require
from skillcore.library import SkillLibrary
from skillcore.model import SkillMetadata
from skillcore.parse.frontmatter import decode_text
from skillcore.sources.base import SKILL_FILE, ReadError
from skillcore.sources.mcp_spec import MAX_SKILL_BYTES, MAX_SKILL_FILES, raw_frontmatter

require("mcp", "mcp", "The MCP server")

import mcp_types as types  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from pydantic import Field  # noqa: E402

logger = logging.getLogger("skillcore.apps.mcp_server")

#: URI scheme of skill files: ``skill://<skill-name>/<path>``.
SKILL_SCHEME = "skill"
#: Skills per ``skills/list`` page and resources per ``resources/list`` page.
PAGE_SIZE = 100
#: Longest cursor accepted (the server's cursors are offsets: plain ASCII digits).
MAX_CURSOR_DIGITS = 12
#: How long a listing may be cached by the client (ms); a hint, not an integrity property.
LIST_TTL_MS = 0


class ListSkillsParams(types.PaginatedRequestParams):
    """Params of ``skills/list``."""


class GetSkillParams(types.RequestParams):
    """Params of ``skills/get``."""

    uri: str = Field(max_length=4096)


def skill_uri(name: str, path: str = SKILL_FILE) -> str:
    """``skill://<name>/<path>`` with each segment percent-encoded."""
    segments = "/".join(quote(s, safe="-._~") for s in path.split("/"))
    return f"{SKILL_SCHEME}://{quote(name, safe='-._~')}/{segments}"


def parse_skill_uri(uri: str) -> tuple[str, str] | None:
    """``(skill name, file path)`` of a ``skill://`` URI served here, or None."""
    prefix = f"{SKILL_SCHEME}://"
    if not uri.startswith(prefix):
        return None
    name, sep, path = uri[len(prefix) :].partition("/")
    if not sep or not name or not path:
        return None
    return unquote(name), "/".join(unquote(s) for s in path.split("/"))


def digest_of(data: bytes) -> str:
    """The SEP-2640 digest of raw bytes: ``sha256:<64 lowercase hex>``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


class SkillFiles:
    """The skill files a server serves (see the module docstring)."""

    if TYPE_CHECKING:
        library: SkillLibrary

    # -- resources -------------------------------------------------------------------------

    def _skill(self, name: str) -> SkillMetadata:
        meta = self.library.catalog.get(name)
        if meta is None or meta.disable_model_invocation:
            raise MCPError(types.INVALID_PARAMS, f"no skill named {name!r} is served here")
        return meta

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        skills = self.library.catalog.model_visible
        start = _cursor(getattr(params, "cursor", None), len(skills))
        page = skills[start : start + PAGE_SIZE]
        resources = [
            types.Resource(
                uri=skill_uri(m.name),
                name=m.name,
                description=single_line(m.description),  # no control or invisible chars
                mime_type="text/markdown",
            )
            for m in page
        ]
        nxt = str(start + PAGE_SIZE) if start + PAGE_SIZE < len(skills) else None
        return types.ListResourcesResult(
            resources=resources, next_cursor=nxt, ttl_ms=LIST_TTL_MS, cache_scope="private"
        )

    async def _list_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            name="skill-file",
            uri_template=f"{SKILL_SCHEME}://{{skill}}/{{+path}}",
            description="A file of a skill: its SKILL.md or a file it lists.",
        )
        return types.ListResourceTemplatesResult(
            resource_templates=[template], ttl_ms=LIST_TTL_MS, cache_scope="private"
        )

    def _read_raw(self, meta: SkillMetadata, path: str) -> bytes:
        reader = self.library.reader(meta.location.source)
        return reader.read_file(meta.location.directory, path, self.library.max_file_bytes)

    def _listing(self, meta: SkillMetadata) -> tuple[list[str], bool]:
        reader = self.library.reader(meta.location.source)
        files, truncated = reader.list_files(meta.location.directory, MAX_SKILL_FILES)
        return [SKILL_FILE, *(r.path for r in files)], truncated

    async def _read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        parsed = parse_skill_uri(uri)
        if parsed is None:
            raise MCPError(types.INVALID_PARAMS, f"not a skill file URI: {uri[:200]!r}")
        name, path = parsed
        meta = self._skill(name)

        def read() -> bytes:
            listed, _truncated = self._listing(meta)
            if path not in listed:
                raise ReadError(
                    OutcomeCode.RESOURCE_NOT_FOUND, f"{path!r} is not a file of skill {name!r}"
                )
            return self._read_raw(meta, path)

        try:
            data = await anyio.to_thread.run_sync(read)
        except ReadError as exc:
            raise MCPError(types.INVALID_PARAMS, exc.message) from None
        text, _code, _msg = decode_text(data)
        mime = "text/markdown" if path.endswith(".md") else None
        if text is not None and b"\x00" not in data and text.encode("utf-8") == data:
            content: Any = types.TextResourceContents(uri=uri, mime_type=mime, text=text)
        else:
            blob = base64.b64encode(data).decode("ascii")
            content = types.BlobResourceContents(
                uri=uri, mime_type=mime or "application/octet-stream", blob=blob
            )
        return types.ReadResourceResult(contents=[content], ttl_ms=0, cache_scope="private")

    # -- SEP-2640 --------------------------------------------------------------------------

    def skill_entry(self, meta: SkillMetadata) -> dict[str, Any]:
        """The SEP-2640 ``Skill`` entry of a skill: URI, verbatim frontmatter, every file with
        its digest and size. Raises ValueError when the skill cannot be described (over the
        limits, unreadable, frontmatter not readable)."""
        listed, truncated = self._listing(meta)
        if truncated or len(listed) > MAX_SKILL_FILES:
            raise ValueError(f"skill {meta.name!r} has more than {MAX_SKILL_FILES} files")
        resources: list[dict[str, Any]] = []
        total = 0
        frontmatter: dict[str, Any] | None = None
        for path in listed:
            try:
                data = self._read_raw(meta, path)
            except ReadError as exc:
                raise ValueError(f"skill {meta.name!r}: {exc.message}") from None
            total += len(data)
            if total > MAX_SKILL_BYTES:
                raise ValueError(f"skill {meta.name!r} is larger than {MAX_SKILL_BYTES} bytes")
            if path == SKILL_FILE:
                frontmatter = raw_frontmatter(data)
            resources.append(
                {"uri": skill_uri(meta.name, path), "digest": digest_of(data), "size": len(data)}
            )
        if frontmatter is None or "name" not in frontmatter or "description" not in frontmatter:
            raise ValueError(f"skill {meta.name!r}: its frontmatter cannot be read")
        return {"uri": skill_uri(meta.name), "frontmatter": frontmatter, "resources": resources}

    def _entries(self, metas: Iterable[SkillMetadata]) -> list[dict[str, Any]]:
        out = []
        for meta in metas:
            try:
                out.append(self.skill_entry(meta))
            except ValueError as exc:  # not served: a host could not load it anyway
                logger.warning("skills/list leaves out a skill: %s", exc)
        return out

    async def _skills_list(self, ctx: Any, params: ListSkillsParams) -> dict[str, Any]:
        skills = self.library.catalog.model_visible
        start = _cursor(params.cursor, len(skills))
        page = skills[start : start + PAGE_SIZE]
        entries = await anyio.to_thread.run_sync(self._entries, page)
        result: dict[str, Any] = {
            "resultType": "complete",
            "skills": entries,
            "ttlMs": LIST_TTL_MS,
            "cacheScope": "private",
        }
        if start + PAGE_SIZE < len(skills):
            result["nextCursor"] = str(start + PAGE_SIZE)
        return result

    async def _skills_get(self, ctx: Any, params: GetSkillParams) -> dict[str, Any]:
        parsed = parse_skill_uri(params.uri)
        if parsed is None or parsed[1] != SKILL_FILE:
            raise MCPError(
                types.INVALID_PARAMS, f"not the URI of a skill's SKILL.md: {params.uri[:200]!r}"
            )
        meta = self._skill(parsed[0])
        try:
            entry = await anyio.to_thread.run_sync(self.skill_entry, meta)
        except ValueError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        return {"resultType": "complete", "skill": entry, "ttlMs": 0, "cacheScope": "private"}


def _cursor(cursor: str | None, total: int) -> int:
    if cursor is None:
        return 0
    # ASCII digits only, and short: "²".isdigit() is true and int() of 5,000 digits raises.
    if not (cursor.isascii() and cursor.isdigit()) or len(cursor) > MAX_CURSOR_DIGITS:
        raise MCPError(types.INVALID_PARAMS, "invalid cursor")
    if int(cursor) > total:
        raise MCPError(types.INVALID_PARAMS, "invalid cursor")
    return int(cursor)


__all__ = [
    "LIST_TTL_MS",
    "MAX_CURSOR_DIGITS",
    "PAGE_SIZE",
    "SKILL_SCHEME",
    "GetSkillParams",
    "ListSkillsParams",
    "SkillFiles",
    "digest_of",
    "parse_skill_uri",
    "skill_uri",
]
