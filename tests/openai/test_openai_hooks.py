"""Skill hooks in the OpenAI dispatcher (calls as the SDK returns them): exit 2 blocks,
unloaded and untrusted skills run nothing, a hook cannot allow what RESTRICT blocks,
``once`` fires once, hook text reaches ``instructions`` for its conversation."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.core.hooks.fixtures import hook_skills
from tests.openai.test_openai_dispatch import APIS, make_call, output_of

from skillcore import SkillSource
from skillcore.runner import Isolation
from skillcore.testing.script_runner import RecordingRunner
from skillcore_openai import OpenAISkills

HANDLERS = {"Read": lambda args: "read ok", "Write": lambda args: "wrote"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return hook_skills(tmp_path / "skills")


def turn(skills: OpenAISkills, api: str, session, *calls, use_async=False, conversation="c"):
    items = [make_call(api, name, args, f"call_{i}") for i, (name, args) in enumerate(calls)]
    if use_async:
        return asyncio.run(skills.adispatch_all(session, items, conversation=conversation))
    return skills.dispatch_all(session, items, conversation=conversation)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_exit_2_blocks_and_text_reaches_the_model(root: Path, api: str, use_async: bool) -> None:
    skills = OpenAISkills(root, handlers=HANDLERS, script_runner=RecordingRunner(Isolation.LIMITS))
    res = turn(
        skills,
        api,
        skills.session(),
        ("load_skill", {"skill_name": "guard"}),
        ("Write", {"path": "a"}),
        ("Read", {"path": "a"}),
        use_async=use_async,
    )
    _, write, read = res.results
    assert write.is_error and write.code.value == "HOOK_BLOCKED"
    assert "writes are frozen" in output_of(api, write.message)
    assert not read.is_error
    text = skills.instructions(res.session, conversation="c")
    assert "REMEMBER-THE-READ" in text
    assert "REMEMBER-THE-READ" not in skills.instructions(res.session, conversation="c")


def test_unloaded_and_untrusted_skills_run_nothing(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    skills = OpenAISkills(root, handlers=HANDLERS, script_runner=runner)
    res = turn(skills, "chat", skills.session(), ("Write", {"path": "a"}))
    assert not res.results[0].is_error and runner.requests == []
    untrusted = OpenAISkills(
        SkillSource(root, trusted=False), handlers=HANDLERS, script_runner=runner
    )
    res = turn(
        untrusted,
        "chat",
        untrusted.session(),
        ("load_skill", {"skill_name": "guard"}),
        ("Write", {"path": "a"}),
    )
    assert not res.results[1].is_error and runner.requests == []


def test_a_hook_cannot_allow_what_restrict_blocks(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    skills = OpenAISkills(
        root, handlers=HANDLERS, script_runner=runner, allowed_tools_policy="restrict"
    )
    res = turn(
        skills,
        "chat",
        skills.session(),
        ("load_skill", {"skill_name": "opener"}),
        ("Write", {"path": "a"}),
    )
    assert res.results[1].code.value == "TOOL_BLOCKED" and runner.requests == []


def test_once_fires_once_per_conversation(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    skills = OpenAISkills(root, handlers=HANDLERS, script_runner=runner)
    res = turn(skills, "chat", skills.session(), ("load_skill", {"skill_name": "watch"}))
    for _ in range(2):
        turn(skills, "chat", res.session, ("Read", {}), ("Read", {}))
    assert len(runner.requests) == 1
    turn(skills, "chat", res.session, ("Read", {}), conversation="other")
    assert len(runner.requests) == 2


def test_session_start_runs_when_a_conversation_is_loaded(root: Path) -> None:
    skills = OpenAISkills(root, handlers=HANDLERS, script_runner=RecordingRunner(Isolation.LIMITS))
    res = turn(skills, "chat", skills.session(), ("load_skill", {"skill_name": "guard"}))
    skills.save("conv", res.session)
    session = skills.load("conv")
    assert "SESSION-CONTEXT" in skills.instructions(session, conversation="conv")
