"""A skill's ``model``/``effort``, ``disallowed-tools`` and ``paths``, and the APPROVE mode,
through the dispatcher and the real ``openai`` client against the scripted loopback server:
the loop sends the model and ``reasoning_effort`` the dispatcher reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from skillcore import SkillSession
from skillcore.testing import write_skill
from skillcore_openai import OpenAISkills
from skillcore_openai.testing import ScriptedCall, ScriptedServer, text, tool_calls

MODEL = "scripted-model"
PARAMS = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
USER_TOOLS = [
    {"type": "function", "function": {"name": n, "description": n, "parameters": PARAMS}}
    for n in ("Read", "Write")
]


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "quick", "Quick chores.", "Be quick.", "model: haiku\neffort: xhigh\n")
    write_skill(root, "deep", "Deep work.", "Think.", "model: opus\nallowed-tools: Read\n")
    write_skill(root, "readonly", "Read only.", "Only read.", "disallowed-tools: [Write]\n")
    write_skill(root, "ts-helper", "TypeScript help.", "TS.", "paths: src/**/*.ts\n")
    return root


def make(skills: Path, **knobs: Any) -> OpenAISkills:
    handlers = {"Read": lambda a: "read", "Write": lambda a: "wrote"}
    return OpenAISkills(skills, handlers=handlers, **knobs)


def turn(client: Any, skills: OpenAISkills, session: SkillSession) -> tuple[SkillSession, Any]:
    """One step of a user's loop: the model and effort the dispatcher reports are sent."""
    chosen = skills.model_for(session)
    extra = {} if chosen.reasoning_effort is None else {"reasoning_effort": chosen.reasoning_effort}
    response = client.chat.completions.create(
        model=chosen.model or MODEL,
        messages=[{"role": "user", "content": "go"}],
        tools=skills.chat_tools(session, USER_TOOLS),
        **extra,
    )
    result = skills.dispatch_all(session, response.choices[0].message.tool_calls)
    return result.session, result


def load(name: str, cid: str) -> Any:
    return tool_calls(ScriptedCall("load_skill", {"skill_name": name}, cid))


def unload(name: str, cid: str) -> Any:
    return tool_calls(ScriptedCall("unload_skill", {"skill_name": name}, cid))


def test_the_loop_sends_the_loaded_skills_model_and_effort(
    client: Any, server: ScriptedServer, skills_dir: Path
) -> None:
    skills = make(skills_dir, model_resolver={"haiku": "gpt-mini", "opus": "gpt-big"})
    session = skills.session()
    server.add(
        load("quick", "c1"),
        load("deep", "c2"),
        unload("deep", "c3"),
        unload("quick", "c4"),
        text("done"),
    )
    for _ in range(5):
        session, _ = turn(client, skills, session)
    bodies = [r.body for r in server.requests]
    assert [b["model"] for b in bodies] == [MODEL, "gpt-mini", "gpt-big", "gpt-mini", MODEL]
    # effort: quick's xhigh is OpenAI's "high", while quick is loaded (deep names none)
    assert [b.get("reasoning_effort") for b in bodies] == [None, "high", "high", "high", None]


def test_an_unknown_model_warns_once_and_the_loop_keeps_its_model(
    client: Any, server: ScriptedServer, skills_dir: Path
) -> None:
    skills = make(skills_dir, model_resolver={})
    session = skills.session()
    server.add(load("deep", "c1"), text("ok"), text("done"))
    with pytest.warns(UserWarning, match="'deep' asks for model 'opus'") as seen:
        for _ in range(3):
            session, _ = turn(client, skills, session)
    assert [r.body["model"] for r in server.requests] == [MODEL] * 3
    assert len([w for w in seen if "opus" in str(w.message)]) == 1


@pytest.mark.parametrize("mode", ["recommend", "restrict", "approve"])
def test_disallowed_tools_are_not_offered_and_refused(
    client: Any, server: ScriptedServer, skills_dir: Path, mode: str
) -> None:
    skills = make(skills_dir, allowed_tools_policy=mode)
    session = skills.session()
    server.add(
        tool_calls(
            ScriptedCall("load_skill", {"skill_name": "readonly"}, "c1"),
            ScriptedCall("Write", {}, "c2"),
        )
    )
    session, result = turn(client, skills, session)
    blocked = result.results[1]
    assert blocked.is_error and blocked.code.value == "TOOL_DISALLOWED", blocked
    names = [t["function"]["name"] for t in skills.chat_tools(session, USER_TOOLS)]
    assert "Write" not in names and "Read" in names


def test_approve_mode_reports_the_calls_that_need_approval(
    client: Any, server: ScriptedServer, skills_dir: Path
) -> None:
    skills = make(skills_dir, allowed_tools_policy="approve")
    session = skills.session()
    server.add(
        load("deep", "c1"),
        tool_calls(ScriptedCall("Read", {}, "c2"), ScriptedCall("Write", {}, "c3")),
    )
    session, _ = turn(client, skills, session)
    session, result = turn(client, skills, session)
    read, write = result.results
    assert read.output == "read" and not read.needs_approval
    assert write.needs_approval and write.message is None and write.output is None
    assert [c.name for c in result.awaiting_approval] == ["Write"]
    again = skills.dispatch(session, write.call, approved=True)
    assert again.output == "wrote" and not again.is_error


def test_a_paths_skill_is_offered_for_touched_files_only(skills_dir: Path) -> None:
    skills = make(skills_dir)
    session = skills.session()
    assert "ts-helper" not in skills.instructions(session)
    call = {"name": "load_skill", "arguments": '{"skill_name": "ts-helper"}', "call_id": "c1"}
    refused = skills.dispatch(session, call)
    assert refused.code is not None and refused.code.value == "PATHS_NOT_TOUCHED"
    skills.touch_paths(["src/lib/util.ts"])
    session = skills.session()
    assert "ts-helper" in skills.instructions(session)
    held = attrs.evolve(session, touched_paths=["docs/readme.md"])
    assert "ts-helper" not in skills.instructions(held)


def test_approve_refuses_an_unapproved_script_run_until_dispatched_approved(
    tmp_path: Path,
) -> None:
    import shutil

    from skillcore.testing.script_runner import RecordingRunner

    examples = tmp_path / "examples"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "skills", examples)
    runner = RecordingRunner()
    skills = OpenAISkills(
        examples, script_runner=runner, script_isolation="process", allowed_tools_policy="approve"
    )
    session = skills.session()
    load = {"name": "load_skill", "arguments": '{"skill_name": "csv-data-audit"}', "call_id": "c1"}
    session, _ = skills.dispatch(session, load)
    args = '{"skill_name": "csv-data-audit", "script": "scripts/profile_csv.py", "args": ["-"]}'
    run = {"name": "run_skill_script", "arguments": args, "call_id": "c2"}
    refused = skills.dispatch(session, run)
    assert refused.is_error and refused.code is not None
    assert refused.code.value == "SCRIPT_DECLINED" and "approval" in (refused.output or "")
    assert runner.requests == []
    ran = skills.dispatch(session, run, approved=True)
    assert not ran.is_error and len(runner.requests) == 1, ran
