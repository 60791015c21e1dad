"""Skill state per conversation: in the Agents SDK (keyed by the SDK session, saved beside a
``SQLiteSession``'s history) and in custom loops (``load``/``save``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, UserError, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy
from skillcore.state.saved import SQLiteStateStore
from skillcore_openai import AgentSkills, OpenAISkills

NO_TRACE = RunConfig(tracing_disabled=True)
CSV = {"skill_name": "csv-data-audit"}
RESTRICT = ToolPolicy(PolicyMode.RESTRICT)


def outputs(call: Any) -> dict[str, Any]:
    return {
        i["call_id"]: i["output"]
        for i in call.input
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    }


def agent_for(skills: AgentSkills, model: ScriptedModel, log: list[str]) -> Agent:
    @function_tool(name_override="Write")
    def write(path: str, text: str) -> str:
        """Write a file."""
        log.append(f"Write {path}")
        return "written"

    agent = Agent(
        name="a",
        instructions=skills.instructions(),
        tools=[*skills.tools(), write],
        model=model,
    )
    return skills.guard_agent(agent)


def load_then_answer() -> ScriptedModel:
    return ScriptedModel(
        [[function_call("load_skill", CSV, call_id="l")], [assistant_message("loaded")]]
    )


def write_then_answer() -> ScriptedModel:
    return ScriptedModel(
        [
            [function_call("Write", {"path": "x.md", "text": "hi"}, call_id="w")],
            [assistant_message("tried")],
        ]
    )


def run(agent: Agent, session: SQLiteSession, context: Any) -> Any:
    return asyncio.run(
        Runner.run(agent, "go", session=session, context=context, run_config=NO_TRACE)
    )


def test_two_conversations_are_isolated(examples_library: SkillLibrary) -> None:
    """The first user's restricting skill never blocks the second user."""
    skills = AgentSkills(examples_library, policy=RESTRICT)
    log: list[str] = []
    alice, bob = SQLiteSession("alice"), SQLiteSession("bob")
    run(agent_for(skills, load_then_answer(), log), alice, skills.conversation(alice))
    model = write_then_answer()
    run(agent_for(skills, model, log), bob, skills.conversation(bob))
    assert outputs(model.calls[-1])["w"] == "written" and log == ["Write x.md"]
    assert skills.conversation(alice).loaded_names == ("csv-data-audit",)
    assert skills.conversation(bob).loaded_names == ()
    assert skills.state.loaded_names == ()
    # Alice is still restricted.
    model = write_then_answer()
    run(agent_for(skills, model, log), alice, skills.conversation(alice))
    assert outputs(model.calls[-1])["w"].startswith("Error: Tool 'Write' is not allowed")
    assert log == ["Write x.md"]


def test_restart_with_sqlite_session_keeps_restrict(
    examples_library: SkillLibrary, tmp_path: Path
) -> None:
    """After a restart the history says the skill is loaded, and RESTRICT still applies."""
    db = tmp_path / "conversations.db"
    log: list[str] = []
    first = AgentSkills(examples_library, policy=RESTRICT)
    session = SQLiteSession("user-1", db)
    run(agent_for(first, load_then_answer(), log), session, first.conversation(session))
    session.close()

    # A new process; the dynamic prompt's [Loaded] mark shows the restored state.
    again = AgentSkills(examples_library, policy=RESTRICT, prompt_mode="dynamic")
    session = SQLiteSession("user-1", db)
    history = asyncio.run(session.get_items())
    assert any(i.get("name") == "load_skill" for i in history if isinstance(i, dict))
    state = again.conversation(session)
    assert state.loaded_names == ("csv-data-audit",)
    model = write_then_answer()
    run(agent_for(again, model, log), session, state)
    assert outputs(model.calls[-1])["w"].startswith("Error: Tool 'Write' is not allowed")
    assert "**csv-data-audit** [Loaded]" in model.calls[0].system_instructions
    assert log == []
    # Another conversation in the same database starts empty.
    assert again.conversation(SQLiteSession("user-2", db)).loaded_names == ()
    session.close()


def test_runs_without_a_conversation_are_refused(examples_library: SkillLibrary) -> None:
    """Once per-conversation state is in use, a run that carries none is refused instead of
    silently sharing the default state."""
    skills = AgentSkills(examples_library, policy=RESTRICT)
    assert skills.state_for(None) is skills.state  # one conversation: the default is fine
    alice = SQLiteSession("alice")
    run(agent_for(skills, load_then_answer(), []), alice, skills.conversation(alice))
    with pytest.raises(UserError, match="carries no skill state"):
        run(agent_for(skills, write_then_answer(), []), SQLiteSession("bob"), None)
    explicit = AgentSkills(examples_library, states=SQLiteStateStore(":memory:"))
    with pytest.raises(UserError):
        explicit.state_for(None)
    relaxed = AgentSkills(examples_library, require_conversation=False)
    relaxed.conversation("x")
    assert relaxed.state_for(None) is relaxed.state


def test_same_conversation_same_live_state(examples_library: SkillLibrary) -> None:
    skills = AgentSkills(examples_library)
    a = skills.conversation("c-1")
    assert skills.conversation("c-1") is a and a.key == "c-1"
    assert skills.conversation(SQLiteSession("c-1")) is a


def test_custom_loop_load_and_save(examples_library: SkillLibrary, tmp_path: Path) -> None:
    store = SQLiteStateStore(tmp_path / "loop.db")
    skills = OpenAISkills(examples_library, states=store, allowed_tools_policy="restrict")
    s = skills.load("alice")
    assert s.loaded_names == ()
    call = {"id": "1", "type": "function", "function": {"name": "load_skill", "arguments": "{}"}}
    call["function"]["arguments"] = '{"skill_name": "csv-data-audit"}'
    s, _ = skills.dispatch_all(s, [call])
    skills.save("alice", s)
    store.close()
    restarted = OpenAISkills(
        examples_library,
        states=SQLiteStateStore(tmp_path / "loop.db"),
        allowed_tools_policy="restrict",
    )
    alice, bob = restarted.load("alice"), restarted.load("bob")
    assert alice.loaded_names == ("csv-data-audit",) and bob.loaded_names == ()
    assert not alice.check_tool("Write").allowed and bob.check_tool("Write").allowed
    with pytest.raises(ValueError, match="conversation key"):
        restarted.save("", alice)
    assert restarted.load("alice", Limits(max_loaded=1)).limits.max_loaded == 1


@pytest.mark.parametrize(
    "row",
    [
        "[" * 100_000 + "]" * 100_000,
        '{"schema": 1, "loaded": ' + "[" * 5_000 + "]" * 5_000 + "}",
        '{"schema": 1, "loaded": [' + '{"name": ' * 900 + "1" + "}" * 900 + "]}",
    ],
    ids=["deep-row", "deep-loaded", "deep-entry"],
)
def test_a_deeply_nested_saved_row_reads_as_unreadable(
    examples_library: SkillLibrary, tmp_path: Path, row: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A damaged row (hand-edited, truncated, hostile) never makes every load raise: it is
    reported as unreadable state (``state.reset``) and the next save replaces it."""
    import sqlite3

    db = tmp_path / "loop.db"
    store = SQLiteStateStore(db)
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO skillcore_state VALUES ('alice', ?)", (row,))
    skills = OpenAISkills(examples_library, states=store, allowed_tools_policy="restrict")
    with caplog.at_level("WARNING", logger="skillcore"):
        alice = skills.load("alice")
    assert alice.loaded_names == ()
    assert [r for r in caplog.records if getattr(r, "skillcore_event", "") == "state.reset"]
    call = {"id": "1", "type": "function", "function": {"name": "load_skill", "arguments": "{}"}}
    call["function"]["arguments"] = '{"skill_name": "csv-data-audit"}'
    alice, _ = skills.dispatch_all(alice, [call])
    skills.save("alice", alice)
    assert skills.load("alice").loaded_names == ("csv-data-audit",)
