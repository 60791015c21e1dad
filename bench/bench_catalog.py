"""What each system costs per model call and per conversation, side by side.

Run from the repository root::

    python bench/bench_catalog.py                          # N = 100, 1,000 and 10,000
    python bench/bench_catalog.py --sizes 1000 --json /tmp/catalog.json

Systems, each driven through its own code path (only the LLM is left out):

- **skillcore**: ``SkillLibrary([root]).discover()``, then
  ``SkillToolkit(library).instructions(session)`` -- the text every adapter appends to the
  system prompt (default budget: 16,000 characters of catalog entries).
- **deepagents**: ``SkillsMiddleware(backend=FilesystemBackend(root_dir=root), sources=["/"])``;
  ``before_agent`` builds the state, then ``wrap_model_call`` (which runs ``modify_request``)
  on a real ``ModelRequest`` built from that state; the system message the handler receives is
  what deepagents sends.
- **ADK**: ``load_skills_from_dir`` + ``SkillToolset`` in its default LAZY mode and in EAGER
  mode; ``process_llm_request`` on a real ``LlmRequest`` with a real ``ToolContext`` (an
  ``InvocationContext`` over an ``InMemorySessionService`` session); the appended system
  instruction is measured. In LAZY mode the catalog reaches the model as the reply of a
  ``list_skills`` call instead, which stays in the conversation history; its size is reported.
- **skills-ref**: ``skills_ref.to_prompt(skill_dirs)``, which re-reads every ``SKILL.md`` on
  each call (the library keeps nothing between calls).

Measured per N and system, each system in its own fresh subprocess (so memory numbers are
comparable and no system warms another's caches; the page cache is warmed first):

- catalog characters added to the system prompt per model call;
- render time per model call: the first call after discovery, then the median (p10-p90) of
  repeated calls on an unchanged state. skillcore memoises rendering on the (immutable)
  session, so its repeated calls are cache hits; the peers rebuild the text on every call;
- bytes of state each system keeps per conversation (JSON), with 0 and 3 loaded skills;
- peak memory: growth of the process's peak RSS (Linux ``VmHWM``, reset through
  ``/proc/self/clear_refs`` just before discovery; ``ru_maxrss`` elsewhere) over the RSS right
  before discovery, through discovery and the first rendered catalog; plus what is still
  resident afterwards;
- import time of each package: ``import X`` timed inside a fresh ``python -c`` (interpreter
  start-up excluded), median of ``--import-runs`` rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from peers import version_of
from synth import make_library
from timing import format_table

# skillcore's parse cache would turn every repeated discovery into stat checks: this
# benchmark compares parsing (the peers parse every time); bench_perf.py measures the cache.
os.environ.setdefault("SKILLCORE_NO_CACHE", "1")

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SYSTEMS = ("skillcore", "deepagents", "adk", "skills-ref")
LOADED = 3  # skills loaded for the "state with loaded skills" column
BASE = "skillcore"
IMPORTS: dict[str, str] = {
    # module -> distribution whose version is reported
    "skillcore": "skillcore",
    "skillcore_langchain": "skillcore",
    "skillcore_adk": "skillcore",
    "skillcore_openai": "skillcore",
    "deepagents": "deepagents",
    "google.adk.tools.skill_toolset": "google-adk",
    "skills_ref": "skills-ref",
}

Record = dict[str, Any]


# --------------------------------------------------------------------------- statistics


def summary(times: Sequence[float]) -> dict[str, Any]:
    """Median, p10, p90, count and the raw ``times`` (seconds)."""
    if len(times) >= 2:
        deciles = statistics.quantiles(times, n=10, method="inclusive")
        p10, p90 = deciles[0], deciles[-1]
    else:
        p10 = p90 = times[0]
    return {
        "median": statistics.median(times),
        "p10": p10,
        "p90": p90,
        "runs": len(times),
        "times": list(times),
    }


def sample(call: Callable[[], Any], repeat: int, budget_s: float) -> list[float]:
    """Time ``call()`` up to ``repeat`` times back to back, stopping after ``budget_s`` seconds.

    One collection before the loop, none between calls: a full collection before each call
    (as :func:`timing.measure` does for long runs) evicts the CPU caches and turns a 0.5 µs
    call into a 30 µs one at N = 10,000, which would measure the collector, not the render.
    """
    gc.collect()
    times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
        if sum(times) >= budget_s:
            break
    return times


async def asample(call: Callable[[], Any], repeat: int, budget_s: float) -> list[float]:
    """:func:`sample` for a coroutine function, timed inside the running loop."""
    gc.collect()
    times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
        if sum(times) >= budget_s:
            break
    return times


# --------------------------------------------------------------------------- memory


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (Linux >= 4.0); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_kib() -> int:
    return _status_kib("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _rss_kib() -> int:
    return _status_kib("VmRSS") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _trim() -> bool:
    """Return freed heap to the OS (glibc ``malloc_trim``), so RSS shows live memory only."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
        return True
    except (OSError, AttributeError):
        return False


# --------------------------------------------------------------------------- systems
# Each runner works inside one fresh worker process: imports happen before the memory
# baseline, discovery and the first render happen inside the measured window.


def _skill_names(n: int) -> list[str]:
    """Names of the skills loaded for the state measurement (spread over the library)."""
    picks = sorted({1, max(1, n // 2), n})
    while len(picks) < min(LOADED, n):
        picks.append(next(i for i in range(1, n + 1) if i not in picks))
    return [f"skill-{i:05d}" for i in sorted(picks)[:LOADED]]


class Runner:
    """One system: ``discover`` then ``render`` (first call inside the memory window)."""

    name = ""

    def discover(self, root: Path) -> int:
        """Discover the library; return how many skills were found."""
        raise NotImplementedError

    def render(self) -> str:
        """Produce the text this system adds to the system prompt for one model call."""
        raise NotImplementedError

    def render_times(self, repeat: int, budget_s: float) -> list[float]:
        """Time repeated renders on an unchanged state."""
        return sample(self.render, repeat, budget_s)

    def rows(self, n: int, first_text: str) -> list[Record]:
        """Per-variant results besides timing (catalog size, state bytes, notes).

        A row may carry ``_variant`` (passed to :meth:`select` before its renders are timed)
        and its own ``first_render_s``.
        """
        raise NotImplementedError

    def select(self, variant: str | None) -> None:
        """Switch to a variant of this system (ADK's discovery modes); default: none."""


class SkillcoreRunner(Runner):
    """``SkillToolkit(library).instructions(session)``, budget 16,000 (the default)."""

    name = "skillcore"

    def __init__(self) -> None:
        try:
            import skillcore
        except ImportError:
            sys.path.insert(0, str(REPO / "src"))
            import skillcore
        self.sc = skillcore

    def discover(self, root: Path) -> int:
        self.library = self.sc.SkillLibrary([root])
        catalog = self.library.discover()
        self.toolkit = self.sc.SkillToolkit(self.library)
        self.session = self.library.session()
        return len(catalog.skills)

    def render(self) -> str:
        return self.toolkit.instructions(self.session)

    def rows(self, n: int, first_text: str) -> list[Record]:
        view = self.sc.catalog_view(self.session)
        session = self.session
        for name in _skill_names(n):
            result = self.toolkit.call(session, self.toolkit.names.load, {"skill_name": name})
            if not result.changed:
                raise RuntimeError(f"skillcore could not load {name}: {result.text}")
            session = result.session
        return [
            {
                "system": "skillcore",
                "catalog_chars": len(first_text),
                "listed": len(view.shown),
                "catalog_chars_loaded": len(self.toolkit.instructions(session)),
                "state_bytes_0": len(json.dumps(self.session.to_state())),
                "state_bytes_loaded": len(json.dumps(session.to_state())),
                "state_what": "session.to_state(): names + resource listings of loaded skills",
            }
        ]


class DeepagentsRunner(Runner):
    """``SkillsMiddleware.before_agent`` then ``wrap_model_call`` on a real ModelRequest."""

    name = "deepagents"

    def __init__(self) -> None:
        from deepagents.backends import FilesystemBackend
        from deepagents.middleware.skills import SkillsMiddleware
        from langchain.agents.middleware.types import ModelRequest, ModelResponse
        from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        from langchain_core.messages import AIMessage, HumanMessage

        self.backend_cls = FilesystemBackend
        self.middleware_cls = SkillsMiddleware
        self.request_cls = ModelRequest
        self.response = ModelResponse(result=[AIMessage("ok")])
        # Only needed to fill ModelRequest.model; the handler below never calls it.
        self.model = GenericFakeChatModel(messages=iter(()))
        self.messages = [HumanMessage("Summarize the attached report.")]

    def discover(self, root: Path) -> int:
        backend = self.backend_cls(root_dir=root)
        self.middleware = self.middleware_cls(backend=backend, sources=["/"])
        update = self.middleware.before_agent({"messages": self.messages}, None, None)  # type: ignore[arg-type]
        assert update is not None
        self.update = dict(update)
        # The agent state after before_agent, as LangGraph would pass it to the model node.
        self.state = {"messages": self.messages, **self.update}
        self.request = self.request_cls(
            model=self.model, messages=self.messages, state=self.state, tools=[]
        )
        return len(self.update["skills_metadata"])

    def render(self) -> str:
        seen: list[Any] = []

        def handler(request: Any) -> Any:
            seen.append(request)
            return self.response

        self.middleware.wrap_model_call(self.request, handler)
        return seen[0].system_message.text

    def rows(self, n: int, first_text: str) -> list[Record]:
        meta = len(json.dumps(self.update["skills_metadata"]))
        return [
            {
                "system": "deepagents",
                "catalog_chars": len(first_text),
                "listed": len(self.update["skills_metadata"]),
                "catalog_chars_loaded": len(first_text),
                "state_bytes_0": meta,
                # Reading a skill is a plain read_file call: nothing about it enters state.
                "state_bytes_loaded": meta,
                "state_what": "skills_metadata (every skill's frontmatter); no loaded-state",
                "state_bytes_update": len(json.dumps(self.update)),
            }
        ]


class AdkRunner(Runner):
    """ADK ``SkillToolset.process_llm_request``, LAZY (default) and EAGER discovery modes."""

    name = "adk"

    def __init__(self) -> None:
        from google.adk.agents import LlmAgent
        from google.adk.agents.invocation_context import InvocationContext
        from google.adk.models.llm_request import LlmRequest
        from google.adk.sessions import InMemorySessionService
        from google.adk.skills import load_skills_from_dir
        from google.adk.tools.skill_toolset import SkillDiscoveryMode, SkillToolset
        from google.adk.tools.tool_context import ToolContext

        self.agent_cls = LlmAgent
        self.context_cls = InvocationContext
        self.request_cls = LlmRequest
        self.service_cls = InMemorySessionService
        self.load = load_skills_from_dir
        self.modes = SkillDiscoveryMode
        self.toolset_cls = SkillToolset
        self.tool_context_cls = ToolContext
        self.loop = asyncio.new_event_loop()
        self.mode = SkillDiscoveryMode.LAZY

    def _context(self, toolset: Any) -> Any:
        """A real ToolContext: an InvocationContext of a fresh in-memory session."""
        agent = self.agent_cls(name="bench", instruction="", tools=[toolset])
        service = self.service_cls()
        session = self.loop.run_until_complete(
            service.create_session(app_name="bench", user_id="u")
        )
        ctx = self.context_cls(
            session_service=service, invocation_id="e-bench", agent=agent, session=session
        )
        return self.tool_context_cls(ctx)

    def discover(self, root: Path) -> int:
        skills = self.load(root)
        self.toolsets = {
            mode: self.toolset_cls(skills=skills, discovery_mode=mode) for mode in self.modes
        }
        self.contexts = {mode: self._context(ts) for mode, ts in self.toolsets.items()}
        return len(self.toolsets[self.mode]._skills)  # no public accessor

    async def _arender(self, mode: Any, request: Any) -> str:
        await self.toolsets[mode].process_llm_request(
            tool_context=self.contexts[mode], llm_request=request
        )
        return str(request.config.system_instruction or "")

    def render(self) -> str:
        return self.loop.run_until_complete(self._arender(self.mode, self.request_cls()))

    def render_times(self, repeat: int, budget_s: float) -> list[float]:
        # Requests are built beforehand (process_llm_request appends to them in place) and
        # calls are timed inside the event loop, so neither is counted.
        requests = [self.request_cls() for _ in range(repeat)]

        async def one() -> None:
            await self._arender(self.mode, requests.pop())

        return self.loop.run_until_complete(asample(one, repeat, budget_s))

    def _state_after_loads(self, n: int) -> tuple[int, int]:
        """JSON bytes of the ``_adk_*`` session-state keys with 0 and with 3 loaded skills."""
        toolset = self.toolsets[self.mode]
        ctx = self._context(toolset)
        before = {k: v for k, v in ctx.state.to_dict().items() if k.startswith("_adk_")}
        tool = next(t for t in toolset._tools if t.name == "load_skill")
        for name in _skill_names(n):
            reply = self.loop.run_until_complete(
                tool.run_async(args={"skill_name": name}, tool_context=ctx)
            )
            if "error" in reply:
                raise RuntimeError(f"ADK could not load {name}: {reply}")
        after = {k: v for k, v in ctx.state.to_dict().items() if k.startswith("_adk_")}
        return (len(json.dumps(before)) if before else 0), len(json.dumps(after))

    def rows(self, n: int, first_text: str) -> list[Record]:
        state0, state3 = self._state_after_loads(n)
        lazy = self.toolsets[self.modes.LAZY]
        list_tool = next(t for t in lazy._tools if t.name == "list_skills")
        listing = self.loop.run_until_complete(
            list_tool.run_async(args={}, tool_context=self.contexts[self.modes.LAZY])
        )
        out: list[Record] = []
        for mode in (self.modes.LAZY, self.modes.EAGER):
            lazy_mode = mode is self.modes.LAZY
            self.mode = mode
            start = time.perf_counter()
            text = first_text if lazy_mode else self.render()
            first: dict[str, float] = (
                {} if lazy_mode else {"first_render_s": time.perf_counter() - start}
            )
            out.append(
                {
                    **first,
                    "_variant": mode.value,
                    "system": f"ADK SkillToolset ({mode.value})",
                    "catalog_chars": len(text),
                    "listed": 0 if lazy_mode else n,
                    "catalog_chars_loaded": len(text),
                    "state_bytes_0": state0,
                    "state_bytes_loaded": state3,
                    "state_what": "_adk_activated_skill_<agent>: names of loaded skills",
                    # LAZY: the model must call list_skills; its reply (the whole catalog as
                    # XML) then stays in the history sent with every later model call.
                    "list_skills_reply_chars": len(listing) if lazy_mode else None,
                }
            )
        return out

    def select(self, variant: str | None) -> None:
        if variant:
            self.mode = self.modes(variant)


class SkillsRefRunner(Runner):
    """``skills_ref.to_prompt`` over every skill directory (re-reads all files each call)."""

    name = "skills-ref"

    def __init__(self) -> None:
        from skills_ref import find_skill_md, to_prompt

        self.find = find_skill_md
        self.to_prompt = to_prompt

    def discover(self, root: Path) -> int:
        # The directory scan to_prompt needs; the frontmatter is only read by to_prompt itself.
        self.dirs = [e for e in sorted(root.iterdir()) if e.is_dir() and self.find(e)]
        return len(self.dirs)

    def render(self) -> str:
        return self.to_prompt(self.dirs)

    def rows(self, n: int, first_text: str) -> list[Record]:
        return [
            {
                "system": "skills-ref",
                "catalog_chars": len(first_text),
                "listed": first_text.count("<skill>"),
                "catalog_chars_loaded": len(first_text),
                "state_bytes_0": 0,
                "state_bytes_loaded": 0,
                "state_what": "none (stateless; the caller keeps the prompt string)",
            }
        ]


RUNNERS: dict[str, type[Runner]] = {
    "skillcore": SkillcoreRunner,
    "deepagents": DeepagentsRunner,
    "adk": AdkRunner,
    "skills-ref": SkillsRefRunner,
}
DISTS = {"deepagents": "deepagents", "adk": "google-adk", "skills-ref": "skills-ref"}


def worker(system: str, root: Path, n: int, repeat: int, budget_s: float) -> list[Record]:
    """Measure one system on one library inside this (fresh) process."""
    import logging

    logging.disable(logging.WARNING)  # peers log per call; keep stderr readable
    warnings.simplefilter("ignore")
    runner = RUNNERS[system]()  # imports happen here, before the memory baseline
    gc.collect()
    rss_before = _rss_kib()
    method = "VmHWM after clear_refs" if _reset_peak() else "ru_maxrss"
    peak_before = _peak_kib()
    start = time.perf_counter()
    found = runner.discover(root)
    discover_s = time.perf_counter() - start
    start = time.perf_counter()
    first_text = runner.render()
    first_render_s = time.perf_counter() - start
    peak_after = _peak_kib()
    gc.collect()
    # Without the trim, glibc keeps discovery's freed garbage resident (34 of 55 MiB for
    # skillcore at N = 10,000), which would hide what each system really keeps.
    trimmed = _trim()
    retained = _rss_kib() - rss_before
    shared = {
        "n": n,
        "found": found,
        "discover_s": discover_s,
        "memory_method": method,
        "rss_before_kib": rss_before,
        # Without a reset, a peak reached while importing would hide a lower discovery peak.
        "peak_kib": peak_after - rss_before
        if peak_after > peak_before or method != "ru_maxrss"
        else None,
        "retained_kib": retained,
        "retained_trimmed": trimmed,
    }
    records = []
    for row in runner.rows(n, first_text):
        runner.select(row.pop("_variant", None))
        first = row.pop("first_render_s", first_render_s)
        # Skip repeats when one call already used the whole budget (skills-ref at large N):
        # every call does the same work, so the first call is the sample.
        times = runner.render_times(repeat, budget_s) if first < budget_s else [first]
        records.append({**shared, **row, "first_render_s": first, "render": summary(times)})
    return records


# --------------------------------------------------------------------------- orchestration


def _warm_page_cache(root: Path) -> None:
    """Read every file once so no system pays for cold disk reads the others do not."""
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as fh:
                while fh.read(1 << 20):
                    pass


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # A plain checkout works too: the repository's src/ backs up the installed package.
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (env.get("PYTHONPATH"), str(REPO / "src"), str(HERE)) if p
    )
    return env


def run_worker(system: str, root: Path, n: int, repeat: int, budget_s: float) -> list[Record]:
    """Run :func:`worker` in a fresh interpreter; return its records (or one error record)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", system]
        cmd += ["--root", str(root), "--n", str(n), "--out", str(out)]
        cmd += ["--repeat", str(repeat), "--budget", str(budget_s)]
        proc = subprocess.run(
            cmd, env=_child_env(), capture_output=True, text=True, timeout=1_800, check=False
        )
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return [{"system": system, "n": n, "error": tail[:200]}]
        return json.loads(out.read_text(encoding="utf-8"))


def measure_imports(runs: int) -> list[Record]:
    """Median time of ``import X`` in fresh interpreters, packages interleaved per round."""
    code = (
        "import sys, time\nt = time.perf_counter()\nimport {m}\n"
        "sys.stdout.write(repr(time.perf_counter() - t))"
    )
    times: dict[str, list[float]] = {m: [] for m in IMPORTS}
    errors: dict[str, str] = {}
    for _ in range(runs):
        for module in IMPORTS:
            if module in errors:
                continue
            proc = subprocess.run(
                [sys.executable, "-c", code.format(m=module)],
                env=_child_env(),
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                errors[module] = (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]
                continue
            times[module].append(float(proc.stdout))
    records = []
    for module, dist in IMPORTS.items():
        rec: Record = {"module": module, "version": version_of(dist)}
        if module in errors:
            rec["error"] = errors[module]
        else:
            rec.update(summary(times[module]))
        records.append(rec)
    return records


# --------------------------------------------------------------------------- reporting


def _ms(seconds: float) -> str:
    if seconds < 0.001:
        return f"{seconds * 1e6:,.1f} µs"
    return f"{seconds * 1000:,.1f} ms"


def _ratio(value: float | None, base: float | None) -> str:
    if value is None or not base:
        return ""
    ratio = value / base
    return f"{ratio:,.0f}x" if ratio >= 100 else f"{ratio:,.1f}x"


def _mib(kib: int | None) -> str:
    # Clamped: at small N the trim can return more import-time garbage than discovery adds.
    return "n/a" if kib is None else f"{max(kib, 0) / 1024:,.1f}"


def _by(records: list[Record], n: int) -> dict[str, Record]:
    return {r["system"]: r for r in records if r.get("n") == n}


def tables(results: list[Record], imports: list[Record], sizes: Sequence[int]) -> str:
    """Markdown tables of every measurement."""
    out: list[str] = []
    systems = list(dict.fromkeys(r["system"] for r in results))

    def add(title: str, rows: list[Mapping[str, object]], note: str = "") -> None:
        out.append(f"### {title}\n")
        if note:
            out.append(note + "\n")
        out.append(format_table(rows) + "\n")

    rows: list[Mapping[str, object]] = []
    for name in systems:
        row: dict[str, object] = {"system": name}
        for n in sizes:
            rec, base = _by(results, n).get(name), _by(results, n).get(BASE)
            if rec is None or "error" in rec:
                row[f"N={n:,}"] = (rec or {}).get("error", "")[:40]
                continue
            ratio = _ratio(rec["catalog_chars"], base and base.get("catalog_chars"))
            row[f"N={n:,}"] = f"{rec['catalog_chars']:,} ({rec['listed']:,} listed; {ratio})"
        rows.append(row)
    add(
        "Catalog added to the system prompt per model call (characters)",
        rows,
        "Ratio vs skillcore in parentheses. skillcore lists what fits in its 16,000-character "
        "budget and points the model at `search_skills` for the rest. ADK LAZY adds only its "
        "usage instructions; the model must first call `list_skills`, whose reply (see the "
        "state table) then stays in every later request's history.",
    )

    rows = []
    for n in sizes:
        recs = _by(results, n)
        base = recs.get(BASE, {}).get("render", {}).get("median")
        for name in systems:
            rec = recs.get(name)
            if rec is None or "error" in rec:
                continue
            r = rec["render"]
            rows.append(
                {
                    "N": f"{n:,}",
                    "system": name,
                    "first call": _ms(rec["first_render_s"]),
                    "per call (median)": _ms(r["median"]),
                    "p10-p90": f"{_ms(r['p10'])} - {_ms(r['p90'])}",
                    "runs": r["runs"],
                    "x skillcore": _ratio(r["median"], base),
                }
            )
    add(
        "Render time per model call",
        rows,
        "Repeated calls on an unchanged state. skillcore memoises the rendered catalog on the "
        "immutable session (a cache hit per call; the first call renders). deepagents "
        "re-formats every skill's entry on each call, ADK re-formats its instructions (EAGER: "
        "and the XML catalog), skills-ref re-reads and re-parses every SKILL.md (a caller could "
        "cache its string). One sample when a single call exceeds the time budget.",
    )

    rows = []
    for name in systems:
        row = {"system": name}
        for n in sizes:
            rec = _by(results, n).get(name)
            if rec is None or "error" in rec:
                continue
            row[f"N={n:,}: 0 / {LOADED} loaded"] = (
                f"{rec['state_bytes_0']:,} / {rec['state_bytes_loaded']:,}"
            )
        last = _by(results, sizes[-1]).get(name, {})
        row["what is stored"] = last.get("state_what", "")
        if last.get("list_skills_reply_chars"):
            row["what is stored"] += (
                f"; list_skills reply in history: {last['list_skills_reply_chars']:,} chars"
            )
        rows.append(row)
    add(
        "State kept per conversation (JSON bytes)",
        rows,
        "What each system writes into agent/session state (checkpointed with every "
        "conversation), not counting the messages themselves.",
    )

    rows = []
    for n in sizes:
        recs = _by(results, n)
        base = recs.get(BASE, {}).get("peak_kib")
        seen: set[str] = set()
        for name in systems:
            rec = recs.get(name)
            if rec is None or "error" in rec:
                continue
            label = name.split(" (")[0]  # ADK's two modes share one discovery
            if label in seen:
                continue
            seen.add(label)
            rows.append(
                {
                    "N": f"{n:,}",
                    "system": label,
                    "peak RSS growth MiB": _mib(rec["peak_kib"]),
                    "live after MiB": _mib(rec["retained_kib"]),
                    "x skillcore (peak)": _ratio(rec["peak_kib"], base),
                    "discovery in fresh process": _ms(rec["discover_s"]),
                    "found": rec["found"],
                }
            )
    method = next((r["memory_method"] for r in results if "memory_method" in r), "")
    add(
        "Peak memory of discovery + first catalog (fresh subprocess per system)",
        rows,
        f"Peak RSS during discovery and the first render, minus RSS just before ({method}); "
        "imports excluded. *Live after*: RSS growth once the objects each system keeps are "
        "all that is left (after `gc.collect()` and glibc `malloc_trim`). skills-ref's "
        "discovery is its directory scan; its first `to_prompt` reads the files.",
    )

    base_imp = next((r.get("median") for r in imports if r["module"] == BASE), None)
    rows = [
        {
            "module": r["module"],
            "version": r["version"],
            "median": _ms(r["median"]) if "median" in r else r.get("error", ""),
            "p10-p90": f"{_ms(r['p10'])} - {_ms(r['p90'])}" if "median" in r else "",
            "runs": r.get("runs", 0),
            "x skillcore": _ratio(r.get("median"), base_imp),
        }
        for r in imports
    ]
    if rows:
        add(
            "Import time (fresh interpreter, start-up excluded)",
            rows,
            "The adapters import their framework (langchain, google.adk), which dominates.",
        )
    return "\n".join(out)


def machine() -> dict[str, Any]:
    """The machine and versions the numbers come from."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "libyaml": bool(yaml.__with_libyaml__),
        "versions": {d: version_of(d) for d in ("skillcore", *DISTS.values())},
    }


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1_000, 10_000])
    parser.add_argument("--systems", nargs="+", choices=SYSTEMS, default=list(SYSTEMS))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/skillcore-bench"))
    parser.add_argument("--repeat", type=int, default=50, help="render calls per system")
    parser.add_argument(
        "--budget", type=float, default=3.0, help="seconds of repeated render calls per system"
    )
    parser.add_argument("--import-runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write raw results (seconds, KiB) here")
    # Internal: one system in a fresh process.
    parser.add_argument("--worker", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        records = worker(args.worker, args.root, args.n, args.repeat, args.budget)
        args.out.write_text(json.dumps(records), encoding="utf-8")
        return

    meta = machine()
    print(
        f"Python {meta['python']} on {meta['platform']}, {meta['cpus']} CPUs; "
        + ", ".join(f"{k} {v}" for k, v in meta["versions"].items())
    )
    results: list[Record] = []
    for n in args.sizes:
        root = make_library(args.cache / f"lib-{n}", n)
        _warm_page_cache(root)
        for system in args.systems:
            print(f"  N={n:,}: {system} ...", file=sys.stderr, flush=True)
            results.extend(run_worker(system, root, n, args.repeat, args.budget))
    print(f"  imports x{args.import_runs} ...", file=sys.stderr, flush=True)
    imports = measure_imports(args.import_runs) if args.import_runs > 0 else []
    for rec in results:
        if "error" in rec:
            print(f"  error: {rec['system']} N={rec['n']}: {rec['error']}", file=sys.stderr)
    print()
    print(tables(results, imports, args.sizes))
    if args.json:
        payload = {"meta": meta, "results": results, "imports": imports}
        args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
