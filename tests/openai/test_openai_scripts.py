"""``run_skill_script`` end to end through the Agents SDK (``needs_approval``, approve and
reject through the SDK's own run state) and the dispatcher (``approve_script``), with the
example ``csv-data-audit`` skill's profiler."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents import Agent, RunConfig, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import SkillLibrary
from skillcore.testing.script_runner import RecordingRunner
from skillcore_openai import AgentSkills

NO_TRACE = RunConfig(tracing_disabled=True)
CSV_TEXT = "id,amount\n1,10\n2,x\n2,x\n"
LOAD = {"skill_name": "csv-data-audit"}
RUN = {
    "skill_name": "csv-data-audit",
    "script": "scripts/profile_csv.py",
    "args": ["--json", "-"],
    "stdin": CSV_TEXT,
}


def _outputs(model: ScriptedModel) -> dict[str, str]:
    out: dict[str, str] = {}
    for call in model.calls:  # type: ignore[attr-defined]
        for item in call.input if isinstance(call.input, list) else []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                out[item["call_id"]] = item["output"]
    return out


def _model() -> ScriptedModel:
    return ScriptedModel(
        [
            [function_call("load_skill", LOAD, call_id="c1")],
            [function_call("run_skill_script", RUN, call_id="c2")],
            [assistant_message("done")],
        ]
    )


def _agent(skills: AgentSkills, model: ScriptedModel) -> Agent[Any]:
    return Agent(
        name="auditor",
        instructions=skills.instructions("You audit data."),
        tools=skills.tools(),
        model=model,
    )


def test_agents_sdk_runs_the_profiler(examples_library: SkillLibrary) -> None:
    runner = RecordingRunner()
    skills = AgentSkills(examples_library, script_runner=runner, script_isolation="process")
    model = _model()
    result = asyncio.run(Runner.run(_agent(skills, model), "audit", run_config=NO_TRACE))
    assert result.final_output == "done"
    reply = _outputs(model)["c2"]
    assert 'exit_code="1"' in reply and 'isolation="PROCESS"' in reply, reply
    assert "&quot;" in reply or '"rows"' in reply or "rows" in reply, reply
    assert len(runner.requests) == 1


def test_agents_sdk_needs_approval_approve_and_reject(examples_library: SkillLibrary) -> None:
    for approve in (True, False):
        runner = RecordingRunner()
        skills = AgentSkills(
            examples_library,
            script_runner=runner,
            script_isolation="process",
            confirm_scripts=True,
        )
        model = _model()
        agent = _agent(skills, model)
        first = asyncio.run(Runner.run(agent, "audit", run_config=NO_TRACE))
        (pending,) = first.interruptions
        assert pending.name == "run_skill_script" and runner.requests == []
        state = first.to_state()
        if approve:
            state.approve(pending)
        else:
            state.reject(pending)
        second = asyncio.run(Runner.run(agent, state, run_config=NO_TRACE))
        assert second.final_output == "done"
        assert len(runner.requests) == (1 if approve else 0)


def test_agents_sdk_no_approval_asked_for_a_refused_run(examples_library: SkillLibrary) -> None:
    # A path no turn can make valid is refused at once, without asking the user.
    skills = AgentSkills(
        examples_library, script_runner=RecordingRunner(), script_isolation="process",
        confirm_scripts=True,
    )  # fmt: skip
    bad = {**RUN, "script": "../outside.py"}
    model = ScriptedModel(
        [
            [function_call("load_skill", LOAD, call_id="c1")],
            [function_call("run_skill_script", bad, call_id="c2")],
            [assistant_message("done")],
        ]
    )
    result = asyncio.run(Runner.run(_agent(skills, model), "audit", run_config=NO_TRACE))
    assert not result.interruptions and result.final_output == "done"
    assert "outside the skill directory" in _outputs(model)["c2"]


def test_dispatcher_with_approval_callback(make_skills: Any) -> None:
    asked: list[Any] = []

    def approve(skill: str, script: str, args: tuple[str, ...]) -> bool:
        asked.append((skill, script, args))
        return args[0] == "--json"

    runner = RecordingRunner()
    skills = make_skills(script_runner=runner, script_isolation="process", approve_script=approve)
    session = skills.session()
    names = [t["function"]["name"] for t in skills.chat_tools(session)]
    assert "run_skill_script" in names

    def call(name: str, args: dict[str, Any], cid: str) -> dict[str, Any]:
        fn = {"name": name, "arguments": json.dumps(args)}
        return {"id": cid, "type": "function", "function": fn}

    session, _ = skills.dispatch(session, call("load_skill", LOAD, "c1"))
    session, ran = skills.dispatch(session, call("run_skill_script", RUN, "c2"))
    assert 'exit_code="1"' in ran["content"] and "amount" in ran["content"], ran
    _, declined = skills.dispatch(session, call("run_skill_script", {**RUN, "args": ["-"]}, "c3"))
    assert "not approved" in declined["content"]
    assert len(asked) == 2 and len(runner.requests) == 1


def test_agents_sdk_asks_for_a_run_after_a_load_in_the_same_turn(
    examples_library: SkillLibrary,
) -> None:
    # The load is not applied yet when approval is decided: the run must still be asked for.
    runner = RecordingRunner()
    skills = AgentSkills(
        examples_library, script_runner=runner, script_isolation="process", confirm_scripts=True
    )
    model = ScriptedModel(
        [
            [
                function_call("load_skill", LOAD, call_id="c1"),
                function_call("run_skill_script", RUN, call_id="c2"),
            ],
            [assistant_message("done")],
        ]
    )
    first = asyncio.run(Runner.run(_agent(skills, model), "audit", run_config=NO_TRACE))
    assert [i.name for i in first.interruptions] == ["run_skill_script"]
    assert runner.requests == []
