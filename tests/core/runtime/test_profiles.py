"""Skill profiles: the per-run selection rule (a property over any selector value), profile
validation, library sharing, and state that never crosses profiles."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcore import PolicyMode, SkillConfig, SkillLibrary, SkillProfiles, SkillToolkit
from skillcore.runtime import restore_session
from skillcore.runtime.profiles import (
    PROFILE_STATE_FIELD,
    ProfileRestorer,
    ProfileStateStore,
    read_selector,
    tag_state,
)
from skillcore.state.saved import MemoryStateStore
from skillcore.testing import EventRecorder, make_tenant_libraries

NAMES = ("acme", "beta", "a.b-c_1")


def registry(default: str | None = None) -> SkillProfiles[tuple[str | None, SkillLibrary]]:
    """Profiles over empty libraries whose parts are (name, library): selection only."""
    return SkillProfiles(
        {n: SkillConfig() for n in NAMES},
        lambda name, library, config: (name, library),
        sources=[],
        default=default,
    )


REG = registry()
REG_DEFAULT = registry(default="beta")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
selectors = json_values | st.sampled_from(NAMES) | st.sampled_from([n.upper() for n in NAMES])


@given(value=selectors, with_default=st.booleans())
def test_selection_is_a_registered_profile_or_fails_closed(value: Any, with_default: bool) -> None:
    reg = REG_DEFAULT if with_default else REG
    choice = reg.select(value)
    if isinstance(value, str) and value in NAMES:
        # Exactly the named profile.
        assert choice.ok and choice.name == value and choice.item == reg[value]
    elif value is None and with_default:
        # Nothing selected: the configured default, and only then.
        assert choice.ok and choice.name == "beta"
    else:
        # Anything else, including near-misses of a name: no skills, never the default.
        assert not choice.ok and choice.name is None and choice.refused
        assert choice.item is reg.closed
        assert len(choice.item[1].catalog) == 0


@given(value=selectors)
def test_read_selector_never_raises_and_reads_keys_attributes_and_functions(value: Any) -> None:
    @dataclasses.dataclass
    class Ctx:
        skill_profile: Any

    assert read_selector({"skill_profile": value}, "skill_profile") is value
    assert read_selector(Ctx(value), "skill_profile") is value
    assert read_selector({}, "skill_profile") is None
    assert read_selector(None, "skill_profile") is None

    def boom(ctx: Any) -> object:
        raise RuntimeError("bad context")

    # A selector that raises gives a value no profile matches: the run fails closed.
    assert not REG_DEFAULT.select(read_selector(Ctx(value), boom)).ok


@pytest.mark.parametrize(
    ("profiles", "kw", "message"),
    [
        ({}, {}, "at least one"),
        ({"a b": SkillConfig()}, {}, "must match"),
        ({"@x": SkillConfig()}, {}, "must match"),
        ({"x" * 65: SkillConfig()}, {}, "must match"),
        ({"a": SkillConfig()}, {"default": "b"}, "default profile"),
        (
            {"a": SkillConfig(), "b": SkillConfig(tool_name_prefix="p_")},
            {},
            "same tool_name_prefix",
        ),
    ],
)
def test_bad_profiles_are_caller_errors(profiles: Any, kw: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SkillProfiles(profiles, lambda *a: a, sources=[], **kw)


def test_a_profile_as_config_needs_sources() -> None:
    with pytest.raises(ValueError, match="needs the adapter's sources"):
        SkillProfiles({"a": SkillConfig()}, lambda *a: a)


def test_profile_values_and_shared_libraries(tmp_path: Path) -> None:
    t = make_tenant_libraries(tmp_path)
    shared = [t["acme"]]
    built = SkillProfiles(
        {
            "strict": SkillConfig(allowed_tools_policy="restrict"),
            "open": SkillConfig(),
            "beta": t["beta"],
            "beta2": (t["beta"], SkillConfig(max_loaded_skills=1)),
            "lenient": SkillConfig(validation_mode="strict"),
        },
        lambda name, library, config: (library, config),
        sources=shared,
    )
    assert built["strict"][0] is built["open"][0]  # one library for the same sources object
    assert built["lenient"][0] is not built["strict"][0]  # another validation mode
    assert built["strict"][1].allowed_tools_policy is PolicyMode.RESTRICT
    assert built["beta2"][1].max_loaded_skills == 1
    assert {m.name for m in built["beta"][0].catalog} == {"beta-deploy", "handbook"}
    assert {m.name for m in built["strict"][0].catalog} == {"acme-report", "handbook"}


def test_refusals_are_events() -> None:
    with EventRecorder() as rec:
        REG.select("nope")
        REG.select(None)
        REG.select("acme")
    assert rec.names() == ["profile.refused", "profile.refused"]


def test_state_saved_under_one_profile_never_restores_under_another(tmp_path: Path) -> None:
    lib = SkillLibrary([make_tenant_libraries(tmp_path)["acme"]])
    base = lib.session()
    loaded = SkillToolkit(lib).call(base, "load_skill", {"skill_name": "handbook"}).session
    saved = tag_state(loaded.to_state(), "acme")
    assert saved[PROFILE_STATE_FIELD] == "acme"

    def plain(state: Any) -> Any:
        return restore_session(state, lib.catalog)

    acme, beta = ProfileRestorer(plain, "acme"), ProfileRestorer(plain, "beta")
    assert acme(saved).session.loaded_names == ("handbook",) and not acme(saved).repaired
    with EventRecorder() as rec:
        other = beta(saved)
        assert beta(saved) == other  # reported once per state object
    assert other.session.loaded_names == () and other.repaired
    assert rec.names() == ["profile.switched"]
    untagged = loaded.to_state()
    assert acme(untagged).session.loaded_names == ()  # unknown origin: reset
    assert acme({**saved, PROFILE_STATE_FIELD: ["acme"]}).session.loaded_names == ()
    assert acme(None).session.loaded_names == ()


def test_profile_state_stores_keep_profiles_apart() -> None:
    store = MemoryStateStore()
    a, b, closed = (ProfileStateStore(store, p) for p in ("acme", "beta", None))
    a.save("c1", {"x": 1})
    assert a.load("c1") == {"x": 1} and b.load("c1") is None and closed.load("c1") is None
    b.save("c1", {"x": 2})
    closed.save("c1@acme", {"x": 3})  # a key that looks like another profile's
    assert a.load("c1") == {"x": 1} and b.load("c1") == {"x": 2}
    a.delete("c1")
    assert a.load("c1") is None and b.load("c1") == {"x": 2}
