"""The shared ledger costs at most one round trip per model turn, through the real agent
runtime and the real SQL ledger (SQLite and PostgreSQL): a turn that loads a skill makes
exactly one (its write checks the turn's start too), a turn with no skill call makes none
when no fork could refuse its calls (the tool is allowed with any catalog skills loaded) or
when its call is refused anyway, and one when a fork could change a decision."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.state.ledger import Head, SQLLedger
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


class Counting:
    """The real ledger, counting its operations (each one round trip to the database)."""

    def __init__(self, inner: SQLLedger) -> None:
        self.inner = inner
        self.ops: list[str] = []

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        self.ops.append("observe")
        return self.inner.observe(key, rev, turn, loaded)

    def advance(self, *args: Any) -> Head | None:
        self.ops.append("advance")
        return self.inner.advance(*args)

    def head(self, key: str) -> Head | None:
        self.ops.append("head")
        return self.inner.head(key)


@pytest.fixture(params=["sqlite", "postgres"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Counting]:
    if request.param == "sqlite":
        inner = SQLLedger.sqlite(tmp_path / "ledger.db")
    else:
        inner = SQLLedger.postgres(request.getfixturevalue("postgres_url"), table="t_trips")
    yield Counting(inner)
    inner.close()


class Agent:
    """One thread of an agent with the skills middleware over ``ledger``."""

    def __init__(self, skills: Path, ledger: Counting, thread: str) -> None:
        self.ledger, self.model = ledger, ScriptedChatModel()
        mw = SkillsMiddleware(skills, allowed_tools_policy="restrict", ledger=ledger)
        self.agent = create_agent(
            self.model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver()
        )
        self.config: Any = {"configurable": {"thread_id": thread}}

    def turn(self, *calls: tuple[str, dict[str, Any]] | str) -> tuple[list[str], list[str]]:
        """One model turn calling ``calls`` (then the model answers): the ledger operations
        it made and each call's reply status."""
        self.model.push(tool_calls(*calls))
        before = len(self.ledger.ops)
        out = self.agent.invoke({"messages": [HumanMessage("go")]}, self.config)
        replies = [m for m in out["messages"] if isinstance(m, ToolMessage)][-len(calls) :]
        return self.ledger.ops[before:], [m.status for m in replies]


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


def test_a_turn_with_a_load_makes_one_round_trip(skills: Path, ledger: Counting) -> None:
    agent = Agent(skills, ledger, "loads")
    assert agent.turn(load("alpha")) == (["advance"], ["success"])
    # Read: every skill that declares allowed-tools allows it, so no fork could refuse it.
    assert agent.turn("Read") == ([], ["success"])
    # Refused on the turn's own session already: a fork could only refuse it too.
    assert agent.turn("Write") == ([], ["error"])
    # A load and a plain call a fork could refuse: the load's write checks the turn's start.
    ops, status = agent.turn(("unload_skill", {"skill_name": "alpha"}), "Write")
    assert (ops, status) == (["advance"], ["success", "success"])


def test_a_plain_turn_a_fork_could_change_makes_one(skills: Path, ledger: Counting) -> None:
    agent = Agent(skills, ledger, "plain")
    assert agent.turn(load("beta")) == (["advance"], ["success"])
    # Write is allowed (beta restricts nothing); a fork with alpha loaded would refuse it.
    assert agent.turn("Write", "Write") == (["observe"], ["success", "success"])
    assert agent.turn(load("gamma"), load("alpha")) == (["advance", "advance"], ["success"] * 2)


def test_no_skills_loaded_and_no_fork_possible_makes_none(tmp_path: Path, ledger: Counting) -> None:
    from skillcore.testing import write_skill

    root = tmp_path / "open"
    write_skill(root, "plain", "Plain.", "Anything goes.")
    agent = Agent(root, ledger, "open")
    assert agent.turn("Write") == ([], ["success"])
    assert agent.turn("Read", "Write") == ([], ["success", "success"])
