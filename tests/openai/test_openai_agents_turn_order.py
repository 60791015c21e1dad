"""Calls of one model turn through the OpenAI Agents SDK adapter are decided in the model's
call order (DESIGN §3.8), with the SDK's default concurrency (every call of a turn, and its
input guardrails, started at once), in ``Runner.run`` and ``Runner.run_streamed`` alike."""

from __future__ import annotations

import asyncio
import itertools
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("agents", exc_type=ImportError)

from agents import Agent, AgentHooks, RunConfig, Runner, SQLiteSession
from agents.memory import SessionSettings
from agents.run_config import ToolExecutionConfig
from agents.testing import ScriptedModel, assistant_message, function_call
from tests.core.state.test_turn_replay import SKILLS, call
from tests.openai.test_openai_agents import make_tools

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy
from skillcore.runtime import SessionRef
from skillcore.testing import write_skill
from skillcore.tools.replies import ERROR_PREFIX
from skillcore_openai import AgentSkills, ProfiledAgentSkills

NO_TRACE = RunConfig(tracing_disabled=True)
CSV = {"skill_name": "csv-data-audit"}


def make_agent(skills: AgentSkills, model: ScriptedModel, log: list[str]) -> Agent[Any]:
    """An agent with the skill tools, ``Read`` and ``Write`` (logging what runs), guarded."""
    return skills.guard_agent(raw_agent(skills, model, log))


def raw_agent(skills: AgentSkills, model: ScriptedModel, log: list[str]) -> Agent[Any]:
    read, write = make_tools(log)
    return Agent(
        name="auditor",
        instructions=skills.instructions("You audit data."),
        tools=[*skills.tools(), read, write],
        model=model,
    )


async def run_turn(agent: Agent[Any], context: Any, streamed: bool, given: Any = "go") -> Any:
    if not streamed:
        return await Runner.run(agent, given, context=context, run_config=NO_TRACE)
    result = Runner.run_streamed(agent, given, context=context, run_config=NO_TRACE)
    async for _ in result.stream_events():
        pass
    return result


def outputs(result: Any) -> dict[str, Any]:
    return {
        i["call_id"]: i["output"]
        for i in result.to_input_list()
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_write_after_a_restricting_load_in_one_turn_is_blocked(
    examples_library: SkillLibrary, streamed: bool
) -> None:
    skills = AgentSkills(
        examples_library, limits=Limits(max_loaded=2), policy=ToolPolicy(PolicyMode.RESTRICT)
    )
    log: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call("load_skill", CSV, call_id="t1"),
                function_call("Write", {"path": "r.md", "text": "x"}, call_id="t2"),
                function_call("Read", {"path": "data.csv"}, call_id="t3"),
            ],
            [assistant_message("done")],
            [
                function_call("Write", {"path": "a.md", "text": "x"}, call_id="t4"),
                function_call("unload_skill", CSV, call_id="t5"),
                function_call("Write", {"path": "b.md", "text": "x"}, call_id="t6"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = make_agent(skills, model, log)
    state = skills.conversation("c1")
    got = outputs(asyncio.run(run_turn(agent, state, streamed)))
    assert got["t1"].startswith('<skill_content name="csv-data-audit">'), got["t1"]
    assert "not allowed" in got["t2"], got["t2"]
    assert got["t3"] == "contents of data.csv"
    assert log == ["Read data.csv"], "Write must never run after a restricting load"
    assert state.loaded_names == ("csv-data-audit",)
    # The next turn: Write before the unload is blocked, Write after it runs.
    got = outputs(asyncio.run(run_turn(agent, state, streamed)))
    assert "not allowed" in got["t4"], got["t4"]
    assert got["t6"] == "written", got["t6"]
    assert log == ["Read data.csv", "Write b.md"]
    assert state.loaded_names == ()


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_write_before_a_restricting_load_in_one_turn_runs(
    examples_library: SkillLibrary, streamed: bool
) -> None:
    skills = AgentSkills(examples_library, policy=ToolPolicy(PolicyMode.RESTRICT))
    log: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call("Write", {"path": "r.md", "text": "x"}, call_id="w1"),
                function_call("load_skill", CSV, call_id="w2"),
                function_call("Write", {"path": "s.md", "text": "x"}, call_id="w3"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = make_agent(skills, model, log)
    got = outputs(asyncio.run(run_turn(agent, skills.conversation("c1"), streamed)))
    assert got["w1"] == "written" and "not allowed" in got["w3"], got
    assert log == ["Write r.md"]


# -- invariant 8 as a property: the SDK's concurrent turn equals the calls run one by one ----


# SKILLS: r* allow only Read (restricting), o* name no tools; ``call``: one call of a turn.


@pytest.fixture(scope="module")
def small_library(tmp_path_factory: pytest.TempPathFactory) -> SkillLibrary:
    root = tmp_path_factory.mktemp("skills")
    for name in SKILLS:
        extra = "allowed-tools: Read\n" if name.startswith("r") else ""
        write_skill(root, name, f"{name} tasks.", f"{name} body.", extra)
    return SkillLibrary([root])


_ids = itertools.count(1)


@settings(max_examples=30, deadline=None)
@given(
    turns=st.lists(st.lists(call, min_size=1, max_size=5), min_size=1, max_size=3),
    streamed=st.booleans(),
)
def test_a_concurrent_turn_equals_its_calls_in_order(
    small_library: SkillLibrary, turns: list[list[tuple[str, str | None]]], streamed: bool
) -> None:
    """Every reply and the loaded skills after each turn equal those of the same calls
    applied one at a time, in the model's order, to a plain session (DESIGN §3.8)."""
    policy = ToolPolicy(PolicyMode.RESTRICT)
    skills = AgentSkills(small_library, limits=Limits(max_loaded=2), policy=policy)
    log: list[str] = []
    model = ScriptedModel()
    agent = make_agent(skills, model, log)
    state = skills.conversation(f"p{next(_ids)}")
    reference = SessionRef(skills.new_state().session)
    have = frozenset(t.name for t in agent.tools)
    history: list[Any] = []  # the whole conversation goes to the model on every run
    for calls in turns:
        ids = [f"h{next(_ids)}" for _ in calls]
        args = [
            {"skill_name": a} if a else {"path": "p", **({"text": "t"} if n == "Write" else {})}
            for n, a in calls
        ]
        model.extend(
            [
                [function_call(n, a, call_id=i) for (n, _), a, i in zip(calls, args, ids)],
                [assistant_message("done")],
            ]
        )
        given = [*history, {"role": "user", "content": "go"}]
        result = asyncio.run(run_turn(agent, state, streamed, given))
        history = result.to_input_list()
        got = outputs(result)
        for (name, _), a, i in zip(calls, args, ids):
            if skills.toolkit.is_skill_tool(name):
                want = skills.toolkit.call(reference, name, a, available=have, call_id=i).text
                assert got[i] == want, (calls, name)
            else:
                allowed = skills.toolkit.check_tool(reference.read(), name).allowed
                assert got[i].startswith(ERROR_PREFIX) is not allowed, (calls, name, got[i])
        assert state.loaded_names == reference.read().loaded_names, calls


# -- the agent's own hooks ---------------------------------------------------------------------


class Recorder(AgentHooks[Any]):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def on_llm_start(self, context, agent, system_prompt, input_items) -> None:
        self.seen.append("llm_start")

    async def on_llm_end(self, context, agent, response) -> None:
        self.seen.append("llm_end")

    async def on_tool_start(self, context, agent, tool) -> None:
        self.seen.append(f"tool_start {tool.name}")

    async def on_end(self, context, agent, output) -> None:
        self.seen.append("end")


def test_guard_agent_keeps_the_agents_own_hooks(examples_library: SkillLibrary) -> None:
    skills = AgentSkills(examples_library, policy=ToolPolicy(PolicyMode.RESTRICT))
    hooks = Recorder()
    model = ScriptedModel(
        [[function_call("load_skill", CSV, call_id="k1")], [assistant_message("done")]]
    )
    mine = Agent(name="a", tools=skills.tools(), model=model, hooks=hooks)
    guarded = skills.guard_agent(skills.guard_agent(mine))  # guarding again stacks nothing
    assert mine.hooks is hooks
    asyncio.run(Runner.run(guarded, "go", context=skills.conversation("k"), run_config=NO_TRACE))
    assert hooks.seen == [
        "llm_start",
        "llm_end",
        "tool_start load_skill",
        "llm_start",
        "llm_end",
        "end",
    ]


# -- redelivery after the history is trimmed -------------------------------------------------


def test_trimmed_session_history_gets_the_instructions_again(
    examples_library: SkillLibrary, tmp_path: Path
) -> None:
    """A SQLiteSession that hands the model only its latest items: once the load reply is
    out of them, the instructions follow the catalog again and a load of the skill sends
    them again (REDELIVERED) instead of "already loaded"; while the reply is in view, they
    are sent once."""
    skills = AgentSkills(examples_library, policy=ToolPolicy(PolicyMode.RESTRICT))
    model = ScriptedModel()
    agent = make_agent(skills, model, [])
    history = SQLiteSession("u1", tmp_path / "h.db", session_settings=SessionSettings(limit=4))
    state = skills.conversation(history)
    marker = '<skill_content name="csv-data-audit">'

    def run_once(*steps: list[Any]) -> dict[str, Any]:
        model.extend([*steps, [assistant_message("done")]])
        before = len(model.calls)
        result = asyncio.run(
            Runner.run(agent, "go", session=history, context=state, run_config=NO_TRACE)
        )
        calls = model.calls[before:]
        return {"out": outputs(result), "prompts": [c.system_instructions or "" for c in calls]}

    first = run_once([function_call("load_skill", CSV, call_id="d1")])
    assert first["out"]["d1"].startswith(marker)
    # Within the run the reply is in view: the instructions do not repeat it.
    assert all(marker not in p for p in first["prompts"]), first["prompts"]
    again = run_once([function_call("load_skill", CSV, call_id="d2")])
    assert "already loaded" in again["out"]["d2"], again["out"]
    # Two more runs push the load replies out of the last 4 items the model is given.
    run_once()
    run_once()
    lost = run_once([function_call("load_skill", CSV, call_id="d3")])
    assert marker in lost["prompts"][0], "the lost instructions follow the catalog"
    assert lost["out"]["d3"].startswith(marker), lost["out"]["d3"]
    # Redelivered by d3, whose reply the next model call receives: not repeated there.
    assert marker not in lost["prompts"][1], lost["prompts"][1]
    assert state.loaded_names == ("csv-data-audit",)


# -- agents built without guard_agent -------------------------------------------------------


def plain_agent(skills: AgentSkills, model: ScriptedModel, log: list[str]) -> Agent[Any]:
    """The agent of ``make_agent`` with its tools guarded one by one (``guard``)."""
    built = raw_agent(skills, model, log)
    mine = [t for t in built.tools if not skills.toolkit.is_skill_tool(t.name)]
    return built.clone(tools=[*skills.tools(), *skills.guard(*mine)])


def test_guarded_tools_of_an_agent_without_its_hooks_warn(examples_library: SkillLibrary) -> None:
    """Without the hooks of guard_agent a turn's calls cannot be ordered: the first guarded
    call that may run beside others says so (once)."""
    skills = AgentSkills(examples_library, policy=ToolPolicy(PolicyMode.RESTRICT))
    model = ScriptedModel()
    agent = plain_agent(skills, model, [])
    state = skills.conversation("w")
    model.extend([[function_call("Read", {"path": "a"}, call_id="u1")], [assistant_message("ok")]])
    with pytest.warns(UserWarning, match="guard_agent"):
        asyncio.run(run_turn(agent, state, False))
    model.extend([[function_call("Read", {"path": "a"}, call_id="u2")], [assistant_message("ok")]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        asyncio.run(run_turn(agent, state, False))


def test_one_call_at_a_time_orders_an_agent_without_its_hooks(
    examples_library: SkillLibrary,
) -> None:
    """With one tool call at a time the SDK runs a turn's calls in the model's order, so the
    guardrail of an agent built without guard_agent decides in call order too (no warning)."""
    skills = AgentSkills(examples_library, policy=ToolPolicy(PolicyMode.RESTRICT))
    log: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call("load_skill", CSV, call_id="o1"),
                function_call("Write", {"path": "r.md", "text": "x"}, call_id="o2"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = plain_agent(skills, model, log)
    one = RunConfig(
        tracing_disabled=True,
        tool_execution=ToolExecutionConfig(max_function_tool_concurrency=1),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = asyncio.run(
            Runner.run(agent, "go", context=skills.conversation("o"), run_config=one)
        )
    assert "not allowed" in outputs(result)["o2"] and log == []


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_the_agent_handed_off_to_orders_its_turns_too(
    examples_library: SkillLibrary, streamed: bool
) -> None:
    """guard_agent gives every agent it guards (handoff targets included) the hooks."""
    skills = AgentSkills(examples_library, policy=ToolPolicy(PolicyMode.RESTRICT))
    log: list[str] = []
    model = ScriptedModel(
        [
            [function_call("transfer_to_worker", {}, call_id="f1")],
            [
                function_call("load_skill", CSV, call_id="f2"),
                function_call("Write", {"path": "r.md", "text": "x"}, call_id="f3"),
            ],
            [assistant_message("done")],
        ]
    )
    worker = raw_agent(skills, model, log)  # guarded only through main
    worker.name = "worker"
    main = skills.guard_agent(Agent(name="main", handoffs=[worker], model=model))
    got = outputs(asyncio.run(run_turn(main, skills.conversation("f"), streamed)))
    assert got["f2"].startswith('<skill_content name="csv-data-audit">')
    assert "not allowed" in got["f3"] and log == [], got["f3"]


@pytest.mark.parametrize("profiled", [False, True], ids=["plain", "profiled"])
def test_a_conversation_the_server_keeps_is_not_taken_for_lost_history(
    examples_library: SkillLibrary, profiled: bool
) -> None:
    """When the server keeps the conversation (here ``auto_previous_response_id``, then
    ``previous_response_id``) the SDK sends the model only what is new; the load replies it
    lacks are on the server, not lost: the instructions are not repeated and a second load
    is "already loaded" (the hooks see it from a run's second model call on)."""
    policy = ToolPolicy(PolicyMode.RESTRICT)
    skills: Any = (
        ProfiledAgentSkills({"p": examples_library}, allowed_tools_policy="restrict")
        if profiled
        else AgentSkills(examples_library, policy=policy)
    )
    model = ScriptedModel()
    agent = make_agent(skills, model, [])
    # A profiled run names its conversation: its state is made again on each use.
    state = {"skill_profile": "p", "conversation": "kept"} if profiled else skills.conversation("k")
    marker = '<skill_content name="csv-data-audit">'
    previous = None
    for call_id in ("s1", "s2"):
        model.extend(
            [[function_call("load_skill", CSV, call_id=call_id)], [assistant_message("ok")]]
        )
        before = len(model.calls)
        result = asyncio.run(
            Runner.run(
                agent,
                "go",
                context=state,
                run_config=NO_TRACE,
                previous_response_id=previous,
                auto_previous_response_id=True,
            )
        )
        previous = result.last_response_id
        assert previous is not None
        assert all(marker not in (c.system_instructions or "") for c in model.calls[before:])
    assert "already loaded" in outputs(result)["s2"], outputs(result)["s2"]
