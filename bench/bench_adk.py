"""Google ADK benchmark: skillcore_adk.SkillToolset vs ADK's native SkillToolset.

Run from the repository root::

    python bench/bench_adk.py              # 1,000 skills
    python bench/bench_adk.py --n 300 --repeat 5

Both toolsets get the same synthetic library (``bench/synth.py``) and run in the same process
on the real ADK runtime with a scripted model (no network). Two things are measured:

- **first-turn discovery**: from nothing to the end of the first user turn in which the model
  has seen the skills -- building the toolset, discovering the library, the first model
  request. ADK's native toolset needs ``load_skills_from_dir`` first (it reads every resource
  file into memory); in its default LAZY mode the catalog is not in the prompt, so the model
  must spend a turn calling ``list_skills`` (timed as a second variant). EAGER injects the full
  catalog.
- **per-call overhead** on a warm toolset: the toolset's work before one model call
  (``get_tools`` + ``process_llm_request``), one ``load_skill`` call, one
  ``load_skill_resource`` call (each timed directly on a real ADK ``ToolContext``), and one
  whole runner turn (``load_skill`` then an answer) through ``InMemoryRunner``.

Prints a Markdown table with medians and the ratio skillcore / native (below 1 = faster).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import statistics
import sys
import time
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any

# skillcore's parse cache would turn every repeated discovery into stat checks: this
# benchmark compares parsing (the peers parse every time); bench_perf.py measures the cache.
os.environ.setdefault("SKILLCORE_NO_CACHE", "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import print_table  # noqa: E402

try:
    from synth import make_library
except ImportError:  # pragma: no cover - fallback when synth.py is absent

    def make_library(root: Path, n: int, seed: int = 0) -> Path:
        """Tiny local generator: ``n`` skills with one reference file each."""
        root = Path(root)
        for i in range(1, n + 1):
            d = root / f"skill-{i:05d}"
            (d / "references").mkdir(parents=True, exist_ok=True)
            (d / "SKILL.md").write_text(
                f"---\nname: skill-{i:05d}\ndescription: Synthetic skill {i} for benchmarks.\n"
                f"---\n\nInstructions of skill {i}.\n"
            )
            (d / "references" / "guide.md").write_text(f"Guide {i}.\n")
        return root


from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.agents.readonly_context import ReadonlyContext  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_request import LlmRequest  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.adk.skills import load_skills_from_dir  # noqa: E402
from google.adk.tools.base_toolset import BaseToolset  # noqa: E402
from google.adk.tools.skill_toolset import SkillDiscoveryMode  # noqa: E402
from google.adk.tools.skill_toolset import SkillToolset as AdkSkillToolset  # noqa: E402
from google.adk.tools.tool_context import ToolContext  # noqa: E402
from google.genai import types  # noqa: E402
from pydantic import Field  # noqa: E402

from skillcore_adk import SkillToolset  # noqa: E402

RESOURCE = "references/guide.md"
CALLS = 200  # timed runs of each per-call measurement


class Scripted(BaseLlm):
    """Replays steps (a list of (tool, args) or a text); remembers the last request."""

    model: str = "scripted"
    script: list[Any] = Field(default_factory=list)
    last: Any = None

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.last = llm_request
        step = self.script.pop(0) if self.script else "done"
        if isinstance(step, str):
            parts = [types.Part.from_text(text=step)]
        else:
            parts = [types.Part(function_call=types.FunctionCall(name=n, args=a)) for n, a in step]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def user() -> types.Content:
    return types.Content(role="user", parts=[types.Part.from_text(text="go")])


class Harness:
    """One agent + runner + session around a toolset."""

    def __init__(self, toolset: BaseToolset) -> None:
        self.toolset = toolset
        self.model = Scripted()
        self.agent = LlmAgent(name="bench", model=self.model, instruction="Hi.", tools=[toolset])
        self.runner = InMemoryRunner(agent=self.agent, app_name="bench")
        self.session_id = ""

    async def new_session(self) -> None:
        session = await self.runner.session_service.create_session(app_name="bench", user_id="u")
        self.session_id = session.id

    async def turn(self, *steps: Any) -> None:
        if not self.session_id:
            await self.new_session()
        self.model.script = list(steps)
        async for _ in self.runner.run_async(
            user_id="u", session_id=self.session_id, new_message=user()
        ):
            pass

    async def tool_context(self) -> ToolContext:
        """A real ToolContext of this harness's session (as ADK builds for a tool call)."""
        captured: list[Any] = []

        def grab(callback_context: Any, llm_request: Any) -> None:
            captured.append(callback_context._invocation_context)

        self.agent.before_model_callback = grab
        await self.turn("done")
        self.agent.before_model_callback = None
        return ToolContext(captured[0])

    def prompt_chars(self) -> int:
        si = self.model.last.config.system_instruction
        return len(si if isinstance(si, str) else str(si or ""))


async def interleaved(
    *fns: Callable[[], Awaitable[Any]], repeat: int, warmup: int = 1
) -> list[dict[str, float]]:
    """Time the coroutines in turns (a, b, a, b, ...) so machine-load drift hits all alike.

    Setup objects are moved out of the collector's reach first (``gc.freeze``), so a collection
    triggered inside a timed run does not walk a thousand preloaded skills.
    """
    for fn in fns:
        for _ in range(warmup):
            await fn()
    gc.collect()
    gc.freeze()
    times: list[list[float]] = [[] for _ in fns]
    try:
        for _ in range(repeat):
            for i, fn in enumerate(fns):
                start = time.perf_counter()
                await fn()
                times[i].append(time.perf_counter() - start)
    finally:
        gc.unfreeze()
    return [{"median": statistics.median(t), "runs": len(t)} for t in times]


async def bench(root: Path, n: int, rep: int) -> list[dict[str, Any]]:
    """All measurements, inside one long-lived task (as in a server), so worker threads that
    skillcore's file reads use stay warm between turns, as they do in production."""
    skill = f"skill-{max(1, n // 2):05d}"  # a skill in the middle of the library
    rows: list[dict[str, Any]] = []

    def row(what: str, ours: dict[str, Any], native: dict[str, Any], note: str = "") -> None:
        rows.append(
            {
                "measurement": what,
                "skillcore_adk (median)": _fmt(ours["median"]),
                "ADK native (median)": _fmt(native["median"]),
                "ratio": "-"
                if native["median"] != native["median"]
                else (f"{ours['median'] / native['median']:.2f}"),
                "note": note,
            }
        )

    # -- first-turn discovery ----------------------------------------------------------
    prompt: dict[str, int] = {}

    async def first_ours() -> None:
        h = Harness(SkillToolset(root))
        await h.turn("done")
        prompt["ours"] = h.prompt_chars()

    def first_native(mode: SkillDiscoveryMode) -> Callable[[], Awaitable[None]]:
        async def go() -> None:
            h = Harness(AdkSkillToolset(load_skills_from_dir(root), discovery_mode=mode))
            # LAZY: the model has to list the skills before it can pick one.
            lazy = mode is SkillDiscoveryMode.LAZY
            await h.turn(*([[("list_skills", {})]] if lazy else []), "done")
            prompt[mode.value] = h.prompt_chars()

        return go

    ours_first, eager_first, lazy_first = await interleaved(
        first_ours,
        first_native(SkillDiscoveryMode.EAGER),
        first_native(SkillDiscoveryMode.LAZY),
        repeat=rep,
    )
    row(
        "first turn (build + discover + model call)",
        ours_first,
        eager_first,
        f"native EAGER; prompt chars: ours {prompt['ours']:,}, native {prompt['eager']:,}",
    )
    row(
        "first turn, native LAZY (+ list_skills turn)",
        ours_first,
        lazy_first,
        f"native system prompt {prompt['lazy']:,} chars; catalog arrives as a tool result",
    )

    # -- per-call overhead on warm toolsets ----------------------------------------------
    ours = Harness(SkillToolset(root, max_loaded_skills=1_000))
    native = Harness(AdkSkillToolset(load_skills_from_dir(root)))
    tc_ours, tc_native = await ours.tool_context(), await native.tool_context()
    ctx_ours = ReadonlyContext(tc_ours._invocation_context)
    ctx_native = ReadonlyContext(tc_native._invocation_context)
    template = LlmRequest()

    def model_call(
        toolset: BaseToolset, tc: ToolContext, ctx: ReadonlyContext
    ) -> Callable[[], Awaitable[None]]:
        # Fresh requests are built before timing: constructing one costs more than the
        # toolsets' own work and is not part of it.
        requests = [template.model_copy(deep=True) for _ in range(CALLS + 1)]

        async def one() -> None:
            request = requests.pop()
            for tool in await toolset.get_tools(ctx):
                await tool.process_llm_request(tool_context=tc, llm_request=request)
            await toolset.process_llm_request(tool_context=tc, llm_request=request)

        return one

    row(
        "before each model call (get_tools + process_llm_request)",
        *await interleaved(
            model_call(ours.toolset, tc_ours, ctx_ours),
            model_call(native.toolset, tc_native, ctx_native),
            repeat=CALLS,
        ),
        "declarations + catalog; ours restores the session from state",
    )
    refresh = ours.toolset.library.arefresh  # type: ignore[attr-defined]
    row(
        "per-turn source refresh (ours only, once per invocation)",
        (await interleaved(refresh, repeat=rep * 3))[0],
        {"median": float("nan")},
        "re-lists the source, re-reads only changed SKILL.md files",
    )

    async def tool_by_name(toolset: BaseToolset, ctx: ReadonlyContext, name: str) -> Any:
        return next(t for t in await toolset.get_tools(ctx) if t.name == name)

    load_ours = await tool_by_name(ours.toolset, ctx_ours, "load_skill")
    load_native = await tool_by_name(native.toolset, ctx_native, "load_skill")
    res_ours = await tool_by_name(ours.toolset, ctx_ours, "load_skill_resource")
    res_native = await tool_by_name(native.toolset, ctx_native, "load_skill_resource")
    key = ours.toolset.state_key("bench")  # type: ignore[attr-defined]

    async def call_ours() -> Any:
        tc_ours.state[key] = None  # start unloaded each time, so every call really loads
        return await load_ours.run_async(args={"skill_name": skill}, tool_context=tc_ours)

    async def call_native() -> Any:
        return await load_native.run_async(args={"skill_name": skill}, tool_context=tc_native)

    first = await call_ours()
    assert "result" in first, first
    assert "instructions" in await call_native()
    row(
        "load_skill call",
        *await interleaved(call_ours, call_native, repeat=CALLS),
        "ours reads SKILL.md + lists files; native returns what it preloaded",
    )
    args_ours = {"skill_name": skill, "path": RESOURCE}
    args_native = {"skill_name": skill, "file_path": RESOURCE}

    async def resource_ours() -> Any:
        return await res_ours.run_async(args=args_ours, tool_context=tc_ours)

    async def resource_native() -> Any:
        return await res_native.run_async(args=args_native, tool_context=tc_native)

    assert "result" in await resource_ours()
    assert "content" in await resource_native()
    row(
        "load_skill_resource call",
        *await interleaved(resource_ours, resource_native, repeat=CALLS),
        "ours reads the file (confined, capped); native returns it from memory",
    )

    def e2e(h: Harness) -> Callable[[], Awaitable[None]]:
        async def go() -> None:
            # A new session each run: ADK's per-turn cost grows with the session's history.
            await h.new_session()
            await h.turn([("load_skill", {"skill_name": skill})], "done")

        return go

    steady = Harness(SkillToolset(root, refresh=False))
    ours_turn, steady_turn, native_turn = await interleaved(
        e2e(ours), e2e(steady), e2e(native), repeat=max(rep, 30)
    )
    row(
        "whole runner turn: load_skill + answer",
        ours_turn,
        native_turn,
        "InMemoryRunner, 2 model calls + 1 tool call; ours re-scans the source each turn",
    )
    row(
        "whole runner turn, refresh=False",
        steady_turn,
        native_turn,
        "the same without the per-turn re-scan",
    )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/skillcore-bench"))
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # ADK logs per model call; keep the table readable
    warnings.simplefilter("ignore")

    root = make_library(args.cache / f"adk-{args.n}", args.n)
    rows = asyncio.run(bench(root, args.n, args.repeat))
    print(f"\n### Google ADK: {args.n:,} skills (google-adk {_version()})\n")
    print_table(rows)
    print(
        "\nratio = skillcore_adk / ADK native (below 1 means skillcore_adk is faster). "
        "Ratios from one run are what to quote."
    )


def _fmt(seconds: float) -> str:
    if seconds != seconds:  # NaN
        return "-"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def _version() -> str:
    from importlib.metadata import version

    return version("google-adk")


if __name__ == "__main__":
    main()
