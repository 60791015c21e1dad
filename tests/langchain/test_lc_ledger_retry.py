"""A turn whose first entry failed on the shared ledger (unreachable as the turn started) and
that the same worker retries once the ledger is back: the retry checks the ledger again, so a
``Write`` that another worker's restricting load forbids never runs (a failed entry leaves
nothing behind that a retry can trust)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.state.ledger import Head, SQLLedger
from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls


class Flaky:
    """A shared ledger that is unreachable while ``down`` is set."""

    def __init__(self, inner: SQLLedger) -> None:
        self.inner, self.down = inner, False

    def _check(self) -> None:
        if self.down:
            raise ConnectionError("ledger unreachable")

    def observe(self, key: str, rev: str, turn: str, loaded: Iterable[str]) -> Head | None:
        self._check()
        return self.inner.observe(key, rev, turn, loaded)

    def advance(self, *args: Any) -> Head | None:
        self._check()
        return self.inner.advance(*args)

    def head(self, key: str) -> Head | None:
        self._check()
        return self.inner.head(key)


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "skill-00", "Restricts.", "Zero: only Read.", "allowed-tools: Read\n")
    return root


def ledgers(tmp_path: Path, postgres: str | None) -> SQLLedger:
    if postgres is not None:
        return SQLLedger.postgres(postgres)
    return SQLLedger.sqlite(tmp_path / "ledger.db")


def retried_write(lib: Path, shared: SQLLedger) -> list[ToolMessage]:
    ledger = Flaky(shared)
    model = ScriptedChatModel()
    model.push(tool_calls("Write"))
    mw = SkillsMiddleware(lib, allowed_tools_policy="restrict", ledger=ledger)
    agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())
    thread = f"retry-{id(ledger)}"
    config: Any = {"configurable": {"thread_id": thread}}
    # Another worker loaded the restricting skill on this thread (its write reached the
    # ledger; this worker's checkpoint does not show it yet: two runs at once).
    shared.advance(thread, "", "other-worker-turn", 0, ["skill-00"], "other-call")
    ledger.down = True
    with pytest.raises(ConnectionError):
        agent.invoke({"messages": [HumanMessage("write it")]}, config, durability="sync")
    ledger.down = False
    out = agent.invoke(None, config, durability="sync")
    return [m for m in out["messages"] if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("db", ["sqlite", "postgres"])
def test_a_retry_after_a_ledger_error_checks_the_ledger_again(
    lib: Path, tmp_path: Path, db: str, request: pytest.FixtureRequest
) -> None:
    url = request.getfixturevalue("postgres_url") if db == "postgres" else None
    shared = ledgers(tmp_path, url)
    try:
        writes = retried_write(lib, shared)
    finally:
        shared.close()
    assert [m.status for m in writes] == ["error"], writes[0].content
    assert writes[0].artifact == {"code": "TOOL_BLOCKED"}
