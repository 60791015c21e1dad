"""The MCP server with configured skills: every connection starts with them loaded, their
instructions are in the server instructions, and a pinned skill cannot be unloaded."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import Client

from skillcore import SkillLibrary, SkillToolkit
from skillcore.apps.mcp_server import SkillMCPServer

from .test_mcp_server import text_of


def test_configured_skills_per_connection(skills_dir: Path) -> None:
    library = SkillLibrary(str(skills_dir))
    toolkit = SkillToolkit(library, pinned_skills=["csv-data-audit"])
    srv = SkillMCPServer(library, toolkit=toolkit)

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as client:
            assert '<skill_content name="csv-data-audit">' in (client.instructions or "")
            refused = await client.call_tool("unload_skill", {"skill_name": "csv-data-audit"})
            assert refused.is_error and "pinned" in text_of(refused)
            again = await client.call_tool("load_skill", {"skill_name": "csv-data-audit"})
            assert again.is_error and "already loaded" in text_of(again)

    anyio.run(main)
