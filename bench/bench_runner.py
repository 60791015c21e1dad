"""Script runner overhead: one run of a skill's script through skillcore's local runners
against a plain ``subprocess.run`` of the same script, as ratios, in one process.

Run from the repository root::

    python bench/bench_runner.py                     # 30 runs of each
    python bench/bench_runner.py --repeat 50 --json /tmp/runner.json
    python bench/bench_runner.py --hostile           # + hostile scripts: kill time, bytes, memory

The plain baseline is what a host does without skillcore: ``subprocess.run`` with captured
output. The runners add a fresh working directory (made and removed), the allow-listed
environment, resource limits set in the child, a pids cgroup, a PID and a network namespace
(``unshare``) or a bubblewrap sandbox, each as this machine allows; the table names what each
variant got. The target is a ratio of at most 1.5 without namespaces.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import print_table  # noqa: E402

from skillcore.runner import (  # noqa: E402
    BubblewrapRunner,
    Isolation,
    LocalRunner,
    RunLimits,
    ScriptRequest,
    command_for,
)

SCRIPTS = {
    "python": ("hello.py", "import sys\nprint('hello', sys.argv[1:])\n"),
    "bash": ("hello.sh", 'echo "hello $1"\n'),
}

PLAIN = "plain subprocess.run"
VARIANTS: dict[str, Callable[[], LocalRunner]] = {
    "local, no namespaces, no cgroup": lambda: LocalRunner(namespaces=False, cgroups=False),
    "local, no namespaces (cgroup)": lambda: LocalRunner(namespaces=False),
    "local, no namespaces (cgroup), tmpfs work dir": lambda: LocalRunner(
        namespaces=False, work_root="/dev/shm"
    ),
    "local, namespaces + cgroup": LocalRunner,
    "bubblewrap + cgroup": BubblewrapRunner,
}


def _plain(argv: tuple[str, ...], cwd: Path) -> Callable[[], object]:
    def run() -> object:
        done = subprocess.run(argv, capture_output=True, cwd=cwd, timeout=60, check=True)
        return done.stdout

    return run


def _through(runner: LocalRunner, request: ScriptRequest) -> Callable[[], object]:
    def run() -> object:
        result = runner.run(request)
        assert result.exit_code == 0, result
        return result.stdout

    return run


def _interleaved(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """Seconds of each call, ``repeat`` rounds of one call of each in turn (a busy machine's
    drift spreads over all of them instead of landing on one)."""
    times: dict[str, list[float]] = {label: [] for label in calls}
    for call in calls.values():
        call()  # warm: imports, probes, page cache
    for _ in range(repeat):
        for label, call in calls.items():
            gc.collect()
            start = time.perf_counter()
            call()
            times[label].append(time.perf_counter() - start)
    return times


def bench(repeat: int) -> list[dict[str, Any]]:
    """Time every variant on each script; rows of the table."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="skillcore-bench-runner-") as tmp:
        skill = Path(tmp) / "skill"
        skill.mkdir()
        for kind, (name, body) in SCRIPTS.items():
            (skill / name).write_text(body)
            argv = command_for(skill / name)
            if not isinstance(argv, tuple):
                print(f"skipping {kind}: {argv.message}")
                continue
            argv = (*argv, "world")
            calls = {PLAIN: _plain(argv, skill)}
            levels = {PLAIN: "-"}
            for label, make in VARIANTS.items():
                runner = make()
                request = ScriptRequest(kind, name, argv, skill, require=Isolation.PROCESS)
                calls[label] = _through(runner, request)
                levels[label] = f"{runner.isolation().name} ({', '.join(runner.mechanisms())})"
            times = _interleaved(calls, repeat)
            base = statistics.median(times[PLAIN])
            for label, got in times.items():
                rows.append(_row(kind, label, levels[label], base, got))
    return rows


def _row(kind: str, label: str, level: str, base: float, got: list[float]) -> dict[str, Any]:
    deciles = statistics.quantiles(got, n=10, method="inclusive")
    median = statistics.median(got)
    return {
        "script": kind,
        "how": label,
        "isolation": level,
        "median ms": f"{median * 1000:.1f}",
        "p10-p90 ms": f"{deciles[0] * 1000:.1f}-{deciles[-1] * 1000:.1f}",
        "ratio": f"{median / base:.2f}x",
    }


HOSTILE = {
    "sleep forever (SIGTERM ignored)": (
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(10**6)\n"
    ),
    "fork bomb": (
        "import os, time\nwhile True:\n    try:\n        os.fork()\n"
        "    except OSError:\n        time.sleep(0.01)\n"
    ),
    "endless output": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
    "memory hog": "chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))\n",
}


def hostile(wall: float) -> list[dict[str, Any]]:
    """Each hostile script once per runner at the default limits (wall clock ``wall``):
    how long past the wall limit the kill took, the bytes kept, the memory peak."""
    rows: list[dict[str, Any]] = []
    limits = RunLimits(wall_seconds=wall)
    with tempfile.TemporaryDirectory(prefix="skillcore-bench-hostile-") as tmp:
        skill = Path(tmp)
        for name, body in HOSTILE.items():
            (skill / "h.py").write_text(body)
            argv = command_for(skill / "h.py")
            assert isinstance(argv, tuple)
            for label, make in VARIANTS.items():
                runner = make()
                request = ScriptRequest("h", "h.py", argv, skill, limits=limits)
                if runner.isolation() < request.require:
                    continue
                result = runner.run(request)
                past = result.duration_seconds - wall if result.timed_out else None
                peak = result.memory_peak_bytes
                rows.append(
                    {
                        "script": name,
                        "how": label,
                        "ended by": result.killed or f"exit {result.exit_code}",
                        "seconds": f"{result.duration_seconds:.2f}",
                        "kill after the limit, s": "-" if past is None else f"{past:.2f}",
                        "stdout bytes kept": f"{len(result.stdout):,}",
                        "memory peak MiB": "-" if peak is None else f"{peak / 2**20:.0f}",
                    }
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--hostile", action="store_true", help="also time hostile scripts")
    args = parser.parse_args()
    rows = bench(args.repeat)
    print_table(rows)
    found: dict[str, Any] = {"overhead": rows}
    if args.hostile:
        found["hostile"] = hostile(wall=2.0)
        print()
        print_table(found["hostile"])
    if args.json:
        args.json.write_text(json.dumps(found, indent=2))


if __name__ == "__main__":
    main()
