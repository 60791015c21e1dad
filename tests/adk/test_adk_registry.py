"""Interop with ADK's native skills: a skillcore-backed SkillRegistry, and both toolsets side by
side (ours prefixed)."""

from __future__ import annotations

import uuid
from pathlib import Path

import fsspec
import pytest
from google.adk.runners import InMemoryRunner
from google.adk.skills import Frontmatter, Skill, load_skills_from_dir
from google.adk.tools.skill_toolset import SkillToolset as AdkSkillToolset

from skillcore import SkillLibrary
from skillcore.runtime import loaded_names_of
from skillcore_adk import LibrarySkillRegistry, SkillToolset

from .conftest import agent_with, make_skill, response_of, responses, run_turn, scripted

pytestmark = pytest.mark.anyio


@pytest.fixture
def memory_source() -> str:
    """A non-local (fsspec memory://) source with one skill that overrides a local one."""
    root = f"/reg-{uuid.uuid4().hex}"
    fs = fsspec.filesystem("memory")
    fs.pipe(
        f"{root}/beta-open/SKILL.md",
        b"---\nname: beta-open\ndescription: Beta from memory.\n---\n\nMemory beta body.\n",
    )
    fs.pipe(f"{root}/beta-open/references/extra.md", b"Extra from memory.")
    yield f"memory://{root}"
    fs.rm(root, recursive=True)


async def test_registry_reads_skills_and_resources(skills_dir: Path, memory_source: str) -> None:
    registry = LibrarySkillRegistry([skills_dir, memory_source])
    skill = await registry.get_skill(name="gamma-files")
    assert isinstance(skill, Skill)
    assert skill.instructions.strip() == "See references/notes.md."
    assert skill.frontmatter.allowed_tools == "Read Bash(ls:*)"
    assert skill.resources.get_reference("notes.md") == "Gamma notes: 42.\n"
    assert skill.resources.get_script("run.py").src == "print('gamma')\n"
    assert skill.resources.get_asset("logo.bin") == b"\x89PNG\x00\x01\x02"
    # The later (memory) source overrides the local beta-open.
    beta = await registry.get_skill(name="beta-open")
    assert beta.description == "Beta from memory."
    assert beta.resources.get_reference("extra.md") == "Extra from memory."

    hits = await registry.search_skills(query="csv reports")
    assert [h.name for h in hits][:1] == ["gamma-files"]
    assert all(isinstance(h, Frontmatter) for h in hits)
    assert [h.name for h in await registry.search_skills(query="data.csv")][:1] == ["gamma-files"]
    with pytest.raises(LookupError, match="no skill named 'nope'"):
        await registry.get_skill(name="nope")


async def test_registry_accepts_names_adk_would_reject(tmp_path: Path) -> None:
    root = tmp_path / "lenient"
    make_skill(root, "Data_Helper", "Lenient skillcore accepts this name with a warning.")
    registry = LibrarySkillRegistry(SkillLibrary([root]), max_resource_bytes=10)
    d = make_skill(root, "sized", "Has one file too large for the cap.")
    (d / "references").mkdir()
    (d / "references" / "huge.md").write_text("x" * 100)
    (d / "references" / "ok.md").write_text("fine")
    skill = await registry.get_skill(name="Data_Helper")
    assert skill.name == "Data_Helper"
    sized = await registry.get_skill(name="sized")
    assert sized.resources.list_references() == ["ok.md"]  # the oversized file is left out


async def test_native_adk_toolset_through_our_registry(
    skills_dir: Path, memory_source: str
) -> None:
    registry = LibrarySkillRegistry([skills_dir, memory_source])
    native = AdkSkillToolset(registry=registry)
    model = scripted(
        [("search_skills", {"query": "gamma csv"})],
        [("load_skill", {"skill_name": "gamma-files"})],
        [
            (
                "load_skill_resource",
                {"skill_name": "gamma-files", "file_path": "references/notes.md"},
            ),
            (
                "load_skill_resource",
                {"skill_name": "beta-open", "file_path": "references/extra.md"},
            ),
        ],
        [("load_skill", {"skill_name": "missing-skill"})],
        "done",
    )
    runner = InMemoryRunner(agent=agent_with(model, native), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    got = [r.response for r in responses(events)]
    assert got[0]["result"][0]["name"] == "gamma-files"
    assert got[1]["skill_name"] == "gamma-files" and "references/notes.md" in got[1]["instructions"]
    assert got[2]["content"] == "Gamma notes: 42.\n"
    assert got[3]["content"] == "Extra from memory."
    assert got[4]["error_code"] == "REGISTRY_ERROR" and "no skill named" in got[4]["error"]


async def test_both_toolsets_side_by_side_with_a_prefix(skills_dir: Path) -> None:
    native = AdkSkillToolset(skills=load_skills_from_dir(skills_dir))
    ours = SkillToolset(skills_dir, tool_name_prefix="sc_", prompt_mode="dynamic")
    model = scripted(
        [
            ("load_skill", {"skill_name": "beta-open"}),
            ("sc_load_skill", {"skill_name": "gamma-files"}),
        ],
        "done",
    )
    agent = agent_with(model, ours)
    agent.tools = [native, ours]
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)

    names = model.tool_names(0)
    assert len(names) == len(set(names))  # nothing shadowed
    assert {"load_skill", "sc_load_skill", "sc_unload_skill", "sc_search_skills"} <= set(names)
    assert response_of(events, "load_skill")["skill_name"] == "beta-open"
    assert '<skill_content name="gamma-files">' in response_of(events, "sc_load_skill")["result"]
    session = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert loaded_names_of(session.state["skillcore:assistant"]) == ["gamma-files"]
    assert "**gamma-files** [Loaded]" in model.instructions(1)
