"""Saved state and resource access are decided by the session alone, and hostile state never
escapes as anything but a short ``StateError`` (DESIGN §3 invariants 6 and 10)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import (
    Catalog,
    Limits,
    OutcomeCode,
    PolicyMode,
    SkillDocument,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    StateError,
    ToolPolicy,
)
from skillcore.runtime import STATE_SCHEMA
from skillcore.state.outcomes import ResourceRequest
from skillcore.state.restore import restore_session

RESTRICT = ToolPolicy(PolicyMode.RESTRICT)


def meta(name: str, **kw) -> SkillMetadata:
    return SkillMetadata(name, f"{name} skill", SkillLocation("s", name, f"/s/{name}"), **kw)


CATALOG = Catalog(
    (
        meta("reader", allowed_tools=("Read",)),
        meta("open"),
        meta("hidden", disable_model_invocation=True),
    )
)


def loaded(*names: str, policy: ToolPolicy = RESTRICT) -> SkillSession:
    s = SkillSession(CATALOG, Limits(), policy)
    for name in names:
        s, out = s.finish_load(SkillDocument(CATALOG.get(name), "body"))
        assert out.ok, out
    return s


def state_with(entry_extra: dict) -> dict:
    return {"schema": STATE_SCHEMA, "loaded": [{"name": "reader", **entry_extra}]}


# -- invariant 10: policy inputs come from the catalog --------------------------------------


@pytest.mark.parametrize("stored", [["*"], None, "Read", ["Write"], [1, 2], {"x": 1}])
def test_stored_allowed_tools_never_widen_the_catalog(stored) -> None:
    """A checkpoint claiming other allowed-tools for a Read-only skill changes nothing."""
    s = SkillSession.from_state(state_with({"allowed_tools": stored}), CATALOG, policy=RESTRICT)
    assert s.loaded_names == ("reader",)
    assert not s.check_tool("Write").allowed
    assert s.check_tool("Read").allowed
    assert "allowed_tools" not in json.dumps(s.to_state())


def test_catalog_change_applies_to_a_loaded_skill() -> None:
    """The current catalog's allowed-tools decide, also for skills loaded before a refresh."""
    s = loaded("reader")
    wider = Catalog((meta("reader", allowed_tools=("Read", "Write")), meta("open")))
    s2, dropped = s.with_catalog(wider)
    assert dropped == () and s2.check_tool("Write").allowed
    gone, dropped = s.with_catalog(Catalog((meta("open"),)))
    assert dropped == ("reader",) and gone.loaded_names == ()


def test_restore_drops_skills_that_left_the_catalog_with_a_note() -> None:
    state = {"schema": STATE_SCHEMA, "loaded": [{"name": "gone"}, {"name": "reader"}]}
    r = restore_session(state, CATALOG, policy=RESTRICT)
    assert r.session.loaded_names == ("reader",)
    assert r.repaired and "gone" in (r.note or "")


# -- hostile state -----------------------------------------------------------------------------


def deep(n: int) -> object:
    v: object = []
    for _ in range(n):
        v = [v]
    return v


HOSTILE = [
    state_with({"resources": [["a.md", "reference", math.inf]]}),
    state_with({"resources": [["a.md", "reference", -1]]}),
    state_with({"resources": [["a.md", "reference", 1.5]]}),
    state_with({"resources": [["a.md", "nope", 1]]}),
    state_with({"resources": deep(50_000)}),
    {"schema": STATE_SCHEMA, "loaded": deep(50_000)},
    {"schema": "x" * 20_000_000, "loaded": []},
    {"schema": STATE_SCHEMA, "loaded": [{"name": "y" * 20_000_000}]},
    {"schema": STATE_SCHEMA, "loaded": [{"name": "reader", "truncated": "yes"}]},
    {"schema": STATE_SCHEMA, "loaded": "reader"},
    {"schema": STATE_SCHEMA, "loaded": [None]},
    ["not", "a", "mapping"],
    "state",
]


@pytest.mark.parametrize("state", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_state_raises_a_short_state_error(state) -> None:
    with pytest.raises(StateError) as info:
        SkillSession.from_state(state, CATALOG)
    assert len(str(info.value)) < 500
    r = restore_session(state, CATALOG, policy=RESTRICT)
    assert r.session.loaded_names == () and r.repaired and len(r.note or "") < 700


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from([STATE_SCHEMA, "reader", "open", "hidden", "reference", "script"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["schema", "loaded", "name", "resources", "truncated", "allowed_tools"])
            | st.text(max_size=5),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@settings(settings.get_profile("skillcore"))
@given(
    st.one_of(
        json_values,
        st.fixed_dictionaries({"schema": st.just(STATE_SCHEMA), "loaded": json_values}),
        st.fixed_dictionaries(
            {
                "schema": st.just(STATE_SCHEMA),
                "loaded": st.lists(
                    st.fixed_dictionaries(
                        {"name": st.sampled_from(["reader", "open", "x"])},
                        optional={
                            "resources": json_values,
                            "truncated": json_values,
                            "allowed_tools": json_values,
                        },
                    ),
                    max_size=3,
                ),
            }
        ),
    )
)
def test_from_state_raises_only_state_error(state) -> None:
    try:
        s = SkillSession.from_state(state, CATALOG, policy=RESTRICT, strict=False)
    except StateError as exc:
        assert len(str(exc)) < 500
    else:
        # Whatever was stored, policy follows the catalog.
        if "reader" in s.loaded_names and "open" not in s.loaded_names:
            assert not s.check_tool("Write").allowed
        assert SkillSession.from_state(s.to_state(), CATALOG, policy=RESTRICT) == s
    restore_session(state, CATALOG)


# -- resource access is a session transition ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "path", "code"),
    [
        ("nope", "a.md", OutcomeCode.SKILL_NOT_FOUND),
        ("hidden", "a.md", OutcomeCode.DISABLED),
        ("open", "a.md", OutcomeCode.NOT_LOADED),
        ("reader", "../open/SKILL.md", OutcomeCode.PATH_REJECTED),
        ("reader", "/etc/passwd", OutcomeCode.PATH_REJECTED),
        ("reader", "a\ud800.md", OutcomeCode.PATH_REJECTED),
        ("reader", "a\x07.md", OutcomeCode.PATH_REJECTED),
        ("reader", "x" * 100_000, OutcomeCode.PATH_REJECTED),
    ],
)
def test_begin_resource_refusals(name: str, path: str, code: OutcomeCode) -> None:
    s = loaded("reader")
    out = s.begin_resource(name, path)
    assert not isinstance(out, ResourceRequest) and out.code is code, out
    assert len(out.message) < 400
    out.message.encode("utf-8")  # printable for any transport


def test_begin_resource_accepts_a_loaded_skill_file() -> None:
    assert loaded("reader").begin_resource("reader", "references/a.md") == ResourceRequest(
        "reader", "references/a.md"
    )
