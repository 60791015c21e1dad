"""What skillcore's MCP server and its MCP skill source share of the Skills extension
(SEP-2640): the extension's name, its per-skill limits and how a ``SKILL.md``'s frontmatter is
read as JSON. Below both, so the source never imports the server."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from skillcore.parse import MAX_FRONTMATTER_BYTES, decode_text, split_frontmatter

#: The Skills extension's identifier.
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
#: SEP-2640 per-skill limits: entries of ``resources`` (SKILL.md included) and total bytes.
MAX_SKILL_FILES = 512
MAX_SKILL_BYTES = 16 * 1024 * 1024


def json_native(value: Any, depth: int = 0) -> Any:
    """A YAML value as JSON: dates become ISO strings, other scalars ``str``; bounded depth."""
    if depth > 64:
        raise ValueError("frontmatter is nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): json_native(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_native(v, depth + 1) for v in value]
    return str(value)


def raw_frontmatter(data: bytes) -> dict[str, Any] | None:
    """The frontmatter of a SKILL.md as written (every field, as JSON values), or None when
    it has none or it cannot be read safely (size and nesting are capped before parsing)."""
    from skillcore.parse import frontmatter as parsing
    from skillcore.parse import too_deep

    text, _code, _msg = decode_text(data[: MAX_FRONTMATTER_BYTES + 4096])
    if text is None:
        return None
    yaml_text, _offset, terminated = split_frontmatter(text, complete=True)
    if yaml_text is None or not terminated or len(yaml_text) > MAX_FRONTMATTER_BYTES:
        return None
    if too_deep(yaml_text):
        return None
    try:
        loaded, _dropped = parsing.load_yaml(yaml_text)
        value = json_native(loaded)
    except Exception:  # YAMLError, RecursionError, refusals: not readable safely
        return None
    return value if isinstance(value, dict) else None
