"""A skill's ``model``/``effort`` and ``disallowed-tools``, and the APPROVE mode, through the
Agents SDK runner with ``agents.testing.ScriptedModel``: the run config carries the loaded
skills' model, the guardrail removes and refuses disallowed tools, and ``needs_approval``
asks (the SDK's interruptions) for the calls no loaded skill pre-approves."""

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


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "quick", "Quick chores.", "Be quick.", "model: haiku\neffort: low\n")
    write_skill(root, "deep", "Deep work.", "Think.", "allowed-tools: Read\n")
    write_skill(root, "readonly", "Read only.", "Only read.", "disallowed-tools: Write\n")
    return root


def tools(log: list[str]) -> list[Any]:
    @function_tool(name_override="Read")
    def read() -> str:
        """Read."""
        log.append("Read")
        return "read"

    @function_tool(name_override="Write")
    def write() -> str:
        """Write."""
        log.append("Write")
        return "wrote"

    return [read, write]


def agent(skills: AgentSkills, model: Any, log: list[str]) -> Agent[Any]:
    return skills.guard_agent(
        Agent(
            name="a",
            instructions=skills.instructions("Help."),
            tools=[*skills.tools(), *tools(log)],
            model=model,
        )
    )


def run(a: Agent[Any], prompt: Any, config: RunConfig = NO_TRACE) -> Any:
    return asyncio.run(Runner.run(a, prompt, run_config=config))


def test_the_next_run_uses_the_loaded_skills_model_and_effort(skills_dir: Path) -> None:
    main = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "quick"}, call_id="c1")],
            [assistant_message("ok")],
        ]
    )
    quick = ScriptedModel([[assistant_message("quick")]])
    skills = AgentSkills(skills_dir, model_resolver={"haiku": quick})
    run(agent(skills, main, []), "go")
    config = skills.run_config(base=NO_TRACE)
    assert config.model is quick and config.tracing_disabled
    assert config.model_settings is not None and config.model_settings.reasoning is not None
    assert config.model_settings.reasoning.effort == "low"
    assert run(agent(skills, main, []), "again", config).final_output == "quick"
    main.assert_complete()


@pytest.mark.parametrize("mode", ["recommend", "restrict", "approve"])
def test_disallowed_tools_are_disabled_and_refused(skills_dir: Path, mode: str) -> None:
    log: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call("load_skill", {"skill_name": "readonly"}, call_id="c1"),
                function_call("Write", {}, call_id="c2"),
            ],
            [assistant_message("done")],
        ]
    )
    skills = AgentSkills(skills_dir, allowed_tools_policy=mode)
    result = run(agent(skills, model, log), "go")
    assert result.final_output == "done" and log == []
    (second,) = model.calls[1:]
    offered = [getattr(t, "name", None) for t in second.tools]
    assert "Write" not in offered and "Read" in offered
    replies = [i for i in second.input if isinstance(i, dict) and i.get("call_id") == "c2"]
    assert any("readonly" in str(r.get("output")) for r in replies), replies


def test_approve_asks_for_calls_the_skill_does_not_pre_approve(skills_dir: Path) -> None:
    log: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call("load_skill", {"skill_name": "deep"}, call_id="c1"),
                function_call("Read", {}, call_id="c2"),
                function_call("Write", {}, call_id="c3"),
            ],
            [assistant_message("done")],
        ]
    )
    skills = AgentSkills(skills_dir, allowed_tools_policy="approve")
    a = agent(skills, model, log)
    first = run(a, "go")
    (pending,) = first.interruptions
    assert pending.name == "Write" and log == ["Read"]
    state = first.to_state()
    state.approve(pending)
    second = run(a, state)
    assert second.final_output == "done" and log == ["Read", "Write"]


@pytest.mark.parametrize("approve", [True, False])
def test_approve_asks_before_a_script_run_its_skill_does_not_pre_approve(
    examples_library: Any, approve: bool
) -> None:
    from skillcore.testing.script_runner import RecordingRunner

    runner = RecordingRunner()
    skills = AgentSkills(
        examples_library,
        script_runner=runner,
        script_isolation="process",
        allowed_tools_policy="approve",
    )
    run_args = {"skill_name": "csv-data-audit", "script": "scripts/profile_csv.py", "args": ["-"]}
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "csv-data-audit"}, call_id="c1")],
            [function_call("run_skill_script", run_args, call_id="c2")],
            [assistant_message("done")],
        ]
    )
    a = Agent(
        name="a", instructions=skills.instructions("Help."), tools=skills.tools(), model=model
    )
    first = run(a, "go")
    (pending,) = first.interruptions
    assert pending.name == "run_skill_script" and runner.requests == []
    state = first.to_state()
    if approve:
        state.approve(pending)
    else:
        state.reject(pending)
    assert run(a, state).final_output == "done"
    assert len(runner.requests) == (1 if approve else 0)
