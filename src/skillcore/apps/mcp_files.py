"""Skill files over MCP, as :class:`~skillcore.apps.mcp_server.SkillMCPServer` serves them:
``skill://`` URIs, digests, listing pages and cursors, and the parameters of the Skills
extension's ``skills/list`` and ``skills/get`` (SEP-2640).
"""

from __future__ import annotations

import hashlib
from urllib.parse import quote, unquote

from skillcore.errors import require
from skillcore.sources import SKILL_FILE

require("mcp", "mcp", "The MCP server")

import mcp_types as types  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from pydantic import Field  # noqa: E402

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


def page_start(cursor: str | None, total: int) -> int:
    """The offset a listing's ``cursor`` names (0 for none); an ``MCPError`` for any cursor
    this server did not hand out."""
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
    "digest_of",
    "page_start",
    "parse_skill_uri",
    "skill_uri",
]
