"""Catalog changes across workers: how long until every worker sees an edited skill.

N worker processes each hold a ``SkillLibrary`` over one synthetic library (20,000 skills by
default) and a ``RefreshGate`` as an adapter has (``refresh=True``, paced by the scan cost),
and serve a "run" every ``--period`` seconds (check the gate, refresh when due). The parent
edits one skill and measures the time until all workers show the new description: once with
only the pacing, once with a shared marker (``file_marker``) bumped after the edit.

    python bench/bench_many_workers.py                 # 20,000 skills, 4 workers
    python bench/bench_many_workers.py --skills 2000 --workers 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import make_library

from skillcore import SkillLibrary
from skillcore.state.refresh import RefreshGate, file_marker

TARGET = "skill-00007"


def worker(root: str, marker: str | None, period: float, refresh: bool, conn) -> None:  # type: ignore[no-untyped-def]
    library = SkillLibrary([root])
    library.discover()
    gate = RefreshGate(refresh, library, marker=file_marker(marker) if marker else None)
    gate.due()
    checks: list[float] = []
    scans: list[float] = []
    started = time.perf_counter()
    library.refresh()
    conn.send(("ready", time.perf_counter() - started))
    seen = library.catalog.get(TARGET).description
    while True:
        if conn.poll() and conn.recv() is None:
            break
        started = time.perf_counter()
        if gate.due():
            library.refresh()
            scans.append(time.perf_counter() - started)
        else:
            checks.append(time.perf_counter() - started)
        now = library.catalog.get(TARGET).description
        if now != seen:
            conn.send(("seen", time.time()))
            seen = now
        time.sleep(period)
    checks.sort()
    conn.send(("checks", checks[len(checks) // 2] if checks else 0.0, len(scans)))


def one_round(
    root: Path, workers: int, period: float, use_marker: bool, refresh: bool, edit: int
) -> dict:
    marker = root / ".version" if use_marker else None
    if marker is not None:
        marker.write_text("0")
    ctx = multiprocessing.get_context("spawn")
    pipes, procs = [], []
    for _ in range(workers):
        parent, child = ctx.Pipe()
        p = ctx.Process(
            target=worker, args=(str(root), str(marker) if marker else None, period, refresh, child)
        )
        p.start()
        pipes.append(parent)
        procs.append(p)
    scan = max(p.recv()[1] for p in pipes)
    time.sleep(2 * period + 3.0)
    skill_md = root / TARGET / "SKILL.md"
    text = skill_md.read_text()
    head, _, rest = text.partition("description: ")
    _, _, tail = rest.partition("\n")
    skill_md.write_text(f"{head}description: Edited {edit}.\n{tail}")
    edited = time.time()
    if marker is not None:
        marker.write_text(str(edit))
    seen = []
    for p in pipes:
        kind, at = p.recv()
        assert kind == "seen"
        seen.append(at - edited)
    checks, scans = [], []
    ended = time.time()
    for p in pipes:
        p.send(None)
        kind, median, n = p.recv()
        checks.append(median)
        scans.append(n)
    minutes = (ended - edited + 2 * period + 0.5) / 60
    for p in procs:
        p.join()
    return {
        "unchanged scan s": round(scan, 4),
        "median check ms": round(1000 * max(checks), 3),
        "all workers saw the edit after s": round(max(seen), 2),
        "scans per worker": f"{max(scans)} in {round(minutes * 60)} s",
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skills", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--period", type=float, default=0.05, help="seconds between runs")
    ap.add_argument("--cache", default="/tmp/skillcore-bench")
    args = ap.parse_args()
    root = make_library(Path(args.cache) / f"workers-{args.skills}", args.skills)
    print(f"{args.skills} skills, {args.workers} workers, a run every {args.period} s")
    print(
        "| signal | unchanged scan (s) | a run without a scan (ms) | scans per worker "
        "| all workers saw the edit (s) |"
    )
    print("|---|---|---|---|---|")
    rounds = (
        ("pacing only (refresh=True)", False, True),
        ("refresh=True + file_marker", True, True),
        ("refresh=False + file_marker (scan only on the signal)", True, False),
    )
    for i, (name, use, refresh) in enumerate(rounds, 1):
        r = one_round(root, args.workers, args.period, use, refresh, i)
        print(
            f"| {name} | {r['unchanged scan s']} | {r['median check ms']} "
            f"| {r['scans per worker']} | {r['all workers saw the edit after s']} |"
        )


if __name__ == "__main__":
    main()
