"""Under RESTRICT with ``unrestricted_skills="ignore"``, a skill without allowed-tools that
unlocks a gated tool may use it: naming the tool counts as its allowed-tools entry. Before,
the tool was offered (unlocked) but every call was refused."""

from __future__ import annotations

from pathlib import Path

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy
from skillcore.testing import write_skill


def test_gated_tool_of_an_unrestricted_skill_under_ignore(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "release", "Release.", "R.", "metadata:\n  include_tools: deploy\n")
    write_skill(root, "house", "House rules.", "H.", "allowed-tools: Read\n")
    lib = SkillLibrary([root])
    for unrestricted in ("ignore", "lift"):
        policy = ToolPolicy(
            PolicyMode.RESTRICT, gated_tools=["deploy"], unrestricted_skills=unrestricted
        )
        session = lib.session(Limits(max_loaded=3), policy)
        session, _ = session.finish_load(lib.read_document("release"))
        assert session.check_tool("deploy").allowed, unrestricted
        assert "deploy" in session.offered_tools(["deploy"], hide_blocked=True)
        session, _ = session.finish_load(lib.read_document("house"))
        assert session.check_tool("deploy").allowed, unrestricted
        assert session.check_tool("Read").allowed
        # "ignore": release lifts nothing else; "lift": it lifts the restriction entirely.
        assert session.check_tool("Write").allowed is (unrestricted == "lift")
