"""RESTRICT with the ``adk`` alias preset through a real InMemoryRunner: ``Read`` reaches
``ReadFile`` and ``Bash(git:*)`` is checked against ``execute_bash``'s command."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.adk.tools import FunctionTool

from skillcore_adk import SkillToolset
from skillcore_adk.testing import run_turn

from .conftest import make_skill, responses, scripted

pytestmark = pytest.mark.anyio


async def test_adk_preset_with_argument_patterns(tmp_path: Path) -> None:
    ran: list[str] = []

    def ReadFile(path: str) -> str:
        """Read a file."""
        return f"contents of {path}"

    def WriteFile(path: str, content: str) -> str:
        """Write a file."""
        return "written"

    def execute_bash(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return "ran"

    make_skill(tmp_path, "gitter", "Git reports.", extra="allowed-tools: Read Bash(git:*)\n")
    toolset = SkillToolset(tmp_path, allowed_tools_policy="restrict", tool_aliases="adk")
    model = scripted(
        [("load_skill", {"skill_name": "gitter"})],
        [
            ("ReadFile", {"path": "a.txt"}),
            ("WriteFile", {"path": "a.txt", "content": "x"}),
            ("execute_bash", {"command": "git status"}),
            ("execute_bash", {"command": "rm -rf /"}),
        ],
        "done",
    )
    tools = [FunctionTool(ReadFile), FunctionTool(WriteFile), FunctionTool(execute_bash)]
    agent = LlmAgent(
        name="assistant",
        model=model,
        instruction="Help.",
        tools=[toolset, *tools],
        before_tool_callback=toolset.before_tool_callback,
    )
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    got = [(r.name, r.response or {}) for r in responses(events) if r.name != "load_skill"]
    assert got[0] == ("ReadFile", {"result": "contents of a.txt"})
    assert got[1][1]["error_code"] == "TOOL_BLOCKED"
    assert got[2] == ("execute_bash", {"result": "ran"})
    assert got[3][1]["error_code"] == "TOOL_BLOCKED"
    assert "only for commands matching 'git:*'" in got[3][1]["error"]
    assert ran == ["git status"]


async def test_adk_shell_command_is_judged_as_the_tool_gets_it(tmp_path: Path) -> None:
    """ADK hands the tool the argument dict the callback sees: a command that parses as
    ``git status`` only to a JSON reader, or that hides a second line, is blocked."""
    ran: list[str] = []

    def execute_bash(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return "ran"

    make_skill(tmp_path, "gitter", "Git reports.", extra="allowed-tools: Bash(git:*)\n")
    toolset = SkillToolset(tmp_path, allowed_tools_policy="restrict", tool_aliases="adk")
    model = scripted(
        [("load_skill", {"skill_name": "gitter"})],
        [
            ("execute_bash", {"command": '{"command": "git status",\n"touch" : "pwned"\n}'}),
            ("execute_bash", {"command": "git status\ntouch pwned"}),
            ("execute_bash", {"command": ["git", "status"]}),
            ("execute_bash", {"command": "git status"}),
        ],
        "done",
    )
    agent = LlmAgent(
        name="assistant",
        model=model,
        instruction="Help.",
        tools=[toolset, FunctionTool(execute_bash)],
        before_tool_callback=toolset.before_tool_callback,
    )
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    got = [r.response or {} for r in responses(events) if r.name == "execute_bash"]
    assert [g.get("error_code") for g in got[:2]] == ["TOOL_BLOCKED", "TOOL_BLOCKED"]
    assert got[3] == {"result": "ran"}
    assert ran[-1] == "git status" and all("touch" not in r for r in map(str, ran))
