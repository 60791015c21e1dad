"""ADK: skill events land on ADK's own tool span; a misconfigured source warns at construction."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner

from skillcore import MissingDependencyError, SourceNotFoundError
from skillcore.testing import write_skill
from skillcore_adk import LibrarySkillRegistry, SkillToolset

from .conftest import run_turn, scripted

pytestmark = pytest.mark.anyio


def _exporter():  # type: ignore[no-untyped-def]
    """An in-memory exporter on the global tracer provider (set once per process)."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))  # type: ignore[attr-defined]
    return exporter


async def test_skill_loaded_event_is_on_adks_tool_span(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk")
    exporter = _exporter()
    write_skill(tmp_path / "skills", "alpha", "Alpha tasks.", "Alpha body.")
    toolset = SkillToolset(tmp_path / "skills")
    model = scripted([("load_skill", {"skill_name": "alpha"})], "done")
    agent = LlmAgent(name="a", model=model, instruction="Help.", tools=[toolset])
    runner = InMemoryRunner(agent=agent, app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    await run_turn(runner, session.id)
    await runner.close()
    spans = exporter.get_finished_spans()
    with_event = [s for s in spans for e in s.events if e.name == "skillcore.skill.loaded"]
    assert len(with_event) == 1, [(s.name, [e.name for e in s.events]) for s in spans]
    span = with_event[0]
    assert span.name == "execute_tool load_skill", span.name
    (event,) = [e for e in span.events if e.name == "skillcore.skill.loaded"]
    assert event.attributes is not None
    assert event.attributes["gen_ai.skill.name"] == "alpha"
    assert span.attributes is not None and span.attributes["gen_ai.tool.name"] == "load_skill"


def test_a_typod_source_fails_at_construction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceNotFoundError, match=r"'skills-typo' does not exist"):
        SkillToolset("skills-typo")
    with pytest.raises(SourceNotFoundError, match=r"'skills-typo' does not exist"):
        LibrarySkillRegistry("skills-typo")


def test_a_source_without_its_extra_fails_at_construction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "s3fs", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match=r'pip install "skillcore-agents\[s3\]"'):
        SkillToolset("s3://team-skills/prod")
