"""What both OpenAI adapters take at construction, decided by the same core rules: a ready
toolkit refuses options, and a gated tool is added to the policy's gated tools (never a skill
tool)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skillcore import PolicyMode, SkillConfig, SkillToolkit, ToolPolicy
from skillcore.testing import make_gated_library

# Both adapters side by side: where the Agents SDK cannot import (an older openai), skip.
pytest.importorskip("agents", exc_type=ImportError)
from skillcore_openai import AgentSkills, OpenAISkills

PARAMS = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


def deploy() -> str:
    """Deploy."""
    return "deployed"


def tool_dict(name: str) -> dict[str, Any]:
    return {"type": "function", "name": name, "description": name, "parameters": PARAMS}


@pytest.fixture
def toolkit(tmp_path: Path) -> SkillToolkit:
    config = SkillConfig()
    return config.toolkit(config.library(make_gated_library(tmp_path / "skills")))


@pytest.mark.parametrize("adapter", [OpenAISkills, AgentSkills])
def test_a_ready_toolkit_refuses_options(adapter: Any, toolkit: SkillToolkit) -> None:
    with pytest.raises(TypeError, match="options apply only when sources or a SkillLibrary"):
        adapter(toolkit, SkillConfig())
    with pytest.raises(TypeError, match="options apply only when sources or a SkillLibrary"):
        adapter(toolkit, allowed_tools_policy="restrict")
    assert adapter(toolkit).toolkit is toolkit


def test_both_adapters_gate_the_same_tools_on_top_of_the_given_policy(
    toolkit: SkillToolkit,
) -> None:
    given = ToolPolicy(PolicyMode.RESTRICT, gated_tools=frozenset({"other"}))
    chat = OpenAISkills(toolkit, policy=given, tools=[tool_dict("deploy")])
    agents = AgentSkills(toolkit, policy=given, tools=[deploy])
    assert chat.policy.gated_tools == agents.policy.gated_tools == {"other", "deploy"}
    assert chat.policy.mode is agents.policy.mode is PolicyMode.RESTRICT


def test_a_skill_tool_is_never_gated(toolkit: SkillToolkit) -> None:
    load = toolkit.names.load
    with pytest.raises(ValueError, match=f"a skill tool cannot be gated: {load}"):
        OpenAISkills(toolkit, tools=[tool_dict(load)])

    def load_skill() -> str:
        """Not a skill tool."""
        return ""

    load_skill.__name__ = load
    with pytest.raises(ValueError, match=f"a skill tool cannot be gated: {load}"):
        AgentSkills(toolkit, tools=[load_skill])
