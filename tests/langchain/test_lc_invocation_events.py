"""A user invocation and a fork each log one structured event through ``create_agent``:
``skill.invoked`` (the argument's length, never its text) and ``skill.forked``."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage
from tests.langchain.test_lc_subagent_forks import FORK, build, go, load
from tests.langchain.test_lc_user_invocation import _agent, _run

from skillcore.testing import EventRecorder, write_skill
from skillcore_langchain.testing import ScriptedChatModel, tool_calls

SECRET = "hunter2-token"


def test_a_user_invocation_logs_skill_invoked_once_without_the_argument(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "fix-issue", "Fix a GitHub issue.", "Fix GitHub issue $ARGUMENTS.")
    model = ScriptedChatModel()
    agent = _agent(model, root, user_invocation=True)
    model.push(AIMessage(content="done"))
    with EventRecorder() as rec:
        _run(agent, f"/fix-issue {SECRET}", use_async=False)
    invoked = [e for e in rec.events if e.name == "skill.invoked"]
    assert [e.fields for e in invoked] == [
        {"skill": "fix-issue", "by_user": True, "argument_chars": len(SECRET)}
    ]
    assert invoked[0].logger == "skillcore.session"
    assert all(SECRET not in repr(e.fields) for e in rec.events)


def test_a_fork_logs_skill_forked_once(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "explore", "Explore the code.", "Find where X is.", FORK)
    parent, child = ScriptedChatModel(), ScriptedChatModel()
    agent, _mw = build(root, parent, child)
    parent.push(tool_calls(load("explore")), AIMessage(content="ok"))
    child.push(AIMessage(content="X is in a.py"))
    with EventRecorder() as rec:
        go(agent)
    forked = [e for e in rec.events if e.name == "skill.forked"]
    assert [e.fields for e in forked] == [
        {"skill": "explore", "subagent": "Explore", "answer_chars": len("X is in a.py")}
    ]
