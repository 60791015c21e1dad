"""What the model is shown: catalog in the system message, skill tools and their schemas."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import SystemMessage

from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import tool_calls


@pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])
def test_catalog_appended_as_its_own_block(make_agent, model, run, examples, use_async) -> None:
    agent, _ = make_agent(examples)
    run(agent, use_async=use_async)
    system = model.requests[-1]["messages"][0]
    assert isinstance(system, SystemMessage)
    blocks = system.content_blocks
    # The user's prompt stays byte-identical in the first block; ours follows after a blank line.
    assert blocks[0]["text"] == "You are a test agent."
    assert blocks[1]["text"].startswith("\n\n## Skills\n")
    for name in ("csv-data-audit", "python-testing", "release-notes"):
        assert f"- **{name}**:" in system.text
    assert "[Loaded]" not in system.text


def test_no_system_prompt_gets_catalog_alone(make_agent, model, run, examples) -> None:
    agent, _ = make_agent(examples, system_prompt=None)
    run(agent)
    assert model.system().startswith("## Skills\n")


def test_xml_format(make_agent, model, run, examples) -> None:
    agent, _ = make_agent(examples, catalog_format="xml")
    run(agent)
    assert "<available_skills>" in model.system()
    assert "<name>csv-data-audit</name>" in model.system()


def test_tools_and_enum_schema(make_agent, model, run, examples) -> None:
    agent, _ = make_agent(examples)
    run(agent)
    assert model.tool_names()[:4] == [
        "load_skill",
        "unload_skill",
        "load_skill_resource",
        "search_skills",
    ]
    schema = model.tool_schema("load_skill")
    assert sorted(schema["properties"]["skill_name"]["enum"]) == sorted(
        p.name for p in examples.iterdir()
    )
    assert model.tool_schema("search_skills")["required"] == ["query", "path"]


def test_prefix_and_no_resource_tool(make_agent, model, run, examples) -> None:
    agent, _ = make_agent(examples, tool_name_prefix="sc_", include_resource_tool=False)
    model.push(tool_calls(("sc_load_skill", {"skill_name": "csv-data-audit"})))
    out = run(agent)
    assert model.tool_names(0)[:3] == ["sc_load_skill", "sc_unload_skill", "sc_search_skills"]
    assert "sc_load_skill" in model.system()
    assert "load_skill_resource" not in model.tool_names(0)
    reply = out["messages"][-2]
    assert reply.status == "success" and '<skill_content name="csv-data-audit">' in reply.text
    # Without the resource tool the reply says paths are relative (the agent reads files itself).
    assert "paths are relative to the skill directory" in reply.text


def test_no_skills_no_catalog_no_tools(make_agent, model, run, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    agent, _ = make_agent(empty)
    run(agent)
    assert model.system() == "You are a test agent."
    assert model.tool_names() == ["Read", "Write"]


def test_budget_and_omitted_line(make_agent, model, run, tmp_path: Path, helpers) -> None:
    root = tmp_path / "many"
    for i in range(40):
        helpers.write_skill(root, f"skill-{i:02d}", f"Does task number {i} very well indeed.")
    agent, _ = make_agent(root, max_description_budget=400)
    run(agent)
    system = model.system()
    shown = system.count("- **skill-")
    assert 0 < shown < 40
    assert f"{40 - shown} more skills are not shown here; call search_skills" in system


def test_loaded_mark_with_resources_and_allowed_tools(make_agent, model, run, examples) -> None:
    agent, _ = make_agent(examples, prompt_mode="dynamic")
    model.push(tool_calls(("load_skill", {"skill_name": "csv-data-audit"})))
    run(agent)
    system = model.system()
    line = next(x for x in system.splitlines() if x.startswith("- **csv-data-audit**"))
    assert "[Loaded]" in line
    assert "resources: 1 reference, 1 script" in line
    assert "allowed tools: Read, Bash(python3:*)" in line


def test_search_finds_skills_left_out_by_budget(
    make_agent, model, run, tmp_path: Path, helpers
) -> None:
    root = tmp_path / "many"
    for i in range(30):
        helpers.write_skill(root, f"skill-{i:02d}", f"Generic helper number {i}.")
    helpers.write_skill(root, "zz-terraform", "Plans terraform infrastructure changes.")
    agent, _ = make_agent(root, max_description_budget=300)
    model.push(tool_calls(("search_skills", {"query": "terraform", "path": None})))
    out = run(agent)
    assert "zz-terraform" not in model.system(0)
    assert "zz-terraform" in helpers.replies(out)[0].text


def test_validation_mode_only_for_sources(examples) -> None:
    from skillcore import SkillLibrary

    with pytest.raises(ValueError, match="validation_mode"):
        SkillsMiddleware(SkillLibrary([examples]), validation_mode="strict")
    assert SkillsMiddleware(examples, validation_mode="strict").library.mode.value == "strict"


def test_strict_mode_skips_invalid_skill(make_agent, model, run, tmp_path: Path, helpers) -> None:
    root = tmp_path / "s"
    helpers.write_skill(root, "good-one", "Fine.")
    helpers.write_skill(root, "Bad_Name", "Name breaks the spec.")
    agent, _ = make_agent(root, validation_mode="strict")
    run(agent)
    assert "good-one" in model.system() and "Bad_Name" not in model.system()
    agent, _ = make_agent(root)  # lenient: kept with a warning
    run(agent, thread="t2")
    assert "Bad_Name" in model.system()
