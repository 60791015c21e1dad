"""LangChain middleware benchmark: skillcore's SkillsMiddleware vs deepagents' on one library.

Run from the repository root::

    python bench/bench_langchain.py                  # 1,000 skills, 3 threads x 6 turns
    python bench/bench_langchain.py --skills 200 --threads 2 --turns 4

Every system runs inside a real ``create_agent`` graph with a scripted chat model and a real
``SqliteSaver`` checkpointer; only the skills middleware differs. Each turn (one ``invoke``)
makes four model calls: load a skill (skillcore: ``load_skill``; deepagents: ``read_file`` of
its ``SKILL.md``, as its prompt instructs), two plain tool calls, and a final answer. Turn ``k``
loads the k-th skill, so later turns carry more loaded skills.

Measured:

- **wrap_model_call overhead**: two timing middleware sandwich the skills middleware; the time
  spent outside the inner one and inside the outer one is the middleware's own work per model
  call (the model call itself is excluded). The ``none`` row is the sandwich's own cost.
- **turn time**: wall time of ``invoke`` for the first turn of a new thread and for later turns.
- **checkpoint bytes per turn**: bytes the SQLite checkpointer stored (checkpoints, metadata and
  pending writes) during the turn, and the size of the skills state value itself.

Rows: ``none`` (no skills middleware: the floor), ``skillcore`` (defaults: the sources are
re-scanned at the start of every run), ``skillcore, refresh=60 s`` (re-scan throttled) and
``deepagents``. Medians over all samples; the last row is deepagents / skillcore (defaults) from
the same run. Systems run interleaved, thread by thread, so background load hits all alike.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import itertools
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from lc_timing import Clock, Inner, Outer
from timing import print_table

# skillcore's parse cache would turn every repeated discovery into stat checks: this
# benchmark compares parsing (the peers parse every time); bench_perf.py measures the cache.
os.environ.setdefault("SKILLCORE_NO_CACHE", "1")

try:
    from synth import make_library
except ImportError:  # pragma: no cover - a checkout without the discovery benchmark
    make_library = None  # type: ignore[assignment]

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from skillcore_langchain import SkillsMiddleware  # noqa: E402
from skillcore_langchain.testing import ScriptedChatModel  # noqa: E402

#: skillcore with the re-scan of the sources throttled (at most once a minute).
THROTTLED = "skillcore, refresh=60 s"


def _tiny_library(root: Path, n: int) -> Path:
    """Fallback generator: ``n`` small skills (used only if bench/synth.py is missing)."""
    root.mkdir(parents=True, exist_ok=True)
    for i in range(1, n + 1):
        d = root / f"skill-{i:05d}"
        d.mkdir(exist_ok=True)
        (d / "SKILL.md").write_text(
            f"---\nname: skill-{i:05d}\ndescription: Synthetic skill {i} for benchmarks; "
            f"use it for task {i}.\n---\n\n# Skill {i}\n\n" + "Do the thing carefully.\n" * 80
        )
    return root


# -- systems ----------------------------------------------------------------------------------


@tool("Read")
def read_tool(path: str = "") -> str:
    """Read a file."""
    return f"contents of {path}"


_ids = itertools.count(1)


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{next(_ids)}"}])


def _turn_script(system: str, k: int) -> list[AIMessage]:
    skill = f"skill-{k:05d}"
    if system.startswith("skillcore"):
        first = _call("load_skill", {"skill_name": skill})
    elif system == "deepagents":
        first = _call("read_file", {"file_path": f"/{skill}/SKILL.md"})
    else:
        first = _call("Read", {"path": skill})
    return [
        first,
        _call("Read", {"path": "a.txt"}),
        _call("Read", {"path": "b.txt"}),
        AIMessage(content="done"),
    ]


def _skills_middleware(system: str, root: Path) -> list[AgentMiddleware]:
    if system == "skillcore":
        return [SkillsMiddleware(root)]
    if system == THROTTLED:
        return [SkillsMiddleware(root, refresh=60.0)]
    if system == "deepagents":
        from deepagents.middleware.skills import SkillsMiddleware as DeepSkills

        return [DeepSkills(backend=_backend(root), sources=["/"])]
    return []


def _backend(root: Path) -> Any:
    from deepagents.backends import FilesystemBackend

    return FilesystemBackend(root_dir=root, virtual_mode=True)


def _stored_bytes(db: Path, thread: str) -> int:
    with sqlite3.connect(db) as conn:
        (a,) = conn.execute(
            "SELECT COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) FROM checkpoints "
            "WHERE thread_id = ?",
            (thread,),
        ).fetchone()
        (b,) = conn.execute(
            "SELECT COALESCE(SUM(LENGTH(value)), 0) FROM writes WHERE thread_id = ?", (thread,)
        ).fetchone()
    return int(a) + int(b)


class SystemRun:
    """One system's agent (own model, checkpointer database and timing sandwich) and samples."""

    def __init__(self, system: str, root: Path, saver: SqliteSaver, db: Path) -> None:
        from deepagents.middleware.filesystem import FilesystemMiddleware

        self.system, self.db = system, db
        self.clock = Clock()
        self.model = ScriptedChatModel()
        self.agent = create_agent(
            self.model,
            [read_tool],
            system_prompt="You are a benchmark agent.",
            middleware=[
                FilesystemMiddleware(backend=_backend(root)),
                Outer(self.clock),
                *_skills_middleware(system, root),
                Inner(self.clock),
            ],
            checkpointer=saver,
        )
        self.out: dict[str, Any] = {
            "first": [],
            "later": [],
            "bytes_first": [],
            "bytes_later": [],
            "overhead": [],
            "state_bytes": 0,
        }

    def thread(self, name: str, turns: int, record: bool) -> None:
        """Run one conversation of ``turns`` turns (recorded unless it is a warm-up)."""
        config: Any = {"configurable": {"thread_id": f"{self.system}-{name}"}}
        for k in range(1, turns + 1):
            self.model.push(*_turn_script(self.system, k))
            before = _stored_bytes(self.db, config["configurable"]["thread_id"])
            self.clock.samples.clear()
            gc.collect()
            start = time.perf_counter()
            self.agent.invoke({"messages": [HumanMessage(f"turn {k}")]}, config)
            elapsed = time.perf_counter() - start
            if not record:
                continue
            stored = _stored_bytes(self.db, config["configurable"]["thread_id"]) - before
            self.out["first" if k == 1 else "later"].append(elapsed)
            self.out["bytes_first" if k == 1 else "bytes_later"].append(stored)
            self.out["overhead"].extend(self.clock.samples)
        if record:
            values = self.agent.get_state(config).values
            key = "skills_metadata" if self.system == "deepagents" else "skillcore"
            key = key if self.system != "none" else ""
            self.out["state_bytes"] = len(json.dumps(values.get(key))) if key else 0


def run_all(root: Path, threads: int, turns: int, tmp: Path) -> dict[str, dict[str, Any]]:
    """Warm every system up, then run their threads interleaved (load noise hits all alike)."""
    systems = ("none", "skillcore", THROTTLED, "deepagents")
    with contextlib.ExitStack() as stack:
        runs = []
        for i, system in enumerate(systems):
            db = tmp / f"system-{i}.sqlite"
            saver = stack.enter_context(SqliteSaver.from_conn_string(str(db)))
            saver.setup()
            runs.append(SystemRun(system, root, saver, db))
        for r in runs:  # imports, the process's first discovery, page cache
            r.thread("warmup", turns, record=False)
        for t in range(threads):
            for r in runs:
                r.thread(str(t), turns, record=True)
        return {r.system: r.out for r in runs}


def _med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0


def _p90(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=10, method="inclusive")[-1] if len(xs) >= 2 else _med(xs)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=3)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "skillcore-bench"
    )
    args = parser.parse_args(argv)

    root = args.cache / f"lib-{args.skills}"
    root = make_library(root, args.skills) if make_library else _tiny_library(root, args.skills)
    print(
        f"{args.skills} skills, {args.threads} threads x {args.turns} turns x 4 model calls; "
        f"langchain {metadata.version('langchain')}, deepagents {metadata.version('deepagents')}, "
        f"python {sys.version.split()[0]}\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        results = run_all(root, args.threads, args.turns, Path(tmp))

    rows = []
    for system, r in results.items():
        rows.append(
            {
                "system": system,
                "wrap_model_call µs (median)": f"{_med(r['overhead']) * 1e6:,.0f}",
                "p90 µs": f"{_p90(r['overhead']) * 1e6:,.0f}",
                "first turn ms": f"{_med(r['first']) * 1e3:,.1f}",
                "later turn ms": f"{_med(r['later']) * 1e3:,.1f}",
                "checkpoint B, first turn": f"{_med(r['bytes_first']):,.0f}",
                "checkpoint B, later turn": f"{_med(r['bytes_later']):,.0f}",
                "skills state B": f"{r.get('state_bytes', 0):,}",
            }
        )
    sc, da = results["skillcore"], results["deepagents"]

    def ratio(key: str) -> str:
        a, b = _med(da[key]), _med(sc[key])
        return f"{a / b:.1f}x" if b else "-"

    rows.append(
        {
            "system": "deepagents / skillcore",
            "wrap_model_call µs (median)": ratio("overhead"),
            "p90 µs": "",
            "first turn ms": ratio("first"),
            "later turn ms": ratio("later"),
            "checkpoint B, first turn": ratio("bytes_first"),
            "checkpoint B, later turn": ratio("bytes_later"),
            "skills state B": f"{da['state_bytes'] / sc['state_bytes']:.0f}x"
            if sc.get("state_bytes")
            else "-",
        }
    )
    print_table(rows)


if __name__ == "__main__":
    main()
