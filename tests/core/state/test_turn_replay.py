"""Invariant 11: a turn's outcome does not depend on which process ran which call. Calls of
one turn are split at random between "processes" (separate TurnStores, as after a crash and
resume), some run twice (a tool re-executed on resume), the writes reach the reducer in any
order: the folded state, every reply and every plain-call decision equal one process's."""

from __future__ import annotations

import random
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import Limits, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.runtime import TurnCalls, TurnStore, loaded_names_of, merge_states
from skillcore.state.ledger import MemoryLedger
from skillcore.testing import write_skill

SKILLS = ("r0", "r1", "o2", "o3")


@pytest.fixture(scope="module")
def toolkit(tmp_path_factory: pytest.TempPathFactory) -> SkillToolkit:
    root = tmp_path_factory.mktemp("skills")
    for name in SKILLS:
        extra = "allowed-tools: Read\n" if name.startswith("r") else ""
        write_skill(root, name, f"{name} tasks.", f"{name} body.", extra)
    return SkillToolkit(SkillLibrary([root]))


call = st.one_of(
    st.tuples(st.sampled_from(["load_skill", "unload_skill"]), st.sampled_from(SKILLS)),
    st.tuples(st.sampled_from(["Read", "Write"]), st.none()),
)


def run(toolkit, base, calls, turn, worker_of, twice, seed):
    """Run the turn's calls, each in the store of its worker (in a shuffled order), some
    twice; returns replies, plain decisions and the state folded from all writes."""
    turn_calls = TurnCalls.of(
        "conv",
        turn,
        [(str(i), n, {"skill_name": a} if a else {}) for i, (n, a) in enumerate(calls)],
        toolkit.is_skill_tool,
    )
    # Calls run one after another here, so no call can wait for a later one to confirm.
    stores = {
        w: TurnStore(replay=toolkit, arrival_seconds=0.0, confirm_seconds=0.0)
        for w in set(worker_of)
    }
    ledger = MemoryLedger()
    for store in stores.values():
        store.ledger = ledger  # the workers share one ledger, as they would a database
    order = list(range(len(calls))) + [i for i in range(len(calls)) if twice[i]]
    random.Random(seed).shuffle(order)
    order = _protocol(order, turn_calls)
    replies: dict[int, tuple[str, bool]] = {}
    writes = []
    for i in order:
        name, arg = calls[i]
        with stores[worker_of[i]].enter(turn_calls, str(i), base, rev="") as view:
            if toolkit.is_skill_tool(name):
                res = toolkit.call(view, name, {"skill_name": arg}, **view.context)
                got = (res.code.value, res.ok)
                if res.changed:
                    writes.append(view.saved_state(res.session))
            else:
                d = toolkit.check_call(view, name)
                got = ("allowed" if d.allowed else "blocked", d.allowed)
        assert replies.setdefault(i, got) == got, "a re-run call answered differently"
    random.Random(seed + 1).shuffle(writes)
    state = base.to_state()
    for w in writes:
        state = merge_states(state, w)
    return replies, loaded_names_of(state)


def _protocol(order: list[int], turn: TurnCalls) -> list[int]:
    """``order`` with each plain call's first run moved after the first run of every skill
    call listed before it: what frameworks guarantee (an earlier call either ran, in a worker
    that may have died since, or is about to run in this one, which waits for it). A plain
    call decided before an earlier call ran anywhere is refused when that call could lift a
    restriction: fail closed, by design."""
    ran: set[int] = set()
    out: list[int] = []
    deferred: list[int] = []

    def ready(i: int) -> bool:
        earlier = turn.earlier_skill_calls(str(i))
        return str(i) in turn.skill or i in ran or all(int(k) in ran for k in earlier)

    for i in order:
        deferred.append(i)
        progress = True
        while progress:
            progress = False
            for j in list(deferred):
                if ready(j):
                    deferred.remove(j)
                    out.append(j)
                    ran.add(j)
                    progress = True
    return out + deferred


@settings(max_examples=60)
@given(
    calls=st.lists(call, min_size=1, max_size=6),
    preloaded=st.lists(st.sampled_from(SKILLS), unique=True, max_size=3),
    workers=st.lists(st.integers(0, 2), min_size=6, max_size=6),
    twice=st.lists(st.booleans(), min_size=6, max_size=6),
    seed=st.integers(0, 1000),
)
def test_any_split_of_a_turn_between_workers_gives_one_process_result(
    toolkit: SkillToolkit, calls, preloaded, workers, twice, seed
) -> None:
    base = toolkit.library.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT))
    base = toolkit.load_all(base, preloaded)[0]
    one = run(toolkit, base, calls, "t", [0] * len(calls), [False] * len(calls), seed)
    many = run(toolkit, base, calls, "t", workers[: len(calls)], twice[: len(calls)], seed)
    assert many == one


def run_threads(toolkit, base, calls, delays, starts):
    """One process: each call in its own thread, started in the order ``starts`` with its
    own delay before it reaches skillcore (a loaded machine schedules threads late); the
    store waits for nobody on arrival. Returns replies and plain-call decisions."""
    turn_calls = TurnCalls.of(
        "conv",
        "t",
        [(str(i), n, {"skill_name": a} if a else {}) for i, (n, a) in enumerate(calls)],
        toolkit.is_skill_tool,
    )
    store = TurnStore(replay=toolkit, arrival_seconds=0.0, confirm_seconds=30.0)
    replies: dict[int, tuple[str, bool]] = {}

    def one(i: int) -> None:
        time.sleep(delays[i])
        name, arg = calls[i]
        with store.enter(turn_calls, str(i), base, rev="") as view:
            if toolkit.is_skill_tool(name):
                res = toolkit.call(view, name, {"skill_name": arg}, **view.context)
                replies[i] = (res.code.value, res.ok)
            else:
                d = toolkit.check_call(view, name)
                replies[i] = ("allowed" if d.allowed else "blocked", d.allowed)

    threads = [threading.Thread(target=one, args=(i,)) for i in starts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return replies


@settings(max_examples=150, deadline=None)
@given(
    calls=st.lists(call, min_size=2, max_size=5),
    # A restricting skill is loaded, so an earlier load or unload can decide a plain call.
    preloaded=st.lists(st.sampled_from(SKILLS), unique=True, min_size=1, max_size=3).filter(
        lambda names: any(n.startswith("r") for n in names)
    ),
    delays=st.lists(st.sampled_from([0.0, 0.002, 0.005]), min_size=5, max_size=5),
    starts=st.permutations(range(5)),
)
def test_threads_scheduled_in_any_order_give_the_call_order_result(
    toolkit: SkillToolkit, calls, preloaded, delays, starts
) -> None:
    """Whatever order a loaded machine runs a turn's threads in, each call is decided as
    the model listed them: a plain call after an unload is never refused because the
    unload's thread started late (it waits for the unload to be seen to run)."""
    base = toolkit.library.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT))
    base = toolkit.load_all(base, preloaded)[0]
    one = run(toolkit, base, calls, "t", [0] * len(calls), [False] * len(calls), 0)[0]
    got = run_threads(toolkit, base, calls, delays, [i for i in starts if i < len(calls)])
    assert got == one


def test_a_skill_tool_run_twice_writes_the_same_effect(toolkit: SkillToolkit) -> None:
    """A tool re-executed on resume (its first write was lost or not): the second run gives
    the same reply, and folding both writes equals one."""
    base = toolkit.library.session()
    calls = TurnCalls.of(
        "c", "t", [("a", "load_skill", {"skill_name": "o2"})], toolkit.is_skill_tool
    )
    states = []
    for _ in range(2):
        with TurnStore(replay=toolkit).enter(calls, "a", base) as view:
            res = toolkit.call(view, "load_skill", {"skill_name": "o2"})
            states.append(view.saved_state(res.session))
    assert states[0] == states[1]
    assert loaded_names_of(merge_states(merge_states(None, states[0]), states[1])) == ["o2"]


def test_a_redelivery_survives_the_merge_of_per_call_effects(tmp_path) -> None:
    """A ``REDELIVERED`` load changes only the recorded call id of a loaded skill; the
    per-call effect must carry it, or the merged state forgets the new delivery."""
    import attrs

    from skillcore import SkillLibrary
    from skillcore.state.merge import apply_effect, effect_between
    from skillcore.testing import write_skill

    write_skill(tmp_path, "alpha", "Alpha.")
    session = SkillLibrary(str(tmp_path)).session()
    doc = SkillLibrary(str(tmp_path)).read_document("alpha")
    loaded, _ = session.finish_load(doc, call_id="call-1")
    again = attrs.evolve(loaded, loaded=(attrs.evolve(loaded.loaded[0], delivery="call-2"),))
    effect = effect_between(loaded, again)
    assert [e["call"] for e in effect["add"]] == ["call-2"]
    assert apply_effect(loaded, effect) == again
    assert apply_effect(again, effect_between(again, again)) is again
