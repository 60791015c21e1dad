"""Two Agents SDK workers on one conversation saved in one state store: a ``Write`` decided
after another worker's restricting load was saved does not run, and that load is not
overwritten by this worker's later save (a fork never lifts a restriction)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call

from skillcore import Limits, PolicyMode, SkillLibrary, ToolPolicy
from skillcore.state.saved import PostgresStateStore, SQLiteStateStore
from skillcore_openai import AgentSkills

NO_TRACE = RunConfig(tracing_disabled=True)
CSV = {"skill_name": "csv-data-audit"}


def worker(library: SkillLibrary, states: Any) -> AgentSkills:
    return AgentSkills(
        library, limits=Limits(max_loaded=2), policy=ToolPolicy(PolicyMode.RESTRICT),
        states=states,
    )  # fmt: skip


def run(skills: AgentSkills, steps: list[Any], context: Any, log: list[str], guarded: bool) -> None:
    @function_tool(name_override="Write")
    def write(path: str, text: str) -> str:
        """Write a file."""
        log.append(f"Write {path}")
        return "written"

    model = ScriptedModel([*steps, [assistant_message("done")]])
    agent = Agent(
        name="a", instructions=skills.instructions(), tools=[*skills.tools(), write], model=model
    )  # fmt: skip
    agent = (
        skills.guard_agent(agent)
        if guarded
        else agent.clone(tools=[*skills.tools(), *skills.guard(write)])
    )
    asyncio.run(Runner.run(agent, "go", run_config=NO_TRACE, context=context))


@pytest.mark.parametrize("guarded", [True, False], ids=["guard_agent", "guard"])
@pytest.mark.parametrize("db", ["sqlite", "postgres"])
def test_a_write_after_another_workers_restricting_load_does_not_run(
    examples_library: SkillLibrary,
    tmp_path: Path,
    db: str,
    guarded: bool,
    request: pytest.FixtureRequest,
) -> None:
    def store() -> Any:
        if db == "sqlite":
            return SQLiteStateStore(tmp_path / "state.db")
        url = request.getfixturevalue("postgres_url")
        return PostgresStateStore(url, table=f"agents_{abs(hash(str(tmp_path))) % 10**8}")

    w1, w2 = worker(examples_library, store()), worker(examples_library, store())
    mine, theirs = w1.conversation("conv"), w2.conversation("conv")  # both read "nothing"
    log: list[str] = []
    run(w2, [[function_call("load_skill", CSV, call_id="l1")]], theirs, log, guarded)
    assert theirs.loaded_names == ("csv-data-audit",)
    write = function_call("Write", {"path": "r.md", "text": "x"}, call_id="w1")
    run(w1, [[write]], mine, log, guarded)
    assert log == [], "a Write ran after another worker's restricting load was saved"
    fresh = worker(examples_library, store()).conversation("conv")
    assert fresh.loaded_names == ("csv-data-audit",)
