"""Live state (ADK session state, an Agents SDK run context) holds what the turn's calls did,
never what a call only worked out about an earlier call: a skill call that never ran (another
callback answered it, or it raised) leaves no effect in the saved state, so a worked-out
unload can never lift a restriction there (invariant 11, "an inference never lifts a
restriction")."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import Limits, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.runtime import SessionRef, TurnCalls, TurnStore
from skillcore.testing import write_skill


@pytest.fixture
def toolkit(tmp_path: Path) -> SkillToolkit:
    write_skill(tmp_path, "alpha", "Alpha tasks.", "Only Read.", "allowed-tools: Read\n")
    write_skill(tmp_path, "beta", "Beta tasks.", "Only Read too.", "allowed-tools: Read\n")
    return SkillToolkit(SkillLibrary([tmp_path]))


def turn(toolkit: SkillToolkit) -> TurnCalls:
    return TurnCalls.of(
        "conv",
        "t1",
        [
            ("u", "unload_skill", {"skill_name": "alpha"}),
            ("l", "load_skill", {"skill_name": "beta"}),
        ],
        toolkit.is_skill_tool,
    )


def start(toolkit: SkillToolkit) -> SessionRef:
    session = toolkit.library.session(Limits(), ToolPolicy(PolicyMode.RESTRICT))
    return SessionRef(toolkit.load_all(session, ["alpha"])[0])


def test_an_unload_that_never_ran_is_not_saved_by_a_later_call(toolkit: SkillToolkit) -> None:
    """[unload alpha, load beta]: the load runs first (the unload's thread is late, so the
    load works the unload out), then the unload never reaches skillcore."""
    live = start(toolkit)
    store = TurnStore(replay=toolkit, arrival_seconds=0.0)
    with store.enter(turn(toolkit), "l", live) as view:
        result = toolkit.call(view, "load_skill", {"skill_name": "beta"}, **view.context)
    assert result.ok
    assert "alpha" in live.read().loaded_names  # the unload did not run
    assert "beta" in live.read().loaded_names


def test_the_late_unload_completes_the_saved_state(toolkit: SkillToolkit) -> None:
    """Same turn, and then the unload does run: the saved state is the call-order one."""
    live = start(toolkit)
    store = TurnStore(replay=toolkit, arrival_seconds=0.0)
    calls = turn(toolkit)
    with store.enter(calls, "l", live) as view:
        toolkit.call(view, "load_skill", {"skill_name": "beta"}, **view.context)
    with store.enter(calls, "u", live) as view:
        result = toolkit.call(view, "unload_skill", {"skill_name": "alpha"}, **view.context)
    assert result.ok
    assert live.read().loaded_names == ("beta",)


def test_an_unload_that_raised_is_not_saved(toolkit: SkillToolkit) -> None:
    """The unload enters but raises before it writes (after the load worked it out): its
    worked-out effect does not become a confirmed one."""
    live = start(toolkit)
    store = TurnStore(replay=toolkit, arrival_seconds=0.0)
    calls = turn(toolkit)
    with store.enter(calls, "l", live) as view:
        toolkit.call(view, "load_skill", {"skill_name": "beta"}, **view.context)
    with pytest.raises(RuntimeError), store.enter(calls, "u", live):
        raise RuntimeError("a callback failed")
    assert "alpha" in live.read().loaded_names
