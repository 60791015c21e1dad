"""``skillcore mcp`` prompts through the real client: user-invocable skills are prompts with
their argument hint and arguments; ``prompts/get`` is the user's invocation."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from skillcore import SkillLibrary
from skillcore.apps.mcp_server import SkillMCPServer
from skillcore.testing import write_skill


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    root = tmp_path / "skills"
    write_skill(
        root,
        "deploy",
        "Deploy the application.",
        "Deploy $ARGUMENTS now.",
        "disable-model-invocation: true\nargument-hint: <app> <env>\n",
    )
    write_skill(
        root,
        "fix-and-branch",
        "Fix an issue on a branch.",
        "Fix issue $issue on branch $branch.",
        "arguments: [issue, branch]\n",
    )
    write_skill(root, "legacy", "Legacy knowledge.", "Legacy.", "user-invocable: false\n")
    write_skill(
        root, "off", "Off.", "Off.", "disable-model-invocation: true\nuser-invocable: false\n"
    )
    return SkillLibrary([root])


def _text(result: types.GetPromptResult) -> str:
    content = result.messages[0].content
    assert isinstance(content, types.TextContent) and result.messages[0].role == "user"
    return content.text


def test_prompts_list_and_get(library: SkillLibrary) -> None:
    srv = SkillMCPServer(library)

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as c:
            assert c.server_capabilities.prompts is not None
            prompts = {p.name: p for p in (await c.list_prompts()).prompts}
            assert set(prompts) == {"deploy", "fix-and-branch"}
            deploy_args = prompts["deploy"].arguments or []
            assert [a.name for a in deploy_args] == ["arguments"]
            assert "<app> <env>" in (deploy_args[0].description or "")
            named = [a.name for a in prompts["fix-and-branch"].arguments or []]
            assert named == ["issue", "branch", "arguments"]
            got = await c.get_prompt("deploy", {"arguments": "web staging"})
            assert "Deploy web staging now." in _text(got)
            got = await c.get_prompt("fix-and-branch", {"issue": "42", "branch": "hot fix"})
            assert "Fix issue 42 on branch hot fix." in _text(got)
            for name in ("legacy", "off", "nope"):
                with pytest.raises(MCPError, match="no prompt named"):
                    await c.get_prompt(name, {})
            with pytest.raises(MCPError, match="too long"):
                await c.get_prompt("deploy", {"arguments": "x" * 10_000})

    anyio.run(main)
