"""What the adapters share at run time: the skill text of a model call (``ModelCalls``), how
a tool call enters its turn (``turn_entry``) and the bounded memory between hooks
(``Recent``)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from skillcore import SkillConfig, SkillLibrary, SkillSession
from skillcore._recent import Recent
from skillcore.runtime.call_placement import (
    enter_turn,
    locate_turn,
    saved_rev,
    turn_loads,
    wants_tools,
)
from skillcore.runtime.config import AdapterParts
from skillcore.runtime.model_calls import ModelCalls
from skillcore.testing import write_skill


def parts(root: Path, **options: object) -> AdapterParts:
    write_skill(root, "alpha", "Alpha tasks.", "ALPHA-BODY")
    write_skill(root, "beta", "Beta tasks.", "BETA-BODY")
    return AdapterParts.build(SkillLibrary([root]), SkillConfig(**options))  # type: ignore[arg-type]


def loaded(p: AdapterParts, *names: str) -> SkillSession:
    return p.toolkit.load_all(p.restore(None).session, list(names))[0]


# -- ModelCalls ------------------------------------------------------------------------------


def test_lost_instructions_follow_the_catalog_and_the_extra_text(tmp_path: Path) -> None:
    p = parts(tmp_path)
    calls = ModelCalls(p.toolkit)
    session = loaded(p, "alpha")
    catalog = p.toolkit.instructions(session)
    text = calls.instructions(session, frozenset(), query=None, extra="\nEXTRA\n")
    assert text.startswith(catalog + "\nEXTRA\n")
    assert "ALPHA-BODY" in text[len(catalog) :]
    assert "BETA-BODY" not in text  # not loaded


def test_a_delivery_the_model_still_sees_is_not_repeated(tmp_path: Path) -> None:
    p = parts(tmp_path)
    calls = ModelCalls(p.toolkit)
    session = loaded(p, "alpha")
    text = calls.instructions(session, {"alpha"}, query=None)
    assert text == p.toolkit.instructions(session)
    assert "ALPHA-BODY" not in text


def test_sync_and_async_give_the_same_text(tmp_path: Path) -> None:
    p = parts(tmp_path)
    calls = ModelCalls(p.toolkit)
    session = loaded(p, "alpha", "beta")
    for seen in (frozenset(), {"alpha"}, {"alpha", "beta"}):
        sync = calls.instructions(session, seen, query=None, extra="!")
        assert asyncio.run(calls.ainstructions(session, seen, query=None, extra="!")) == sync


def test_no_skills_no_text_whatever_the_extra(tmp_path: Path) -> None:
    p = AdapterParts.build(SkillLibrary([tmp_path]), SkillConfig())
    calls = ModelCalls(p.toolkit)
    empty = p.restore(None).session
    assert calls.instructions(empty, frozenset(), query=None, extra="EXTRA") == ""
    assert asyncio.run(calls.ainstructions(empty, frozenset(), query=None, extra="X")) == ""


def test_the_note_is_off_with_no_suggestions(tmp_path: Path) -> None:
    p = parts(tmp_path / "on", suggestions=3)
    assert ModelCalls(p.toolkit).note_for(p.restore(None).session) is not None
    off = parts(tmp_path / "off", suggestions=0)
    assert ModelCalls(off.toolkit).note_for(off.restore(None).session) is None


# -- turn entry ------------------------------------------------------------------------------


@given(st.one_of(st.none(), st.text(), st.integers(), st.dictionaries(st.text(), st.text())))
def test_saved_rev_is_the_string_rev_or_empty(raw: object) -> None:
    rev = saved_rev(raw)
    expected = raw.get("rev") if isinstance(raw, dict) else None
    assert rev == (expected if isinstance(expected, str) else "")


def test_saved_rev_of_a_non_string_rev_is_empty() -> None:
    assert saved_rev({"rev": 3}) == ""
    assert saved_rev({"rev": "r1"}) == "r1"


def enter_with(
    p: AdapterParts, tools: list[str], available: Collection[str] | None
) -> tuple[dict[str, object], int]:
    asked = []

    def hidden() -> frozenset[str]:
        asked.append(1)
        return frozenset({"beta"})

    history = [
        ("-".join(tools), [(f"c{i}", t, {"skill_name": "alpha"}) for i, t in enumerate(tools)])
    ]
    calls = locate_turn(p.toolkit, "conv", "c0", history)
    session = p.restore(None).session
    view = enter_turn(
        p.toolkit, p.turns, calls, "c0", session, rev="", hidden=hidden, available=available
    )
    return view.context, len(asked)


def test_load_facts_are_gathered_only_when_the_turn_loads(tmp_path: Path) -> None:
    p = parts(tmp_path, check_tools_available=True)
    names = p.toolkit.names
    context, asked = enter_with(p, [names.load, "Read"], {"Read"})
    assert asked == 1
    assert context == {"hidden": frozenset({"beta"}), "available": frozenset({"Read"})}
    assert turn_loads(p.toolkit, locate_turn(p.toolkit, "x", "a", [])) is False
    context, asked = enter_with(p, [names.unload, "Read"], {"Read"})
    assert asked == 0
    assert context["available"] is None and not context["hidden"]


def test_the_agent_tools_are_wanted_with_the_check_on_or_under_restrict(tmp_path: Path) -> None:
    history = [("t", [("c0", "load_skill", {"skill_name": "alpha"})])]
    on = parts(tmp_path / "on", check_tools_available=True)
    off = parts(tmp_path / "off")
    restrict = parts(tmp_path / "restrict", allowed_tools_policy="restrict")
    for p, wanted in ((on, True), (off, False), (restrict, True)):
        calls = locate_turn(p.toolkit, "c", "c0", history)
        assert wants_tools(p.toolkit, calls, p.policy) is wanted


# -- Recent ----------------------------------------------------------------------------------


@given(
    st.integers(min_value=1, max_value=5),
    st.lists(st.tuples(st.sampled_from(["set", "pop"]), st.integers(0, 8), st.integers())),
)
def test_recent_keeps_the_latest_set_entries_up_to_its_size(
    size: int, ops: list[tuple[str, int, int]]
) -> None:
    recent: Recent[int, int] = Recent(size)
    model: list[tuple[int, int]] = []  # oldest first
    for op, key, value in ops:
        if op == "set":
            model = [(k, v) for k, v in model if k != key] + [(key, value)]
            model = model[-size:]
            recent.set(key, value)
        else:
            was = any(k == key for k, _ in model)
            model = [(k, v) for k, v in model if k != key]
            assert recent.pop(key) is was
        assert len(recent) == len(model) <= size
        for k in range(9):
            assert recent.get(k) == dict(model).get(k)
