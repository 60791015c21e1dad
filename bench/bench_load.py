"""Cost of the skills layer at load: N worker processes x M threads on one PostgreSQL, each
thread running LangChain turns back to back (``create_agent`` with ``PostgresSaver``,
``durability="sync"``, a model that answers at once). One phase without skillcore, one with
``SkillsMiddleware`` and the shared ``SQLLedger``, on the same server in one run; prints
turns/s and p50/p99 per turn for each, and the ratios.

Each turn: the model calls ``Read`` and then answers; every fifth turn of a thread it first
loads a skill (so skill calls, and the ledger, are part of the mix). With ``--same-steps`` the
phase without skillcore calls ``Write`` where the other loads a skill, so both phases make
the same model calls and tool steps and the ratio is the cost of the skills layer alone.

    python bench/bench_load.py                           # 4 workers x 10 threads, 20 s per phase
    python bench/bench_load.py --workers 8 --threads 50 --seconds 60 --same-steps
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


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


def worker(
    url: str,
    lib: str,
    skills: bool,
    index: int,
    threads: int,
    clock: Any,
    out: Any,
    same_steps: bool = False,
) -> None:
    from langchain.agents import create_agent
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg_pool import ConnectionPool

    from skillcore.state.ledger import SQLLedger
    from skillcore_langchain import SkillsMiddleware
    from skillcore_langchain.testing import plain_tools

    pool = ConnectionPool(url, min_size=2, max_size=threads, kwargs={"autocommit": True})
    saver = PostgresSaver(pool)
    middleware = []
    if skills:
        middleware = [
            SkillsMiddleware(lib, allowed_tools_policy="restrict", ledger=SQLLedger.postgres(url))
        ]
    model = _model(skills, same_steps)
    agent = create_agent(model, plain_tools(), middleware=middleware, checkpointer=saver)
    times: list[float] = []
    lock = threading.Lock()
    out.put("ready")  # the clock starts once every worker is ready (imports take long on a
    while clock[0] == 0.0:  # loaded machine)
        time.sleep(0.01)
    start, stop = clock[0], clock[1]

    def loop(t: int) -> None:
        config: Any = {"configurable": {"thread_id": f"{'s' if skills else 'p'}-{index}-{t}"}}
        mine = []
        while time.time() < start:
            time.sleep(0.01)
        while time.time() < stop:
            began = time.perf_counter()
            agent.invoke(
                {"messages": [{"role": "user", "content": "go"}]}, config, durability="sync"
            )
            if time.time() < stop:
                mine.append(time.perf_counter() - began)
        with lock:
            times.extend(mine)

    ts = [threading.Thread(target=loop, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put(times)
    pool.close()


def phase(
    url: str,
    lib: str,
    skills: bool,
    workers: int,
    threads: int,
    seconds: float,
    same_steps: bool = False,
) -> dict[str, float]:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    clock = ctx.Array("d", [0.0, 0.0])  # start, stop: set once every worker is ready
    procs = [
        ctx.Process(target=worker, args=(url, lib, skills, i, threads, clock, out, same_steps))
        for i in range(workers)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        assert out.get() == "ready"
    start = time.time() + 0.5
    clock[1], clock[0] = start + seconds, start
    times = [x for _ in procs for x in out.get()]
    for p in procs:
        p.join()
    times.sort()
    return {
        "turns/s": len(times) / seconds,
        "p50 ms": 1000 * statistics.median(times),
        "p99 ms": 1000 * times[int(0.99 * (len(times) - 1))],
        "turns": len(times),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--threads", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--url", help="an existing PostgreSQL (default: a throwaway one)")
    ap.add_argument(
        "--same-steps",
        action="store_true",
        help="without skillcore, call Write where the skills phase loads a skill",
    )
    a = ap.parse_args()
    from pgserver import PgServer

    from skillcore.testing import write_skill

    lib = Path(tempfile.mkdtemp()) / "skills"
    write_skill(lib, "notes", "Notes.", "Read the notes.", "allowed-tools: Read\n")
    server = None if a.url else PgServer().start()
    url = a.url or server.url  # type: ignore[union-attr]
    try:
        from langgraph.checkpoint.postgres import PostgresSaver

        with PostgresSaver.from_conn_string(url) as cp:
            cp.setup()
        without = phase(url, str(lib), False, a.workers, a.threads, a.seconds, a.same_steps)
        with_ = phase(url, str(lib), True, a.workers, a.threads, a.seconds)
    finally:
        if server is not None:
            server.stop()
    steps = ", the same steps in both phases" if a.same_steps else ""
    print(f"{a.workers} workers x {a.threads} threads, {a.seconds:.0f} s per phase{steps}")
    print("| | turns/s | p50 ms | p99 ms | turns |\n|---|---|---|---|---|")
    for name, r in (("without skills", without), ("with skills + ledger", with_)):
        row = f"{r['turns/s']:.1f} | {r['p50 ms']:.0f} | {r['p99 ms']:.0f} | {r['turns']}"
        print(f"| {name} | {row} |")
    print(
        f"throughput ratio {with_['turns/s'] / without['turns/s']:.2f}, "
        f"added p50 {with_['p50 ms'] - without['p50 ms']:.0f} ms"
    )


if __name__ == "__main__":
    main()
