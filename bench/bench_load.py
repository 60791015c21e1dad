"""Cost of the skills layer at load: N worker processes x M threads on one PostgreSQL, each
thread running LangChain turns (``create_agent`` with ``PostgresSaver``, ``durability="sync"``,
a model that answers at once). Phases without skillcore and with ``SkillsMiddleware`` and the
shared ``SQLLedger`` alternate on the same server in one run (``--rounds``); each phase reports
turns/s, p50/p99 per turn and the CPU each turn cost: the workers' own (``getrusage`` in each
worker) and PostgreSQL's (its server processes, from ``/proc``), plus what other processes on
the machine used meanwhile (so a run on a shared machine says how shared it was).

Each turn: the model calls ``Read`` and then answers; every fifth turn of a thread it first
loads a skill (so skill calls, and the ledger, are part of the mix). With ``--same-steps`` the
phase without skillcore calls ``Write`` where the other loads a skill, so both phases make
the same model calls and tool steps and the ratio is the cost of the skills layer alone.

Closed loop (default): every thread runs turns back to back, so a saturated machine gives
throughput, and p50 is mostly queueing. ``--rate R`` is an open loop below saturation: R
turns/s offered in total (spread evenly over the workers, each served by its threads), the
latency counted from each turn's scheduled start, so the added p50 is the cost of a turn.

    python bench/bench_load.py                           # 4 workers x 10 threads, 20 s per phase
    python bench/bench_load.py --workers 8 --threads 50 --seconds 30 --same-steps --rounds 2
    python bench/bench_load.py --workers 8 --threads 50 --seconds 30 --same-steps --rate 20
    python bench/bench_load.py --one-process 10             # one thread, no PostgreSQL

``--one-process R`` measures the skills layer alone: one process, one thread, no database
(``InMemorySaver``, a SQLite ledger), R rounds of 200 turns without and 200 with skills
(same steps, 10 turns a conversation, interleaved), CPU per turn and the median ratio.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import queue
import resource
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

_TICK = os.sysconf("SC_CLK_TCK")


def _model(skills: bool, same_steps: bool = False) -> Any:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    ids = itertools.count()

    class Instant(BaseChatModel):
        """Answers at once: a tool call after the user's message, then a final answer."""

        @property
        def _llm_type(self) -> str:
            return "instant"

        def bind_tools(self, tools: Any, **kw: Any) -> Any:
            return self

        def _generate(self, messages: list[Any], stop: Any = None, **kw: Any) -> ChatResult:
            last = messages[-1]
            n = sum(isinstance(m, HumanMessage) for m in messages)
            if isinstance(last, HumanMessage):
                first = "load_skill" if skills else "Write" if same_steps else "Read"
                name = first if n % 5 == 1 else "Read"
                args = {"skill_name": "notes"} if name == "load_skill" else {"path": "a"}
                msg = AIMessage(
                    "", tool_calls=[{"name": name, "args": args, "id": f"c{next(ids)}"}]
                )
            elif isinstance(last, ToolMessage) and last.name in ("load_skill", "Write"):
                msg = AIMessage(
                    "", tool_calls=[{"name": "Read", "args": {"path": "a"}, "id": f"c{next(ids)}"}]
                )
            else:
                msg = AIMessage("ok")
            return ChatResult(generations=[ChatGeneration(message=msg)])

    return Instant()


def _cpu() -> float:
    """This process's CPU seconds (all its threads), user + system."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2 :].split()  # fields from the state on (3rd)


def server_cpu(pid: int | None) -> float | None:
    """CPU seconds of a PostgreSQL server: the postmaster, its live children (backends,
    background processes) and the children it already reaped; None if unknown."""
    if pid is None:
        return None
    total = 0.0
    own = _stat(pid)
    if own is None:
        return None
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = _stat(int(name))
        if fields is None or (int(name) != pid and fields[1] != str(pid)):
            continue  # fields[1] is the parent pid
        total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / _TICK


def machine_busy() -> float:
    """CPU seconds the whole machine spent busy (all cores), from /proc/stat."""
    first = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    values = [int(x) for x in first[:8]]
    return (sum(values) - values[3] - values[4]) / _TICK  # minus idle and iowait


def postmaster_pid(server: Any) -> int | None:
    try:
        return int((server.data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, AttributeError, IndexError):
        return None


def worker(
    url: str,
    lib: str,
    skills: bool,
    index: int,
    threads: int,
    clock: Any,
    out: Any,
    same_steps: bool = False,
    rate: float = 0.0,
    workers: int = 1,
    tag: str = "",
) -> None:
    from langchain.agents import create_agent
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg_pool import ConnectionPool

    from skillcore.state.ledger import SQLLedger
    from skillcore_langchain import SkillsMiddleware
    from skillcore_langchain.testing import plain_tools

    pool = ConnectionPool(
        url, min_size=min(2, threads), max_size=threads, kwargs={"autocommit": True}
    )
    saver = PostgresSaver(pool)
    middleware = []
    if skills:
        middleware = [
            SkillsMiddleware(lib, allowed_tools_policy="restrict", ledger=SQLLedger.postgres(url))
        ]
    model = _model(skills, same_steps)
    agent = create_agent(model, plain_tools(), middleware=middleware, checkpointer=saver)
    prefix = f"{tag}{'s' if skills else 'p'}-{index}"
    times: list[float] = []
    done = [0]  # every finished turn, also those ending after the stop (they cost CPU)
    lock = threading.Lock()
    # A process's first turn pays one-time work (lazy imports, the first catalog render, the
    # ledger's first statements: ~0.3 s CPU with skills): a server pays it once, not per
    # turn, so it is done before the clock starts (a turn with a load, and one without).
    warm = [f"{prefix}-warm"] * 2  # its first turn loads a skill, the second does not
    for key in warm:
        agent.invoke(
            {"messages": [{"role": "user", "content": "go"}]},
            {"configurable": {"thread_id": key}},
            durability="sync",
        )
    out.put("ready")  # the clock starts once every worker is ready (imports take long on a
    while clock[0] == 0.0:  # loaded machine)
        time.sleep(0.01)
    start, stop = clock[0], clock[1]

    def turn(thread_key: str) -> None:
        config: Any = {"configurable": {"thread_id": thread_key}}
        agent.invoke({"messages": [{"role": "user", "content": "go"}]}, config, durability="sync")

    def loop(t: int) -> None:
        mine = []
        while time.time() < start:
            time.sleep(0.01)
        n = 0
        while time.time() < stop:
            began = time.perf_counter()
            turn(f"{prefix}-{t}")
            n += 1
            if time.time() < stop:
                mine.append(time.perf_counter() - began)
        with lock:
            times.extend(mine)
            done[0] += n

    # As many conversations as threads, each in one turn at a time (as in the closed loop,
    # so conversations grow as long there as here).
    free: queue.SimpleQueue[str] = queue.SimpleQueue()
    for t in range(threads):
        free.put(f"{prefix}-{t}")

    def scheduled(due: float) -> None:
        key = free.get()
        try:
            turn(key)
        finally:
            free.put(key)
        with lock:
            times.append(time.time() - due)
            done[0] += 1

    while time.time() < start:
        time.sleep(0.005)
    cpu = _cpu()
    if rate > 0:  # open loop: turns start on a schedule, whether or not earlier ones ended
        each = workers / rate
        due = start + each * index / workers  # the workers' schedules interleave
        with ThreadPoolExecutor(threads) as executor:
            while due < stop:
                wait = due - time.time()
                if wait > 0:
                    time.sleep(wait)
                executor.submit(scheduled, due)
                due += each
    else:
        ts = [threading.Thread(target=loop, args=(t,)) for t in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    out.put((times, done[0], _cpu() - cpu))
    pool.close()


def phase(
    url: str,
    lib: str,
    skills: bool,
    workers: int,
    threads: int,
    seconds: float,
    same_steps: bool = False,
    rate: float = 0.0,
    pg_pid: int | None = None,
    tag: str = "",
) -> dict[str, float]:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    clock = ctx.Array("d", [0.0, 0.0])  # start, stop: set once every worker is ready
    procs = [
        ctx.Process(
            target=worker,
            args=(url, lib, skills, i, threads, clock, out, same_steps, rate, workers, tag),
        )
        for i in range(workers)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        assert out.get() == "ready"
    start = time.time() + 0.5
    clock[1], clock[0] = start + seconds, start
    time.sleep(max(0.0, start - time.time()))
    pg0, busy0, load0, own0 = server_cpu(pg_pid), machine_busy(), os.getloadavg()[0], _cpu()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    pg1, busy1, own1 = server_cpu(pg_pid), machine_busy(), _cpu()
    elapsed = time.time() - start
    times = sorted(x for r in results for x in r[0])
    turns = sum(r[1] for r in results)
    work = sum(r[2] for r in results)
    pg = None if pg0 is None or pg1 is None else pg1 - pg0
    others = (busy1 - busy0) - work - (pg or 0.0) - (own1 - own0)
    return {
        "turns/s": len(times) / seconds,
        "p50 ms": 1000 * statistics.median(times),
        "p99 ms": 1000 * times[int(0.99 * (len(times) - 1))],
        "turns": len(times),
        "worker cpu ms": 1000 * work / turns,
        "pg cpu ms": float("nan") if pg is None else 1000 * pg / turns,
        "cpu ms": 1000 * (work + (pg or 0.0)) / turns,
        "others cores": max(0.0, others) / elapsed,
        "load": load0,
    }


def _row(name: str, r: dict[str, float]) -> str:
    return (
        f"| {name} | {r['turns/s']:.1f} | {r['p50 ms']:,.0f} | {r['p99 ms']:,.0f} | {r['turns']} "
        f"| {r['worker cpu ms']:.2f} | {r['pg cpu ms']:.2f} | {r['cpu ms']:.2f} "
        f"| {r['others cores']:.2f} | {r['load']:.1f} |"
    )


def one_process(rounds: int, turns: int = 200) -> None:
    """CPU per turn (``time.process_time``) in this process, without and with skills,
    interleaved rounds after two warm turns each; medians and their ratio."""
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from skillcore.state.ledger import SQLLedger
    from skillcore.testing import write_skill
    from skillcore_langchain import SkillsMiddleware
    from skillcore_langchain.testing import plain_tools

    tmp = Path(tempfile.mkdtemp())
    write_skill(tmp / "skills", "notes", "Notes.", "Read the notes.", "allowed-tools: Read\n")
    ledger = SQLLedger.sqlite(tmp / "ledger.db")
    mw = SkillsMiddleware(tmp / "skills", allowed_tools_policy="restrict", ledger=ledger)
    agents = {
        False: create_agent(_model(False, True), plain_tools(), checkpointer=InMemorySaver()),
        True: create_agent(
            _model(True), plain_tools(), middleware=[mw], checkpointer=InMemorySaver()
        ),
    }

    def run(skills: bool, tag: str, n: int) -> float:
        start = time.process_time()
        for i in range(n):  # 10 turns a conversation: each a load on its first
            config: Any = {"configurable": {"thread_id": f"{tag}-{i // 10}"}}
            agents[skills].invoke({"messages": [{"role": "user", "content": "hi"}]}, config)
        return (time.process_time() - start) / n * 1000

    for skills in (False, True):
        run(skills, "warm", 2)
    per: dict[bool, list[float]] = {False: [], True: []}
    for r in range(rounds):
        for skills in (False, True):
            per[skills].append(run(skills, f"r{r}", turns))
    without, with_ = statistics.median(per[False]), statistics.median(per[True])
    print(
        f"one process, {rounds} rounds of {turns} turns: CPU ms a turn without "
        f"{without:.2f}, with {with_:.2f} (+{with_ - without:.2f}); ratio {without / with_:.2f}x"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--threads", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--url", help="an existing PostgreSQL (default: a throwaway one)")
    ap.add_argument(
        "--pg-pid", type=int, help="with --url: its postmaster's pid, to count its CPU per turn"
    )
    ap.add_argument(
        "--same-steps",
        action="store_true",
        help="without skillcore, call Write where the skills phase loads a skill",
    )
    ap.add_argument(
        "--rounds", type=int, default=1, help="phases alternate: without, with, without, with..."
    )
    ap.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="open loop: turns/s offered in total (below saturation); 0: closed loop",
    )
    ap.add_argument(
        "--one-process",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="measure in this process only (one thread, no PostgreSQL)",
    )
    a = ap.parse_args()
    if a.one_process:
        one_process(a.one_process)
        return
    from pgserver import PgServer

    from skillcore.testing import write_skill

    lib = Path(tempfile.mkdtemp()) / "skills"
    write_skill(lib, "notes", "Notes.", "Read the notes.", "allowed-tools: Read\n")
    server = None if a.url else PgServer().start()
    url = a.url or server.url  # type: ignore[union-attr]
    pg_pid = a.pg_pid if a.url else postmaster_pid(server)
    rounds: list[tuple[dict[str, float], dict[str, float]]] = []
    try:
        from langgraph.checkpoint.postgres import PostgresSaver

        with PostgresSaver.from_conn_string(url) as cp:
            cp.setup()
        for i in range(a.rounds):
            common = (a.workers, a.threads, a.seconds)
            without = phase(url, str(lib), False, *common, a.same_steps, a.rate, pg_pid, f"r{i}")
            with_ = phase(url, str(lib), True, *common, False, a.rate, pg_pid, f"r{i}")
            rounds.append((without, with_))
    finally:
        if server is not None:
            server.stop()
    steps = ", the same steps in both phases" if a.same_steps else ""
    mode = f"open loop, {a.rate:g} turns/s offered" if a.rate > 0 else "closed loop"
    print(
        f"{a.workers} workers x {a.threads} threads, {a.seconds:.0f} s per phase, {mode}{steps}, "
        f"{a.rounds} round(s) alternating, {os.cpu_count()} cores"
    )
    print(
        "| phase | turns/s | p50 ms | p99 ms | turns | worker CPU ms/turn | PostgreSQL CPU "
        "ms/turn | CPU ms/turn | other processes (cores) | load avg |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for i, (without, with_) in enumerate(rounds, 1):
        print(_row(f"{i}: without skills", without))
        print(_row(f"{i}: with skills + ledger", with_))
    print("\n| round | throughput ratio | CPU per turn ratio (without / with) | added p50 ms |")
    print("|---|---|---|---|")
    tput, cpu, added = [], [], []
    for i, (without, with_) in enumerate(rounds, 1):
        tput.append(with_["turns/s"] / without["turns/s"])
        cpu.append(without["cpu ms"] / with_["cpu ms"])
        added.append(with_["p50 ms"] - without["p50 ms"])
        print(f"| {i} | {tput[-1]:.2f}x | {cpu[-1]:.2f}x | {added[-1]:,.1f} |")
    print(
        f"median: throughput ratio {statistics.median(tput):.2f}, CPU per turn ratio "
        f"{statistics.median(cpu):.2f}, added p50 {statistics.median(added):.1f} ms"
    )


if __name__ == "__main__":
    main()
