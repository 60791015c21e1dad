"""A call blocked while a pinned skill restricts must not tell the model to unload a skill to
lift the restriction: a pinned skill cannot be unloaded (``PINNED``), and unloading the others
only narrows what is allowed."""

from __future__ import annotations

from pathlib import Path

from skillcore import Limits, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.testing import write_skill


def test_blocked_reason_with_a_pinned_restricting_skill(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "house-rules", "House rules.", "Rules.", "allowed-tools: Read\n")
    write_skill(root, "writer", "Writing.", "Write.", "allowed-tools: Read Edit\n")
    lib = SkillLibrary([root])
    toolkit = SkillToolkit(lib, pinned_skills=["house-rules"])
    session = lib.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT))
    session = toolkit.ensure(session, fresh=True)[0]
    assert session.loaded_names == ("house-rules",)
    decision = toolkit.check_call(session, "Write")
    assert not decision.allowed
    assert "unload_skill for a skill" not in decision.reason, decision.reason
    assert "pinned" in decision.reason and "house-rules" in decision.reason, decision.reason
    # The advice is true: unloading it is refused.
    refused = toolkit.call(session, "unload_skill", {"skill_name": "house-rules"})
    assert refused.code.value == "PINNED"
    # With another skill loaded too, still no unload advice (it cannot lift the pin).
    session = toolkit.call(session, "load_skill", {"skill_name": "writer"}).session
    decision = toolkit.check_call(session, "Write")
    assert not decision.allowed and "unload_skill for a skill" not in decision.reason
    # Without a pinned skill the advice stays.
    plain = SkillToolkit(lib)
    only = plain.call(
        lib.session(Limits(max_loaded=3), ToolPolicy(PolicyMode.RESTRICT)),
        "load_skill",
        {"skill_name": "writer"},
    ).session
    assert "unload_skill for a skill" in plain.check_call(only, "Write").reason
