"""Skill profiles for OpenAI: a custom loop through the real ``openai`` client (the profile
comes from the caller: ``for_run``) and an Agents SDK ``Runner`` (the profile comes from the
run context)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import openai
import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, UserError, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import SkillConfig
from skillcore.state.saved import MemoryStateStore
from skillcore.testing import EventRecorder, make_tenant_libraries
from skillcore_openai import OpenAISkills, ProfiledAgentSkills, ProfiledOpenAISkills
from skillcore_openai.testing import RecordedRequest, ScriptedCall, ScriptedServer, text, tool_calls

NO_TRACE = RunConfig(tracing_disabled=True)
BASE = "You are a test agent."


@pytest.fixture
def tenants(tmp_path: Path) -> dict[str, Path]:
    return make_tenant_libraries(tmp_path / "tenants")


def profiles(tenants: dict[str, Path]) -> dict[str, Any]:
    return {
        "acme": (tenants["acme"], SkillConfig(allowed_tools_policy="restrict")),
        "beta": tenants["beta"],
    }


# -- custom loop (Chat Completions through the real client) ---------------------------------


def system_of(request: RecordedRequest) -> str:
    return str(request.body["messages"][0]["content"])


def tool_names_of(request: RecordedRequest) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools", [])]


def expect(*present: str, absent: tuple[str, ...] = (), then: Any = None) -> Any:
    """A scripted turn that asserts on the prompt the server receives."""

    def step(request: RecordedRequest) -> Any:
        system = system_of(request)
        for name in present:
            assert name in system, (name, system)
        for name in absent:
            assert name not in system, (name, system)
        return then if then is not None else text("seen")

    return step


def chat_turn(
    client: openai.OpenAI, skills: OpenAISkills, conversation: str
) -> list[dict[str, Any]]:
    """One user turn of a custom loop; returns the tool replies."""
    session = skills.load(conversation)
    messages: list[Any] = [{"role": "system", "content": ""}, {"role": "user", "content": "go"}]
    out: list[dict[str, Any]] = []
    for _ in range(5):
        messages[0] = {"role": "system", "content": skills.instructions(session, BASE)}
        kwargs: dict[str, Any] = {"model": "scripted-model", "messages": messages}
        tools = skills.chat_tools(session)
        if tools:
            kwargs["tools"] = tools
        message = client.chat.completions.create(**kwargs).choices[0].message
        messages.append(message)
        if not message.tool_calls:
            skills.save(conversation, session)
            return out
        session, replies = skills.dispatch_all(session, message.tool_calls)
        messages.extend(replies)
        out.extend(replies)
    raise AssertionError("the loop did not finish")


@pytest.fixture
def client(server: ScriptedServer) -> Any:
    c = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=30)
    yield c
    c.close()


def test_loop_each_tenant_sees_only_its_catalog(
    tenants: dict[str, Path], server: ScriptedServer, client: openai.OpenAI
) -> None:
    skills = ProfiledOpenAISkills(profiles(tenants), handlers={"Write": lambda a: "written"})
    server.add(expect("acme-report", "handbook", absent=("beta-deploy",)))
    server.add(expect("beta-deploy", "handbook", absent=("acme-report",)))
    chat_turn(client, skills.for_run("acme"), "c1")
    chat_turn(client, skills.for_run("beta"), "c2")
    assert "load_skill" in tool_names_of(server.requests[0])
    enum = server.requests[1].body["tools"][0]["function"]["parameters"]
    assert "acme-report" not in str(enum)


def test_loop_a_tenant_cannot_load_another_tenants_skill(
    tenants: dict[str, Path], server: ScriptedServer, client: openai.OpenAI
) -> None:
    skills = ProfiledOpenAISkills(profiles(tenants))
    load = {"skill_name": "beta-deploy"}
    server.add(tool_calls(ScriptedCall("load_skill", load, "l1")), text("ok"))
    (reply,) = chat_turn(client, skills.for_run("acme"), "c1")
    assert "No skill named 'beta-deploy'" in reply["content"]  # SKILL_NOT_FOUND
    assert "BETA-DEPLOY-BODY" not in reply["content"]


@pytest.mark.parametrize("selection", ["gamma", 7, None, "acme "])
def test_loop_unknown_profile_fails_closed(
    tenants: dict[str, Path], server: ScriptedServer, client: openai.OpenAI, selection: Any
) -> None:
    skills = ProfiledOpenAISkills(profiles(tenants))
    load = {"skill_name": "handbook"}
    server.add(tool_calls(ScriptedCall("load_skill", load, "l1")), text("ok"))
    with EventRecorder() as rec:
        run = skills.for_run(selection)
        (reply,) = chat_turn(client, run, "c1")
    assert "profile.refused" in rec.names()
    assert system_of(server.requests[0]) == BASE
    assert tool_names_of(server.requests[0]) == []
    assert "No skill named 'handbook'" in reply["content"]  # SKILL_NOT_FOUND
    assert "HANDBOOK-BODY" not in reply["content"]


def test_loop_state_is_kept_per_profile(
    tenants: dict[str, Path], server: ScriptedServer, client: openai.OpenAI
) -> None:
    store = MemoryStateStore()
    skills = ProfiledOpenAISkills(profiles(tenants), states=store)
    handbook = {"skill_name": "handbook"}
    server.add(tool_calls(ScriptedCall("load_skill", handbook, "l1")), text("ok"))
    (reply,) = chat_turn(client, skills.for_run("acme"), "shared")
    assert "ACME-HANDBOOK-BODY" in reply["content"]
    # The same conversation under beta: nothing loaded, beta's own handbook loads.
    server.add(
        expect("beta-deploy", absent=("[Loaded]",), then=tool_calls(("load_skill", handbook))),
        text("ok"),
    )
    (reply,) = chat_turn(client, skills.for_run("beta"), "shared")
    assert "BETA-HANDBOOK-BODY" in reply["content"]
    assert skills.for_run("acme").load("shared").loaded_names == ("handbook",)
    assert len(store) == 2  # one saved state per profile


# -- Agents SDK -----------------------------------------------------------------------------


def sdk_agent(skills: ProfiledAgentSkills, model: ScriptedModel, log: list[str]) -> Agent:
    @function_tool(name_override="Write")
    def write(path: str) -> str:
        """Write a file."""
        log.append(path)
        return "written"

    agent = Agent(
        name="a",
        instructions=skills.instructions(BASE),
        tools=[*skills.tools(), write],
        model=model,
    )
    return skills.guard_agent(agent)


def outputs(model: ScriptedModel) -> dict[str, Any]:
    return {
        i["call_id"]: i["output"]
        for c in model.calls
        for i in c.input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }


def sdk_run(agent: Agent, context: Any) -> Any:
    return asyncio.run(Runner.run(agent, "go", context=context, run_config=NO_TRACE))


def test_sdk_each_tenant_sees_only_its_catalog_and_tools(tenants: dict[str, Path]) -> None:
    skills = ProfiledAgentSkills(profiles(tenants))
    for tenant, mine, theirs in (
        ("acme", "acme-report", "beta-deploy"),
        ("beta", "beta-deploy", "acme-report"),
    ):
        model = ScriptedModel([[assistant_message("hi")]])
        sdk_run(sdk_agent(skills, model, []), {"skill_profile": tenant, "conversation": tenant})
        (call,) = model.calls
        assert mine in call.system_instructions and theirs not in call.system_instructions
        names = [t.name for t in call.tools]
        assert names.count("load_skill") == 1, names  # only this profile's copy is enabled
        (load,) = [t for t in call.tools if t.name == "load_skill"]
        assert theirs not in str(load.params_json_schema)


def test_sdk_policy_and_isolation_follow_the_profile(tenants: dict[str, Path]) -> None:
    skills = ProfiledAgentSkills(profiles(tenants))
    log: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call("load_skill", {"skill_name": "beta-deploy"}, call_id="x"),
                function_call("load_skill", {"skill_name": "acme-report"}, call_id="l"),
            ],
            [function_call("Write", {"path": "w1"}, call_id="w")],
            [assistant_message("done")],
        ]
    )
    sdk_run(sdk_agent(skills, model, log), {"skill_profile": "acme", "conversation": "c"})
    got = outputs(model)
    assert "No skill named 'beta-deploy'" in got["x"] and "BETA-DEPLOY-BODY" not in got["x"]
    assert "ACME-REPORT-BODY" in got["l"]
    assert "w1" not in log  # RESTRICT of acme blocked Write
    # Same conversation id under beta: acme's restricting skill is not loaded there.
    model = ScriptedModel(
        [[function_call("Write", {"path": "w2"}, call_id="w")], [assistant_message("ok")]]
    )
    sdk_run(sdk_agent(skills, model, log), {"skill_profile": "beta", "conversation": "c"})
    assert log == ["w2"]


@pytest.mark.parametrize("context", [{"skill_profile": "gamma"}, {"skill_profile": ["acme"]}, {}])
def test_sdk_unknown_profile_fails_closed(tenants: dict[str, Path], context: Any) -> None:
    skills = ProfiledAgentSkills(profiles(tenants))
    model = ScriptedModel([[assistant_message("hi")]])
    with EventRecorder() as rec:
        sdk_run(sdk_agent(skills, model, []), {**context, "conversation": "c"})
    (call,) = model.calls
    assert call.system_instructions == BASE
    assert [t.name for t in call.tools] == ["Write"]
    assert "profile.refused" in rec.names()


def test_sdk_a_run_without_a_conversation_is_refused(tenants: dict[str, Path]) -> None:
    skills = ProfiledAgentSkills(profiles(tenants))
    model = ScriptedModel([[assistant_message("hi")]])
    with pytest.raises(UserError, match="no conversation"):
        sdk_run(sdk_agent(skills, model, []), {"skill_profile": "acme"})


def test_sdk_conversation_may_be_an_sdk_session(tenants: dict[str, Path]) -> None:
    skills = ProfiledAgentSkills(profiles(tenants))
    history = SQLiteSession("user-1")
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "handbook"}, call_id="l")],
            [assistant_message("ok")],
        ]
    )
    context = {"skill_profile": "beta", "conversation": history}
    asyncio.run(
        Runner.run(
            sdk_agent(skills, model, []),
            "go",
            session=history,
            context=context,
            run_config=NO_TRACE,
        )
    )
    assert "BETA-HANDBOOK-BODY" in outputs(model)["l"]
    assert skills.profiles["beta"].conversation("user-1").loaded_names == ("handbook",)
    assert skills.profiles["acme"].conversation("user-1").loaded_names == ()
