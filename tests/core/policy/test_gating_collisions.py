"""A gated tool stays locked whatever else its name is: always allowed, an alias target, or
named by a skill's allowed-tools (or its argument pattern) without being unlocked."""

from __future__ import annotations

from pathlib import Path

from skillcore import PolicyMode, SkillLibrary, ToolPolicy
from skillcore.testing import write_skill


def test_a_locked_gated_tool_stays_locked_under_every_other_rule(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "shell", "Shell work.", "S.", "allowed-tools: Bash execute write_todos\n")
    write_skill(root, "free", "Free.", "F.")  # no allowed-tools: lifts RESTRICT
    write_skill(root, "ops", "Ops.", "O.", "metadata:\n  include_tools: execute write_todos\n")
    lib = SkillLibrary([root])
    for mode in PolicyMode:
        policy = ToolPolicy(
            mode,
            always_allowed=["write_todos"],
            aliases="deepagents",
            gated_tools=["execute", "write_todos"],
        )
        empty = lib.session(policy=policy)
        for loaded in ((), ("shell",), ("free",), ("shell", "free")):
            session = empty
            for name in loaded:
                session, _ = session.finish_load(lib.read_document(name))
            for tool in ("execute", "write_todos"):
                decision = session.check_tool(tool, arguments={"command": "ls"})
                assert not decision.allowed, (mode, loaded, tool, decision)
                assert decision.code.value == "TOOL_LOCKED"
                assert tool not in session.offered_tools([tool, "Read"])
        session, _ = empty.finish_load(lib.read_document("ops"))
        assert session.check_tool("execute", arguments={"command": "ls"}).allowed
        assert session.check_tool("write_todos").allowed
