"""The stable prompt prefix and the ``system_prompt=`` template through ``InMemoryRunner``: ten
model calls of one conversation that load and unload skills, measured in both prompt modes."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import InMemoryRunner

from skillcore.testing import (
    PREFIX_SCRIPT,
    PrefixStats,
    make_prefix_library,
    prefix_stats,
    write_skill,
)
from skillcore_adk import SkillToolset
from skillcore_adk.testing import ScriptedLlm, run_turn

from .conftest import agent_with

pytestmark = pytest.mark.anyio

BASE = "You are helpful."  # agent_with's instruction


def _request_text(request: LlmRequest) -> str:
    """A request as the model receives it: system instruction, then every content."""
    contents = [c.model_dump_json(exclude_none=True) for c in request.contents or ()]
    return "\n".join([str(request.config.system_instruction or ""), *contents])


async def _measure(root: Path, mode: str) -> tuple[PrefixStats, ScriptedLlm]:
    model = ScriptedLlm()
    model.add(*([(c.tool, dict(c.args))] for c in PREFIX_SCRIPT if c is not None))
    runner = InMemoryRunner(
        agent=agent_with(model, SkillToolset(root, prompt_mode=mode)), app_name="app"
    )
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    await run_turn(runner, session.id, "work")
    await runner.close()
    systems = [model.instructions(i) for i in range(len(model.requests))]
    return prefix_stats(systems, [_request_text(r) for r in model.requests]), model


async def test_stable_catalog_is_byte_identical_over_ten_calls(tmp_path: Path) -> None:
    root = make_prefix_library(tmp_path / "skills")
    stable, dynamic = (await _measure(root, "stable"))[0], (await _measure(root, "dynamic"))[0]
    print(f"\nADK prefix over {stable.calls} calls: stable {stable}, dynamic {dynamic}")
    assert stable.calls == dynamic.calls == len(PREFIX_SCRIPT)
    assert stable.system_common == stable.system_length  # the same system text every call
    assert stable.reused == stable.reusable  # every request extends the one before
    assert dynamic.system_common < stable.system_common
    assert dynamic.reused < stable.reused


async def test_template_reaches_the_model_and_skill_braces_stay(tmp_path: Path) -> None:
    root = make_prefix_library(tmp_path / "skills")
    write_skill(root, "braces", "Formats {name}, {0} and {{x}} placeholders.")
    template = "Load with {load_tool} (literal {{braces}}).\n{catalog}{skills_load_warnings}"
    toolset = SkillToolset(root, system_prompt=template, tool_name_prefix="sc_")
    model = ScriptedLlm().add([("sc_load_skill", {"skill_name": "braces"})])
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    await run_turn(runner, session.id, "work")
    await runner.close()
    system = model.instructions(0)
    assert system.startswith(BASE)
    assert "\n\nLoad with sc_load_skill (literal {braces}).\n## Skills" in system
    # ADK fills {state} placeholders in the agent's own instruction, never in appended text.
    assert "- **braces**: Formats {name}, {0} and {{x}} placeholders.\n" in system
    assert model.instructions(1) == system
