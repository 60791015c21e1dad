"""Run every benchmark side by side and write the results under ``bench/results/``.

    pip install -e ".[bench]" && python bench/run.py            # N = 100, 1,000, 10,000
    python bench/run.py --quick                                  # N = 100, 1,000 only

Writes ``RESULTS.md`` (the tables of every benchmark, a summary and the machine description),
``machine.md``, the raw ``*.json`` results, ``chart.png`` (discovery time, catalog size and
state bytes against N for each system) and ``selection.png`` (recall@k against N per ranker).
Each benchmark runs in its own process, one after the
other, so they do not compete for the two cores; the ratios inside each table come from one run
of that table, which is what to quote.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PEERS = ("skillcore", "deepagents", "google-adk", "skills-ref", "langchain", "langgraph", "PyYAML")


def machine() -> str:
    """A Markdown description of this machine and the package versions."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    versions = []
    for dist in PEERS:
        try:
            versions.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{dist} (missing)")
    return "\n".join(
        [
            "## Machine",
            "",
            f"- CPU: {cpu}, {os.cpu_count()} logical CPUs; memory {mem}",
            f"- {platform.platform()}; Python {platform.python_version()}",
            f"- load average at start: {', '.join(f'{x:.2f}' for x in load)}",
            f"- packages: {', '.join(versions)}",
            f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            "",
        ]
    )


def run(name: str, argv: list[str], out: Path) -> str:
    """Run one benchmark script; return its stdout (its Markdown tables)."""
    print(f"== {name}: {' '.join(argv)}", flush=True)
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(HERE / argv[0]), *argv[1:]],
        cwd=HERE.parent,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    (out / f"{name}.log").write_text(proc.stdout + "\n--- stderr ---\n" + proc.stderr)
    if proc.returncode != 0:
        print(f"   FAILED after {elapsed:.0f} s (see {out / (name + '.log')})", flush=True)
        return f"_{name} failed (exit {proc.returncode}); see `{name}.log`._\n"
    print(f"   done in {elapsed:.0f} s", flush=True)
    return proc.stdout


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def chart(out: Path) -> Path | None:
    """Plot discovery time, catalog characters and state bytes against N."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no chart", file=sys.stderr)
        return None
    discovery = _load(out / "discovery.json")
    catalog = _load(out / "catalog.json")
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    if discovery:
        series: dict[str, list[tuple[int, float]]] = {}
        for r in discovery["results"]:
            if r.get("median_s"):
                series.setdefault(r["system"], []).append((r["n"], r["median_s"] * 1000))
        for system, points in sorted(series.items()):
            xs, ys = zip(*sorted(points))
            axes[0].plot(xs, ys, marker="o", label=system)
        axes[0].set(xscale="log", yscale="log", xlabel="skills", ylabel="ms (median, warm)")
        axes[0].set_title("Discovery time")
        axes[0].legend(fontsize=7)
    if catalog:
        chars: dict[str, list[tuple[int, float]]] = {}
        state: dict[str, list[tuple[int, float]]] = {}
        for r in catalog["results"]:
            if r.get("catalog_chars") is not None:
                chars.setdefault(r["system"], []).append((r["n"], r["catalog_chars"]))
            sb = r.get("state_bytes_0", r.get("state_bytes_update"))
            if sb is not None:
                state.setdefault(r["system"], []).append((r["n"], max(sb, 1)))
        for ax, data, title, label in (
            (axes[1], chars, "Catalog characters per model call", "characters"),
            (axes[2], state, "Skills state per conversation", "bytes (JSON)"),
        ):
            for system, points in sorted(data.items()):
                xs, ys = zip(*sorted(points))
                ax.plot(xs, ys, marker="o", label=system)
            ax.set(xscale="log", yscale="log", xlabel="skills", ylabel=label)
            ax.set_title(title)
            ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / "chart.png"
    fig.savefig(path, dpi=110)
    return path


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--quick", action="store_true", help="N = 100 and 1,000 only")
    parser.add_argument("--with-sources", action="store_true", help="also S3 and Git (slow)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/skillcore-bench"))
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    sizes = ["100", "1000"] if args.quick else ["100", "1000", "10000"]
    cache = ["--cache", str(args.cache)]
    desc = machine()
    (out / "machine.md").write_text(desc)
    sections = [
        (
            "Discovery",
            "discovery",
            [
                "bench_discovery.py",
                "--sizes",
                *sizes,
                *cache,
                "--json",
                str(out / "discovery.json"),
            ],
        ),
        (
            "Catalog, render, state, imports, memory",
            "catalog",
            ["bench_catalog.py", "--sizes", *sizes, *cache, "--json", str(out / "catalog.json")],
        ),
        (
            "LangChain: skillcore vs deepagents in create_agent",
            "langchain",
            ["bench_langchain.py", "--skills", "1000"],
        ),
        (
            "deepagents backends: skillcore vs deepagents' SkillsMiddleware, one turn",
            "deepagents",
            ["bench_deepagents.py", "--json", str(out / "deepagents.json"), *cache],
        ),
        (
            "Skill selection: recall@k against library size",
            "selection",
            [
                "bench_selection.py",
                "--sizes",
                *sizes,
                "--timing-sizes",
                *(["1000", "10000"] if args.quick else ["1000", "10000", "100000"]),
                "--json",
                str(out / "selection.json"),
                "--chart",
                str(out / "selection.png"),
            ],
        ),
        (
            "Google ADK: skillcore vs ADK's SkillToolset",
            "adk",
            ["bench_adk.py", "--n", "1000", *cache],
        ),
        (
            "Per model call against conversation length and library size",
            "model_call",
            ["bench_model_call.py", "--sizes", *sizes, "--json", str(out / "model_call.json")],
        ),
    ]
    sections.append(
        (
            "skillcore against its floors: discovery, cold start, memory, per call",
            "perf",
            ["bench_perf.py", "--sizes", *sizes[1:], *cache, "--json", str(out / "perf.json")]
            + ["--chart", str(out / "perf.png")]
            + ([] if args.quick else ["--big", "100000"]),
        )
    )
    if args.with_sources:
        sections.append(
            (
                "S3 and Git sources",
                "sources",
                ["bench_sources.py", "--n", "1000", "--json", str(out / "sources.json")],
            )
        )
    parts = ["# Benchmark results", "", desc]
    for title, name, cmd in sections:
        text = run(name, cmd, out)
        (out / f"{name}.md").write_text(text)
        parts += [f"## {title}", "", f"`python bench/{' '.join(cmd)}`", "", text, ""]
    png = chart(out)
    if png is not None:
        parts += ["## Chart", "", f"![benchmarks]({png.name})", ""]
    if (out / "selection.png").is_file():
        parts += ["## Skill selection chart", "", "![skill selection](selection.png)", ""]
    (out / "RESULTS.md").write_text("\n".join(parts))
    print(f"wrote {out / 'RESULTS.md'}")


if __name__ == "__main__":
    main()
