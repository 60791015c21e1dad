"""The worker side of the many-workers test (tests/test_many_workers.py): a process that
runs agent turns on a shared PostgreSQL, as a deployment's worker would: LangChain turns on a
``PostgresSaver``, ADK turns on a ``DatabaseSessionService`` (a resumable app), OpenAI
dispatcher turns on a shared state store.

Each worker serialises a thread with a PostgreSQL advisory lock on its id (the recipe in
docs/many-workers.md), finds out whether the turn it was handed is new, unfinished (resume
with ``invoke(None)``, or ADK's ``run_async(invocation_id=...)``) or done, and records the
turn's outcome. Some turns are planned to die by SIGKILL between two of their calls; the test
process kills workers at random too.

The frameworks are imported here, at the top: the test's fork server preloads this module,
so a worker restarted after a kill starts without importing them again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import psycopg
from google.adk.agents import LlmAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import Runner
from google.adk.sessions import BaseSessionService, DatabaseSessionService
from google.genai import types
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.postgres import PostgresSaver

from skillcore.runtime import loaded_names_of
from skillcore.state.ledger import Ledger, SQLLedger
from skillcore.state.saved import PostgresStateStore, SQLiteStateStore
from skillcore_adk import SkillToolset
from skillcore_adk.testing import plain_tools as adk_plain_tools
from skillcore_langchain import SkillsMiddleware
from skillcore_openai import OpenAISkills

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
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("INSERT INTO arrivals VALUES (%s, %s) ON CONFLICT DO NOTHING", (thread, role))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            n = db.execute("SELECT count(*) FROM arrivals WHERE thread = %s", (thread,)).fetchone()
            if n[0] >= 2:
                return
            time.sleep(0.02)


def wait_for_row(url: str, table: str, thread: str) -> None:
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
            if pos == "1" and (thread, int(turn)) in kills and plan_kill(url, thread, int(turn)):
                event.wait(10)
                time.sleep(0.05)  # the first call's write reaches the checkpointer
                os.kill(os.getpid(), signal.SIGKILL)
            try:
                return handler(request)
            finally:
                if pos == "0":
                    event.set()

    ledger = SQLLedger.postgres(url)
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
    # ADK: one event loop for the worker's life (the session service's engine is bound to
    # it), and the runner built on the worker's first ADK job (most workers die before one).
    loop = asyncio.new_event_loop()
    adk: list[Runner] = []

    def adk_worker() -> Runner:
        if not adk:
            sessions = DatabaseSessionService(adk_db_url(url))
            plugins: list[BasePlugin] = [KillBetweenAdkCalls(url, kills)]
            adk.append(adk_runner(lib, script, sessions, ledger=ledger, plugins=plugins))
        return adk[0]

    with PostgresSaver.from_conn_string(url) as saver:
        mw = SkillsMiddleware(lib, allowed_tools_policy="restrict", ledger=ledger, refresh=True)
        agent = create_agent(
            TurnModel(script=script, url=url),
            plain_tools(),
            middleware=[KillBetweenCalls(), mw],
            checkpointer=saver,
        )

        current: list[Any] = []  # the job running, for the fork report

        class Forks(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if getattr(record, "skillcore_event", "") == "state.forked":
                    with psycopg.connect(url, autocommit=True) as c:
                        c.execute(
                            "INSERT INTO forks VALUES (%s, %s, %s, %s, %s, %s)",
                            (
                                record.__dict__.get("conversation"),
                                index,
                                str(record.__dict__.get("expected")),
                                str(record.__dict__.get("found")),
                                str(record.__dict__.get("at")),
                                repr(current),
                            ),
                        )

        logging.getLogger("skillcore").addHandler(Forks())
        logging.getLogger("skillcore").setLevel(logging.INFO)
        while True:
            job = conn.recv()
            if job is None:
                break
            current[:] = [job]
            if job[0] == "overlap":  # no lock: two workers on one thread at once
                _, thread, role = job
                config: Any = {"configurable": {"thread_id": thread}}
                out = agent.invoke({"messages": [HumanMessage(f"{thread}|0|{role}")]}, config)
                statuses = [m.status for m in out["messages"] if isinstance(m, ToolMessage)]
                conn.send((index, thread, role, "overlap:" + ",".join(statuses), 0.0, 0.0))
                continue
            thread, turn = job
            if thread.startswith("oa-"):
                with thread_lock(db, thread):
                    planned = (thread, turn) in kills and plan_kill(url, thread, turn)
                    started = time.monotonic()
                    oa = dispatchers["sqlite" if int(thread[3:]) % 2 else "pg"]
                    how = run_openai_turn(oa, db, thread, turn, script[thread][turn], planned)
                    took = time.monotonic() - started
                conn.send((index, thread, turn, how, took, 0.0))
                continue
            with thread_lock(db, thread):
                started = time.monotonic()
                if thread.startswith("adk-"):
                    runner = adk_worker()
                    how = retried(
                        lambda r=runner, th=thread, t=turn: loop.run_until_complete(
                            run_adk_turn(r, th, t)
                        )
                    )
                    took = time.monotonic() - started
                    loaded = loop.run_until_complete(adk_loaded(runner, thread))
                    waited = adk_toolset_of(runner).turns.longest_wait
                else:
                    how = retried(lambda th=thread, t=turn: run_turn(agent, th, t))
                    took = time.monotonic() - started
                    state = agent.get_state({"configurable": {"thread_id": thread}}).values
                    loaded = loaded_names_of(state.get("skillcore"))
                    waited = mw.turns.longest_wait
                db.execute(
                    "INSERT INTO outcomes VALUES (%s, %s, %s, %s, %s) ON CONFLICT (thread, turn) "
                    "DO UPDATE SET loaded = excluded.loaded",
                    (thread, turn, ",".join(loaded), how, took),
                )
            conn.send((index, thread, turn, how, took, waited))


#: The recipe's lock and retry (docs/many-workers.md): how long a turn waits for its thread's
#: lock, and how often a turn that failed on a database error is tried.
LOCK_SECONDS = 60.0
ATTEMPTS = 3


@contextlib.contextmanager
def thread_lock(db: Any, thread: str, timeout: float = LOCK_SECONDS) -> Iterator[None]:
    """One run per thread across workers: a session-level advisory lock (PostgreSQL frees it
    when the holder's connection dies), tried until ``timeout`` so a stopped holder cannot
    block the thread forever."""
    deadline = time.monotonic() + timeout
    while not db.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (thread,)).fetchone()[0]:
        if time.monotonic() > deadline:
            raise TimeoutError(f"thread {thread!r} is locked by another worker")
        time.sleep(0.05)
    try:
        yield
    finally:
        db.execute("SELECT pg_advisory_unlock(hashtext(%s))", (thread,))


def retried(run: Callable[[], Any], attempts: int = ATTEMPTS) -> Any:
    """``run()``, tried again after a database error (a restart, a dropped connection):
    a turn that did not finish is resumed, one that did is not run twice."""
    for attempt in range(attempts):
        try:
            return run()
        except psycopg.OperationalError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.2 * 2**attempt)
    return None


def plan_kill(url: str, thread: str, turn: int) -> bool:
    """True once per planned turn: the plan is marked done in the database before the
    worker dies, so the turn's resumption runs through."""
    with psycopg.connect(url, autocommit=True) as c:
        row = c.execute(
            "INSERT INTO kills VALUES (%s, %s) ON CONFLICT DO NOTHING RETURNING 1",
            (thread, turn),
        ).fetchone()
    return row is not None


# -- ADK ---------------------------------------------------------------------------------------

#: The ADK app and user of every ADK thread (an ADK session per thread, its id the thread's).
ADK_APP, ADK_USER = "many", "u"


def adk_db_url(url: str) -> str:
    """The SQLAlchemy URL of the shared PostgreSQL for ``DatabaseSessionService``."""
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


class AdkTurnModel(BaseLlm):
    """The ADK side of :class:`TurnModel`: the last user text names the thread and turn;
    before the tools ran it calls them (in parallel), afterwards it answers."""

    model: str = "turn-script"
    script: dict[str, list[list[Call]]]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """The thread's scripted calls for the turn, or "done" once they were answered."""
        contents = llm_request.contents or []
        last = max(i for i, c in enumerate(contents) if c.role == "user" and _text(c))
        thread, turn = _text(contents[last]).split("|")
        if len(contents) > last + 1:  # the calls were made and answered
            parts = [types.Part.from_text(text="done")]
        else:
            parts = [
                types.Part(
                    function_call=types.FunctionCall(name=n, args=a, id=call_id(thread, turn, i))
                )
                for i, (n, a) in enumerate(self.script[thread][int(turn)])
            ]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def call_id(thread: str, turn: object, position: int) -> str:
    """A scripted call's id: the same in every process and on every resume."""
    return f"{thread}-{turn}-{position}"


def _text(content: types.Content | None) -> str:
    return "".join(p.text for p in (content.parts if content else None) or () if p.text)


class KillBetweenAdkCalls(BasePlugin):
    """SIGKILL this worker between two calls of a planned ADK turn: in its second call once
    the first finished (even turns), or in its first call once the second finished (odd
    turns; a skill call second works the first call's effect out itself). ADK runs a turn's
    calls concurrently as tasks, so the dying call waits without blocking the loop. The
    finished call's skill effect is then in memory and in the ledger only: ADK saves a
    turn's function responses, and their state changes, in one event."""

    def __init__(self, url: str, kills: Any) -> None:
        super().__init__(name="kill_between_calls")
        self.url, self.kills = url, kills
        self.finished: set[str] = set()

    async def before_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any
    ) -> dict[str, Any] | None:
        parts = (tool_context.function_call_id or "").rsplit("-", 2)
        thread, turn, pos = parts if len(parts) == 3 and parts[1].isdigit() else ("", "0", "")
        dies = "0" if int(turn) % 2 else "1"
        if (
            pos == dies
            and (thread, int(turn)) in self.kills
            and plan_kill(self.url, thread, int(turn))
        ):
            other = call_id(thread, turn, 1 - int(dies))
            deadline = time.monotonic() + 10
            while other not in self.finished and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            os.kill(os.getpid(), signal.SIGKILL)
        return None

    async def after_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, result: Any
    ) -> dict[str, Any] | None:
        self.finished.add(tool_context.function_call_id or "")
        return None


def adk_runner(
    lib: str | Path,
    script: Any,
    sessions: BaseSessionService,
    *,
    ledger: Ledger | None = None,
    plugins: list[BasePlugin] | None = None,
) -> Runner:
    """A runner of a resumable ADK app: the scripted model, the skill toolset (RESTRICT,
    re-scanning the skills every invocation) and the plain Read/Write tools."""
    toolset = SkillToolset(lib, allowed_tools_policy="restrict", ledger=ledger, refresh=True)
    agent = LlmAgent(
        name="assistant",
        model=AdkTurnModel(script=script),
        instruction="You are helpful.",
        tools=[toolset, *adk_plain_tools()],
        before_tool_callback=toolset.before_tool_callback,
    )
    app = App(
        name=ADK_APP,
        root_agent=agent,
        plugins=plugins or [],
        resumability_config=ResumabilityConfig(is_resumable=True),
    )
    return Runner(app=app, session_service=sessions)


def adk_toolset_of(runner: Runner) -> SkillToolset:
    """The skill toolset of a runner built by :func:`adk_runner`."""
    agent = runner.agent
    assert isinstance(agent, LlmAgent)
    return next(t for t in agent.tools if isinstance(t, SkillToolset))


def adk_message(thread: str, turn: int) -> types.Content:
    return types.Content(role="user", parts=[types.Part.from_text(text=f"{thread}|{turn}")])


async def run_adk_turn(runner: Runner, thread: str, turn: int) -> str:
    """Start, resume or skip ``turn`` of ``thread`` as its ADK session says: the turn's
    invocation is found by its user message; it has ended once the agent recorded its end
    (``end_of_agent``); an unfinished one is resumed with ``run_async(invocation_id=...)``."""
    session = await runner.session_service.get_session(
        app_name=ADK_APP, user_id=ADK_USER, session_id=thread
    )
    if session is None:
        session = await runner.session_service.create_session(
            app_name=ADK_APP, user_id=ADK_USER, session_id=thread
        )
    text = f"{thread}|{turn}"
    started = [e for e in session.events if e.author == "user" and _text(e.content)]
    mine = [e for e in started if _text(e.content) == text]
    if not mine:
        if len(started) != turn:
            raise RuntimeError(f"{thread}: turn {turn} handed out of order ({len(started)} turns)")
        async for _ in runner.run_async(
            user_id=ADK_USER, session_id=thread, new_message=adk_message(thread, turn)
        ):
            pass
        return "ran"
    invocation = mine[0].invocation_id
    if adk_ended(session.events, invocation):
        return "done"
    async for _ in runner.run_async(user_id=ADK_USER, session_id=thread, invocation_id=invocation):
        pass
    return "resumed"


def adk_ended(events: list[Any], invocation: str) -> bool:
    """True once the invocation's agent recorded its end (a resumable app's last event)."""
    return any(e.invocation_id == invocation and e.actions.end_of_agent for e in events)


async def adk_session(runner: Runner, thread: str) -> Any:
    session = await runner.session_service.get_session(
        app_name=ADK_APP, user_id=ADK_USER, session_id=thread
    )
    if session is None:
        raise RuntimeError(f"no ADK session {thread!r}")
    return session


async def adk_loaded(runner: Runner, thread: str) -> list[str]:
    """The loaded skills in the thread's saved ADK session state."""
    session = await adk_session(runner, thread)
    key = adk_toolset_of(runner).state_key("assistant")
    return loaded_names_of(session.state.get(key))


def adk_outcomes(events: list[Any]) -> list[list[tuple[str, str, str]]]:
    """Per turn, the function responses in call order: (tool, status, code), as
    :func:`tool_outcomes` gives them for LangChain (a response saved twice counts once)."""
    turns: list[dict[str, tuple[str, str, str]]] = []
    for event in events:
        if event.author == "user" and _text(event.content):
            turns.append({})
            continue
        for r in event.get_function_responses():
            if turns and r.id:
                body = r.response or {}
                status = "error" if "error" in body else "success"
                turns[-1][r.id] = (r.name or "", status, str(body.get("error_code", "")))
    return [[t[k] for k in sorted(t, key=lambda k: int(k.rsplit("-", 1)[1]))] for t in turns]


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
        # "sync": the model's message is saved before its tool calls run, so a resumed
        # turn is the same turn (with "async" a crash can make it a new one: a fork report).
        agent.invoke({"messages": [HumanMessage(f"{thread}|{turn}")]}, config, durability="sync")
        return "ran"
    if humans == turn + 1 and unfinished(messages):
        agent.invoke(None, config, durability="sync")
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


def warm() -> None:
    """One ADK turn and one LangChain turn in memory, without skills: the frameworks import
    most of their modules on first use (some 450, over a second of work), and the fork server
    runs this once (``many_workers_warm``) so that each worker forked from it starts ready."""
    import sqlalchemy.dialects.postgresql.psycopg  # noqa: F401  (the session service's driver)
    from google.adk.sessions import InMemorySessionService
    from langgraph.checkpoint.memory import InMemorySaver

    script = {"warm": [[("Read", {})]]}
    agent = LlmAgent(name="assistant", model=AdkTurnModel(script=script), tools=adk_plain_tools())
    app = App(
        name=ADK_APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True)
    )
    runner = Runner(app=app, session_service=InMemorySessionService())
    asyncio.run(run_adk_turn(runner, "warm", 0))
    graph = create_agent(TurnModel(script=script), plain_tools(), checkpointer=InMemorySaver())
    graph.invoke({"messages": [HumanMessage("warm|0")]}, {"configurable": {"thread_id": "warm"}})
