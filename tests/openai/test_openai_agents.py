"""The OpenAI Agents SDK adapter, run offline with ``agents.testing.ScriptedModel`` (and once
through the real client against the scripted server)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import openai
import pytest
from agents import Agent, RunConfig, Runner, WebSearchTool, function_tool
from agents.models.chatcmpl_converter import Converter
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import Limits, PolicyMode, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore_openai import AgentSkills, OpenAISkills, SkillConversation
from skillcore_openai.testing import ScriptedCall, text, tool_calls

NO_TRACE = RunConfig(tracing_disabled=True)
CSV = {"skill_name": "csv-data-audit"}
CHECKLIST = {"skill_name": "csv-data-audit", "path": "references/checklist.md"}


def make_tools(log: list[str]) -> tuple[Any, Any]:
    @function_tool(name_override="Read")
    def read(path: str) -> str:
        """Read a file."""
        log.append(f"Read {path}")
        return f"contents of {path}"

    @function_tool(name_override="Write")
    def write(path: str, text: str) -> str:
        """Write a file."""
        log.append(f"Write {path}")
        return "written"

    return read, write


def run(agent: Agent, prompt: str = "go", **kwargs: Any) -> Any:
    return asyncio.run(Runner.run(agent, prompt, run_config=NO_TRACE, **kwargs))


def outputs(call: Any) -> dict[str, str]:
    """call_id -> output of every function_call_output the model received."""
    return {
        i["call_id"]: i["output"]
        for i in call.input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }


def test_agent_run_loads_restricts_and_unloads(examples_library: SkillLibrary) -> None:
    skills = AgentSkills(
        examples_library, limits=Limits(max_loaded=2), policy=ToolPolicy(PolicyMode.RESTRICT)
    )
    log: list[str] = []
    read, write = make_tools(log)
    model = ScriptedModel(
        [
            [
                function_call("load_skill", CSV, call_id="c1"),
                function_call("load_skill", {"skill_name": "nope"}, call_id="c2"),
            ],
            [
                function_call("Write", {"path": "r.md", "text": "x"}, call_id="c3"),
                function_call("load_skill_resource", CHECKLIST, call_id="c4"),
                function_call("Read", {"path": "data.csv"}, call_id="c5"),
            ],
            [function_call("unload_skill", CSV, call_id="c6")],
            [function_call("Write", {"path": "r.md", "text": "x"}, call_id="c7")],
            [assistant_message("done")],
        ]
    )
    agent = Agent(
        name="auditor",
        instructions=skills.instructions("You audit data."),
        tools=[*skills.tools(), *skills.guard(read, write)],
        model=model,
    )
    result = run(agent)
    assert result.final_output == "done"
    model.assert_complete()

    toolkit = SkillToolkit(examples_library)
    s0 = examples_library.session(Limits(max_loaded=2), ToolPolicy(PolicyMode.RESTRICT))
    s1 = toolkit.call(s0, "load_skill", CSV).session
    calls = model.calls
    assert calls[0].system_instructions == "You audit data.\n\n" + toolkit.instructions(s0)
    assert calls[1].system_instructions == "You audit data.\n\n" + toolkit.instructions(s1)
    # The stable prompt: the same instructions through the load and the unload.
    assert {c.system_instructions for c in calls} == {calls[0].system_instructions}
    assert "[Loaded]" not in calls[4].system_instructions

    out = outputs(calls[-1])
    assert out["c1"] == toolkit.call(s0, "load_skill", CSV).text
    assert out["c2"].startswith("Error: No skill named 'nope'")
    assert out["c3"] == "Error: " + s1.check_tool("Write").reason
    assert "<skill_resource" in out["c4"] and out["c5"] == "contents of data.csv"
    assert out["c6"].startswith("Unloaded skill 'csv-data-audit'")
    assert out["c7"] == "written"
    # The blocked Write never ran; the one after the unload did.
    assert log == ["Read data.csv", "Write r.md"]
    assert skills.state.loaded_names == ()


def test_tools_match_the_function_calling_schemas(examples_library: SkillLibrary) -> None:
    """The SDK's own conversion of our FunctionTools gives the same chat tools, and strict
    mode leaves the schemas untouched."""
    agent_skills = AgentSkills(examples_library)
    fn_skills = OpenAISkills(examples_library)
    tools = agent_skills.tools()
    assert [Converter.tool_to_openai(t) for t in tools] == fn_skills.chat_tools(fn_skills.session())
    assert all(t.strict_json_schema for t in tools)


def test_malformed_arguments_through_the_sdk(examples_library: SkillLibrary) -> None:
    skills = AgentSkills(examples_library)
    model = ScriptedModel(
        [
            [
                function_call("load_skill", '{"skill_name": ', call_id="a"),
                function_call("load_skill", {"skill_name": 3}, call_id="b"),
                function_call("load_skill", {}, call_id="c"),
                function_call("load_skill", {"skill_name": "x", "y": 1}, call_id="d"),
            ],
            [assistant_message("ok")],
        ]
    )
    agent = Agent(name="a", instructions=skills.instructions(), tools=skills.tools(), model=model)
    assert run(agent).final_output == "ok"
    out = outputs(model.calls[-1])
    assert "not valid JSON" in out["a"]
    assert "must be a non-empty string" in out["b"]
    assert "missing required argument 'skill_name'" in out["c"]
    assert "unexpected argument(s) y" in out["d"]
    assert all(v.startswith("Error: invalid arguments for load_skill") for v in out.values())
    assert skills.state.loaded_names == ()


def test_parallel_loads_one_slot(examples_library: SkillLibrary) -> None:
    """Parallel tool calls run concurrently in the SDK; one free slot, one winner, and every
    reply is truthful."""
    skills = AgentSkills(examples_library, limits=Limits(max_loaded=2))
    names = ["csv-data-audit", "python-testing", "api-design-review", "git-commit-hygiene"]
    model = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "release-notes"}, call_id="r")],
            [
                function_call("load_skill", {"skill_name": n}, call_id=f"c{i}")
                for i, n in enumerate(names)
            ],
            [assistant_message("ok")],
        ]
    )
    agent = Agent(name="a", instructions=skills.instructions(), tools=skills.tools(), model=model)
    run(agent)
    out = outputs(model.calls[-1])
    won = [n for i, n in enumerate(names) if not out[f"c{i}"].startswith("Error:")]
    assert len(won) == 1, out
    assert skills.state.loaded_names == ("release-notes", won[0])
    lost = [out[f"c{i}"] for i, n in enumerate(names) if n not in won]
    assert all("2 of 2" in t or "limit" in t.lower() for t in lost), lost


@dataclasses.dataclass
class AppContext:
    user: str
    skill_state: SkillConversation


def test_state_per_run_context(examples_library: SkillLibrary) -> None:
    skills = AgentSkills(examples_library, prompt_mode="dynamic")  # [Loaded] shows the state

    def agent_for(model: ScriptedModel) -> Agent:
        return Agent(
            name="a", instructions=skills.instructions(), tools=skills.tools(), model=model
        )

    mine, theirs = skills.new_state(), skills.new_state()
    m1 = ScriptedModel([[function_call("load_skill", CSV, call_id="x")], [assistant_message("1")]])
    run(agent_for(m1), context=mine)
    m2 = ScriptedModel(
        [
            [function_call("load_skill", {"skill_name": "python-testing"}, call_id="y")],
            [assistant_message("2")],
        ]
    )
    run(agent_for(m2), context=AppContext("bob", theirs))
    assert mine.loaded_names == ("csv-data-audit",)
    assert theirs.loaded_names == ("python-testing",)
    assert skills.state.loaded_names == ()  # the default state was not touched
    # A later run of "mine" sees its own loaded skill in the instructions.
    m3 = ScriptedModel([[assistant_message("3")]])
    run(agent_for(m3), context={"skill_state": mine})
    assert "**csv-data-audit** [Loaded]" in m3.calls[0].system_instructions
    # State survives a round trip through JSON-native data.
    restored = skills.new_state(mine.to_state())
    assert restored.loaded_names == ("csv-data-audit",)
    assert restored.session == mine.session


def test_custom_state_lookup_and_dynamic_base(examples_library: SkillLibrary) -> None:
    states: dict[str, SkillConversation] = {}
    skills = AgentSkills(
        examples_library,
        state_from=lambda ctx: states.setdefault(ctx.context["conversation"], skills.new_state()),
    )

    async def base(ctx: Any, agent: Agent) -> str:
        return f"You help {ctx.context['conversation']}."

    model = ScriptedModel(
        [[function_call("load_skill", CSV, call_id="a")], [assistant_message("")]]
    )
    agent = Agent(
        name="a", instructions=skills.instructions(base), tools=skills.tools(), model=model
    )
    run(agent, context={"conversation": "c-1"})
    assert model.calls[0].system_instructions.startswith("You help c-1.\n\n## Skills")
    assert states["c-1"].loaded_names == ("csv-data-audit",)


def test_guard(examples_library: SkillLibrary) -> None:
    skills = AgentSkills(examples_library)
    read, write = make_tools([])
    guarded = skills.guard(read, write)
    assert [t.name for t in guarded] == ["Read", "Write"]
    assert skills.guard(guarded[0])[0].tool_input_guardrails == [skills.guardrail]  # added once
    with pytest.raises(TypeError, match="RESTRICT cannot block"):
        skills.guard(WebSearchTool())
    with pytest.raises(TypeError):
        AgentSkills(SkillToolkit(examples_library), enum_limit=1)


def test_empty_catalog_has_no_tools(tmp_path) -> None:
    skills = AgentSkills(SkillLibrary([tmp_path]))
    assert skills.tools() == []
    render = skills.instructions("Base.")
    assert asyncio.run(render(None, None)) == "Base."  # type: ignore[arg-type]


def test_agent_through_the_real_client(examples_library: SkillLibrary, server) -> None:
    """The SDK's Chat Completions model, the real client and the scripted server."""
    from agents import OpenAIChatCompletionsModel

    skills = AgentSkills(examples_library)
    server.add(tool_calls(ScriptedCall("load_skill", CSV, "k1")), text("finished"))
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    model = OpenAIChatCompletionsModel(model="scripted-model", openai_client=client)
    agent = Agent(
        name="a", instructions=skills.instructions("Hi."), tools=skills.tools(), model=model
    )
    assert run(agent).final_output == "finished"
    fn = OpenAISkills(examples_library)
    first, second = (r.body for r in server.requests)
    assert first["tools"] == fn.chat_tools(fn.session())
    assert first["messages"][0] == {
        "role": "system",
        "content": fn.instructions(fn.session(), "Hi."),
    }
    assert second["messages"][0] == first["messages"][0]  # the stable prompt
    tool_msg = next(m for m in second["messages"] if m["role"] == "tool")
    assert tool_msg["tool_call_id"] == "k1"
    assert tool_msg["content"].startswith('<skill_content name="csv-data-audit">')
