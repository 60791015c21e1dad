"""A run's request to load skills (``load=``): validation of the value, and the model's load
rules through the turn-start transition (no eviction, refusals reported, never raises)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.core.state.test_properties import check_invariant_1

from skillcore import Limits, OutcomeCode, SkillLibrary, SkillToolkit
from skillcore.parse.frontmatter_caps import MAX_NAME_USABLE
from skillcore.testing import EventRecorder, write_skill
from skillcore.tools.preload import MAX_REQUESTED, requested_names

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=200),
    lambda inner: st.lists(inner, max_size=40) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=60,
)


@pytest.mark.filterwarnings("ignore:skill load request ignored:UserWarning")
@settings(settings.get_profile("skillcore"))
@given(value=_VALUES)
def test_requested_names_never_raises_and_is_bounded(value: Any) -> None:
    names = requested_names(value)
    assert isinstance(names, tuple) and len(names) <= MAX_REQUESTED
    assert len(set(names)) == len(names)
    assert all(isinstance(n, str) and 0 < len(n) <= MAX_NAME_USABLE for n in names)
    if names:
        if isinstance(value, str):  # one name given as a string
            assert names == (value,)
        else:
            assert isinstance(value, list | tuple) and set(names) == set(value)


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ({"beta": 1}, "expected a list of skill names, got dict"),
        (["beta"] * (MAX_REQUESTED + 1), f"at most {MAX_REQUESTED} are accepted"),
        (["beta", 3], "every entry must be a skill name"),
        (["x" * (MAX_NAME_USABLE + 1)], "every entry must be a skill name"),
        ([""], "every entry must be a skill name"),
    ],
)
def test_malformed_request_is_ignored_with_a_precise_warning(value: Any, detail: str) -> None:
    with EventRecorder() as rec, pytest.warns(UserWarning, match="load request ignored"):
        assert requested_names(value) == ()
    [event] = rec.events
    assert event.name == "load_request.ignored" and detail in event.fields["detail"]


def test_a_single_name_given_as_a_string_is_one_name() -> None:
    with EventRecorder() as rec:
        assert requested_names("beta") == ("beta",)
        assert requested_names("") == ()
    assert rec.events == []


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    root = tmp_path / "skills"
    write_skill(root, "alpha", "Alpha.", "Alpha body.")
    write_skill(root, "beta", "Beta.", "Beta body.")
    write_skill(root, "gamma", "Gamma.", "Gamma body.")
    write_skill(root, "hidden", "Hidden.", "Hidden body.", "disable-model-invocation: true\n")
    return SkillLibrary([root])


def test_request_never_evicts_and_reports_each_refusal(library: SkillLibrary) -> None:
    toolkit = SkillToolkit(library, pinned_skills=["alpha"])
    session = library.session(Limits(max_loaded=2))
    requested = ["beta", "gamma", "hidden", "nope", "beta"]
    with EventRecorder() as rec:
        new, outcomes = toolkit.ensure(session, load=requested)
    check_invariant_1(new)
    assert new.loaded_names == ("alpha", "beta")  # the pinned skill first; gamma refused
    assert [(o.code, o.skill) for o in outcomes] == [
        (OutcomeCode.LOADED, "alpha"),
        (OutcomeCode.LOADED, "beta"),
        (OutcomeCode.LOAD_LIMIT_REACHED, "gamma"),
        (OutcomeCode.DISABLED, "hidden"),
        (OutcomeCode.SKILL_NOT_FOUND, "nope"),
    ]
    skipped = [e.fields["skill"] for e in rec.events if e.name == "load_request.skipped"]
    assert skipped == ["gamma", "hidden", "nope"]
    # Reported on every request (each is the user's), not once per catalog.
    with EventRecorder() as rec:
        again, _ = toolkit.ensure(new, load=["gamma"])
    assert again is new and rec.names() == ["load_request.skipped"]


def test_async_request_matches_sync(library: SkillLibrary) -> None:
    toolkit = SkillToolkit(library)
    session = library.session()
    sync = toolkit.ensure(session, load=["gamma", "beta"])[0]
    assert asyncio.run(toolkit.aensure(session, load=["gamma", "beta"]))[0] == sync
    assert sync.loaded_names == ("gamma", "beta")
