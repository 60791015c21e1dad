"""Binary resources through InMemoryRunner: the next model request carries inline data in the
function response (``FunctionResponse.parts``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.adk.runners import InMemoryRunner, Runner

from skillcore_adk import SkillToolset

from .conftest import agent_with, make_skill, response_of, run_turn, scripted

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(200))
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\nbody"


@pytest.fixture
def pics(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    d = make_skill(root, "pics", "Pictures.", "See assets/logo.png.")
    (d / "assets").mkdir()
    (d / "assets" / "logo.png").write_bytes(PNG)
    (d / "assets" / "guide.pdf").write_bytes(PDF)
    (d / "assets" / "blob.bin").write_bytes(b"\x00\x01")
    return root


def _resource_calls(*paths: str) -> list[tuple[str, dict[str, str]]]:
    return [("load_skill_resource", {"skill_name": "pics", "path": p}) for p in paths]


async def _run(runner: Runner) -> list:
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = await run_turn(runner, session.id)
    return events


async def test_inline_data_reaches_the_model(pics: Path) -> None:
    toolset = SkillToolset(pics, binary_resources=True)
    model = scripted(
        [("load_skill", {"skill_name": "pics"})],
        _resource_calls("assets/logo.png", "assets/guide.pdf", "assets/blob.bin"),
        "done",
    )
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    events = await _run(runner)
    await runner.close()

    # The request after the resource calls: every function response of that turn.
    last = [
        p.function_response
        for p in model.requests[-1].contents[-1].parts or ()
        if p.function_response is not None
    ]
    png, pdf, blob = last
    assert png.name == "load_skill_resource" and "image/png" in png.response["result"]
    assert "content" not in png.response  # the part moved out of the JSON response
    (part,) = png.parts
    assert part.inline_data.data == PNG and part.inline_data.mime_type == "image/png"
    (part,) = pdf.parts
    assert part.inline_data.data == PDF and part.inline_data.mime_type == "application/pdf"
    assert not blob.parts and blob.response["error_code"] == "BINARY_RESOURCE"
    assert len([e for e in events if e.get_function_responses()]) == 2


async def test_default_is_off(pics: Path) -> None:
    toolset = SkillToolset(pics)
    model = scripted(
        [("load_skill", {"skill_name": "pics"})], _resource_calls("assets/logo.png"), "done"
    )
    runner = InMemoryRunner(agent=agent_with(model, toolset), app_name="app")
    events = await _run(runner)
    await runner.close()
    assert response_of(events, "load_skill_resource")["error_code"] == "BINARY_RESOURCE"


async def test_inline_data_survives_a_sqlite_session_service(pics: Path, tmp_path: Path) -> None:
    """Events holding bytes are stored and read back by a persistent session service."""
    from google.adk.sessions.sqlite_session_service import SqliteSessionService

    toolset = SkillToolset(pics, binary_resources=True)
    model = scripted(
        [("load_skill", {"skill_name": "pics"})],
        _resource_calls("assets/logo.png"),
        "done",
        "done again",
    )
    service = SqliteSessionService(str(tmp_path / "s.db"))
    runner = Runner(agent=agent_with(model, toolset), app_name="app", session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    await run_turn(runner, session.id)
    await run_turn(runner, session.id, "again")  # history reloaded from the database
    await runner.close()
    parts = [
        fp.inline_data.data
        for c in model.requests[-1].contents
        for p in c.parts or ()
        if p.function_response is not None
        for fp in p.function_response.parts or ()
    ]
    assert parts == [PNG]
