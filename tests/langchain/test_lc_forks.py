"""Two workers on one thread at once (DESIGN §3.11): LangGraph lets both runs start from
the same checkpoint and keeps one branch. With a ledger shared by the workers
(``SQLLedger.postgres``), skillcore notices the run that does not start from the latest skill
state (``state.forked``) and never lets it lift a restriction. Each "worker" is its own
middleware (its own memory) on one PostgreSQL checkpointer, as separate processes would be."""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from skillcore.state.ledger import SQLLedger
from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

pytest.importorskip("langgraph.checkpoint.postgres")
from langgraph.checkpoint.postgres import PostgresSaver


@pytest.fixture(scope="module")
def saver(postgres_url: str) -> Iterator[PostgresSaver]:
    with PostgresSaver.from_conn_string(postgres_url) as cp:
        cp.setup()
        yield cp


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "skill-00", "Restricts.", "Zero: only Read.", "allowed-tools: Read\n")
    write_skill(root, "skill-02", "Open.", "Two: anything goes.")
    return root


class Forks(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "skillcore_event", "") == "state.forked":
            self.seen.append(dict(record.__dict__))


@pytest.fixture
def forks() -> Iterator[Forks]:
    handler = Forks()
    logger = logging.getLogger("skillcore")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(old)


class Hold(AgentMiddleware):
    """Holds this worker's tool calls until ``release`` is set."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        self.release.wait(30)
        return handler(request)


class Signal(AgentMiddleware):
    """Sets ``done`` once this worker's tool calls ran."""

    def __init__(self, done: threading.Event) -> None:
        self.done = done

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        try:
            return handler(request)
        finally:
            self.done.set()


_threads = itertools.count(1)


def together(barrier: threading.Barrier, message: AIMessage) -> Any:
    """A model step that answers only once both workers' models were called: both runs
    started from the same checkpoint."""

    def step(_: Any) -> AIMessage:
        barrier.wait(30)
        return message

    return step


def overlap(
    lib: Path, saver: PostgresSaver, ledger: Any, first: AIMessage, second: AIMessage
) -> tuple[list[ToolMessage], list[ToolMessage]]:
    """Worker 1 runs ``first`` and worker 2 ``second`` on one thread at once; worker 2's
    tool calls run after worker 1's."""
    config: Any = {"configurable": {"thread_id": f"fork-{next(_threads)}"}}
    barrier, done = threading.Barrier(2), threading.Event()
    agents = []
    for message, extra in ((first, [Signal(done)]), (second, [Hold(done)])):
        model = ScriptedChatModel()
        model.push(together(barrier, message))
        mw = SkillsMiddleware(lib, allowed_tools_policy="restrict", ledger=ledger)
        agents.append(
            create_agent(model, plain_tools(), middleware=[*extra, mw], checkpointer=saver)
        )
    out: list[Any] = [None, None]

    def run(i: int) -> None:
        out[i] = agents[i].invoke({"messages": [HumanMessage(f"worker {i}")]}, config)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    ids = [{c["id"] for c in m.tool_calls} for m in (first, second)]
    return tuple(  # type: ignore[return-value]
        [m for m in o["messages"] if isinstance(m, ToolMessage) and m.tool_call_id in i]
        for o, i in zip(out, ids)
    )


@pytest.fixture
def ledger(postgres_url: str) -> Iterator[SQLLedger]:
    led = SQLLedger.postgres(postgres_url)
    yield led
    led.close()


def test_a_write_beside_a_restricting_load_is_blocked_and_reported(
    lib: Path, saver: PostgresSaver, ledger: SQLLedger, forks: Forks
) -> None:
    loads, writes = overlap(
        lib, saver, ledger, tool_calls(("load_skill", {"skill_name": "skill-00"})),
        tool_calls("Write"),
    )  # fmt: skip
    assert [m.status for m in loads] == ["success"]
    assert [m.status for m in writes] == ["error"], writes[0].content
    assert writes[0].artifact == {"code": "TOOL_BLOCKED"}
    assert len(forks.seen) == 1 and forks.seen[0]["at"] == "turn start"


def test_two_loads_at_once_are_reported(
    lib: Path, saver: PostgresSaver, ledger: SQLLedger, forks: Forks
) -> None:
    a, b = overlap(
        lib, saver, ledger, tool_calls(("load_skill", {"skill_name": "skill-00"})),
        tool_calls(("load_skill", {"skill_name": "skill-02"})),
    )  # fmt: skip
    assert [m.status for m in a + b] == ["success", "success"]
    assert forks.seen, "the overlapping writers went unnoticed"


def test_sequential_workers_are_no_fork(
    lib: Path, saver: PostgresSaver, ledger: SQLLedger, forks: Forks
) -> None:
    """Runs that follow each other on different workers (the normal case) report nothing."""
    config: Any = {"configurable": {"thread_id": f"fork-{next(_threads)}"}}
    turns = [
        tool_calls(("load_skill", {"skill_name": "skill-00"})),
        tool_calls("Read", ("load_skill", {"skill_name": "skill-02"})),
        tool_calls(("unload_skill", {"skill_name": "skill-02"}), "Write"),
        tool_calls("Write"),
    ]
    statuses = []
    for message in turns:  # every turn on a fresh worker
        model = ScriptedChatModel()
        model.push(message)
        mw = SkillsMiddleware(lib, allowed_tools_policy="restrict", ledger=ledger)
        agent = create_agent(model, plain_tools(), middleware=[mw], checkpointer=saver)
        out = agent.invoke({"messages": [HumanMessage("go")]}, config)
        ids = {c["id"] for c in message.tool_calls}
        statuses += [m.status for m in out["messages"] if getattr(m, "tool_call_id", "") in ids]
    assert statuses == ["success"] * 4 + ["error", "error"]
    assert forks.seen == []
