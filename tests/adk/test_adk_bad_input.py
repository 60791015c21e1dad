"""Bad input through the real ADK runner: every refusal is a clear error reply, never a crash."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner
from google.adk.tools.base_tool import BaseTool
from google.genai import types

from skillcore import Limits
from skillcore.runtime import loaded_names_of
from skillcore_adk import SkillPolicyPlugin, SkillToolset

from .conftest import agent_with, make_skill, response_of, responses, run_turn, scripted

pytestmark = pytest.mark.anyio


async def run(
    toolset: SkillToolset, *steps: Any, plugins: list | None = None, **agent_kw: Any
) -> tuple[list, dict, Any]:
    """One user turn with the scripted steps; returns (events, persisted state, model)."""
    model = scripted(*steps, "done")
    agent = agent_with(model, toolset, **agent_kw)
    runner = (
        InMemoryRunner(app=App(name="app", root_agent=agent, plugins=plugins))
        if plugins
        else InMemoryRunner(agent=agent, app_name="app")
    )
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    session = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    return events, dict(session.state), model


def loaded(state: dict) -> list[str]:
    return loaded_names_of(state.get("skillcore:assistant"))


def load(name: str) -> tuple[str, dict]:
    return ("load_skill", {"skill_name": name})


def resource(path: str, skill: str = "gamma-files") -> tuple[str, dict]:
    return ("load_skill_resource", {"skill_name": skill, "path": path})


async def test_unknown_skill_name(skills_dir: Path) -> None:
    events, state, _ = await run(SkillToolset(skills_dir), [load("beta-opne")])
    reply = response_of(events, "load_skill")
    assert reply["error_code"] == "SKILL_NOT_FOUND"
    assert "No skill named 'beta-opne'" in reply["error"] and "beta-open" in reply["error"]
    assert loaded(state) == []


async def test_already_loaded(skills_dir: Path) -> None:
    events, state, _ = await run(SkillToolset(skills_dir), [load("beta-open")], [load("beta-open")])
    codes = [r.response.get("error_code") for r in responses(events)]
    assert codes == [None, "ALREADY_LOADED"]
    assert loaded(state) == ["beta-open"]


async def test_over_the_limit(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir, max_loaded_skills=1)
    events, state, _ = await run(toolset, [load("beta-open")], [load("alpha-tools")])
    reply = responses(events)[1].response
    assert reply["error_code"] == "LOAD_LIMIT_REACHED"
    assert "unload_skill" in reply["error"] and "beta-open" in reply["error"]
    assert loaded(state) == ["beta-open"]


async def test_unload_what_is_not_loaded(skills_dir: Path) -> None:
    events, state, _ = await run(
        SkillToolset(skills_dir), [("unload_skill", {"skill_name": "beta-open"})]
    )
    assert response_of(events, "unload_skill")["error_code"] == "NOT_LOADED"
    assert "skillcore:assistant" not in state  # nothing was written


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"skill_name": 42},
        {"skill_name": "  "},
        {"skill_name": "beta-open", "force": True},
    ],
    ids=["missing", "wrong-type", "blank", "extra"],
)
async def test_invalid_arguments(skills_dir: Path, args: dict) -> None:
    events, state, _ = await run(SkillToolset(skills_dir), [("load_skill", args)])
    reply = response_of(events, "load_skill")
    assert reply["error_code"] == "INVALID_ARGUMENTS"
    assert "invalid arguments for load_skill" in reply["error"]
    assert loaded(state) == []


@pytest.mark.parametrize("path", ["../alpha-tools/SKILL.md", "/etc/passwd", "references/../../x"])
async def test_resource_path_escapes(skills_dir: Path, path: str) -> None:
    events, _, _ = await run(SkillToolset(skills_dir), [load("gamma-files"), resource(path)])
    reply = response_of(events, "load_skill_resource")
    assert reply["error_code"] == "PATH_REJECTED", reply
    assert "Do not retry" in reply["error"]


async def test_resource_symlink_escape(skills_dir: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    (skills_dir / "gamma-files" / "references" / "leak.md").symlink_to(secret)
    events, _, _ = await run(
        SkillToolset(skills_dir), [load("gamma-files"), resource("references/leak.md")]
    )
    reply = response_of(events, "load_skill_resource")
    assert reply["error_code"] == "PATH_REJECTED"
    assert "top secret" not in reply["error"]


async def test_missing_resource_is_terminal_and_not_retried_forever(skills_dir: Path) -> None:
    events, _, _ = await run(
        SkillToolset(skills_dir),
        [load("gamma-files")],
        [resource("references/nope.md")],
        [resource("references/nope.md")],
    )
    first, second = (r.response for r in responses(events) if r.name == "load_skill_resource")
    assert first["error_code"] == second["error_code"] == "RESOURCE_NOT_FOUND"
    assert "Files of this skill: " in first["error"] and "references/notes.md" in first["error"]
    assert "Do not retry this path" in first["error"]
    assert "failed 2 times" not in first["error"]
    assert "failed 2 times in this turn" in second["error"] and "Stop retrying" in second["error"]


async def test_binary_and_oversized_resources(skills_dir: Path) -> None:
    (skills_dir / "gamma-files" / "references" / "big.md").write_text("x" * 5_000)
    toolset = SkillToolset(skills_dir, limits=Limits(max_resource_bytes=1_000))
    events, _, _ = await run(
        toolset, [load("gamma-files"), resource("assets/logo.bin"), resource("references/big.md")]
    )
    _, binary, big = (r.response for r in responses(events))
    assert binary["error_code"] == "BINARY_RESOURCE" and "PNG" not in binary["error"]
    assert big["error_code"] == "TOO_LARGE" and "xxxx" not in big["error"]


async def test_skill_file_deleted_between_discovery_and_load(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir)
    # Discovery happens at the start of the turn; the file disappears before the load call.
    model = scripted([("Write", {})], [load("beta-open")], "done")
    from google.adk.tools.function_tool import FunctionTool

    def Write() -> str:
        """Deletes beta-open's SKILL.md (stands in for someone editing the library)."""
        (skills_dir / "beta-open" / "SKILL.md").unlink()
        return "ok"

    agent = agent_with(model, toolset)
    agent.tools = [toolset, FunctionTool(Write)]
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    reply = response_of(events, "load_skill")
    assert reply["error_code"] == "READ_FAILED"
    assert "deleted after discovery" in reply["error"]
    assert "**beta-open** [Loaded]" not in model.instructions()


async def test_source_unreachable_between_turns(skills_dir: Path, tmp_path: Path) -> None:
    toolset = SkillToolset(skills_dir, prompt_mode="dynamic")  # [Loaded] shows the state
    model = scripted(
        [load("beta-open")],
        "turn one done",
        [load("alpha-tools")],
        [("unload_skill", {"skill_name": "beta-open"})],
        "turn two done",
    )
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    await run_turn(runner, session.id)
    shutil.move(skills_dir, tmp_path / "gone")  # the whole source disappears
    events = await run_turn(runner, session.id)

    # The last good catalog is kept (with a diagnostic) and the loaded skill stays loaded.
    assert "**beta-open** [Loaded]" in model.instructions(2)
    assert any(d.code.value == "SOURCE_STALE" for d in toolset.library.catalog.diagnostics)
    reply = response_of(events, "load_skill")
    assert reply["error_code"] == "READ_FAILED"
    assert "result" in response_of(events, "unload_skill")
    session = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert loaded(dict(session.state)) == []


async def test_parallel_loads_with_one_slot_left(skills_dir: Path) -> None:
    # The dynamic prompt mode: the [Loaded] mark shows the winner to the model.
    toolset = SkillToolset(skills_dir, max_loaded_skills=2, prompt_mode="dynamic")
    events, state, model = await run(
        toolset,
        [load("beta-open")],
        [load("alpha-tools"), load("gamma-files"), load("beta-open")],
    )
    replies = [r.response for r in responses(events)][1:]
    codes = sorted(r.get("error_code", "LOADED") for r in replies)
    assert codes == ["ALREADY_LOADED", "LOADED", "LOAD_LIMIT_REACHED"]
    winner = next(r for r in replies if "result" in r)["result"]
    name = "alpha-tools" if "alpha-tools" in winner else "gamma-files"
    assert sorted(loaded(state)) == sorted(["beta-open", name])
    assert f"**{name}** [Loaded]" in model.instructions()


async def test_parallel_unloads_both_land(skills_dir: Path) -> None:
    """ADK's own toolset documents losing one of two parallel unloads; ours does not."""
    events, state, _ = await run(
        SkillToolset(skills_dir),
        [load("beta-open"), load("gamma-files"), load("alpha-tools")],
        [
            ("unload_skill", {"skill_name": "beta-open"}),
            ("unload_skill", {"skill_name": "alpha-tools"}),
        ],
    )
    assert not any("error" in r.response for r in responses(events))
    assert loaded(state) == ["gamma-files"]


class Echo(BaseTool):
    """A plain tool with an arbitrary name."""

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name, description="echo", parameters_json_schema={"type": "object"}
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: Any) -> Any:
        return {"result": f"ran {self.name}"}


LOOK_ALIKES = ["read", "READ", "Read ", " Read", "R\u0435ad", "\uff32ead", "Re\u200bad"]


@pytest.mark.parametrize("enforcement", ["callback", "plugin"])
async def test_look_alike_tool_names_stay_blocked_under_restrict(
    skills_dir: Path, enforcement: str
) -> None:
    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict")
    model = scripted(
        [load("alpha-tools")],
        [(name, {}) for name in [*LOOK_ALIKES, "Read"]],
        "done",
    )
    agent = agent_with(model, toolset)
    agent.tools = [toolset, *(Echo(name=n, description="echo") for n in [*LOOK_ALIKES, "Read"])]
    if enforcement == "callback":
        agent.before_tool_callback = toolset.before_tool_callback
        runner = InMemoryRunner(agent=agent, app_name="app")
    else:
        runner = InMemoryRunner(
            app=App(name="app", root_agent=agent, plugins=[SkillPolicyPlugin()])
        )
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    got = {r.name: r.response for r in responses(events) if r.name != "load_skill"}
    for name in LOOK_ALIKES:
        assert got[name]["error_code"] == "TOOL_BLOCKED", (name, got[name])
    assert got["Read"] == {"result": "ran Read"}


async def test_plugin_with_explicit_toolsets_only_enforces_those(skills_dir: Path) -> None:
    enforced = SkillToolset(skills_dir, allowed_tools_policy="restrict")
    other = SkillToolset(skills_dir, allowed_tools_policy="restrict", state_key_prefix="other")
    plugin = SkillPolicyPlugin(other)
    events, _, _ = await run(enforced, [load("alpha-tools")], [("Write", {})], plugins=[plugin])
    # The plugin was told to enforce another toolset, so this agent's Write goes through.
    assert response_of(events, "Write") == {"result": "ok"}
    events, _, _ = await run(
        enforced,
        [load("alpha-tools")],
        [("Write", {})],
        plugins=[SkillPolicyPlugin(enforced)],
    )
    assert response_of(events, "Write")["error_code"] == "TOOL_BLOCKED"


@pytest.mark.parametrize("skill", ["transfer_to_agent", "load_skill"])
async def test_skill_named_like_a_native_adk_tool(tmp_path: Path, skill: str) -> None:
    root = tmp_path / "skills"
    make_skill(root, skill, "A skill whose name is also a tool name.", body="Skill body here.")
    make_skill(root, "beta-open", "Beta.")
    toolset = SkillToolset(root)
    model = scripted(
        [load(skill)],
        [("transfer_to_agent", {"agent_name": "helper"})],
        "helper answers",
    )
    helper = agent_with(model, None, name="helper", description="Helps.")
    agent = agent_with(model, toolset, name="assistant", sub_agents=[helper])
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)

    # The skill loads through load_skill; the tool of the same name still does its own job.
    assert '<skill_content name="' + skill + '">' in response_of(events, "load_skill")["result"]
    assert "helper" in {e.author for e in events}
    first = model.instructions(0)
    assert f"the skill(s) {skill} share a name with a tool" in first
    assert 'call load_skill with skill_name="<name>"' in first
    session = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert loaded_names_of(session.state["skillcore:assistant"]) == [skill]


async def test_unreadable_persisted_state_is_ignored(skills_dir: Path) -> None:
    toolset = SkillToolset(skills_dir)
    model = scripted([load("beta-open")], "done")
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    session = await runner.session_service.create_session(
        app_name="app", user_id="u", state={"skillcore:assistant": {"schema": "bogus/9"}}
    )
    events = await run_turn(runner, session.id)
    assert "result" in response_of(events, "load_skill")
    session = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert loaded(dict(session.state)) == ["beta-open"]
