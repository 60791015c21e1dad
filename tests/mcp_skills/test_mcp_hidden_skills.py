"""``SkillMCPServer(hidden_skills=...)`` through the real MCP client: a hidden skill is in no
listing, prompt, resource, search result or instructions, and cannot be loaded or read."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from skillcore import SkillLibrary
from skillcore.apps.mcp_server import SkillMCPServer, skill_uri
from skillcore.testing import write_skill

from .test_mcp_server import skills_get, skills_list, text_of


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    root = tmp_path / "skills"
    write_skill(root, "release-notes", "Write release notes.", "Notes steps.")
    write_skill(root, "secret-ops", "Rotate the release credentials.", "Secret steps.")
    write_skill(
        root, "secret-cmd", "Secret release command.", "Hidden.", "disable-model-invocation: true\n"
    )
    return SkillLibrary([root])


def test_hidden_skills_appear_nowhere(library: SkillLibrary) -> None:
    srv = SkillMCPServer(library, hidden_skills=["secret-ops", "secret-cmd"])
    assert "secret" not in srv.server.instructions

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as c:
            resources = [r.name for r in (await c.list_resources()).resources]
            assert resources == ["release-notes"]
            prompts = [p.name for p in (await c.list_prompts()).prompts]
            assert prompts == ["release-notes"]
            listed = [s["uri"] for s in (await skills_list(c))["skills"]]
            assert listed == [skill_uri("release-notes")]
            for name in ("secret-ops", "secret-cmd"):
                with pytest.raises(MCPError):
                    await skills_get(c, skill_uri(name))
                with pytest.raises(MCPError):
                    await c.read_resource(skill_uri(name, "SKILL.md"))
                with pytest.raises(MCPError):
                    await c.get_prompt(name, {})
                loaded = await c.call_tool("load_skill", {"skill_name": name})
                assert loaded.is_error and "Secret steps" not in text_of(loaded)
            found = await c.call_tool("search_skills", {"query": "release credentials"})
            assert "secret" not in text_of(found)
            ok = await c.call_tool("load_skill", {"skill_name": "release-notes"})
            assert not ok.is_error and "Notes steps." in text_of(ok)

    anyio.run(main)


def test_without_hidden_skills_everything_is_served(library: SkillLibrary) -> None:
    srv = SkillMCPServer(library)

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as c:
            names = {r.name for r in (await c.list_resources()).resources}
            assert names == {"release-notes", "secret-ops"}

    anyio.run(main)


def test_touch_paths_offers_a_paths_skill(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "ts-helper", "TypeScript helper.", "TS steps.", "paths: ['src/**/*.ts']\n")
    srv = SkillMCPServer(SkillLibrary([root]))
    assert "ts-helper" not in srv.server.instructions

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as c:
            refused = await c.call_tool("load_skill", {"skill_name": "ts-helper"})
            assert refused.is_error and "TS steps." not in text_of(refused)
            srv.touch_paths(["src/app/main.ts"])
            assert "ts-helper" in srv.server.instructions
            loaded = await c.call_tool("load_skill", {"skill_name": "ts-helper"})
            assert not loaded.is_error and "TS steps." in text_of(loaded)
            srv.touch_paths([])
            again = await c.call_tool("load_skill", {"skill_name": "ts-helper"})
            assert "TS steps." not in text_of(again)

    anyio.run(main)
