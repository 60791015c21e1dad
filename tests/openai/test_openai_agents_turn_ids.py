"""Through the OpenAI Agents SDK adapter, a turn is decided by call position whatever its ids
and length (DESIGN §3.13): a repeated call id or a call past the per-turn bound never lets
``Write`` run after a restricting ``load_skill``."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

pytest.importorskip("agents", exc_type=ImportError)

from agents.exceptions import ModelBehaviorError
from agents.testing import ScriptedModel, assistant_message, function_call
from tests.openai.test_openai_agents_turn_order import make_agent, run_turn

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy
from skillcore.state.listed_calls import MAX_TURN_CALLS
from skillcore_openai import AgentSkills

CSV = {"skill_name": "csv-data-audit"}
WRITE = {"path": "r.md", "text": "x"}


def run(library: SkillLibrary, calls: list, streamed: bool) -> list[str]:
    skills = AgentSkills(
        library, limits=Limits(max_loaded=2), policy=ToolPolicy(PolicyMode.RESTRICT)
    )
    log: list[str] = []
    model = ScriptedModel([calls, [assistant_message("done")]])
    # The SDK refuses some responses itself (one id for two calls): then nothing runs.
    with contextlib.suppress(ModelBehaviorError):
        asyncio.run(run_turn(make_agent(skills, model, log), skills.conversation("c"), streamed))
    return log


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_a_repeated_call_id_never_lets_write_run(
    examples_library: SkillLibrary, streamed: bool
) -> None:
    calls = [
        function_call("load_skill", CSV, call_id="x"),
        function_call("Write", WRITE, call_id="x"),
    ]
    assert "Write r.md" not in run(examples_library, calls, streamed)


def test_a_call_past_the_turn_bound_never_lets_write_run(examples_library: SkillLibrary) -> None:
    calls = [function_call("load_skill", CSV, call_id="c0")]
    calls += [
        function_call("Read", {"path": "a"}, call_id=f"c{i}") for i in range(1, MAX_TURN_CALLS)
    ]
    calls.append(function_call("Write", WRITE, call_id="last"))
    assert "Write r.md" not in run(examples_library, calls, False)
