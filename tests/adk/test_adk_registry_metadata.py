"""``LibrarySkillRegistry`` hands ADK typed metadata: ``adk_additional_tools`` stays a list
(so ADK's own validation passes and its SkillToolset unlocks the tools) and
``adk_inject_state`` a bool."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.runners import InMemoryRunner
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.skill_toolset import SkillToolset as AdkSkillToolset

from skillcore.testing import write_skill
from skillcore_adk import LibrarySkillRegistry

from .conftest import agent_with, run_turn, scripted

pytestmark = pytest.mark.anyio


def publish(path: str = "") -> str:
    """Publish a file."""
    return f"published {path}"


@pytest.fixture
def typed_skills(tmp_path: Path) -> Path:
    root = tmp_path / "typed"
    write_skill(
        root,
        "writer",
        "Writes reports.",
        "Write the report.",
        "metadata:\n  adk_additional_tools: [publish]\n  adk_inject_state: true\n  team: docs\n",
    )
    write_skill(
        root,
        "spaced",
        "Names tools in text.",
        "Body.",
        "metadata:\n  adk_additional_tools: Write, Read\n",
    )
    write_skill(root, "odd", "Bad values.", "Body.", "metadata:\n  adk_inject_state: maybe\n")
    return root


async def test_metadata_keeps_adk_types(typed_skills: Path) -> None:
    registry = LibrarySkillRegistry([typed_skills])
    skill = await registry.get_skill(name="writer")
    assert skill.frontmatter.metadata == {
        "adk_additional_tools": ["publish"],
        "adk_inject_state": True,
        "team": "docs",
    }
    spaced = await registry.get_skill(name="spaced")
    assert spaced.frontmatter.metadata["adk_additional_tools"] == ["Write", "Read"]
    # A value ADK cannot take is left out (logged), never a skill ADK refuses to load.
    odd = await registry.get_skill(name="odd")
    assert "adk_inject_state" not in odd.frontmatter.metadata
    hits = await registry.search_skills(query="reports")
    assert [h.name for h in hits][:1] == ["writer"]


async def test_adk_toolset_unlocks_the_additional_tool(typed_skills: Path) -> None:
    native = AdkSkillToolset(
        registry=LibrarySkillRegistry([typed_skills]), additional_tools=[FunctionTool(publish)]
    )
    model = scripted([("load_skill", {"skill_name": "writer"})], [("publish", {"path": "r.md"})])
    runner = InMemoryRunner(agent=agent_with(model, native), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    got = [r.response for e in events for r in e.get_function_responses()]
    assert got[0].get("skill_name") == "writer", got[0]
    assert "publish" not in model.tool_names(0)
    assert "publish" in model.tool_names(1), model.tool_names(1)
    assert got[1] == {"result": "published r.md"}, got[1]
