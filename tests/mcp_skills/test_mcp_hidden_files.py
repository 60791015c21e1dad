"""Hidden and VCS files over MCP: the ``load_skill_resource`` tool refuses them as
``resources/read`` does (one rule: only what the listing shows is readable)."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from skillcore import SkillLibrary
from skillcore.apps.mcp_server import SkillMCPServer

from .conftest import write_skill

SECRET = "TOKEN-9f3c-secret"
HIDDEN = (".env", ".git/config", "node_modules/pkg/index.js", "references/.secret")


def test_the_resource_tool_refuses_hidden_files(tmp_path: Path) -> None:
    d = write_skill(tmp_path, "alpha", files={"references/guide.md": "The guide."})
    for rel in HIDDEN:
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(f"url = https://user:{SECRET}@example.com/r.git\n")
    srv = SkillMCPServer(SkillLibrary(str(tmp_path)))

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as c:
            loaded = await c.call_tool("load_skill", {"skill_name": "alpha"})
            assert not loaded.is_error
            for rel in HIDDEN:
                res = await c.call_tool("load_skill_resource", {"skill_name": "alpha", "path": rel})
                text = res.content[0]
                assert isinstance(text, types.TextContent)
                assert res.is_error and "hidden" in text.text, (rel, text.text)
                assert SECRET not in text.text
                with pytest.raises(MCPError) as err:
                    await c.read_resource(f"skill://alpha/{rel}")
                assert SECRET not in str(err.value)
            ok = await c.call_tool(
                "load_skill_resource", {"skill_name": "alpha", "path": "references/guide.md"}
            )
            assert not ok.is_error

    anyio.run(main)
