"""Discovery benchmark: skillcore vs. the peers' real discovery code on one synthetic library.

Run from the repository root::

    python bench/bench_discovery.py                 # N = 1,000 and 10,000
    python bench/bench_discovery.py --sizes 1000 --json /tmp/discovery.json

For each N it builds (or reuses) a synthetic library under ``--cache``, warms the page cache and
every system's imports, then times each system and prints a Markdown table: median wall time,
the p10-p90 spread, and the ratio to the plain ``os.scandir`` + libyaml loop measured in the
same run. Small sizes get 7 runs after a warm-up; large sizes get at most 3 runs and a time
budget per system, so the default suite stays within about three minutes on two cores.

Warm vs. cold: the timings above are *warm* (repeated discovery in one long-lived process, after
a warm-up run). *Cold* is the first discovery in a fresh interpreter: the system's package is
imported (timed separately, reported as "+ import"), then the first call is timed, so one-time
costs such as lazy imports inside the call, compiled regexes, pydantic schema builds and the
first YAML loader set-up are included. The page cache stays warm (nothing is dropped), so cold
measures the process, not the disk. Cold runs ``--cold-runs`` fresh processes per system
(median) at sizes up to ``--cold-max-n``; at larger sizes the per-skill work dominates and the
one-time costs disappear in the noise.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from peers import BASELINES, PEERS, DiscoverFn, version_of
from synth import make_library
from timing import Measurement, measure, print_table

# skillcore's parse cache would turn every repeated discovery into stat checks: this
# benchmark compares parsing (the peers parse every time); bench_perf.py measures the cache.
os.environ.setdefault("SKILLCORE_NO_CACHE", "1")

REPO = Path(__file__).resolve().parent.parent
PLAIN = "plain loop (head + CSafeLoader)"
SMALL_N = 2_000  # at or below: full repeats with a warm-up; above: capped repeats + budget
SKILLCORE = "skillcore SkillLibrary.discover"
# What a fresh process imports before its first (cold) discovery; the import is timed apart.
# (The benchmark itself imports PyYAML, so the baselines' import shows as ~0.)
COLD_IMPORTS: dict[str, tuple[str, ...]] = {
    "plain loop (head + CSafeLoader)": ("yaml",),
    "pure-Python loop (whole file + safe_load)": ("yaml",),
    "deepagents SkillsMiddleware.before_agent": ("deepagents.middleware.skills",),
    "deepagents SkillsMiddleware.abefore_agent": ("deepagents.middleware.skills",),
    "ADK load_skills_from_dir + SkillToolset": ("google.adk.tools.skill_toolset",),
    "ADK list_skills_in_dir": ("google.adk.skills",),
    "skills-ref read_properties": ("skills_ref",),
    SKILLCORE: ("skillcore",),
}


# --------------------------------------------------------------------------- skillcore hook
# HOOK: skillcore is measured only if it imports and exposes SkillLibrary; otherwise the
# benchmark runs with the peers alone. The repository's src/ is tried when skillcore is not
# installed, so the benchmark works from a plain checkout.


def _count(result: object) -> int:
    """Number of skills in whatever ``discover()`` returns (a catalog or a collection)."""
    skills = getattr(result, "skills", result)
    return len(skills)  # type: ignore[arg-type]


def skillcore_discover() -> tuple[DiscoverFn, str] | None:
    """Return ``(fn, version)`` timing ``skillcore.SkillLibrary([root]).discover()``, or None."""
    try:
        try:
            import skillcore
        except ImportError:
            sys.path.insert(0, str(REPO / "src"))
            import skillcore
        library_cls: Any = skillcore.SkillLibrary
    except (ImportError, AttributeError):
        return None
    except Exception as exc:  # a half-written core must not stop the peer benchmark
        print(f"  skipped skillcore: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None

    def run(root: Path) -> int:
        return _count(library_cls([root]).discover())

    version = getattr(skillcore, "__version__", None) or version_of("skillcore")
    return run, version if version != "missing" else "src checkout"


# --------------------------------------------------------------------------- benchmark


def _warm_page_cache(root: Path) -> None:
    """Read every file once so no system pays for cold disk reads the others do not."""
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as fh:
                while fh.read(1 << 20):
                    pass


def _systems() -> dict[str, tuple[DiscoverFn, str]]:
    """Every system to time, as name -> (function, version string)."""
    systems = {name: (fn, version_of(dist)) for name, (fn, dist) in {**BASELINES, **PEERS}.items()}
    hooked = skillcore_discover()
    if hooked is not None:
        systems[SKILLCORE] = hooked
    return systems


# --------------------------------------------------------------------------- cold discovery


def cold_worker(name: str, root: Path) -> dict[str, object]:
    """In this fresh process: import ``name``'s package (timed), then time its first call."""
    start = time.perf_counter()
    for module in COLD_IMPORTS.get(name, ()):
        try:
            importlib.import_module(module)
        except ImportError:
            if not module.startswith("skillcore"):
                raise
            sys.path.insert(0, str(REPO / "src"))  # a plain checkout
            importlib.import_module(module)
    import_s = time.perf_counter() - start
    # Resolve the function only now, so no other system's imports are counted or pre-paid.
    if name == SKILLCORE:
        hooked = skillcore_discover()
        if hooked is None:
            raise SystemExit("skillcore is not available")
        fn = hooked[0]
    else:
        fn = {**BASELINES, **PEERS}[name][0]
    start = time.perf_counter()
    found = fn(root)
    return {"import_s": import_s, "first_s": time.perf_counter() - start, "found": found}


def run_cold(names: list[str], root: Path, runs: int) -> dict[str, dict[str, Any] | str]:
    """Median cold discovery of each system over ``runs`` fresh processes (round-robin)."""
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    errors: dict[str, str] = {}
    script = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cold.json"
        for _ in range(runs):
            for name in names:
                if name in errors:
                    continue
                out.unlink(missing_ok=True)
                cmd = [sys.executable, script, "--cold-worker", name, "--root", str(root)]
                proc = subprocess.run(
                    [*cmd, "--out", str(out)],
                    capture_output=True,
                    text=True,
                    timeout=1_800,
                    check=False,
                )
                if proc.returncode != 0 or not out.exists():
                    errors[name] = (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]
                    continue
                samples[name].append(json.loads(out.read_text(encoding="utf-8")))
    results: dict[str, dict[str, Any] | str] = dict(errors)
    for name, runs_of in samples.items():
        if runs_of:
            results[name] = {
                "first_s": statistics.median(r["first_s"] for r in runs_of),
                "import_s": statistics.median(r["import_s"] for r in runs_of),
                "first_times_s": [r["first_s"] for r in runs_of],
                "import_times_s": [r["import_s"] for r in runs_of],
                "found": runs_of[-1]["found"],
                "runs": len(runs_of),
            }
    return results


def _bind(fn: DiscoverFn, root: Path) -> Callable[[], int]:
    return lambda: fn(root)


def _warm_imports(systems: dict[str, tuple[DiscoverFn, str]], cache: Path) -> dict[str, str]:
    """Run every system once on a 3-skill library; return the errors of those that fail."""
    tiny = make_library(cache / "tiny", 3)
    errors: dict[str, str] = {}
    for name, (fn, _version) in systems.items():
        try:
            fn(tiny)
        except Exception as exc:  # a broken peer must not stop the others
            errors[name] = f"{type(exc).__name__}: {exc}"
    return errors


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def run_size(
    n: int,
    cache: Path,
    systems: dict[str, tuple[DiscoverFn, str]],
    broken: dict[str, str],
    budget_s: float,
    cold_runs: int = 0,
) -> list[dict[str, object]]:
    """Measure every system on an ``n``-skill library; print the table, return raw records.

    With ``cold_runs``, each system's first discovery in that many fresh processes is timed too.
    """
    root = make_library(cache / f"lib-{n}", n)
    _warm_page_cache(root)
    small = n <= SMALL_N
    cold: dict[str, dict[str, Any] | str] = {}
    if cold_runs > 0:
        print(f"  N={n:,}: cold, {cold_runs} fresh processes each ...", file=sys.stderr)
        cold = run_cold([s for s in systems if s not in broken], root, cold_runs)
    results: dict[str, Measurement | str] = {}
    for name, (fn, _version) in systems.items():
        if name in broken:
            results[name] = broken[name]
            continue
        print(f"  N={n:,}: {name} ...", file=sys.stderr, flush=True)
        try:
            results[name] = measure(
                _bind(fn, root),
                repeat=7 if small else 3,
                # Large sizes skip the warm-up: imports and the page cache are already warm.
                warmup=1 if small else 0,
                budget_s=None if small else budget_s,
            )
        except Exception as exc:
            results[name] = f"{type(exc).__name__}: {exc}"

    plain = results.get(PLAIN)
    base = plain["median"] if isinstance(plain, dict) else None
    records: list[dict[str, object]] = []
    rows: list[dict[str, object]] = []
    for name, (_fn, version) in systems.items():
        res = results[name]
        record: dict[str, object] = {"system": name, "version": version, "n": n}
        row: dict[str, object] = {"system": name, "version": version, "found": ""}
        if isinstance(res, str):
            record["error"] = res
            row.update({"median ms": "error", "p10-p90 ms": res[:60], "runs": 0, "x plain": ""})
            if cold_runs > 0:
                row.update({"cold ms": "", "+ import ms": ""})
        else:
            ratio = res["median"] / base if base else None
            record.update(
                found=res["result"],
                median_s=res["median"],
                p10_s=res["p10"],
                p90_s=res["p90"],
                min_s=res["min"],
                times_s=res["times"],
                ratio_vs_plain=ratio,
            )
            row.update(
                {
                    # A count other than n means the system rejected some skills.
                    "found": res["result"] if res["result"] == n else f"{res['result']} (!)",
                    "median ms": _ms(res["median"]),
                    "p10-p90 ms": f"{_ms(res['p10'])} - {_ms(res['p90'])}",
                    "runs": res["runs"],
                    "x plain": f"{ratio:.1f}x" if ratio is not None else "",
                }
            )
            if cold_runs > 0:
                c = cold.get(name, "not run")
                record["cold"] = c
                row["cold ms"] = _ms(c["first_s"]) if isinstance(c, dict) else f"error: {c[:40]}"
                row["+ import ms"] = _ms(c["import_s"]) if isinstance(c, dict) else ""
        records.append(record)
        rows.append(row)
    print(f"\n### Discovery of N = {n:,} skills\n")
    if cold_runs > 0:
        print(
            "median/p10-p90: warm (repeated in one process). cold: first discovery in a fresh "
            f"process (median of {cold_runs}), after its package's import (+ import).\n"
        )
    print_table(rows)
    print()
    return records


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="Skill discovery benchmark vs. the peers.")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/skillcore-bench"))
    parser.add_argument(
        "--budget", type=float, default=12.0, help="seconds per system at large sizes"
    )
    parser.add_argument(
        "--cold-runs", type=int, default=3, help="fresh processes per system for cold timing"
    )
    parser.add_argument(
        "--cold-max-n", type=int, default=SMALL_N, help="time cold discovery up to this N"
    )
    parser.add_argument("--json", type=Path, help="also write raw results (seconds) here")
    # Internal: one cold discovery in a fresh process.
    parser.add_argument("--cold-worker", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.cold_worker:
        result = cold_worker(args.cold_worker, args.root)
        args.out.write_text(json.dumps(result), encoding="utf-8")
        return

    systems = _systems()
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs; libyaml: {yaml.__with_libyaml__}"
    )
    broken = _warm_imports(systems, args.cache)
    for name, err in broken.items():
        print(f"  skipped {name}: {err}", file=sys.stderr)
    records = [
        r
        for n in args.sizes
        for r in run_size(
            n,
            args.cache,
            systems,
            broken,
            args.budget,
            args.cold_runs if n <= args.cold_max_n else 0,
        )
    ]
    if args.json:
        meta = {"python": platform.python_version(), "cpus": os.cpu_count()}
        payload = {"meta": meta, "results": records}
        args.json.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
