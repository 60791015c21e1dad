"""Programs built on the core: the CLI, the MCP server and the selection evaluation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.apps.cli import main
    from skillcore.apps.mcp_server import STATE_META_KEY, SkillMCPServer

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "STATE_META_KEY": "skillcore.apps.mcp_server",
        "SkillMCPServer": "skillcore.apps.mcp_server",
        "main": "skillcore.apps.cli",
    },
)
