"""Many workers on one database (DESIGN §3.11): 4 worker processes run 20 threads on one
PostgreSQL -- 12 LangChain threads (``PostgresSaver`` checkpoints, ``SQLLedger`` ledger), 4 ADK
threads (a resumable app on ``DatabaseSessionService``, the same ledger) and 4
OpenAI-dispatcher threads (state in ``PostgresStateStore`` or a shared SQLite file) -- are
SIGKILLed at random and between two skill calls of a turn, resume each other's unfinished
runs, while a skill is edited and another removed; two workers are also forced onto one thread
at once. Every turn is then replayed in one process and compared:
loaded skills, replies, blocked calls. Seeds are fixed; only the timing of the random kills
varies between runs, and the outcome must not."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import random
import shutil
import signal
import time
from multiprocessing import forkserver
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph.checkpoint.postgres")
pytest.importorskip("google.adk")

import many_workers  # the worker side, importable by the worker processes
from google.adk.sessions import DatabaseSessionService, InMemorySessionService
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from skillcore.runtime import loaded_names_of
from skillcore.state.turn_order import DEFAULT_WAIT_SECONDS
from skillcore.testing import write_skill
from skillcore_langchain import SkillsMiddleware

WORKERS, THREADS, TURNS = 4, 20, 15
#: Of the threads, these many run the OpenAI dispatcher on a shared PostgreSQL state store...
OPENAI_THREADS = 4
#: ... and these many an ADK app on ``DatabaseSessionService``; the rest are LangChain threads.
ADK_THREADS = 4
#: The turns of each phase; the library changes between phases.
PHASES = ((0, 5), (5, 10), (10, 15))
SEED = 22
#: A phase (or a forced overlap) that takes longer than this fails the test.
PHASE_SECONDS = 240
#: A worker is killed at random only once it has been up this long.
SETTLE_SECONDS = 1.0
#: ... and only once this many turns finished since the last random kill: on a loaded
#: machine kills are paced by progress, never outpacing the turns.
TURNS_PER_KILL = 2
#: Forced overlaps: two workers run one thread at once (one loads a restricting skill, the
#: other calls Write after it), with no lock.
OVERLAPS = 4


def make_library(root: Path) -> None:
    write_skill(root, "skill-00", "Read only.", "Zero.", "allowed-tools: Read\n")
    write_skill(root, "skill-01", "Read only too.", "One.", "allowed-tools: Read\n")
    write_skill(root, "skill-02", "Open.", "Two.")
    write_skill(root, "skill-03", "Open, then Read only.", "Three.")
    write_skill(root, "skill-04", "Read only, then removed.", "Four.", "allowed-tools: Read\n")


def change_library(root: Path, phase: int) -> None:
    """Between phases: skill-03 starts restricting; then skill-04 is removed."""
    if phase == 1:
        write_skill(root, "skill-03", "Now Read only.", "Three, edited.", "allowed-tools: Read\n")
    elif phase == 2:
        shutil.rmtree(root / "skill-04")


def make_script(rng: random.Random) -> tuple[dict[str, list[list[Any]]], set[tuple[str, int]]]:
    """Per thread, the tool calls of each turn; and the turns planned to die between their
    first two calls (turns with at least two calls, the second a skill call or not)."""
    skills = [f"skill-0{i}" for i in range(5)]
    script: dict[str, list[list[Any]]] = {}
    kills: set[tuple[str, int]] = set()
    for t in range(THREADS):
        if t >= THREADS - OPENAI_THREADS:
            thread = f"oa-{t:02d}"
        elif t >= THREADS - OPENAI_THREADS - ADK_THREADS:
            thread = f"adk-{t:02d}"
        else:
            thread = f"w-{t:02d}"
        turns = []
        for turn in range(TURNS):
            calls: list[Any] = []
            for _ in range(rng.choice((1, 2, 2, 3))):
                kind = rng.random()
                if kind < 0.4:
                    calls.append(("load_skill", {"skill_name": rng.choice(skills)}))
                elif kind < 0.6:
                    calls.append(("unload_skill", {"skill_name": rng.choice(skills)}))
                else:
                    calls.append((rng.choice(("Read", "Write")), {}))
            turns.append(calls)
            if len(calls) >= 2 and rng.random() < 0.2:
                kills.add((thread, turn))
        script[thread] = turns
    return script, kills


def replay(lib: Path, script: dict[str, list[list[Any]]]) -> tuple[dict, dict]:
    """Every thread's turns in one process, the library changed at the same points."""
    mw = SkillsMiddleware(lib, allowed_tools_policy="restrict", refresh=True)
    agent = create_agent(
        many_workers.TurnModel(script=script),
        many_workers.plain_tools(),
        middleware=[mw],
        checkpointer=InMemorySaver(),
    )
    from skillcore_openai import OpenAISkills

    oa = OpenAISkills(
        lib,
        allowed_tools_policy="restrict",
        handlers={"Read": lambda args: "read", "Write": lambda args: "wrote"},
    )
    # ADK: the same app in one process, on an in-memory session service.
    loop = asyncio.new_event_loop()
    adk = many_workers.adk_runner(lib, script, InMemorySessionService())
    loaded: dict[tuple[str, int], str] = {}
    oa_replies: dict[str, list[list[tuple[str, str, str]]]] = {}
    for phase, (start, end) in enumerate(PHASES):
        if phase:
            change_library(lib, phase)
        for thread in script:
            if thread.startswith("adk-"):
                for turn in range(start, end):
                    how = loop.run_until_complete(many_workers.run_adk_turn(adk, thread, turn))
                    assert how == "ran", (thread, turn, how)
                    names = loop.run_until_complete(many_workers.adk_loaded(adk, thread))
                    loaded[(thread, turn)] = ",".join(names)
                continue
            if thread.startswith("oa-"):
                for turn in range(start, end):
                    calls = script[thread][turn]
                    oa.library.refresh()
                    res = oa.dispatch_all(
                        oa.load(thread), many_workers.chat_calls(thread, turn, calls)
                    )
                    oa.save(thread, res.session)
                    loaded[(thread, turn)] = ",".join(res.session.loaded_names)
                    oa_replies.setdefault(thread, []).append(
                        [
                            (n, *many_workers.openai_outcome(r))
                            for (n, _), r in zip(calls, res.results, strict=True)
                        ]
                    )
                continue
            config: Any = {"configurable": {"thread_id": thread}}
            for turn in range(start, end):
                agent.invoke({"messages": [HumanMessage(f"{thread}|{turn}")]}, config)
                state = agent.get_state(config).values
                loaded[(thread, turn)] = ",".join(loaded_names_of(state.get("skillcore")))
    replies = {
        thread: many_workers.tool_outcomes(
            agent.get_state({"configurable": {"thread_id": thread}}).values["messages"]
        )
        for thread in script
        if thread.startswith("w-")
    }
    adk_replies = loop.run_until_complete(adk_outcomes(adk, script))
    loop.run_until_complete(adk.close())
    loop.close()
    return loaded, {**replies, **adk_replies, **oa_replies}


async def adk_outcomes(runner: Any, script: Any) -> dict[str, list[list[tuple[str, str, str]]]]:
    """Per ADK thread, the function responses of each turn in its saved session."""
    out = {}
    for thread in script:
        if thread.startswith("adk-"):
            session = await many_workers.adk_session(runner, thread)
            out[thread] = many_workers.adk_outcomes(session.events)
    return out


class Pool:
    """The worker processes, each fed jobs over its own pipe (a killed worker can corrupt
    nothing the others share)."""

    def __init__(self, url: str, lib: Path, script: Any, kills: Any) -> None:
        # Workers are forked from a fresh single-threaded server, never from this test
        # process: under pytest-xdist it runs other tests' threads (an S3 server, event
        # loops), and a fork taken while one of them holds a lock can leave the child stuck.
        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(["many_workers_warm"])
        # The server imports and warms up the frameworks once (the preload: many_workers
        # imports them all), so a worker restarted after a kill starts in milliseconds and
        # random kills on a loaded machine hit workers running turns, not ones importing.
        # Python 3.11's server ignores the sys.path it is handed (a preload it cannot find
        # fails silently): it finds the test's modules through PYTHONPATH.
        here = str(Path(many_workers.__file__).parent)
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (here, old) if p)
        try:
            forkserver.ensure_running()
        finally:
            if old is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = old
        self.args = (url, str(lib), script, kills)
        self.procs: dict[int, Any] = {}
        self.pipes: dict[int, Any] = {}
        self.jobs: dict[int, tuple[str, int] | None] = {}
        self.born: dict[int, float] = {}
        self.started = 0

    def spawn(self, index: int) -> None:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(
            target=many_workers.worker_main, args=(index, *self.args, child), daemon=True
        )
        proc.start()
        child.close()
        self.procs[index], self.pipes[index], self.jobs[index] = proc, parent, None
        self.born[index] = time.monotonic()
        self.started += 1

    def idle(self) -> list[int]:
        return [i for i, job in self.jobs.items() if job is None]

    def send(self, index: int, job: tuple[str, int]) -> None:
        self.jobs[index] = job
        self.pipes[index].send(job)

    def stop(self) -> None:
        for i, proc in self.procs.items():
            if proc.is_alive():
                with contextlib.suppress(OSError):
                    self.pipes[i].send(None)
        for proc in self.procs.values():
            proc.join(10)
            if proc.is_alive():
                proc.kill()


def force_overlaps(pool: Pool, n: int) -> dict[str, dict[str, str]]:
    """``n`` times, two idle workers run one fresh thread at once; per thread, each role's
    tool reply statuses."""
    out: dict[str, dict[str, str]] = {}
    for k in range(n):
        thread = f"ov-{k}"
        a, b = pool.idle()[:2]
        pool.send(a, ("overlap", thread, "0"))  # type: ignore[arg-type]
        pool.send(b, ("overlap", thread, "1"))  # type: ignore[arg-type]
        out[thread] = {}
        give_up = time.monotonic() + PHASE_SECONDS
        while len(out[thread]) < 2:
            assert time.monotonic() < give_up, f"overlap {thread} did not finish: {out[thread]}"
            for i in (a, b):
                if pool.pipes[i].poll(0.05):
                    _, _, role, how, _, _ = pool.pipes[i].recv()
                    out[thread][role] = how.removeprefix("overlap:")
                    pool.jobs[i] = None
    return out


def run_phase(
    pool: Pool, jobs: list[tuple[str, int]], rng: random.Random, stats: dict[str, Any]
) -> None:
    """Hand out ``jobs`` (a thread's turns in order, one turn of a thread at a time), kill
    busy workers at random, restart the dead and hand their job out again."""
    pending = list(jobs)
    busy_threads: set[str] = set()
    next_kill = time.monotonic() + rng.uniform(0.8, 1.6)
    finished = 0  # turns finished since the last random kill
    give_up = time.monotonic() + PHASE_SECONDS
    while pending or any(job is not None for job in pool.jobs.values()):
        # A phase takes seconds; one that does not end is a failure, never a hung suite.
        assert time.monotonic() < give_up, (f"phase did not finish in {PHASE_SECONDS} s", stats)
        for index in pool.idle():
            job = next((j for j in pending if j[0] not in busy_threads), None)
            if job is None:
                break
            # A thread's turns go out in order: the earliest pending turn of each thread.
            first = min(j for j in pending if j[0] == job[0])
            pending.remove(first)
            busy_threads.add(first[0])
            pool.send(index, first)
        if time.monotonic() >= next_kill and finished >= TURNS_PER_KILL:
            # Only workers up for a while: a kill loop on workers still starting up would
            # make no progress on a loaded machine, and tests nothing new.
            now = time.monotonic()
            busy = [
                i
                for i, job in pool.jobs.items()
                if job is not None and now - pool.born[i] >= SETTLE_SECONDS
            ]
            if busy:
                victim = rng.choice(busy)
                try:
                    os.kill(pool.procs[victim].pid, signal.SIGKILL)
                    stats["random_kills"] += 1
                    finished = 0
                except ProcessLookupError:
                    pass  # it died a moment ago (a planned kill), and is already reaped
            next_kill = time.monotonic() + rng.uniform(0.8, 1.6)
        ready = wait(
            [*pool.pipes.values(), *(p.sentinel for p in pool.procs.values())], timeout=0.1
        )
        for index in list(pool.procs):
            pipe, proc = pool.pipes[index], pool.procs[index]
            if pipe in ready:
                try:
                    _, thread, _, how, took, waited = pipe.recv()
                except (EOFError, OSError):
                    pass
                else:
                    busy_threads.discard(thread)
                    pool.jobs[index] = None
                    finished += 1
                    stats[how] += 1
                    if thread.startswith("adk-"):
                        stats[f"ADK {how}"] += 1
                    stats["longest turn s"] = max(stats["longest turn s"], took)
                    stats["longest call wait s"] = max(stats["longest call wait s"], waited)
                    continue
            if not proc.is_alive():
                job = pool.jobs[index]
                stats["deaths"] += 1
                if job is not None:
                    pending.insert(0, job)  # the same turn again: start, resume or skip
                    busy_threads.discard(job[0])
                pool.spawn(index)


def test_many_workers_on_one_postgres(postgres_url: str, tmp_path: Path) -> None:
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    rng = random.Random(SEED)
    script, kills = make_script(rng)
    lib = tmp_path / "skills"
    make_library(lib)
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("CREATE TABLE kills (thread TEXT, turn INT, PRIMARY KEY (thread, turn))")
        db.execute("CREATE TABLE arrivals (thread TEXT, role TEXT, PRIMARY KEY (thread, role))")
        db.execute("CREATE TABLE ov_done (thread TEXT)")
        db.execute(
            "CREATE TABLE oa_turns (thread TEXT, turn INT, parent TEXT, outcomes TEXT, "
            "loaded TEXT, done BOOL, PRIMARY KEY (thread, turn))"
        )
        db.execute(
            "CREATE TABLE forks (thread TEXT, worker INT, expected TEXT, found TEXT, at TEXT, "
            "job TEXT)"
        )
        db.execute(
            "CREATE TABLE outcomes (thread TEXT, turn INT, loaded TEXT, how TEXT, "
            "seconds FLOAT, PRIMARY KEY (thread, turn))"
        )
    with PostgresSaver.from_conn_string(postgres_url) as saver:
        saver.setup()
    began = time.monotonic()
    pool = Pool(postgres_url, lib, script, kills)
    for i in range(WORKERS):
        pool.spawn(i)
    stats: dict[str, Any] = dict.fromkeys(
        ("ran", "resumed", "done", "ADK ran", "ADK resumed", "ADK done", "deaths", "random_kills"),
        0,
    )
    stats["longest turn s"] = stats["longest call wait s"] = 0.0
    try:
        for phase, (start, end) in enumerate(PHASES):
            if phase:
                change_library(lib, phase)
            jobs = [(t, turn) for turn in range(start, end) for t in script]
            run_phase(pool, jobs, rng, stats)
        overlaps = force_overlaps(pool, OVERLAPS)
    finally:
        pool.stop()

    with psycopg.connect(postgres_url, autocommit=True) as db:
        planned = db.execute("SELECT count(*) FROM kills").fetchone()[0]
        adk_planned = db.execute("SELECT count(*) FROM kills WHERE thread LIKE 'adk-%'").fetchone()[
            0
        ]
        fork_rows = db.execute("SELECT * FROM forks").fetchall()
        forked = {row[0] for row in fork_rows}
        rows = db.execute("SELECT thread, turn, loaded FROM outcomes").fetchall()
        hows = {(t, n): h for t, n, h in db.execute("SELECT thread, turn, how FROM outcomes")}
        rows += db.execute("SELECT thread, turn, loaded FROM oa_turns").fetchall()
        oa_rows = db.execute("SELECT thread, turn, outcomes FROM oa_turns").fetchall()
    multi_loaded = {(t, n): loaded for t, n, loaded in rows}
    with PostgresSaver.from_conn_string(postgres_url) as saver:
        multi_replies = {
            thread: many_workers.tool_outcomes(
                saver.get_tuple({"configurable": {"thread_id": thread}}).checkpoint[
                    "channel_values"
                ]["messages"]
            )
            for thread in script
            if thread.startswith("w-")
        }
    adk = many_workers.adk_runner(
        lib, script, DatabaseSessionService(many_workers.adk_db_url(postgres_url))
    )
    loop = asyncio.new_event_loop()
    multi_replies.update(loop.run_until_complete(adk_outcomes(adk, script)))
    loop.run_until_complete(adk.close())
    loop.close()
    import json

    for thread, turn, outcomes in sorted(oa_rows):
        calls = script[thread][turn]
        multi_replies.setdefault(thread, []).append(
            [(n, *o) for (n, _), o in zip(calls, json.loads(outcomes), strict=True)]
        )

    stats["workers s"] = round(time.monotonic() - began, 1)
    fresh = tmp_path / "replay"
    make_library(fresh)
    began = time.monotonic()
    single_loaded, single_replies = replay(fresh, script)
    stats["replay s"] = round(time.monotonic() - began, 1)

    # Per framework ("w" LangChain, "adk", "oa" OpenAI): lost loads, loaded-set mismatches,
    # RESTRICT bypasses, wrong refusals, skill reply mismatches; and plain calls compared.
    checks = ("lost", "loaded", "bypass", "refusal", "reply", "plain calls")
    found = {kind: dict.fromkeys(checks, 0) for kind in ("w", "adk", "oa")}
    mismatches: list[Any] = []
    refusals: list[Any] = []
    for thread in script:
        n = found[thread.split("-")[0]]
        for turn in range(TURNS):
            want, got = single_loaded[(thread, turn)], multi_loaded.get((thread, turn))
            if got != want:
                n["loaded"] += 1
                mismatches.append((thread, turn, want, got))
                n["lost"] += len(set(want.split(",")) - set((got or "").split(",")) - {""})
            for (tool, s_status, s_code), (_, m_status, m_code) in zip(
                single_replies[thread][turn], multi_replies[thread][turn], strict=True
            ):
                if tool in ("Read", "Write"):
                    n["plain calls"] += 1
                    n["bypass"] += s_status == "error" and m_status == "success"
                    if s_status == "success" and m_status == "error":
                        n["refusal"] += 1
                        how = hows.get((thread, turn))
                        refusals.append((thread, turn, script[thread][turn], m_code, how))
                elif (s_status, s_code) != (m_status, m_code):
                    n["reply"] += 1
    lost, loaded_mismatch, bypass, wrong_refusal, reply_mismatch = (
        sum(n[c] for n in found.values()) for c in checks[:5]
    )
    adk = found["adk"]
    report = {
        "turns": THREADS * TURNS,
        "planned kills between calls": planned,
        **stats,
        "lost loads": lost,
        "loaded-set mismatches": loaded_mismatch,
        "RESTRICT bypasses": bypass,
        "wrong refusals": wrong_refusal,
        "skill reply mismatches": reply_mismatch,
        "overlaps forced": len(overlaps),
        "overlaps detected": len(forked & set(overlaps)),
        "writes beside a restricting load that ran": sum(
            r["1"] != "error" for r in overlaps.values()
        ),
        "false fork reports": len(forked - set(overlaps)),
        "false forks seen": [r for r in fork_rows if r[0] not in overlaps][:5],
        "ADK turns": ADK_THREADS * TURNS,
        "ADK planned kills between calls": adk_planned,
        "ADK plain calls compared": adk["plain calls"],
        "ADK lost loads": adk["lost"],
        "ADK loaded-set mismatches": adk["loaded"],
        "ADK RESTRICT bypasses": adk["bypass"],
        "ADK wrong refusals": adk["refusal"],
        "ADK skill reply mismatches": adk["reply"],
        "first mismatches": mismatches[:3],
        "wrong refusals seen": refusals[:5],
    }
    print("\nmany workers:", report)
    assert planned > 0 and stats["resumed"] > 0, report
    assert adk_planned > 0 and stats["ADK resumed"] > 0, report
    # No call waited for a dead worker (a hang guard, not a speed limit: entering a turn is
    # bounded by arrival_seconds plus the replay's own reads; the report shows the figure).
    assert stats["longest call wait s"] < DEFAULT_WAIT_SECONDS, report
    assert (lost, loaded_mismatch, bypass, wrong_refusal, reply_mismatch) == (0,) * 5, report
    assert report["overlaps detected"] == report["overlaps forced"] == OVERLAPS, report
    assert report["writes beside a restricting load that ran"] == 0, report
    assert report["false fork reports"] == 0, report
