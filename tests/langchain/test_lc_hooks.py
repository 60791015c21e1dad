"""Skill hooks through ``create_agent`` with a scripted model: a PreToolUse hook exiting 2
blocks the call with its stderr; hooks of unloaded skills and of untrusted sources do not
run; a hook cannot allow a call RESTRICT blocks; ``once`` fires once; prompt and
session-start text reach the next model call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.core.hooks.fixtures import hook_skills

from skillcore import SkillSource
from skillcore.runner import Isolation
from skillcore.testing.script_runner import RecordingRunner
from skillcore_langchain.testing import tool_calls

MODES = pytest.mark.parametrize("use_async", [False, True], ids=["invoke", "ainvoke"])


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return hook_skills(tmp_path / "skills")


@MODES
def test_exit_2_blocks_with_the_reason(make_agent, model, run, root, helpers, use_async) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    agent, _ = make_agent(root, script_runner=runner)
    model.push(tool_calls(load("guard")), tool_calls(("Write", {"path": "a"}), "Read"))
    out = run(agent, use_async=use_async)
    r_load, r_write, r_read = helpers.replies(out)
    assert r_load.status == "success"
    assert r_write.status == "error" and r_write.artifact == {"code": "HOOK_BLOCKED"}
    assert "writes are frozen" in r_write.text
    assert r_read.status == "success"
    # The prompt hook after Read reaches the next model call, once.
    assert "REMEMBER-THE-READ" in model.system(-1)
    model.push(tool_calls("Read"))
    run(agent, use_async=use_async)
    # Session start (the second run, guard loaded): its output is in that run's first call.
    assert any("SESSION-CONTEXT" in model.system(i) for i in range(-3, 0))


def test_unloaded_skill_hooks_do_not_fire(make_agent, model, run, root, helpers) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    agent, _ = make_agent(root, script_runner=runner)
    model.push(tool_calls(load("watch")), tool_calls(("Write", {"path": "a"})))
    (_, r_write) = helpers.replies(run(agent))
    assert r_write.status == "success" and runner.requests == []


def test_a_hook_cannot_allow_what_restrict_blocks(make_agent, model, run, root, helpers) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    agent, _ = make_agent(root, script_runner=runner, allowed_tools_policy="restrict")
    model.push(tool_calls(load("opener")), tool_calls(("Write", {"path": "a"}), "Read"))
    _, r_write, r_read = helpers.replies(run(agent))
    assert r_write.status == "error" and r_write.artifact == {"code": "TOOL_BLOCKED"}
    assert r_read.status == "success"
    # Only the allowed call reached the hooks.
    assert [r.stdin.count(b'"Read"') for r in runner.requests] == [1]


@MODES
def test_once_fires_once(make_agent, model, run, root, use_async) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    agent, _ = make_agent(root, script_runner=runner)
    model.push(tool_calls(load("watch")), tool_calls("Read"), tool_calls("Read"))
    run(agent, use_async=use_async)
    model.push(tool_calls("Read"))
    run(agent, use_async=use_async)
    assert len(runner.requests) == 1


def test_an_untrusted_source_runs_no_hook(make_agent, model, run, root, helpers) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    agent, _ = make_agent(SkillSource(root, trusted=False), script_runner=runner)
    model.push(tool_calls(load("guard")), tool_calls(("Write", {"path": "a"})))
    _, r_write = helpers.replies(run(agent))
    assert r_write.status == "success" and runner.requests == []
