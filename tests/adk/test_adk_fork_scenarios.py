"""Scenarios from Claude Code's public documentation of ``context: fork``, through the ADK
runner: a ``deep-research`` skill forked into a read-only ``Explore`` subagent runs in a fresh
context (the skill's content is its request; none of the conversation), and only its summary
comes back; a forked skill without ``agent:`` runs in ``general-purpose``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.adk.tools.function_tool import FunctionTool

from skillcore_adk import SkillToolset
from skillcore_adk.testing import Read, plain_tools

from .conftest import agent_with, make_skill, responses, run_turn, scripted

pytestmark = pytest.mark.anyio

RESEARCH = (
    "Research the topic thoroughly:\n1. Find relevant files using Glob and Grep\n"
    "2. Read and analyze the code\n3. Summarize findings with specific file references"
)


def Grep(pattern: str) -> str:
    """Search file contents."""
    return "auth/session.py:12: def login("


def Glob(pattern: str) -> str:
    """Find files by name."""
    return "auth/session.py"


def texts(request: Any) -> list[str]:
    return [p.text for c in request.contents for p in c.parts or [] if p.text]


async def run(
    tmp_path: Path, parent_steps: list[Any], explore_steps: list[Any], general_steps: list[Any]
) -> Any:
    lib = tmp_path / "skills"
    make_skill(
        lib,
        "deep-research",
        "Research a topic thoroughly",
        RESEARCH,
        "context: fork\nagent: Explore\n",
    )
    make_skill(
        lib, "summarize-diff", "Summarize a diff", "Summarize the current diff.", "context: fork\n"
    )
    explore, general = scripted(*explore_steps), scripted(*general_steps)
    read_only = [FunctionTool(Read), FunctionTool(Grep), FunctionTool(Glob)]
    subagents = {
        # Read-only research tools, as Claude Code's Explore subagent has.
        "Explore": lambda ts: LlmAgent(
            name="explore", model=explore, instruction="Explore.", tools=[ts, *read_only]
        ),
        "general-purpose": lambda ts: LlmAgent(
            name="general", model=general, instruction="General.", tools=[ts, *plain_tools()]
        ),
    }
    toolset = SkillToolset(lib, subagents=subagents)
    parent = scripted(*parent_steps)
    agent = agent_with(parent, toolset, before_tool_callback=toolset.before_tool_callback)
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id, text="How does login work? secret-context")
    return parent, explore, general, events


async def test_deep_research_runs_in_a_fresh_explore_context_and_returns_a_summary(
    tmp_path: Path,
) -> None:
    parent, explore, _general, events = await run(
        tmp_path,
        [[("load_skill", {"skill_name": "deep-research"})], "done"],
        [
            [("Glob", {"pattern": "**/*.py"}), ("Grep", {"pattern": "login"})],
            [("Read", {})],
            "Login lives in auth/session.py:12.",
        ],
        [],
    )
    # The skill's content is the subagent's request; it sees none of the conversation.
    assert texts(explore.requests[0]) == [RESEARCH]
    assert "Explore." in explore.instructions(0) and "You are helpful." not in explore.instructions(
        0
    )
    offered = set(explore.tool_names(0)) - {
        "load_skill",
        "unload_skill",
        "load_skill_resource",
        "search_skills",
    }
    assert offered == {"Read", "Grep", "Glob"}
    # The intermediate tool output stays in the subagent; the parent gets the summary.
    (reply,) = [r.response or {} for r in responses(events)]
    assert "Login lives in auth/session.py:12." in reply["result"]
    assert "def login(" not in str(parent.requests[-1].contents)


async def test_a_forked_skill_without_agent_runs_in_general_purpose(tmp_path: Path) -> None:
    _parent, explore, general, _events = await run(
        tmp_path,
        [[("load_skill", {"skill_name": "summarize-diff"})], "done"],
        [],
        ["One file changed."],
    )
    assert explore.requests == []
    assert texts(general.requests[0]) == ["Summarize the current diff."]
