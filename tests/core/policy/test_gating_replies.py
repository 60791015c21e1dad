"""The load and unload replies say which skill-gated tools a skill unlocks and locks again:
in the stable prompt mode the replies are where load state travels, and a RESTRICT load reply
that listed only the declared allowed-tools would tell the model its unlocked tools may not
run."""

from __future__ import annotations

from pathlib import Path

from skillcore import Limits, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.testing import write_skill


def _setup(tmp_path: Path, mode: PolicyMode) -> tuple[SkillToolkit, object]:
    root = tmp_path / "skills"
    write_skill(
        root,
        "release",
        "Release work.",
        "Release steps.",
        "allowed-tools: Read\nmetadata:\n  include_tools: deploy rollback\n",
    )
    write_skill(root, "ops", "Ops.", "Ops steps.", "metadata:\n  include_tools: rollback\n")
    lib = SkillLibrary([root])
    policy = ToolPolicy(mode, gated_tools=["deploy", "rollback", "unused"])
    return SkillToolkit(lib), lib.session(Limits(max_loaded=3), policy)


def test_load_reply_names_the_unlocked_tools(tmp_path: Path) -> None:
    for mode in PolicyMode:
        toolkit, session = _setup(tmp_path / mode.value, mode)
        result = toolkit.call(session, "load_skill", {"skill_name": "release"})
        assert result.ok, result.text
        assert result.session.check_tool("deploy").allowed
        assert "Tools unlocked while this skill is loaded: deploy, rollback" in result.text
        # Only what the skill itself names (never the other registered gated tools).
        ops = toolkit.call(session, "load_skill", {"skill_name": "ops"})
        assert "Tools unlocked while this skill is loaded: rollback\n" in ops.text + "\n"
        assert "deploy" not in ops.text and "unused" not in ops.text


def test_unload_reply_names_the_tools_locked_again(tmp_path: Path) -> None:
    toolkit, session = _setup(tmp_path, PolicyMode.RESTRICT)
    session = toolkit.call(session, "load_skill", {"skill_name": "release"}).session
    session = toolkit.call(session, "load_skill", {"skill_name": "ops"}).session
    result = toolkit.call(session, "unload_skill", {"skill_name": "release"})
    assert result.ok, result.text
    assert not result.session.check_tool("deploy").allowed
    # rollback stays unlocked by ops: only deploy is locked again.
    assert "locked again: deploy." in result.text and "rollback" not in result.text
    result = toolkit.call(result.session, "unload_skill", {"skill_name": "ops"})
    assert "locked again: rollback." in result.text
