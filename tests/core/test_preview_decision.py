"""preview_decision: the decision a call will get, known before the turn runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore import SkillLibrary, SkillToolkit
from skillcore.policy.rules import PolicyMode, ToolPolicy
from skillcore.testing import write_skill
from skillcore.tools.preview import preview_decision


@pytest.fixture
def toolkit(tmp_path: Path) -> SkillToolkit:
    write_skill(tmp_path, "alpha", "Alpha.", extra="allowed-tools: Read\n")
    write_skill(tmp_path, "beta", "Beta.")
    return SkillToolkit(SkillLibrary(str(tmp_path)))


def test_a_call_after_a_restricting_load_is_previewed_blocked(toolkit: SkillToolkit) -> None:
    session = toolkit.library.session(policy=ToolPolicy(PolicyMode.RESTRICT))
    calls = [("load_skill", {"skill_name": "alpha"}), ("Write", {}), ("Read", {})]
    assert not preview_decision(toolkit, session, calls, 1).allowed
    assert preview_decision(toolkit, session, calls, 2).allowed
    # the same call before the load is allowed: nothing is loaded yet
    assert preview_decision(toolkit, session, [("Write", {}), *calls], 0).allowed
    # nothing was stored
    assert session.loaded_names == ()


def test_preview_matches_what_the_calls_then_decide(toolkit: SkillToolkit) -> None:
    session = toolkit.library.session(policy=ToolPolicy(PolicyMode.RESTRICT))
    calls = [
        ("load_skill", {"skill_name": "alpha"}),
        ("Write", {}),
        ("unload_skill", {"skill_name": "alpha"}),
        ("Write", {}),
        ("load_skill", {"skill_name": "nope"}),
        ("Write", {}),
    ]
    current = session
    for i, (name, args) in enumerate(calls):
        if toolkit.is_skill_tool(name):
            current = toolkit.call(current, name, args).session
        else:
            assert preview_decision(toolkit, session, calls, i) == current.check_tool(name)


def test_recommend_never_previews_a_block(toolkit: SkillToolkit) -> None:
    session = toolkit.library.session()
    calls = [("load_skill", {"skill_name": "alpha"}), ("Write", {})]
    assert preview_decision(toolkit, session, calls, 1).allowed


def test_preview_agrees_with_the_real_calls_on_a_pinned_skill(tmp_path: Path) -> None:
    """A pinned Read-only skill under RESTRICT: ``[unload_skill, Write]`` refuses the unload
    (``PINNED``) and so blocks ``Write``; the preview must say the same."""
    write_skill(tmp_path, "house-rules", "House rules.", extra="allowed-tools: Read\n")
    toolkit = SkillToolkit(SkillLibrary(str(tmp_path)), pinned_skills=["house-rules"])
    fresh = toolkit.library.session(policy=ToolPolicy(PolicyMode.RESTRICT))
    session, _ = toolkit.ensure(fresh, fresh=True)
    assert session.loaded_names == ("house-rules",)
    calls = [("unload_skill", {"skill_name": "house-rules"}), ("Write", {})]
    real = toolkit.call(session, *calls[0])
    assert real.code.value == "PINNED"
    assert not toolkit.check_tool(real.session, "Write").allowed
    assert not preview_decision(toolkit, session, calls, 1).allowed


def test_preview_reports_no_events(toolkit: SkillToolkit) -> None:
    from skillcore.testing import EventRecorder

    session = toolkit.library.session(policy=ToolPolicy(PolicyMode.RESTRICT))
    calls = [
        ("load_skill", {"skill_name": "nope"}),
        ("load_skill", {"skill_name": "alpha"}),
        ("Write", {}),
    ]
    with EventRecorder() as rec:
        assert not preview_decision(toolkit, session, calls, 2).allowed
    assert rec.names() == []
