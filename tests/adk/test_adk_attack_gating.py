"""Skill-gated tools without the policy callback: locked calls are decided in call order."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("google.adk")

from tests.adk.test_adk_gating import Agent, gated_skills  # noqa: F401


def test_unload_then_gated_in_one_turn_without_callback(gated_skills: Path) -> None:  # noqa: F811
    agent = Agent(gated_skills, enforcement="none")
    try:
        [r] = agent.turn(("load_skill", {"skill_name": "release"}))
        assert "error" not in r, r
        [r] = agent.turn(("deploy", {}))
        assert r.get("result") == "deployed", r
        r_unload, r_deploy = agent.turn(("unload_skill", {"skill_name": "release"}), ("deploy", {}))
        assert "error" not in r_unload, r_unload
        assert r_deploy.get("error_code") == "TOOL_LOCKED", r_deploy
    finally:
        agent.close()


def test_gated_then_load_in_one_turn_without_callback(gated_skills: Path) -> None:  # noqa: F811
    agent = Agent(gated_skills, enforcement="none")
    try:
        r_deploy, r_load = agent.turn(("deploy", {}), ("load_skill", {"skill_name": "release"}))
        assert "error" not in r_load, r_load
        assert r_deploy.get("error_code") == "TOOL_LOCKED", r_deploy
        r_load, r_deploy = agent.turn(("load_skill", {"skill_name": "ops"}), ("deploy", {}))
        assert "error" not in r_load, r_load
        assert r_deploy.get("result") == "deployed", r_deploy
    finally:
        agent.close()
