"""The worker side of the many-workers test (tests/test_many_workers.py): a process that
runs LangChain agent turns on a shared PostgreSQL checkpointer, as a deployment's worker would.

Each worker serialises a thread with a PostgreSQL advisory lock on its id (the recipe in
docs/many-workers.md), finds out whether the turn it was handed is new, unfinished (resume
with ``invoke(None)``) or done, and records the turn's outcome. Some turns are planned to die
by SIGKILL between two of their calls; the test process kills workers at random too.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

#: One call of a scripted turn: (tool name, arguments).
Call = tuple[str, dict[str, Any]]


class TurnModel(BaseChatModel):
    """A chat model that plays a fixed script per thread: the last human message names the
    thread and turn; before the tools ran it calls them, afterwards it answers."""

    script: dict[str, list[list[Call]]]
    url: str = ""

    @property
    def _llm_type(self) -> str:
        return "turn-script"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools])

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        last = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        thread, turn, *role = str(messages[last].content).split("|")
        if any(isinstance(m, AIMessage) for m in messages[last + 1 :]):
            reply = AIMessage(content="done")
        elif role:  # a forced overlap: two workers on one thread at once
            arrive(self.url, thread, role[0])
            call = ("load_skill", {"skill_name": "skill-00"}) if role[0] == "0" else ("Write", {})
            reply = AIMessage(
                content="",
                tool_calls=[{"name": call[0], "args": call[1], "id": f"{thread}-r{role[0]}-0"}],
            )
        else:
            calls = self.script[thread][int(turn)]
            reply = AIMessage(
                content="",
                tool_calls=[
                    {"name": n, "args": a, "id": f"{thread}-{turn}-{i}"}
                    for i, (n, a) in enumerate(calls)
                ],
            )
        return ChatResult(generations=[ChatGeneration(message=reply)])


def arrive(url: str, thread: str, role: str) -> None:
    """A barrier across processes: wait until both workers of an overlap reached their model
    call, so both runs started from the same checkpoint."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute("INSERT INTO arrivals VALUES (%s, %s) ON CONFLICT DO NOTHING", (thread, role))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            n = db.execute("SELECT count(*) FROM arrivals WHERE thread = %s", (thread,)).fetchone()
            if n[0] >= 2:
                return
            time.sleep(0.02)


def wait_for_row(url: str, table: str, thread: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if db.execute(f"SELECT 1 FROM {table} WHERE thread = %s", (thread,)).fetchone():
                return
            time.sleep(0.02)


def plain_tools() -> list[Any]:
    from langchain_core.tools import tool

    @tool("Read")
    def read(path: str = "") -> str:
        """Read a file."""
        return "read"

    @tool("Write")
    def write(path: str = "") -> str:
        """Write a file."""
        return "wrote"

    return [read, write]


def unfinished(messages: list[Any]) -> bool:
    """A run that has not ended: its last message is not the model's final answer (an AI
    message without tool calls). ``get_state().next`` can be empty meanwhile."""
    if not messages:
        return False
    last = messages[-1]
    return not (isinstance(last, AIMessage) and not last.tool_calls)


def worker_main(index: int, url: str, lib: str, script: Any, kills: Any, conn: Any) -> None:
    """Run the jobs the test process sends on ``conn`` until it sends None."""
    import psycopg
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware
    from langgraph.checkpoint.postgres import PostgresSaver

    from skillcore.state.coordination import SQLLedger
    from skillcore_langchain import SkillsMiddleware

    db = psycopg.connect(url, autocommit=True)
    first_done: dict[str, threading.Event] = {}

    class KillBetweenCalls(AgentMiddleware):
        """SIGKILL this worker between the first and second call of a planned turn (once:
        the plan is marked done in the database before dying)."""

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            call_id = request.tool_call["id"]
            thread, turn, pos = call_id.rsplit("-", 2)
            if turn.startswith("r"):  # a forced overlap: the writer goes after the loader
                if turn == "r1":
                    wait_for_row(url, "ov_done", thread)
                try:
                    return handler(request)
                finally:
                    if turn == "r0":
                        with psycopg.connect(url, autocommit=True) as c:
                            c.execute("INSERT INTO ov_done VALUES (%s)", (thread,))
            key = f"{thread}-{turn}"
            event = first_done.setdefault(key, threading.Event())
            if pos == "1" and (thread, int(turn)) in kills:
                with psycopg.connect(url, autocommit=True) as c:
                    row = c.execute(
                        "INSERT INTO kills VALUES (%s, %s) ON CONFLICT DO NOTHING RETURNING 1",
                        (thread, int(turn)),
                    ).fetchone()
                if row is not None:
                    event.wait(10)
                    time.sleep(0.05)  # the first call's write reaches the checkpointer
                    os.kill(os.getpid(), signal.SIGKILL)
            try:
                return handler(request)
            finally:
                if pos == "0":
                    event.set()

    ledger = SQLLedger.postgres(url)
    from pathlib import Path

    from skillcore.state.coordination import PostgresStateStore, SQLiteStateStore
    from skillcore_openai import OpenAISkills

    # Half the OpenAI threads keep their state in PostgreSQL, half in one SQLite file.
    stores = {"pg": PostgresStateStore(url), "sqlite": SQLiteStateStore(Path(lib).parent / "s.db")}
    dispatchers = {
        kind: OpenAISkills(
            lib,
            states=store,
            allowed_tools_policy="restrict",
            handlers={"Read": lambda args: "read", "Write": lambda args: "wrote"},
        )
        for kind, store in stores.items()
    }
    with PostgresSaver.from_conn_string(url) as saver:
        mw = SkillsMiddleware(lib, allowed_tools_policy="restrict", ledger=ledger, refresh=True)
        agent = create_agent(
            TurnModel(script=script, url=url),
            plain_tools(),
            middleware=[KillBetweenCalls(), mw],
            checkpointer=saver,
        )
        import logging

        class Forks(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if getattr(record, "skillcore_event", "") == "state.forked":
                    with psycopg.connect(url, autocommit=True) as c:
                        c.execute(
                            "INSERT INTO forks VALUES (%s, %s)",
                            (record.__dict__.get("conversation"), index),
                        )

        logging.getLogger("skillcore").addHandler(Forks())
        logging.getLogger("skillcore").setLevel(logging.INFO)
        while True:
            job = conn.recv()
            if job is None:
                break
            if job[0] == "overlap":  # no lock: two workers on one thread at once
                _, thread, role = job
                config: Any = {"configurable": {"thread_id": thread}}
                out = agent.invoke({"messages": [HumanMessage(f"{thread}|0|{role}")]}, config)
                statuses = [m.status for m in out["messages"] if isinstance(m, ToolMessage)]
                conn.send((index, thread, role, "overlap:" + ",".join(statuses), 0.0, 0.0))
                continue
            thread, turn = job
            if thread.startswith("oa-"):
                db.execute("SELECT pg_advisory_lock(hashtext(%s))", (thread,))
                try:
                    planned = (thread, turn) in kills and db.execute(
                        "INSERT INTO kills VALUES (%s, %s) ON CONFLICT DO NOTHING RETURNING 1",
                        (thread, turn),
                    ).fetchone() is not None
                    started = time.monotonic()
                    oa = dispatchers["sqlite" if int(thread[3:]) % 2 else "pg"]
                    how = run_openai_turn(oa, db, thread, turn, script[thread][turn], planned)
                    took = time.monotonic() - started
                finally:
                    db.execute("SELECT pg_advisory_unlock(hashtext(%s))", (thread,))
                conn.send((index, thread, turn, how, took, 0.0))
                continue
            db.execute("SELECT pg_advisory_lock(hashtext(%s))", (thread,))
            try:
                started = time.monotonic()
                how = run_turn(agent, thread, turn)
                took = time.monotonic() - started
                state = agent.get_state({"configurable": {"thread_id": thread}}).values
                from skillcore import loaded_names_of

                loaded = loaded_names_of(state.get("skillcore"))
                db.execute(
                    "INSERT INTO outcomes VALUES (%s, %s, %s, %s, %s) ON CONFLICT (thread, turn) "
                    "DO UPDATE SET loaded = excluded.loaded",
                    (thread, turn, ",".join(loaded), how, took),
                )
            finally:
                db.execute("SELECT pg_advisory_unlock(hashtext(%s))", (thread,))
            conn.send((index, thread, turn, how, took, mw.turns.longest_wait))


def chat_calls(thread: str, turn: int, calls: list[Call]) -> list[dict[str, Any]]:
    """A turn's calls as Chat Completions tool calls."""
    import json

    return [
        {
            "id": f"{thread}-{turn}-{i}",
            "type": "function",
            "function": {"name": n, "arguments": json.dumps(a)},
        }
        for i, (n, a) in enumerate(calls)
    ]


def openai_outcome(result: Any) -> tuple[str, str]:
    """(status, code) of one dispatched call, as the LangChain side records them."""
    code = result.code.value if result.code is not None else ""
    return ("error" if result.is_error else "success", code)


def run_openai_turn(
    skills: Any, db: Any, thread: str, turn: int, calls: list[Call], kill: bool
) -> str:
    """One turn of the OpenAI dispatcher on the shared state store: skipped when it was
    saved already (the state's revision moved past the one recorded before the turn)."""
    import json
    import signal

    row = db.execute(
        "SELECT parent, done FROM oa_turns WHERE thread = %s AND turn = %s", (thread, turn)
    ).fetchone()
    state = skills.states.load(thread)
    rev = (state or {}).get("rev", "")
    if row is not None and (row[1] or row[0] != rev):
        db.execute(
            "UPDATE oa_turns SET done = true WHERE thread = %s AND turn = %s", (thread, turn)
        )
        return "done"
    skills.library.refresh()  # a custom loop re-scans its sources as it sees fit: every turn
    session = skills.load(thread)
    result = skills.dispatch_all(session, chat_calls(thread, turn, calls))
    outcomes = [openai_outcome(r) for r in result.results]
    db.execute(
        "INSERT INTO oa_turns VALUES (%s, %s, %s, %s, %s, false) ON CONFLICT (thread, turn) "
        "DO UPDATE SET parent = excluded.parent, outcomes = excluded.outcomes, "
        "loaded = excluded.loaded",
        (thread, turn, rev, json.dumps(outcomes), ",".join(result.session.loaded_names)),
    )
    if kill:  # dies after the calls ran, before the state is saved: the turn runs again
        os.kill(os.getpid(), signal.SIGKILL)
    skills.save(thread, result.session)
    db.execute("UPDATE oa_turns SET done = true WHERE thread = %s AND turn = %s", (thread, turn))
    return "ran" if row is None else "resumed"


def run_turn(agent: Any, thread: str, turn: int) -> str:
    """Start, resume or skip ``turn`` of ``thread`` as its saved state says."""
    config: Any = {"configurable": {"thread_id": thread}}
    messages = agent.get_state(config).values.get("messages", [])
    humans = sum(isinstance(m, HumanMessage) for m in messages)
    if humans == turn:
        agent.invoke({"messages": [HumanMessage(f"{thread}|{turn}")]}, config)
        return "ran"
    if humans == turn + 1 and unfinished(messages):
        agent.invoke(None, config)
        return "resumed"
    if humans == turn + 1:
        return "done"
    raise RuntimeError(f"{thread}: turn {turn} handed out of order ({humans} human messages)")


def tool_outcomes(messages: list[Any]) -> list[list[tuple[str, str, str]]]:
    """Per turn, the tool replies in call order: (tool, status, code)."""
    turns: list[list[tuple[str, str, str]]] = []
    for m in messages:
        if isinstance(m, HumanMessage):
            turns.append([])
        elif isinstance(m, ToolMessage) and turns:
            code = (m.artifact or {}).get("code", "") if isinstance(m.artifact, dict) else ""
            turns[-1].append((m.tool_call_id, m.name or "", m.status, str(code)))
    return [
        [t[1:] for t in sorted(turn, key=lambda t: int(t[0].rsplit("-", 1)[1]))] for turn in turns
    ]
