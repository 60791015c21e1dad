"""A worker dies between two skill calls of one turn and another worker resumes the run
(``invoke(None)``) on the same PostgreSQL checkpointer (DESIGN §3.11): the resumed turn gives
what one process gives, no effect is dropped, RESTRICT holds, and nothing waits for the dead
worker. "Another worker" is a second middleware on the same checkpointer (its own memory), as
a separate process would be; the multi-process test does it with real processes."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from skillcore.runtime import loaded_names_of
from skillcore.state.ledger import SQLLedger
from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware
from skillcore_langchain.middleware import STATE_KEY
from skillcore_langchain.testing import ScriptedChatModel, plain_tools, tool_calls

pytest.importorskip("langgraph.checkpoint.postgres")
from langgraph.checkpoint.postgres import PostgresSaver


class WorkerDied(BaseException):
    """Stands for SIGKILL: nothing below catches it, the run stops mid-superstep."""


class DieBefore(AgentMiddleware):
    """Outermost middleware of the dying worker: lets the first call finish, then dies in
    the second before skillcore sees it."""

    def __init__(self, victim: str, first: str) -> None:
        self.victim, self.first = victim, first
        self.first_done = threading.Event()

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if request.tool_call["id"] == self.victim:
            self.first_done.wait(30)
            raise WorkerDied
        out = handler(request)
        if request.tool_call["id"] == self.first:
            self.first_done.set()
        return out


@pytest.fixture(scope="module")
def saver(postgres_url: str) -> Iterator[PostgresSaver]:
    with PostgresSaver.from_conn_string(postgres_url) as cp:
        cp.setup()
        yield cp


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "skill-00", "Restricts.", "Zero: only Read.", "allowed-tools: Read\n")
    write_skill(root, "skill-01", "Restricts too.", "One: only Read.", "allowed-tools: Read\n")
    write_skill(root, "skill-02", "Open.", "Two: anything goes.")
    return root


_threads = itertools.count(1)


def worker(
    lib: Path, saver: PostgresSaver, script: list[AIMessage], *before: Any, ledger: Any = None
) -> Any:
    model = ScriptedChatModel()
    model.push(*script)
    mw = SkillsMiddleware(lib, allowed_tools_policy="restrict", ledger=ledger)
    # A resumed call must never wait for the dead worker: a wait would hang the test.
    mw.turns.wait_seconds = 3600.0
    return create_agent(model, plain_tools(), middleware=[*before, mw], checkpointer=saver)


def crash_then_resume(
    lib: Path,
    saver: PostgresSaver,
    setup: list[AIMessage],
    turn: AIMessage,
    after: list[Any],
    ledger: Any = None,
) -> tuple[list[ToolMessage], list[str], Any]:
    """Run ``setup`` turns, then ``turn`` on a worker that dies before its second call, then
    resume on a fresh worker (whose later script is ``after``). Returns the turn's replies,
    the loaded skills and the resumed worker's final output."""
    config: Any = {"configurable": {"thread_id": f"crash-{next(_threads)}"}}
    if setup:
        first = worker(lib, saver, setup, ledger=ledger)
        for _ in setup:
            first.invoke({"messages": [HumanMessage("setup")]}, config)
    ids = [c["id"] for c in turn.tool_calls]
    dying = worker(lib, saver, [turn], DieBefore(ids[1], ids[0]), ledger=ledger)
    with pytest.raises(WorkerDied):
        dying.invoke({"messages": [HumanMessage("go")]}, config)
    resumed = worker(lib, saver, after, ledger=ledger)
    out: dict[str, Any] = {}
    t = threading.Thread(target=lambda: out.update(result=resumed.invoke(None, config)))
    t.start()
    t.join(120)
    assert not t.is_alive(), "the resumed call waited for the dead worker"
    messages = out["result"]["messages"]
    replies = [m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id in ids]
    state = resumed.get_state(config).values.get(STATE_KEY)
    resumed._skillcore_config = config
    return replies, loaded_names_of(state), resumed


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


def unload(name: str) -> tuple[str, dict[str, Any]]:
    return ("unload_skill", {"skill_name": name})


def test_two_loads_split_by_a_crash_both_stay_loaded(lib: Path, saver: PostgresSaver) -> None:
    replies, loaded, _ = crash_then_resume(
        lib, saver, [], tool_calls(load("skill-00"), load("skill-02")), []
    )
    assert [r.status for r in replies] == ["success", "success"]
    assert loaded == ["skill-00", "skill-02"]


def test_unload_then_load_split_by_a_crash_keeps_restrict(lib: Path, saver: PostgresSaver) -> None:
    """From {skill-00, skill-02 (open, so nothing is restricted)}: [unload skill-02, load
    skill-01 (restricting)] split by a crash leaves {skill-00, skill-01}, and the next turn's
    Write is blocked (keeping skill-02 would lift RESTRICT)."""
    setup = [tool_calls(load("skill-00"), load("skill-02"))]
    turn = tool_calls(unload("skill-02"), load("skill-01"))
    replies, loaded, resumed = crash_then_resume(lib, saver, setup, turn, [tool_calls("Write")])
    assert [r.status for r in replies] == ["success", "success"]
    assert loaded == ["skill-00", "skill-01"]
    messages = resumed.get_state(resumed._skillcore_config).values["messages"]
    (write,) = [m for m in messages if isinstance(m, ToolMessage) and m.name == "Write"]
    assert write.status == "error" and write.artifact == {"code": "TOOL_BLOCKED"}, write


@pytest.mark.parametrize(
    ("skill", "plain", "allowed"),
    [("skill-02", "Write", True), ("skill-00", "Read", True), ("skill-00", "Write", False)],
    ids=["open-then-write", "restricting-then-read", "restricting-then-write"],
)
def test_a_plain_call_resumed_after_a_load_is_decided_as_in_one_process(
    lib: Path, saver: PostgresSaver, skill: str, plain: str, allowed: bool
) -> None:
    replies, loaded, _ = crash_then_resume(lib, saver, [], tool_calls(load(skill), plain), [])
    assert replies[0].status == "success"
    assert (replies[1].status == "success") is allowed, replies[1].content
    assert loaded == [skill]


@pytest.mark.parametrize("shared", [True, False], ids=["shared-ledger", "no-shared-ledger"])
def test_a_plain_call_resumed_after_an_unload(
    lib: Path, saver: PostgresSaver, postgres_url: str, shared: bool
) -> None:
    """[unload skill-00 (the only, restricting, skill), Write] split by a crash. One process
    runs Write. With a ledger shared by the workers the resumed Write knows the unload ran
    and runs too; without one it cannot tell (the unload might have been stopped by another
    middleware), so it is refused: an inference never lifts a restriction."""
    ledger = SQLLedger.postgres(postgres_url) if shared else None
    setup = [tool_calls(load("skill-00"))]
    turn = tool_calls(unload("skill-00"), "Write")
    replies, loaded, _ = crash_then_resume(lib, saver, setup, turn, [], ledger=ledger)
    assert replies[0].status == "success" and loaded == []
    assert (replies[1].status == "success") is shared, replies[1].content
    if ledger is not None:
        ledger.close()
