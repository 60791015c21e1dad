"""A turn is decided by call position, whatever its ids and length (DESIGN §3.8, §3.11,
§3.13): calls are placed by their ids, so a turn whose ids repeat (and that calls a skill
tool) is refused whole, and a call past the per-turn bound is refused; neither is ever
decided on the turn's starting state. The confirm wait is a budget of the turn."""

from __future__ import annotations

import threading
import time
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import Limits, OutcomeCode, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.runtime import TurnCalls, TurnStore
from skillcore.state.stores import SessionRef
from skillcore.testing import write_skill

SKILLS = ("r0", "r1", "o2")


@pytest.fixture(scope="module")
def toolkit(tmp_path_factory: pytest.TempPathFactory) -> SkillToolkit:
    root = tmp_path_factory.mktemp("skills")
    for name in SKILLS:
        extra = "allowed-tools: Read\n" if name.startswith("r") else ""
        write_skill(root, name, f"{name} tasks.", f"{name} body.", extra)
    return SkillToolkit(SkillLibrary([root]))


def session(toolkit: SkillToolkit, *loaded: str):
    base = toolkit.library.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT))
    return toolkit.load_all(base, loaded)[0]


def test_calls_entered_one_after_another_share_one_confirm_wait(toolkit: SkillToolkit) -> None:
    """An earlier ``unload_skill`` that never runs: six plain calls entered in sequence wait
    the confirm period once between them, not once each (and all stay refused)."""
    base = session(toolkit, "r0")
    writes = [(f"w{i}", "Write") for i in range(6)]
    calls = TurnCalls.of(
        "c", "t", [("u", "unload_skill", {"skill_name": "r0"}), *writes], toolkit.is_skill_tool
    )
    store = TurnStore(replay=toolkit, arrival_seconds=0.0, confirm_seconds=0.4)
    began = time.monotonic()
    for call_id, _ in writes:
        with store.enter(calls, call_id, base) as view:
            assert not toolkit.check_call(view, "Write").allowed
    assert time.monotonic() - began < 2 * 0.4


def test_refusals_name_the_reason(toolkit: SkillToolkit) -> None:
    base = session(toolkit)
    load = ("x", "load_skill", {"skill_name": "r0"})
    calls = TurnCalls.of("c", "t", [load, ("x", "Write")], toolkit.is_skill_tool)
    assert calls.refusal("x") is OutcomeCode.TURN_CALL_IDS_REPEAT
    store = TurnStore(replay=toolkit)
    with store.enter(calls, "x", base) as view:
        res = toolkit.call(view, "load_skill", {"skill_name": "r0"})
        assert res.code is OutcomeCode.TURN_CALL_IDS_REPEAT and not res.changed
        assert "its own id" in res.text
    with store.enter(calls, "x", base) as view:
        assert toolkit.check_call(view, "Write").code.value == "TURN_CALL_IDS_REPEAT"
    # Repeated ids in a turn with no skill call: every call is decided on the base anyway.
    plain = TurnCalls.of("c", "t2", [("y", "Read"), ("y", "Write")], toolkit.is_skill_tool)
    assert plain.refusal("y") is None


# -- the property: never more permissive than the in-order replay ----------------------------

IDS = st.one_of(st.sampled_from(["a", "b", "", "a "]), st.uuids().map(str))
CALL = st.one_of(
    st.tuples(st.sampled_from(["load_skill", "unload_skill"]), st.sampled_from(SKILLS)),
    st.tuples(st.sampled_from(["Read", "Write"]), st.none()),
)


def in_order(toolkit: SkillToolkit, base, calls) -> dict[int, bool]:
    """One process, in call order, no turn store: each plain call's decision by position."""
    store = SessionRef(base)
    out = {}
    for p, (name, arg) in enumerate(calls):
        if toolkit.is_skill_tool(name):
            toolkit.call(store, name, {"skill_name": arg})
        else:
            out[p] = toolkit.check_tool(store.session, name).allowed
    return out


def threaded(toolkit: SkillToolkit, base, calls, ids, starts) -> dict[int, bool]:
    """Each call in its own thread, started in the order ``starts``; a call knows only its
    id, as in the frameworks."""
    turn = TurnCalls.of(
        "c",
        "t",
        [(i, n, {"skill_name": a} if a else {}) for i, (n, a) in zip(ids, calls, strict=True)],
        toolkit.is_skill_tool,
    )
    store = TurnStore(replay=toolkit, arrival_seconds=0.01, confirm_seconds=0.05)
    out: dict[int, bool] = {}

    def one(p: int) -> None:
        name, arg = calls[p]
        with store.enter(turn, ids[p], base) as view:
            if toolkit.is_skill_tool(name):
                toolkit.call(view, name, {"skill_name": arg}, **view.context, call_id=ids[p])
            else:
                out[p] = toolkit.check_call(view, name).allowed

    threads = [threading.Thread(target=one, args=(p,)) for p in starts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out


@settings(max_examples=120, deadline=None)
@given(
    data=st.data(),
    calls=st.lists(CALL, min_size=1, max_size=7),
    preloaded=st.lists(st.sampled_from(SKILLS), unique=True, max_size=2),
    bound=st.sampled_from([3, 5, 1_000]),
)
def test_a_plain_call_is_never_allowed_when_the_in_order_replay_refuses_it(
    toolkit: SkillToolkit, data, calls, preloaded, bound
) -> None:
    """Any ids (repeated or not), any length (past the bound too), any thread start order."""
    ids = data.draw(st.lists(IDS, min_size=len(calls), max_size=len(calls)), label="ids")
    starts = data.draw(st.permutations(range(len(calls))), label="starts")
    base = session(toolkit, *preloaded)
    reference = in_order(toolkit, base, calls)
    with mock.patch("skillcore.state.listed_calls.MAX_TURN_CALLS", bound):
        got = threaded(toolkit, base, calls, ids, starts)
    assert set(got) == set(reference)
    for p, allowed in got.items():
        assert reference[p] or not allowed, (p, calls, ids)
