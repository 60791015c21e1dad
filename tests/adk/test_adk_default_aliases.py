"""Claude-style ``allowed-tools`` in ADK without configuration: the toolset maps them to
ADK's tools by default (the ``adk`` preset's names), and a restricting skill that names none
of the agent's tools warns once when it is loaded."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.adk.tools import FunctionTool

from skillcore.testing import EventRecorder
from skillcore_adk import SkillToolset
from skillcore_adk.testing import run_turn

from .conftest import make_skill, responses, scripted

pytestmark = pytest.mark.anyio


def ReadFile(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


def execute_bash(command: str) -> str:
    """Run a shell command."""
    return "ran"


def lookup(query: str) -> str:
    """Look something up."""
    return "found"


async def run(toolset: SkillToolset, tools: list[FunctionTool], *turns: object) -> list[tuple]:
    agent = LlmAgent(
        name="assistant",
        model=scripted(*turns, "done"),
        instruction="Help.",
        tools=[toolset, *tools],
        before_tool_callback=toolset.before_tool_callback,
    )
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    return [(r.name, r.response or {}) for r in responses(events) if r.name != "load_skill"]


async def test_claude_names_reach_adk_tools_by_default(tmp_path: Path) -> None:
    make_skill(tmp_path, "gitter", "Git reports.", extra="allowed-tools: Read Bash(git:*)\n")
    toolset = SkillToolset(tmp_path, allowed_tools_policy="restrict")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the preset matches: nothing to warn about
        got = await run(
            toolset,
            [FunctionTool(ReadFile), FunctionTool(execute_bash)],
            [("load_skill", {"skill_name": "gitter"})],
            [
                ("ReadFile", {"path": "a.txt"}),
                ("execute_bash", {"command": "git status"}),
                ("execute_bash", {"command": "rm -rf /"}),
            ],
        )
    assert got[0] == ("ReadFile", {"result": "contents of a.txt"})
    assert got[1] == ("execute_bash", {"result": "ran"})
    assert got[2][1]["error_code"] == "TOOL_BLOCKED"
    # Names only: the preset's harness tools are always allowed only when it is named.
    assert "exit_loop" not in toolset.policy.always
    assert "exit_loop" in SkillToolset(tmp_path, tool_aliases="adk").policy.always


async def test_a_skill_naming_none_of_the_agents_tools_warns_once(tmp_path: Path) -> None:
    make_skill(tmp_path, "gitter", "Git reports.", extra="allowed-tools: Read Bash(git:*)\n")
    toolset = SkillToolset(tmp_path, allowed_tools_policy="restrict", tool_aliases=None)
    load = [("load_skill", {"skill_name": "gitter"})]
    unload = [("unload_skill", {"skill_name": "gitter"})]
    with EventRecorder() as rec, pytest.warns(UserWarning) as caught:
        got = await run(
            toolset, [FunctionTool(lookup)], load, [("lookup", {"query": "x"})], unload, load
        )
    assert got[0][1]["error_code"] == "TOOL_BLOCKED"
    texts = [str(w.message) for w in caught if "gitter" in str(w.message)]
    assert len(texts) == 1, texts  # loaded twice, warned once
    assert "'Read', 'Bash(git:*)'" in texts[0] or "Read, Bash(git:*)" in texts[0]
    assert "lookup" in texts[0] and "tool_aliases" in texts[0]
    events = [e for e in rec.take() if e.name == "skill.tools_unmatched"]
    assert [e.fields["skill"] for e in events] == ["gitter"]
