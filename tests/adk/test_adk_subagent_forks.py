"""Forked skills (``context: fork``) and subagent scoping through the real ADK runner: the
skill's instructions become the request of a subagent run by ADK's ``AgentTool`` (its own
scripted model and session), under the forked skill's allowed-tools; the parent gets its
answer and its own skill state does not change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.adk.apps import App
from google.adk.runners import InMemoryRunner

from skillcore_adk import SkillPolicyPlugin, SkillToolset

from .conftest import agent_with, make_skill, responses, run_turn, scripted

pytestmark = pytest.mark.anyio

FORK = "context: fork\nagent: Explore\n"


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    make_skill(
        root,
        "explore",
        "Explore the code.",
        "Find where X is defined.",
        FORK + "allowed-tools: Read\n",
    )
    make_skill(root, "stray", "Stray fork.", "Go.", "context: fork\nagent: Nobody\n")
    make_skill(
        root, "wide", "Read and write.", "Wide says: anything.", "allowed-tools: Read Write\n"
    )
    make_skill(root, "readonly", "Only read.", "Readonly says: read.", "allowed-tools: Read\n")
    make_skill(root, "secret", "A subagent-only skill.", "Secret steps.")
    make_skill(root, "private", "Denied to Explore.", "Private steps.")
    return root


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


async def run(
    library: Path,
    parent_steps: list[Any],
    child_steps: list[Any],
    plugin: bool = False,
    **knobs: Any,
) -> Any:
    child_model = scripted(*child_steps)

    def explore(toolset: SkillToolset) -> Any:
        return agent_with(child_model, toolset, name="explorer")

    toolset = SkillToolset(library, subagents={"Explore": explore}, **knobs)
    model = scripted(*parent_steps)
    callback = None if plugin else toolset.before_tool_callback
    agent = agent_with(model, toolset, before_tool_callback=callback)
    if plugin:
        runner = InMemoryRunner(
            app=App(name="app", root_agent=agent, plugins=[SkillPolicyPlugin()])
        )
    else:
        runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    saved = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    return toolset, model, child_model, events, saved


def child_responses(child_model: Any) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for part in child_model.requests[-1].contents:
        for p in part.parts or []:
            if p.function_response is not None:
                out.append((p.function_response.name, p.function_response.response or {}))
    return out


@pytest.mark.parametrize("plugin", [False, True], ids=["callback", "plugin"])
async def test_a_forked_skill_runs_in_its_subagent_under_its_allowed_tools(
    library: Path, plugin: bool
) -> None:
    toolset, _model, child, events, saved = await run(
        library,
        [[load("explore")], [("Write", {})], "done"],
        [[("Write", {})], [load("wide")], [("Write", {}), ("Read", {})], "X is in a.py"],
        plugin=plugin,
        allowed_tools_policy="restrict",
    )
    fork, write = [(r.name, r.response or {}) for r in responses(events)]
    assert fork[0] == "load_skill" and "X is in a.py" in fork[1]["result"], fork
    # The child's request was the skill's instructions, in its own session.
    first = child.requests[0].contents
    assert "Find where X is defined." in first[0].parts[0].text
    got = [(name, r.get("error_code")) for name, r in child_responses(child)]
    assert got == [
        ("Write", "TOOL_BLOCKED"),
        ("load_skill", None),
        ("Write", "TOOL_BLOCKED"),
        ("Read", None),
    ]
    # The parent's skill state is unchanged: nothing loaded, Write runs.
    assert toolset.session_from_state(saved.state.get("skillcore:assistant")).loaded_names == ()
    assert "error" not in write[1], write


async def test_a_subagent_the_agent_does_not_have_is_a_clear_reply(library: Path) -> None:
    _toolset, _model, child, events, _ = await run(library, [[load("stray")], "done"], [])
    (reply,) = [r.response or {} for r in responses(events)]
    assert reply.get("error_code") == "SUBAGENT_UNKNOWN" and "Nobody" in reply["error"]
    assert child.requests == []


async def test_without_subagents_a_forked_skill_is_not_loaded(library: Path) -> None:
    toolset = SkillToolset(library)
    model = scripted([load("explore")], "done")
    agent = agent_with(model, toolset, before_tool_callback=toolset.before_tool_callback)
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    (reply,) = [r.response or {} for r in responses(await run_turn(runner, session.id))]
    assert reply.get("error_code") == "FORK"


async def test_scoping_hides_and_denies_skills(library: Path) -> None:
    _toolset, model, child, events, _ = await run(
        library,
        [[load("secret")], [load("explore")], "done"],
        [[load("private")], [load("secret")], "ok"],
        hidden_skills=["secret"],
        subagent_skills={
            "Explore": {"deny": ["private"], "allow": ["explore", "secret", "wide", "private"]}
        },
    )
    hidden, forked = [r.response or {} for r in responses(events)]
    assert hidden.get("error_code") == "SKILL_NOT_FOUND"
    assert "secret" not in model.instructions(0)
    assert "error" not in forked, forked
    shown = child.instructions(0)
    assert (
        "secret" in shown and "wide" in shown and "private" not in shown and "readonly" not in shown
    )
    got = [(name, r.get("error_code")) for name, r in child_responses(child)]
    assert got == [("load_skill", "SKILL_NOT_FOUND"), ("load_skill", None)]


async def test_an_inheriting_subagent_starts_with_the_parents_skills_and_restrictions(
    tmp_path: Path, library: Path
) -> None:
    make_skill(library, "explore", "Explore.", "Find X.", FORK + "allowed-tools: Read Write\n")
    toolset, _model, child, events, saved = await run(
        library,
        [[load("readonly")], [load("explore")], "done"],
        [[("Write", {}), ("Read", {})], "ok"],
        allowed_tools_policy="restrict",
        subagent_inherit="inherit",
    )
    _, forked = [r.response or {} for r in responses(events)]
    assert "error" not in forked, forked
    assert "Readonly says: read." in child.instructions(0)
    got = [(name, r.get("error_code")) for name, r in child_responses(child)]
    assert got == [("Write", "TOOL_BLOCKED"), ("Read", None)]
    assert toolset.session_from_state(saved.state.get("skillcore:assistant")).loaded_names == (
        "readonly",
    )
    # No child state is left in the parent's session.
    assert not any(saved.state.get(k) for k in saved.state if ":fork:" in k)


async def test_a_forked_child_runs_no_script_its_skill_does_not_allow(library: Path) -> None:
    from skillcore.testing.script_runner import RecordingRunner

    scripted = make_skill(
        library, "runner", "Runs.", "Run it.", "allowed-tools: run_skill_script\n"
    )
    (scripted / "scripts").mkdir()
    (scripted / "scripts" / "go.py").write_text("print('ran')\n")
    runner = RecordingRunner()
    run_call = ("run_skill_script", {"skill_name": "runner", "script": "scripts/go.py", "args": []})
    _toolset, _model, child, _events, _ = await run(
        library,
        [[load("explore")], "done"],
        [[load("runner")], [run_call], "ok"],
        allowed_tools_policy="restrict",
        script_runner=runner,
    )
    got = [(name, r.get("error_code")) for name, r in child_responses(child)]
    assert got == [("load_skill", None), ("run_skill_script", "TOOL_BLOCKED")], got
    assert runner.requests == []
