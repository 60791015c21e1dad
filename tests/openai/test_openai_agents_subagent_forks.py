"""Forked skills (``context: fork``) and subagent scoping through the Agents SDK ``Runner``:
the skill's instructions become the input of a subagent run by ``Agent.as_tool`` (its own
scripted model and skill conversation), under the forked skill's allowed-tools; the parent
gets its final output and its own conversation does not change."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore.testing import write_skill
from skillcore_openai import AgentSkills

NO_TRACE = RunConfig(tracing_disabled=True)
FORK = "context: fork\nagent: Explore\n"


@pytest.fixture
def library(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(
        root,
        "explore",
        "Explore the code.",
        "Find where X is defined.",
        FORK + "allowed-tools: Read\n",
    )
    write_skill(root, "stray", "Stray fork.", "Go.", "context: fork\nagent: Nobody\n")
    write_skill(
        root, "wide", "Read and write.", "Wide says: anything.", "allowed-tools: Read Write\n"
    )
    write_skill(root, "readonly", "Only read.", "Readonly says: read.", "allowed-tools: Read\n")
    write_skill(root, "secret", "A subagent-only skill.", "Secret steps.")
    write_skill(root, "private", "Denied to Explore.", "Private steps.")
    return root


def plain() -> list[Any]:
    @function_tool(name_override="Read")
    def read() -> str:
        """Read a file."""
        return "read ok"

    @function_tool(name_override="Write")
    def write() -> str:
        """Write a file."""
        return "written"

    return [read, write]


def outputs(call: Any) -> list[str]:
    return [
        i["output"]
        for i in call.input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]


def load(name: str, call_id: str) -> Any:
    return function_call("load_skill", {"skill_name": name}, call_id=call_id)


def build(
    library: Path, parent_turns: list[Any], child_turns: list[Any], **knobs: Any
) -> tuple[AgentSkills, Agent, ScriptedModel]:
    child_model = ScriptedModel(child_turns)

    def explore(skills: AgentSkills) -> Agent:
        return Agent(
            name="explorer",
            instructions=skills.instructions("You explore."),
            tools=[*skills.tools(), *plain()],
            model=child_model,
        )

    skills = AgentSkills(library, subagents={"Explore": explore}, **knobs)
    agent = skills.guard_agent(
        Agent(
            name="main",
            instructions=skills.instructions("You help."),
            tools=[*skills.tools(), *plain()],
            model=ScriptedModel(parent_turns),
        )
    )
    return skills, agent, child_model


def run(agent: Agent) -> Any:
    return asyncio.run(Runner.run(agent, "go", run_config=NO_TRACE))


def test_a_forked_skill_runs_in_its_subagent_under_its_allowed_tools(library: Path) -> None:
    skills, agent, child = build(
        library,
        [
            [load("explore", "p1")],
            [function_call("Write", {}, call_id="p2")],
            [assistant_message("done")],
        ],
        [
            [function_call("Write", {}, call_id="c1")],
            [load("wide", "c2")],
            [function_call("Write", {}, call_id="c3"), function_call("Read", {}, call_id="c4")],
            [assistant_message("X is in a.py")],
        ],
        allowed_tools_policy="restrict",
    )
    result = run(agent)
    assert result.final_output == "done"
    parent_model = agent.model
    fork_reply, write = outputs(parent_model.calls[-1])  # type: ignore[union-attr]
    assert "X is in a.py" in fork_reply and "ran in subagent 'Explore'" in fork_reply
    assert write == "written"
    assert "Find where X is defined." in str(child.calls[0].input)
    got = outputs(child.calls[-1])
    assert got[0].startswith("Error:") and "Write" in got[0]
    assert got[2].startswith("Error:") and got[3] == "read ok"
    # The parent's conversation is unchanged by the fork and the child's load.
    assert skills.state.loaded_names == ()


def test_a_subagent_the_agent_does_not_have_is_a_clear_reply(library: Path) -> None:
    _skills, agent, child = build(library, [[load("stray", "p1")], [assistant_message("done")]], [])
    run(agent)
    (reply,) = outputs(agent.model.calls[-1])  # type: ignore[union-attr]
    assert reply.startswith("Error:") and "Nobody" in reply
    assert not child.calls


def test_scoping_hides_and_denies_skills(library: Path) -> None:
    _skills, agent, child = build(
        library,
        [[load("secret", "p1")], [load("explore", "p2")], [assistant_message("done")]],
        [[load("private", "c1")], [load("secret", "c2")], [assistant_message("ok")]],
        hidden_skills=["secret"],
        subagent_skills={
            "Explore": {"deny": ["private"], "allow": ["explore", "secret", "wide", "private"]}
        },
    )
    run(agent)
    hidden, forked = outputs(agent.model.calls[-1])  # type: ignore[union-attr]
    assert hidden.startswith("Error: No skill named 'secret'")
    assert "secret" not in agent.model.calls[0].system_instructions  # type: ignore[union-attr]
    assert "ran in subagent" in forked
    shown = child.calls[0].system_instructions or ""
    assert (
        "secret" in shown and "wide" in shown and "private" not in shown and "readonly" not in shown
    )
    denied, loaded = outputs(child.calls[-1])
    assert denied.startswith("Error: No skill named 'private'") and "<skill_content" in loaded


def test_an_inheriting_subagent_starts_with_the_parents_skills_and_restrictions(
    library: Path,
) -> None:
    write_skill(library, "explore", "Explore.", "Find X.", FORK + "allowed-tools: Read Write\n")
    skills, agent, child = build(
        library,
        [[load("readonly", "p1")], [load("explore", "p2")], [assistant_message("done")]],
        [
            [function_call("Write", {}, call_id="c1"), function_call("Read", {}, call_id="c2")],
            [assistant_message("ok")],
        ],
        allowed_tools_policy="restrict",
        subagent_inherit="inherit",
    )
    run(agent)
    assert "Readonly says: read." in (child.calls[0].system_instructions or "")
    write, read = outputs(child.calls[-1])
    assert write.startswith("Error:") and read == "read ok"
    assert skills.state.loaded_names == ("readonly",)


def test_a_forked_child_runs_no_script_its_skill_does_not_allow(library: Path) -> None:
    from skillcore.testing.script_runner import RecordingRunner

    scripted = write_skill(
        library, "runner", "Runs.", "Run it.", "allowed-tools: run_skill_script\n"
    )
    (scripted / "scripts").mkdir()
    (scripted / "scripts" / "go.py").write_text("print('ran')\n")
    runner = RecordingRunner()
    run_call = function_call(
        "run_skill_script",
        {"skill_name": "runner", "script": "scripts/go.py", "args": []},
        call_id="c2",
    )
    _skills, agent, child = build(
        library,
        [[load("explore", "p1")], [assistant_message("done")]],
        [[load("runner", "c1")], [run_call], [assistant_message("ok")]],
        allowed_tools_policy="restrict",
        script_runner=runner,
    )
    run(agent)
    _loaded, script = outputs(child.calls[-1])
    assert script.startswith("Error:") and "not allowed" in script, script
    assert runner.requests == []
