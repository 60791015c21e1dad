"""Skills in deepagents backends: skillcore's SkillsMiddleware vs deepagents' own, one turn.

Run from the repository root::

    python bench/bench_deepagents.py                          # N = 100 and 1,000, 5 runs each
    python bench/bench_deepagents.py --sizes 100 --runs 2 --json /tmp/deepagents.json

A synthetic library (``bench/synth.py``: ~3.5 KB ``SKILL.md``, a reference on every skill, a
script and an asset on every third) is put under ``/skills/`` in

- a ``StateBackend``: the files are in the graph's initial state (``files``), so they are part
  of the thread's checkpoint whatever the skills middleware does;
- a ``StoreBackend`` on LangGraph's ``InMemoryStore`` (uploaded once, outside the timings).

Each system runs in ``deepagents.create_deep_agent(backend=..., middleware=[...])`` with a
scripted chat model and an ``InMemorySaver``; only the skills middleware differs:
``deepagents.middleware.skills.SkillsMiddleware(backend=..., sources=["/skills/"])`` or
skillcore's ``SkillsMiddleware(backend=..., sources=["/skills/"])`` (``none``: no skills
middleware, the floor). One turn is two model calls: open a skill (skillcore: ``load_skill``;
deepagents and ``none``: ``read_file`` of its ``SKILL.md``, as deepagents' prompt instructs),
then a final answer.

Measured, per run (a new middleware, agent and saver; medians over ``--runs``):

- **prompt chars**: characters of the system message on the first model call;
- **state B**: the thread's saved state after the turn (``agent.get_state(config).values``,
  every channel) serialised with the saver's own serde (``saver.serde.dumps_typed``), and
  **saver B**: every byte the saver holds for the thread (all checkpoints, channel blobs and
  pending writes);
- **1st / 2nd call µs**: two timing middleware sandwich the skills middleware; the time spent
  outside the inner one and inside the outer one is its own work in ``wrap_model_call``, for
  the first and the second model call of the turn (the hooks before the first model call,
  such as ``before_agent``, are outside the sandwich and only in the turn time);
- **first turn ms**: wall time of ``invoke`` for the first turn of the new agent (the skills
  are discovered in it), and of a second thread on the same agent.

The ratio rows are deepagents / skillcore from the same run. Systems run interleaved, run by
run, so background load hits all alike.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from lc_timing import Clock, Inner, Outer
from synth import make_library
from timing import print_table

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from skillcore_langchain import SkillsMiddleware  # noqa: E402
from skillcore_langchain.testing import ScriptedChatModel, tool_calls  # noqa: E402

SYSTEMS = ("none", "skillcore", "deepagents")
BACKENDS = ("StateBackend", "StoreBackend")
SOURCES = ["/skills/"]
NAMESPACE = ("bench-skills",)


# -- the library in each backend ----------------------------------------------------------------


def library_files(root: Path) -> dict[str, bytes]:
    """Every file of the synthetic library at ``root``, keyed by its backend path."""
    return {
        "/skills/" + p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.startswith(".")
    }


class Setup:
    """One backend holding the library: how to build the backend and the run's input."""

    def __init__(self, kind: str, files: dict[str, bytes]) -> None:
        from deepagents.backends import StoreBackend
        from deepagents.backends.utils import create_file_data
        from langgraph.store.memory import InMemoryStore

        self.kind = kind
        self.state_files: dict[str, Any] = {}
        self.store: Any = None
        if kind == "StateBackend":
            self.state_files = {p: create_file_data(d.decode()) for p, d in files.items()}
        else:
            self.store = InMemoryStore()
            backend = StoreBackend(store=self.store, namespace=lambda _rt: NAMESPACE)
            bad = [r for r in backend.upload_files(list(files.items())) if r.error]
            if bad:
                raise RuntimeError(f"upload failed: {bad[:3]}")

    def backend(self) -> Any:
        from deepagents.backends import StateBackend, StoreBackend

        if self.kind == "StateBackend":
            return StateBackend()
        return StoreBackend(store=self.store, namespace=lambda _rt: NAMESPACE)

    def inputs(self, text: str) -> dict[str, Any]:
        out: dict[str, Any] = {"messages": [HumanMessage(text)]}
        if self.state_files:
            out["files"] = dict(self.state_files)
        return out


def _skills(system: str, backend: Any) -> list[AgentMiddleware]:
    if system == "skillcore":
        return [SkillsMiddleware(backend=backend, sources=SOURCES)]
    if system == "deepagents":
        from deepagents.middleware.skills import SkillsMiddleware as DeepSkills

        return [DeepSkills(backend=backend, sources=SOURCES)]
    return []


def _script(system: str) -> list[AIMessage]:
    skill = "skill-00001"
    if system == "skillcore":
        first = tool_calls(("load_skill", {"skill_name": skill}))
    else:
        first = tool_calls(("read_file", {"file_path": f"/skills/{skill}/SKILL.md"}))
    return [first, AIMessage(content="done")]


def saver_bytes(saver: InMemorySaver, thread: str) -> int:
    """Every serialised byte ``saver`` holds for ``thread``."""
    total = 0
    for checkpoints in saver.storage.get(thread, {}).values():
        for cp, meta, _parent in checkpoints.values():
            total += len(cp[1]) + len(meta[1])
    for key, blob in saver.blobs.items():
        if key[0] == thread:
            total += len(blob[1])
    for key, writes in saver.writes.items():
        if key[0] == thread:
            total += sum(len(w[2][1]) for w in writes.values())
    return total


def state_bytes(agent: Any, saver: InMemorySaver, config: Any) -> int:
    """The thread's saved state (every channel value) serialised with the saver's serde."""
    return len(saver.serde.dumps_typed(agent.get_state(config).values)[1])


def one_run(system: str, setup: Setup) -> dict[str, float]:
    """A new agent, its first turn, then a second thread on the same agent."""
    from deepagents import create_deep_agent

    clock = Clock()
    model = ScriptedChatModel()
    saver = InMemorySaver()
    backend = setup.backend()
    agent = create_deep_agent(
        model=model,
        backend=backend,
        middleware=[Outer(clock), *_skills(system, backend), Inner(clock)],
        checkpointer=saver,
    )
    out: dict[str, float] = {}
    for thread in ("first", "second"):
        model.push(*_script(system))
        calls = len(model.requests)
        config: Any = {"configurable": {"thread_id": thread}}
        gc.collect()
        start = time.perf_counter()
        agent.invoke(setup.inputs("use skill-00001"), config)
        out[f"turn_{thread}"] = time.perf_counter() - start
        if thread == "first":
            out["prompt_chars"] = len(model.system(calls))
            out["checkpoint"] = state_bytes(agent, saver, config)
            out["saver"] = saver_bytes(saver, thread)
            out["call_1"], out["call_2"] = clock.samples[0], clock.samples[-1]
    return out


def bench(sizes: list[int], runs: int, cache: Path) -> list[dict[str, Any]]:
    """Every (N, backend, system) with ``runs`` runs each (after one warm-up)."""
    results = []
    for n in sizes:
        files = library_files(make_library(cache / f"lib-{n}", n))
        for kind in BACKENDS:
            setup = Setup(kind, files)
            samples: dict[str, list[dict[str, float]]] = {s: [] for s in SYSTEMS}
            for system in SYSTEMS:  # imports, first graph build
                one_run(system, setup)
            for _ in range(runs):
                for system in SYSTEMS:
                    samples[system].append(one_run(system, setup))
            for system in SYSTEMS:
                rows = samples[system]
                results.append(
                    {
                        "n": n,
                        "backend": kind,
                        "system": system,
                        "files": len(files),
                        "runs": runs,
                        **{k: statistics.median(r[k] for r in rows) for k in rows[0]},
                    }
                )
    return results


def _ratio(a: float, b: float) -> str:
    if not b:
        return "-"
    return f"{a / b:.2f}x" if a < b else f"{a / b:.1f}x"


def table(results: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Markdown rows: every system, then deepagents / skillcore per (N, backend)."""
    rows = []
    keys = (
        ("prompt chars", "prompt_chars", "{:,.0f}"),
        ("state B", "checkpoint", "{:,.0f}"),
        ("saver B", "saver", "{:,.0f}"),
        ("1st call µs", "call_1", None),
        ("2nd call µs", "call_2", None),
        ("first turn ms", "turn_first", None),
        ("new thread ms", "turn_second", None),
    )

    def fmt(key: str, value: float, spec: str | None) -> str:
        if spec:
            return spec.format(value)
        return f"{value * 1e6:,.0f}" if key.startswith("call") else f"{value * 1e3:,.1f}"

    by = {(r["n"], r["backend"], r["system"]): r for r in results}
    for n, kind in dict.fromkeys((r["n"], r["backend"]) for r in results):
        for system in SYSTEMS:
            r = by[(n, kind, system)]
            row = {"N": f"{n:,}", "skills in": kind, "system": system}
            row |= {label: fmt(key, r[key], spec) for label, key, spec in keys}
            rows.append(row)
        da, sc = by[(n, kind, "deepagents")], by[(n, kind, "skillcore")]
        row = {"N": f"{n:,}", "skills in": kind, "system": "**deepagents / skillcore**"}
        row |= {label: _ratio(da[key], sc[key]) for label, key, _ in keys}
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "skillcore-bench"
    )
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    results = bench(args.sizes, args.runs, args.cache)
    versions = {d: metadata.version(d) for d in ("deepagents", "langchain", "langgraph")}
    print(
        f"one turn (2 model calls) of create_deep_agent, InMemorySaver; median of {args.runs} "
        f"runs; {', '.join(f'{d} {v}' for d, v in versions.items())}, "
        f"python {sys.version.split()[0]}\n"
    )
    print_table(table(results))
    print(f"\n_{time.perf_counter() - started:.0f} s in all._")
    if args.json:
        args.json.write_text(json.dumps({"versions": versions, "results": results}, indent=1))


if __name__ == "__main__":
    main()
