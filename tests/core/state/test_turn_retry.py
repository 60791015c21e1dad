"""A turn entered, failed on the shared ledger and retried, in any order and split between
workers, never allows a plain call that the one-process replay refuses: a call that failed
on the ledger leaves nothing behind that its retry trusts (the fork check runs again), and
a retry after a reply lost once the ledger had committed recognises its own turn's write
(a fork it found stays found, in every worker of the turn)."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import Limits, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.runtime import TurnCalls, TurnStore
from skillcore.state.ledger import Head, MemoryLedger
from skillcore.testing import write_skill

SKILLS = ("r0", "r1", "o2")


@pytest.fixture(scope="module")
def toolkit(tmp_path_factory: pytest.TempPathFactory) -> SkillToolkit:
    root = tmp_path_factory.mktemp("skills")
    for name in SKILLS:
        extra = "allowed-tools: Read\n" if name.startswith("r") else ""
        write_skill(root, name, f"{name} tasks.", f"{name} body.", extra)
    return SkillToolkit(SkillLibrary([root]))


#: How a ledger operation goes: answered, failed before it reached the ledger, or committed
#: with its reply lost (the connection dropped after the commit).
OK, DOWN, LOST = "ok", "down", "lost"


class Failing:
    """A shared ledger whose operations go as ``fails`` says, in turn (see :data:`OK`)."""

    def __init__(self, inner: MemoryLedger, fails: Iterable[str]) -> None:
        self.inner, self.fails = inner, deque(fails)

    def _do(self, op: Any, *args: Any) -> Any:
        how = self.fails.popleft() if self.fails else OK
        if how == DOWN:
            raise ConnectionError("ledger unreachable")
        out = op(*args)
        if how == LOST:
            raise ConnectionError("connection dropped after the commit")
        return out

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        return self._do(self.inner.observe, key, rev, turn, loaded)  # type: ignore[no-any-return]

    def advance(self, *args: Any) -> Head | None:
        return self._do(self.inner.advance, *args)  # type: ignore[no-any-return]

    def head(self, key: str) -> Head | None:
        return self._do(self.inner.head, key)  # type: ignore[no-any-return]


def run(toolkit, base, calls, worker_of, fails, seed, other):
    """Each call in its worker's store, in a shuffled order (the model's with no ``seed``);
    a call that fails on the ledger is retried later by the same worker. ``other``: the
    skills another worker's run on the conversation loaded meanwhile (a fork), or None.
    Returns each plain call's decision."""
    turn_calls = TurnCalls.of(
        "conv",
        "t",
        [(str(i), n, {"skill_name": a} if a else {}) for i, (n, a) in enumerate(calls)],
        toolkit.is_skill_tool,
    )
    shared = MemoryLedger()
    shared.observe("conv", "", "", base.loaded_names)
    if other is not None:
        shared.advance("conv", "", "other-turn", 0, other, "other-call")
    ledger = Failing(shared, fails)
    stores = {
        w: TurnStore(replay=toolkit, arrival_seconds=0.0, confirm_seconds=0.0, ledger=ledger)
        for w in set(worker_of)
    }
    # seed None: the model's order (the one-process replay).
    order = deque(range(len(calls)))
    if seed is not None:
        random.Random(seed).shuffle(order)
    decided: dict[int, bool] = {}
    while order:
        i = order.popleft()
        name, arg = calls[i]
        try:
            with stores[worker_of[i]].enter(turn_calls, str(i), base, rev="") as view:
                if toolkit.is_skill_tool(name):
                    toolkit.call(view, name, {"skill_name": arg}, **view.context)
                else:
                    decided[i] = toolkit.check_call(view, name).allowed
        except ConnectionError:
            order.append(i)  # the same worker retries the call once the ledger answers
    return decided


call = st.one_of(
    st.tuples(st.sampled_from(["load_skill", "unload_skill"]), st.sampled_from(SKILLS)),
    st.tuples(st.sampled_from(["Read", "Write"]), st.none()),
)


@settings(max_examples=500, deadline=None)
@given(
    calls=st.lists(call, min_size=1, max_size=5),
    preloaded=st.lists(st.sampled_from(SKILLS), unique=True, max_size=2),
    other=st.none() | st.lists(st.sampled_from(SKILLS), unique=True, min_size=1, max_size=2),
    workers=st.lists(st.integers(0, 1), min_size=5, max_size=5),
    fails=st.lists(st.sampled_from([OK, DOWN, LOST]), min_size=1, max_size=8),
    seed=st.integers(0, 1000),
)
def test_a_turn_failed_and_retried_never_allows_what_one_process_refuses(
    toolkit: SkillToolkit, calls, preloaded, other, workers, fails, seed
) -> None:
    base = toolkit.library.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT))
    base = toolkit.load_all(base, preloaded)[0]
    one = run(toolkit, base, calls, [0] * len(calls), (), None, other)
    # Split between workers, with or without a fork: every worker of a forked turn sees it.
    many = run(toolkit, base, calls, workers[: len(calls)], fails, seed, other)
    wrong = {i for i, allowed in many.items() if allowed and not one[i]}
    assert not wrong, f"allowed after a retry, refused by one process: {wrong}"
