"""``run_skill_script`` through the MCP server and the real client: the example profiler runs
once loaded, the approval callback decides each run, and the tool is listed only with a
runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from skillcore import SkillLibrary, SkillToolkit
from skillcore.apps.mcp_server import SkillMCPServer
from skillcore.testing.script_runner import RecordingRunner

RUN = {
    "skill_name": "csv-data-audit",
    "script": "scripts/profile_csv.py",
    "args": ["-"],
    "stdin": "id,amount\n1,10\n2,x\n2,x\n",
}


def _text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


def test_run_with_approval_callback(skills_dir: Path) -> None:
    asked: list[Any] = []

    def approve(skill: str, script: str, args: tuple[str, ...]) -> bool:
        asked.append(args)
        return len(asked) == 1  # the first run only

    runner = RecordingRunner()
    lib = SkillLibrary(str(skills_dir))
    toolkit = SkillToolkit(
        lib, script_runner=runner, script_isolation="process", approve_script=approve
    )
    srv = SkillMCPServer(lib, toolkit=toolkit)

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert tools["run_skill_script"].input_schema["required"] == [
                "skill_name",
                "script",
                "args",
                "stdin",
            ]
            early = await c.call_tool("run_skill_script", RUN)
            assert early.is_error and "not loaded" in _text(early)
            assert not (await c.call_tool("load_skill", {"skill_name": "csv-data-audit"})).is_error
            ran = await c.call_tool("run_skill_script", RUN)
            assert not ran.is_error and 'exit_code="1"' in _text(ran), _text(ran)
            declined = await c.call_tool("run_skill_script", RUN)
            assert declined.is_error and "not approved" in _text(declined)

    anyio.run(main)
    assert len(runner.requests) == 1 and len(asked) == 2


def test_not_listed_without_a_runner(skills_dir: Path) -> None:
    srv = SkillMCPServer(SkillLibrary(str(skills_dir)))

    async def main() -> None:
        async with Client(srv.server, mode="legacy") as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert "run_skill_script" not in names

    anyio.run(main)
