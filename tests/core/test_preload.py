"""Configured skills: ``SkillSession.ensure_loaded`` (pure), the toolkit's turn-start
``ensure``, the ``PINNED`` unload refusal and the build-time checks of ``SkillConfig``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Limits,
    OutcomeCode,
    SkillConfig,
    SkillDocument,
    SkillLibrary,
    SkillSession,
    SkillToolkit,
)
from skillcore.testing import EventRecorder, write_skill

from .strategies import NAMES, catalogs, policies
from .test_properties import check_invariant_1, ops_strategy

sessions = st.builds(
    SkillSession, catalogs(), st.builds(Limits, max_loaded=st.integers(0, 4)), policies
).flatmap(lambda s: ops_strategy.map(lambda ops: _run(s, ops)))


def _run(session: SkillSession, ops: list[tuple[str, str]]) -> SkillSession:
    for kind, name in ops:
        if kind == "unload":
            session = session.unload(name)[0]
        elif name in session.to_ensure([name]) and session.slots_left > 0:
            session = session.finish_load(_doc(session, name))[0]
    return session


def _doc(session: SkillSession, name: str) -> SkillDocument:
    meta = session.catalog.get(name)
    assert meta is not None
    return SkillDocument(meta, f"body of {name}")


def _docs(session: SkillSession, names: list[str]) -> dict[str, SkillDocument]:
    return {n: _doc(session, n) for n in session.to_ensure(names)}


@settings(settings.get_profile("skillcore"))
@given(
    session=sessions,
    pinned=st.lists(st.sampled_from(NAMES), unique=True, max_size=4),
    default=st.lists(st.sampled_from(NAMES), unique=True, max_size=4),
)
def test_ensure_loaded_pins_and_keeps_the_invariants(session, pinned, default) -> None:
    """After ensure_loaded: every loadable pinned skill is loaded (when they fit), invariant 1
    holds, nothing loaded before is lost except to make room for a pinned skill, the input
    is unchanged, a second ensure changes nothing, and the state round-trips."""
    pinned = pinned[: session.limits.max_loaded]  # SkillConfig refuses more at build time
    before = session.loaded_names
    names = [*pinned, *default]
    new, outcomes = session.ensure_loaded(names, _docs(session, names), pinned=pinned)
    check_invariant_1(new)
    assert session.loaded_names == before  # the input is not mutated
    loadable = [n for n in pinned if n in session.to_ensure([n]) or session.is_loaded(n)]
    assert set(loadable) <= set(new.loaded_names)
    evicted = {o.skill for o in outcomes if o.code is OutcomeCode.UNLOADED}
    assert not evicted & set(pinned)
    assert set(before) - set(new.loaded_names) == evicted
    for o in outcomes:
        if o.code is OutcomeCode.LOADED:
            assert o.skill in names and o.skill not in before
    again, more = new.ensure_loaded(names, _docs(new, names), pinned=pinned)
    assert again == new and not any(o.changed for o in more)
    restored = SkillSession.from_state(new.to_state(), new.catalog, new.limits, new.policy)
    assert restored == new


@settings(settings.get_profile("skillcore"))
@given(session=sessions, name=st.sampled_from(NAMES))
def test_unload_of_a_pinned_skill_is_refused_and_changes_nothing(session, name) -> None:
    new, outcome = session.unload(name, pinned=(name,))
    if session.is_loaded(name):
        assert outcome.code is OutcomeCode.PINNED and outcome.terminal and not outcome.ok
        assert new is session
    else:
        assert outcome.code is OutcomeCode.NOT_LOADED


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    root = tmp_path / "skills"
    write_skill(root, "alpha", "Alpha.", "Alpha body.", "allowed-tools: Read\n")
    write_skill(root, "beta", "Beta.", "Beta body.")
    write_skill(root, "gamma", "Gamma.", "Gamma body.")
    write_skill(root, "hidden", "Hidden.", "Hidden body.", "disable-model-invocation: true\n")
    return SkillLibrary([root])


def test_pinned_evicts_the_oldest_unpinned_skill(library: SkillLibrary) -> None:
    toolkit = SkillToolkit(library, pinned_skills=["alpha"])
    full, _ = toolkit.load_all(library.session(Limits(max_loaded=2)), ["beta", "gamma"])
    new, outcomes = toolkit.ensure(full)
    assert new.loaded_names == ("gamma", "alpha")
    assert [(o.code, o.skill) for o in outcomes] == [
        (OutcomeCode.UNLOADED, "beta"),
        (OutcomeCode.LOADED, "alpha"),
    ]


def test_default_skills_only_when_fresh_and_subject_to_the_limit(library: SkillLibrary) -> None:
    toolkit = SkillToolkit(library, default_skills=["beta", "gamma", "alpha"])
    empty = library.session(Limits(max_loaded=2))
    assert toolkit.ensure(empty)[0] is empty  # not fresh: nothing
    new, outcomes = toolkit.ensure(empty, fresh=True)
    assert new.loaded_names == ("beta", "gamma")
    assert outcomes[-1].code is OutcomeCode.LOAD_LIMIT_REACHED and outcomes[-1].skill == "alpha"


def test_skipped_names_are_reported_once_per_catalog(library: SkillLibrary) -> None:
    toolkit = SkillToolkit(library, pinned_skills=["nope", "hidden", "beta"])
    session = library.session()
    with EventRecorder() as rec:
        first, _ = toolkit.ensure(session)
        toolkit.ensure(session)
        toolkit.ensure(first)
    got = [(e.name, e.fields["skill"]) for e in rec.events]
    assert got == [
        ("preload.skipped", "nope"),
        ("preload.skipped", "hidden"),
        ("skill.preloaded", "beta"),
        ("skill.preloaded", "beta"),
    ]
    assert first.loaded_names == ("beta",)


def test_unreadable_configured_skill_is_skipped(library: SkillLibrary, tmp_path: Path) -> None:
    toolkit = SkillToolkit(library, pinned_skills=["beta", "gamma"])
    session = library.session()
    (tmp_path / "skills" / "beta" / "SKILL.md").unlink()
    new, outcomes = toolkit.ensure(session)
    assert new.loaded_names == ("gamma",)
    assert outcomes[0].code is OutcomeCode.READ_FAILED and outcomes[0].skill == "beta"


def test_pinned_unload_through_the_toolkit(library: SkillLibrary) -> None:
    toolkit = SkillToolkit(library, pinned_skills=["alpha"])
    session, _ = toolkit.ensure(library.session())
    result = toolkit.call(session, "unload_skill", {"skill_name": "alpha"})
    assert result.code is OutcomeCode.PINNED and "pinned" in result.text
    assert result.session is session


def test_config_checks_at_build_time() -> None:
    with pytest.raises(ValueError, match="pinned_skills exceed the loaded-skill limit"):
        SkillConfig(pinned_skills=["a", "b", "c"], max_loaded_skills=2)
    with pytest.raises(ValueError, match="limit"):
        SkillConfig(pinned_skills=["a", "b"], limits=Limits(max_loaded=1))
    with pytest.raises(TypeError, match="non-empty strings"):
        SkillConfig(default_skills=["a", ""])
    cfg = SkillConfig(default_skills="a", pinned_skills=["b", "b"])
    assert cfg.default_skills == ("a",) and cfg.pinned_skills == ("b",)


def test_unknown_configured_skills_are_reported_at_build_time(library: SkillLibrary) -> None:
    from skillcore.runtime.config import AdapterParts

    library.catalog  # noqa: B018 - discovered before the adapter is built
    with EventRecorder() as rec:
        parts = AdapterParts.build(library, default_skills=["nope"], pinned_skills=["hidden"])
        parts.toolkit.ensure(library.session(), fresh=True)  # not reported a second time
    got = [(e.name, e.fields["skill"], e.fields["code"]) for e in rec.events]
    assert got == [
        ("preload.skipped", "hidden", "DISABLED"),
        ("preload.skipped", "nope", "SKILL_NOT_FOUND"),
    ]
