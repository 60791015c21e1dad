"""Skill hooks through the OpenAI Agents SDK (Runner.run with agents.testing.ScriptedModel,
an agent built with guard_agent): a PreToolUse hook exiting 2 rejects the call through the
tool input guardrail with its stderr; a hook cannot allow what RESTRICT blocks; ``once``
fires once; an untrusted source runs no hook; prompt text reaches the next model call."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents", exc_type=ImportError)

from agents import Agent, RunConfig, Runner
from agents.testing import ScriptedModel, assistant_message, function_call
from tests.core.hooks.fixtures import hook_skills
from tests.openai.test_openai_agents import make_tools

from skillcore import SkillSource
from skillcore.runner import Isolation
from skillcore.testing.script_runner import RecordingRunner
from skillcore_openai import AgentSkills

NO_TRACE = RunConfig(tracing_disabled=True)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return hook_skills(tmp_path / "skills")


def run_agent(skills: AgentSkills, turns: list[list[Any]]) -> tuple[dict[str, str], list[str], Any]:
    log: list[str] = []
    read, write = make_tools(log)
    steps: list[Any] = []
    for calls in turns:
        steps.append(calls)
    steps.append([assistant_message("done")])
    model = ScriptedModel(steps)
    agent = skills.guard_agent(
        Agent(
            name="a",
            instructions=skills.instructions("Help."),
            tools=[*skills.tools(), read, write],
            model=model,
        )
    )
    result = asyncio.run(
        Runner.run(agent, "go", context=skills.conversation("c1"), run_config=NO_TRACE)
    )
    got = {
        i["call_id"]: i["output"]
        for i in result.to_input_list()
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }
    return got, log, model


def load(name: str, call_id: str) -> Any:
    return function_call("load_skill", {"skill_name": name}, call_id=call_id)


def test_exit_2_blocks_through_the_guardrail(root: Path) -> None:
    skills = AgentSkills(root, script_runner=RecordingRunner(Isolation.LIMITS))
    got, log, _ = run_agent(
        skills,
        [
            [load("guard", "l1")],
            [
                function_call("Write", {"path": "a", "text": "x"}, call_id="w1"),
                function_call("Read", {"path": "a"}, call_id="r1"),
            ],
        ],
    )
    assert "writes are frozen" in got["w1"] and log == ["Read a"]


def test_a_hook_cannot_allow_what_restrict_blocks(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    skills = AgentSkills(root, script_runner=runner, allowed_tools_policy="restrict")
    got, log, _ = run_agent(
        skills,
        [
            [load("opener", "l1")],
            [function_call("Write", {"path": "a", "text": "x"}, call_id="w1")],
        ],
    )
    assert "not allowed" in got["w1"] and log == [] and runner.requests == []


def test_once_fires_once_and_untrusted_runs_nothing(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    skills = AgentSkills(root, script_runner=runner)
    read = [function_call("Read", {"path": "a"}, call_id=f"r{i}") for i in range(2)]
    run_agent(skills, [[load("watch", "l1")], [read[0]], [read[1]]])
    assert len(runner.requests) == 1
    runner2 = RecordingRunner(Isolation.LIMITS)
    untrusted = AgentSkills(SkillSource(root, trusted=False), script_runner=runner2)
    got, _, _ = run_agent(
        untrusted,
        [[load("guard", "l1")], [function_call("Write", {"path": "a", "text": "x"}, call_id="w1")]],
    )
    assert got["w1"] == "written" and runner2.requests == []
