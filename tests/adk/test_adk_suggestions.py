"""Per-request skill suggestions through ``InMemoryRunner``: a note after each user message,
never in the system instruction, so the cacheable prefix of every request stays whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import InMemoryRunner

from skillcore.testing import prefix_stats
from skillcore_adk import SkillToolset
from skillcore_adk.testing import ScriptedLlm, run_turn

from .conftest import agent_with

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "skills"
ASK = "check this csv export for duplicate rows"
OFF_TOPIC = "what's a good recipe for banana bread"


def _request_text(request: LlmRequest) -> str:
    contents = [c.model_dump_json(exclude_none=True) for c in request.contents or ()]
    return "\n".join([str(request.config.system_instruction or ""), *contents])


def _user_texts(request: LlmRequest) -> list[str]:
    return [
        "".join(p.text or "" for p in c.parts or ())
        for c in request.contents or ()
        if c.role == "user" and any(p.text for p in c.parts or ())
    ]


async def _run(**options: object) -> tuple[ScriptedLlm, list[str]]:
    model = ScriptedLlm()
    model.add([("load_skill", {"skill_name": "csv-data-audit"})], "ok", "no idea")
    runner = InMemoryRunner(
        agent=agent_with(model, SkillToolset(EXAMPLES, **{"suggestions": 3, **options})),
        app_name="a",
    )
    session = await runner.session_service.create_session(app_name="a", user_id="u")
    await run_turn(runner, session.id, ASK)
    await run_turn(runner, session.id, OFF_TOPIC)
    stored = await runner.session_service.get_session(
        app_name="a", user_id="u", session_id=session.id
    )
    await runner.close()
    texts = [p.text or "" for e in stored.events for p in (e.content.parts if e.content else ())]
    return model, texts


async def test_each_user_message_gets_its_note_and_the_prefix_stays_whole() -> None:
    model, stored = await _run()
    assert len(model.requests) == 3
    for request in model.requests:
        first = _user_texts(request)[0]
        assert first.startswith(ASK + "<skill_suggestions>\n")
        assert "- csv-data-audit: " in first
        assert "<skill_suggestions>" not in model.instructions(model.requests.index(request))
    assert _user_texts(model.requests[2])[1] == OFF_TOPIC  # no close match: no note
    systems = [model.instructions(i) for i in range(3)]
    stats = prefix_stats(systems, [_request_text(r) for r in model.requests])
    assert stats.system_common == stats.system_length
    assert stats.reused == stats.reusable  # each request extends the one before, across turns
    assert not any("<skill_suggestions>" in t for t in stored)  # nothing stored


async def test_suggestions_can_be_turned_off() -> None:
    model, _ = await _run(suggestions=0)
    assert _user_texts(model.requests[0])[0] == ASK
