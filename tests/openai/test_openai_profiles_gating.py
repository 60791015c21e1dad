"""Skill-gated tools with ``ProfiledOpenAISkills`` and the real ``openai`` client: each run's
tools and dispatch follow its own profile; a forged profile never reaches a gated tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillcore.testing import write_skill
from skillcore_openai import ProfiledOpenAISkills
from skillcore_openai.testing import ScriptedServer, tool_calls

PARAMS = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
DEPLOY = {"type": "function", "name": "deploy", "description": "Deploy.", "parameters": PARAMS}


def test_gated_tools_follow_the_runs_profile(
    tmp_path: Path, server: ScriptedServer, client: Any
) -> None:
    acme, beta = tmp_path / "acme", tmp_path / "beta"
    write_skill(acme, "release", "Release.", "ACME-RELEASE", "metadata:\n  include_tools: deploy\n")
    write_skill(beta, "release", "Release.", "BETA-RELEASE")
    ran: list[str] = []
    skills = ProfiledOpenAISkills(
        {"acme": acme, "beta": beta},
        handlers={"deploy": lambda args: ran.append("deploy") or "deployed"},
        tools=[DEPLOY],
    )
    load = ("load_skill", {"skill_name": "release"})
    server.add(tool_calls(load, ("deploy", {})))
    server.add(tool_calls(load, ("deploy", {})))
    server.add(tool_calls(("deploy", {})))
    for profile in ("acme", "beta", "gamma"):
        run = skills.for_run(profile)
        session = run.load("conversation")
        assert "deploy" not in [t["function"]["name"] for t in run.chat_tools(session)]
        response = client.chat.completions.create(
            model="scripted-model",
            messages=[{"role": "user", "content": "go"}],
            tools=run.chat_tools(session),
        )
        result = run.dispatch_all(session, response.choices[0].message.tool_calls)
        codes = [r.code.value if r.code else None for r in result.results]
        if profile == "acme":
            assert codes[-1] is None and "deploy" in [
                t["function"]["name"] for t in run.chat_tools(result.session)
            ], codes
        else:
            assert codes[-1] == "TOOL_LOCKED", (profile, codes)
    assert ran == ["deploy"]


def test_agents_sdk_gated_tools_follow_the_runs_profile(tmp_path: Path) -> None:
    import asyncio

    from agents import Agent, RunConfig, Runner, function_tool
    from agents.testing import ScriptedModel, assistant_message, function_call

    from skillcore_openai import ProfiledAgentSkills

    acme, beta = tmp_path / "acme", tmp_path / "beta"
    write_skill(acme, "release", "Release.", "ACME-RELEASE", "metadata:\n  include_tools: deploy\n")
    write_skill(beta, "release", "Release.", "BETA-RELEASE")
    ran: list[str] = []

    def sdk_deploy() -> str:
        """Deploy the service."""
        ran.append("deploy")
        return "deployed"

    deploy = function_tool(sdk_deploy, name_override="deploy")
    skills = ProfiledAgentSkills({"acme": acme, "beta": beta}, tools=[deploy])
    config = RunConfig(tracing_disabled=True, tool_not_found_behavior="return_error_to_model")
    load = function_call("load_skill", {"skill_name": "release"}, call_id="c1")

    def run(profile: str) -> ScriptedModel:
        model = ScriptedModel(
            [
                [function_call("deploy", {}, call_id="c0")],
                [load],
                [function_call("deploy", {}, call_id="c2")],
                [assistant_message("done")],
            ]
        )
        agent = skills.guard_agent(
            Agent(name="a", instructions=skills.instructions(), tools=skills.tools(), model=model)
        )
        context = {"skill_profile": profile, "conversation": profile}
        asyncio.run(Runner.run(agent, "go", context=context, run_config=config))
        return model

    def names(model: ScriptedModel, index: int) -> list[str]:
        return [t.name for t in model.calls[index].tools]

    model = run("acme")
    # Locked at first (not offered), unlocked by acme's release: one enabled copy.
    assert "deploy" not in names(model, 0) and names(model, 2).count("deploy") == 1
    assert ran == ["deploy"]
    for other in ("beta", "gamma"):
        model = run(other)
        assert "deploy" not in names(model, 2), (other, names(model, 2))
    assert ran == ["deploy"]
