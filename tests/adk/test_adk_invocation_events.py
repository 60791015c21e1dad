"""A user invocation through the ADK runner logs ``skill.invoked`` once (the argument's length,
never its text), with the callbacks and with the plugin."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore.testing import EventRecorder
from skillcore_adk import SkillToolset

from .conftest import make_skill, run_turn, scripted
from .test_adk_user_invocation import _runner

pytestmark = pytest.mark.anyio

SECRET = "hunter2-token"


@pytest.mark.parametrize("plugin", [False, True], ids=["callback", "plugin"])
async def test_a_user_invocation_logs_skill_invoked_once(tmp_path: Path, plugin: bool) -> None:
    root = tmp_path / "skills"
    make_skill(root, "fix-issue", "Fix a GitHub issue.", "Fix GitHub issue $ARGUMENTS.")
    toolset = SkillToolset(root, user_invocation=True)
    runner, sid = await _runner(scripted("done"), toolset, plugin)
    with EventRecorder() as rec:
        await run_turn(runner, sid, f"/fix-issue {SECRET}")
    invoked = [e.fields for e in rec.events if e.name == "skill.invoked"]
    assert invoked == [{"skill": "fix-issue", "by_user": True, "argument_chars": len(SECRET)}]
    assert all(SECRET not in repr(e.fields) for e in rec.events)
