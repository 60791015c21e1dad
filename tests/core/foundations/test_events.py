"""Structured events: each outcome of the core is one event with its fields, at its level,
under its ``skillcore.*`` logger; cheap when nothing listens; misconfigured sources warn."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from skillcore import Limits, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.events import EVENTS
from skillcore.runtime import events, restore_session
from skillcore.testing import EventRecorder, write_skill


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    a = write_skill(root, "alpha", "Alpha tasks.", "Only read.", "allowed-tools: Read\n")
    (a / "references").mkdir()
    (a / "references" / "notes.md").write_text("notes\n")
    write_skill(root, "beta", "Beta tasks.")
    write_skill(root, "gamma", "Gamma tasks.")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("---\nname: broken\n---\nno description\n")
    return root


def one(rec: EventRecorder, name: str, **fields: object) -> None:
    """Exactly one event was recorded since the last check: ``name`` with ``fields``."""
    got = rec.take()
    assert [e.name for e in got] == [name], got
    event = got[0]
    spec = EVENTS[name]
    assert (event.logger, event.level) == (spec.logger, spec.level)
    for key, value in fields.items():
        assert event.fields[key] == value, (key, event)


def test_every_outcome_is_one_event_with_its_fields(root: Path) -> None:
    with EventRecorder() as rec:
        lib = SkillLibrary([root])
        assert lib.catalog
        one(rec, "discovery.completed", skills=3, sources=1, errors=1, warnings=0)
        lib.refresh()  # nothing changed: nothing reported again
        assert rec.take() == []

        tk = SkillToolkit(lib)
        s = lib.session(Limits(max_loaded=2, catalog_budget=40), ToolPolicy(PolicyMode.RESTRICT))
        tk.instructions(s)
        one(rec, "catalog.budget_exceeded", shown=1, omitted=2, budget=40)
        tk.instructions(s)  # the same view again: reported once, not per model call
        assert rec.take() == []

        r = tk.call(s, "load_skill", {"skill_name": "alpha"})
        one(rec, "skill.loaded", skill="alpha", resources=1, loaded=("alpha",))
        s = r.session
        tk.call(s, "load_skill", {"skill_name": "alpha"})
        one(rec, "skill.load_refused", skill="alpha", code="ALREADY_LOADED")
        tk.call(s, "load_skill", {"skill_name": "nope"})
        one(rec, "skill.load_refused", skill="nope", code="SKILL_NOT_FOUND")

        tk.call(s, "load_skill_resource", {"skill_name": "alpha", "path": "references/notes.md"})
        one(rec, "resource.read", skill="alpha", path="references/notes.md", size=6)
        tk.call(s, "load_skill_resource", {"skill_name": "alpha", "path": "missing.md"})
        one(rec, "resource.read_failed", skill="alpha", path="missing.md")
        tk.call(s, "load_skill_resource", {"skill_name": "beta", "path": "x.md"})
        one(rec, "resource.read_failed", skill="beta", code="NOT_LOADED")

        assert not tk.check_call(s, "Write").allowed
        one(rec, "tool.blocked", tool="Write", loaded=("alpha",), timed_out=False)
        assert not tk.check_tool(s, "Write").allowed  # a query: not reported
        assert tk.check_call(s, "Read").allowed
        assert rec.take() == []

        s = tk.call(s, "load_skill", {"skill_name": "beta"}).session
        one(rec, "skill.loaded", skill="beta", resources=0)
        tk.call(s, "load_skill", {"skill_name": "gamma"})
        one(rec, "skill.load_limit_reached", skill="gamma", loaded=("alpha", "beta"), max_loaded=2)
        s = tk.call(s, "unload_skill", {"skill_name": "beta"}).session
        one(rec, "skill.unloaded", skill="beta", loaded=("alpha",))
        tk.call(s, "unload_skill", {"skill_name": "beta"})
        one(rec, "skill.unload_refused", skill="beta", code="NOT_LOADED")

        (root / "gamma" / "SKILL.md").unlink()  # deleted after discovery
        tk.call(s, "load_skill", {"skill_name": "gamma"})
        one(rec, "skill.load_failed", skill="gamma", code="READ_FAILED")

        tk.call(s, "search_skills", {"query": "alpha", "path": None})
        tk.call(s, "nope_tool", {})
        assert rec.take() == []  # searches and invalid calls change nothing


def test_state_reset_and_repair_are_events(root: Path) -> None:
    lib = SkillLibrary([root])
    assert lib.catalog
    with EventRecorder() as rec:
        restore_session({"schema": "other"}, lib.catalog)
        one(rec, "state.reset")
        state = {"schema": "skillcore.session/1", "loaded": [{"name": "gone"}]}
        restore_session(state, lib.catalog)
        one(rec, "state.repaired", dropped="gone")


def test_a_failing_source_is_reported_stale_once(tmp_path: Path, root: Path) -> None:
    lib = SkillLibrary([root])
    assert lib.catalog
    shutil.rmtree(root)
    with EventRecorder() as rec:
        lib.refresh()
        lib.refresh()
    stale = [e for e in rec.events if e.name == "source.stale"]
    assert len(stale) == 1 and stale[0].fields["source"] == str(root), rec.events
    assert stale[0].level == logging.WARNING


def test_events_cost_nothing_when_nobody_listens(caplog: pytest.LogCaptureFixture) -> None:
    def fields() -> dict[str, object]:
        raise AssertionError("fields were built for a disabled event")

    logging.getLogger("skillcore").setLevel(logging.ERROR)
    try:
        assert not events.enabled("skill.loaded")
        events.emit("skill.loaded", fields)
    finally:
        logging.getLogger("skillcore").setLevel(logging.NOTSET)


def test_events_land_on_the_current_span(root: Path) -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    lib = SkillLibrary([root])
    tk = SkillToolkit(lib)
    s = lib.session(policy=ToolPolicy(PolicyMode.RESTRICT))
    logging.getLogger("skillcore").setLevel(logging.ERROR)  # spans get events anyway
    try:
        with provider.get_tracer("test").start_as_current_span("tool"):
            s = tk.call(s, "load_skill", {"skill_name": "alpha"}).session
            tk.check_call(s, "Write")
        tk.call(s, "unload_skill", {"skill_name": "alpha"})  # no current span: nothing
    finally:
        logging.getLogger("skillcore").setLevel(logging.NOTSET)
    (span,) = exporter.get_finished_spans()
    got = [(e.name, dict(e.attributes or {})) for e in span.events]
    assert [n for n, _ in got] == ["skillcore.skill.loaded", "skillcore.tool.blocked"]
    assert got[0][1]["gen_ai.skill.name"] == "alpha"
    assert got[0][1]["skillcore.resources"] == 1
    assert got[1][1]["gen_ai.tool.name"] == "Write"
    assert got[1][1]["skillcore.loaded"] == ("alpha",)
