"""Skill-gated tools, TOOL_NOT_AVAILABLE and hide_blocked_tools through ``InMemoryRunner``
with a scripted ``BaseLlm``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.runners import InMemoryRunner

from skillcore.testing import make_gated_library
from skillcore_adk import SkillPolicyPlugin, SkillToolset
from skillcore_adk.testing import ScriptedLlm, plain_tools, run_turn


def deploy() -> str:
    """Deploy the service."""
    return "deployed"


@pytest.fixture
def gated_skills(tmp_path: Path) -> Path:
    return make_gated_library(tmp_path / "skills")


class Agent:
    def __init__(self, skills: Path, enforcement: str = "callback", **knobs: Any) -> None:
        self.toolset = SkillToolset(skills, tools=[deploy], **knobs)
        self.model = ScriptedLlm()
        callback = self.toolset.before_tool_callback if enforcement == "callback" else None
        model_cb = self.toolset.before_model_callback if enforcement == "callback" else None
        agent = LlmAgent(
            name="assistant",
            model=self.model,
            instruction="Be helpful.",
            tools=[self.toolset, *plain_tools()],
            before_tool_callback=callback,
            before_model_callback=model_cb,
        )
        if enforcement == "plugin":
            app = App(name="gating", root_agent=agent, plugins=[SkillPolicyPlugin()])
            self.runner = InMemoryRunner(app=app)
        elif enforcement == "callback":
            self.runner = InMemoryRunner(agent=agent, app_name="gating")
        else:  # no policy callback at all: gated tools still refuse themselves
            self.runner = InMemoryRunner(agent=agent, app_name="gating")
        self.loop = asyncio.new_event_loop()
        session = self.loop.run_until_complete(
            self.runner.session_service.create_session(app_name="gating", user_id="u")
        )
        self.session_id = session.id

    def turn(self, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
        self.model.add(list(calls), "done")
        events = self.loop.run_until_complete(run_turn(self.runner, self.session_id))
        return [r.response or {} for e in events for r in e.get_function_responses()]

    def close(self) -> None:
        self.loop.run_until_complete(self.runner.close())
        self.loop.close()


@pytest.mark.parametrize("enforcement", ["callback", "plugin", "none"])
@pytest.mark.parametrize("mode", ["recommend", "restrict"])
def test_gated_tool_is_declared_only_while_unlocked(
    gated_skills: Path, enforcement: str, mode: str
) -> None:
    agent = Agent(gated_skills, enforcement, allowed_tools_policy=mode)
    try:
        (locked,) = agent.turn(("deploy", {}))
        assert "deploy" not in agent.model.tool_names(0)
        assert locked.get("error_code") == "TOOL_LOCKED", locked
        assert "release" in locked["error"] and "ops" in locked["error"]

        (loaded,) = agent.turn(("load_skill", {"skill_name": "release"}))
        assert "result" in loaded, loaded
        (ran,) = agent.turn(("deploy", {}))
        assert "deploy" in agent.model.tool_names(-2), agent.model.tool_names(-2)
        assert ran == {"result": "deployed"}, ran

        agent.turn(("unload_skill", {"skill_name": "release"}))
        (again,) = agent.turn(("deploy", {}))
        assert "deploy" not in agent.model.tool_names(-2)
        assert again.get("error_code") == "TOOL_LOCKED", again
    finally:
        agent.close()


def test_load_then_gated_call_in_one_response_runs_in_call_order(gated_skills: Path) -> None:
    agent = Agent(gated_skills, allowed_tools_policy="restrict")
    try:
        loaded, ran, write = agent.turn(
            ("load_skill", {"skill_name": "ops"}), ("deploy", {}), ("Write", {})
        )
        assert "result" in loaded and ran == {"result": "deployed"}, (loaded, ran)
        assert write.get("error_code") == "TOOL_BLOCKED", write
    finally:
        agent.close()


def test_tool_not_available(gated_skills: Path) -> None:
    agent = Agent(gated_skills, check_tools_available=True)
    try:
        (reply,) = agent.turn(("load_skill", {"skill_name": "writer"}))
        assert "Warning" in reply["result"] and "Edit" in reply["result"], reply
    finally:
        agent.close()
    agent = Agent(gated_skills, allowed_tools_policy="restrict", check_tools_available=True)
    try:
        (reply,) = agent.turn(("load_skill", {"skill_name": "writer"}))
        assert reply.get("error_code") == "TOOL_NOT_AVAILABLE" and "Edit" in reply["error"]
    finally:
        agent.close()


@pytest.mark.parametrize("enforcement", ["callback", "plugin"])
def test_hide_blocked_tools(gated_skills: Path, enforcement: str) -> None:
    agent = Agent(
        gated_skills, enforcement, allowed_tools_policy="restrict", hide_blocked_tools=True
    )
    try:
        agent.turn(("load_skill", {"skill_name": "ops"}))
        (write,) = agent.turn(("Write", {}))
        names = agent.model.tool_names(-2)
        assert "Write" not in names and "Read" in names and "deploy" in names, names
        assert "unload_skill" in names
        assert write.get("error_code") == "TOOL_BLOCKED", write
        assert "Write" in agent.model.tool_names(0)
    finally:
        agent.close()
