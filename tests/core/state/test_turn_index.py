"""``TurnIndex``: turns announced when the model's response arrives, found again from one
call's id (for frameworks that show a tool only its own call id); each call enters its
turn once, conversations never share a turn, and the index is bounded."""

from __future__ import annotations

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcore import PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.runtime import SessionRef, TurnCalls
from skillcore.state.announced_turns import TurnIndex
from skillcore.state.turn_order import TurnStore
from skillcore.testing import write_skill


@pytest.fixture(scope="module")
def toolkit(tmp_path_factory: pytest.TempPathFactory) -> SkillToolkit:
    root = tmp_path_factory.mktemp("skills")
    write_skill(root, "alpha", "Alpha tasks.", "Only read.", "allowed-tools: Read\n")
    write_skill(root, "beta", "Beta tasks.")
    return SkillToolkit(SkillLibrary([root]))


def turn(toolkit: SkillToolkit, conversation: str, *calls: tuple[str, str, object]) -> TurnCalls:
    return TurnCalls.of(conversation, f"t-{conversation}", calls, toolkit.is_skill_tool)


def test_an_announced_turn_orders_its_calls(toolkit: SkillToolkit) -> None:
    """A plain call entered before its turn's earlier load (as concurrent tasks may) is still
    decided after it; the load's reply and the live session are those of call order."""
    index, store = TurnIndex(), TurnStore(replay=toolkit)
    live = SessionRef(toolkit.library.session(policy=ToolPolicy(PolicyMode.RESTRICT)))
    calls = turn(toolkit, "c", ("1", "load_skill", '{"skill_name": "alpha"}'), ("2", "Write", "{}"))
    index.announce(calls, hidden=(), available=None)
    assert len(index) == 2
    decisions = []

    async def write() -> None:
        view = index.enter(store, "c", "2", live)
        assert view is not None
        async with view:
            decisions.append(toolkit.check_call(view, "Write").allowed)

    async def load() -> None:
        await anyio.sleep(0.01)  # the plain call gets there first
        view = index.enter(store, "c", "1", live)
        assert view is not None
        async with view:
            result = await toolkit.acall(
                view, "load_skill", {"skill_name": "alpha"}, **view.context
            )
        assert result.ok

    async def both() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(write)
            tg.start_soon(load)

    anyio.run(both)
    assert decisions == [False]
    assert live.read().loaded_names == ("alpha",)
    assert len(index) == 0 and len(store) == 0  # entered once each; the turn is finished


def test_unknown_and_repeated_calls_get_none(toolkit: SkillToolkit) -> None:
    index, store = TurnIndex(), TurnStore()
    base = toolkit.library.session()
    assert index.enter(store, "c", "x", base) is None
    index.announce(turn(toolkit, "c", ("x", "Read", "{}")))
    with index.enter(store, "c", "x", base) as view:  # type: ignore[union-attr]
        assert view.seq == 1
    assert index.enter(store, "c", "x", base) is None, "a call enters its turn once"


@given(ids=st.lists(st.sampled_from("abcdef"), min_size=1, max_size=6, unique=True))
def test_conversations_never_share_a_turn(toolkit: SkillToolkit, ids: list[str]) -> None:
    """The same call ids announced by two conversations (invariant 9): each finds its own."""
    base = toolkit.library.session()
    index = TurnIndex()
    plain = lambda name: False  # noqa: E731
    mine = TurnCalls.of("mine", "t1", [(i, "Read") for i in ids], plain)
    theirs = TurnCalls.of("theirs", "t2", [(i, "Write") for i in reversed(ids)], plain)
    index.announce(mine)
    index.announce(theirs)
    store = TurnStore()
    for i in ids:
        for calls in (mine, theirs):
            view = index.enter(store, calls.conversation, i, base)
            assert view is not None and view.calls == calls


def test_the_newest_turn_owns_a_reused_call_id_and_the_index_is_bounded(
    toolkit: SkillToolkit,
) -> None:
    base = toolkit.library.session()
    index = TurnIndex(max_calls=3)
    plain = lambda name: False  # noqa: E731
    index.announce(TurnCalls.of("c", "old", [("a", "Read"), ("b", "Read")], plain))
    index.announce(TurnCalls.of("c", "new", [("b", "Read"), ("c", "Read")], plain))
    assert len(index) == 3
    index.announce(TurnCalls.of("c", "next", [("d", "Read")], plain))
    assert len(index) == 3  # "a", the least recently announced, was dropped
    store = TurnStore()
    assert index.enter(store, "c", "a", base) is None
    view = index.enter(store, "c", "b", base)
    assert view is not None and view.calls.turn == "new"
