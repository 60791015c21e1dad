"""A user invocation in a custom loop (the dispatcher's ``invoke_user_message``) logs
``skill.invoked`` once, with the argument's length and never its text."""

from __future__ import annotations

from pathlib import Path

from skillcore import SkillLibrary
from skillcore.testing import EventRecorder, write_skill
from skillcore_openai import OpenAISkills

SECRET = "hunter2-token"


def test_invoke_user_message_logs_skill_invoked_once(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "fix-issue", "Fix a GitHub issue.", "Fix GitHub issue $ARGUMENTS.")
    skills = OpenAISkills(SkillLibrary([root]))
    with EventRecorder() as rec:
        invoked = skills.invoke_user_message(skills.session(), f"/fix-issue {SECRET}")
    assert invoked is not None and invoked.ok
    fields = [e.fields for e in rec.events if e.name == "skill.invoked"]
    assert fields == [{"skill": "fix-issue", "by_user": True, "argument_chars": len(SECRET)}]
    assert all(SECRET not in repr(e.fields) for e in rec.events)
