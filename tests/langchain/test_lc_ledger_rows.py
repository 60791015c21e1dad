"""A shared ledger never stops a conversation (DESIGN §3.11, §3.13): a damaged row reads as
an unknown head (one ``state.forked``, then healed), and ids the database cannot store as
they are (a NUL in the model's message or call id, a huge id) are stored as digests."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.state.ledger import SQLLedger
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools


class Events(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.names.append(getattr(record, "skillcore_event", ""))


@pytest.fixture
def seen() -> Iterator[Events]:
    handler, logger = Events(), logging.getLogger("skillcore")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(old)


def _calls(message_id: str | None, *calls: tuple[str, str, dict[str, Any]]) -> AIMessage:
    return AIMessage(
        "",
        id=message_id,
        tool_calls=[{"name": n, "args": a, "id": i} for i, n, a in calls],
    )


def _agent(skills: Path, ledger: SQLLedger, model: ScriptedChatModel) -> Any:
    mw = SkillsMiddleware(skills, allowed_tools_policy="restrict", ledger=ledger)
    return create_agent(model, plain_tools(), middleware=[mw], checkpointer=InMemorySaver())


def _replies(out: dict[str, Any]) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}


@pytest.mark.parametrize(
    "damage", ["seq = 'abc'", "seq = 1e400", "loaded = '" + "[" * 50_000 + "'"]
)
def test_a_damaged_row_is_one_fork_not_an_error_on_every_call(
    skills: Path, tmp_path: Path, seen: Events, damage: str
) -> None:
    db = tmp_path / "ledger.db"
    ledger, model = SQLLedger.sqlite(db), ScriptedChatModel()
    agent = _agent(skills, ledger, model)
    cfg: Any = {"configurable": {"thread_id": "t"}}
    model.push(_calls("m1", ("c1", "load_skill", {"skill_name": "beta"})))
    agent.invoke({"messages": [HumanMessage("use beta")]}, cfg)
    with sqlite3.connect(db) as conn:
        assert conn.execute(f"UPDATE skillcore_heads SET {damage}").rowcount == 1
    seen.names.clear()
    # Write is allowed here and a fork (alpha loaded) could refuse it: the ledger is asked.
    model.push(_calls("m2", ("c2", "Read", {}), ("c3", "Write", {})))
    replies = _replies(agent.invoke({"messages": [HumanMessage("go on")]}, cfg))
    assert replies["c2"].status != "error" and replies["c3"].status != "error"
    assert seen.names.count("state.forked") == 1
    seen.names.clear()
    model.push(_calls("m3", ("c4", "Write", {})))
    replies = _replies(agent.invoke({"messages": [HumanMessage("again")]}, cfg))
    assert replies["c4"].status != "error" and "state.forked" not in seen.names  # healed


@pytest.mark.parametrize(
    "message_id,call_id",
    [("m\x00x", "c1"), ("m1", "c\x001"), (None, "c" * 6_600)],
    ids=["nul-message-id", "nul-call-id", "huge-call-id"],
)
def test_ids_postgres_cannot_store_as_they_are(
    skills: Path, postgres_url: str, seen: Events, message_id: str | None, call_id: str
) -> None:
    ledger, model = SQLLedger.postgres(postgres_url, table="lc_odd_ids"), ScriptedChatModel()
    agent = _agent(skills, ledger, model)
    cfg: Any = {"configurable": {"thread_id": f"odd-{call_id[:3]}-{message_id}"}}
    model.push(_calls(message_id, (call_id, "load_skill", {"skill_name": "alpha"})))
    replies = _replies(agent.invoke({"messages": [HumanMessage("use alpha")]}, cfg))
    assert replies[call_id].status != "error"
    model.push(_calls("m9", ("w", "Write", {})))
    replies = _replies(agent.invoke({"messages": [HumanMessage("write")]}, cfg))
    assert replies["w"].status == "error"  # alpha restricts
    assert "state.forked" not in seen.names
    ledger.close()
