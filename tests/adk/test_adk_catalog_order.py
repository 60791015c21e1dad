"""``catalog_order="relevance"`` through ``InMemoryRunner``: the catalog in the system instruction
is ranked for the latest user message and stays the same for every model call of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import InMemoryRunner
from google.genai import types

from skillcore.catalog.relevance import _relevant
from skillcore.testing import INVOICE_QUERY as INVOICE
from skillcore.testing import RELEVANCE_BUDGET as BUDGET
from skillcore.testing import ROLLOUT_QUERY as ROLLOUT
from skillcore.testing import make_relevance_library
from skillcore_adk import SkillToolset
from skillcore_adk._toolset import _latest_user_text

from .conftest import ScriptedLlm, agent_with, run_turn, scripted

pytestmark = pytest.mark.anyio


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """300 skills; the two that matter sort last, past any small budget in precedence order."""
    root = tmp_path / "skills"
    make_relevance_library(root)
    return root


async def _runner(library: Path, order: str) -> tuple[InMemoryRunner, str, ScriptedLlm]:
    toolset = SkillToolset(library, catalog_order=order, max_description_budget=BUDGET)
    # Two model calls for the first message (a plain tool call, then an answer).
    model = scripted([("Read", {})], "done")
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    return runner, session.id, model


async def test_relevance_puts_the_asked_skill_in_the_prompt_and_keeps_it_stable(
    library: Path,
) -> None:
    runner, sid, model = await _runner(library, "relevance")
    misses = _relevant.cache_info().misses
    await run_turn(runner, sid, INVOICE)
    assert len(model.requests) == 2
    assert _relevant.cache_info().misses == misses + 1  # ranked once for two calls
    first, second = model.instructions(0), model.instructions(1)
    assert "**zz-invoice-check**" in first
    assert first == second  # a function response is no new user message

    await run_turn(runner, sid, ROLLOUT)
    last = model.instructions()
    assert "**zz-k8s-rollout**" in last
    assert "**zz-invoice-check**" not in last


async def test_precedence_does_not_show_it(library: Path) -> None:
    runner, sid, model = await _runner(library, "precedence")
    await run_turn(runner, sid, INVOICE)
    assert "zz-invoice-check" not in model.instructions(0)
    assert model.instructions(0) == model.instructions(1)


def test_latest_user_text_skips_function_responses_and_thoughts() -> None:
    request = LlmRequest(
        contents=[
            types.Content(role="user", parts=[types.Part.from_text(text="old question")]),
            types.Content(
                role="user",
                parts=[
                    types.Part(text="thinking aloud", thought=True),
                    types.Part.from_text(text="check the"),
                    types.Part.from_text(text="invoice"),
                ],
            ),
            types.Content(
                role="model",
                parts=[types.Part.from_function_call(name="Read", args={})],
            ),
            types.Content(
                role="user",
                parts=[types.Part.from_function_response(name="Read", response={"r": "x"})],
            ),
        ]
    )
    assert _latest_user_text(request) == "check the\ninvoice"
    assert _latest_user_text(LlmRequest()) is None
