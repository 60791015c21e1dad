"""What reading body headings costs an uncached discovery, on real and synthetic skills.

    python bench/bench_headings.py [--copies 5] [--repos DIR] [--clone] [--rounds 11]

Times ``SkillLibrary(root, cache=False).discover()`` with headings (skillcore as shipped)
and without (the local scan keeps only the frontmatter and hands the parser no headings, as
before headings were read), interleaved in one process, CPU time (medians). Libraries:
``copies`` copies of the 431 real skills of ``examples/evals/selection/skills.json`` (see
``real_skills.py``; 5 copies make the 2,155 skills the docs quote) and the synthetic
library of ``synth.py`` at 1,000 skills. Target: with / without <= 1.15x on real skills.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if "skillcore" not in sys.modules:
    try:
        import skillcore  # noqa: F401
    except ImportError:  # pragma: no cover - running from a checkout without install
        sys.path.insert(0, str(HERE.parent / "src"))

import real_skills  # noqa: E402
import synth  # noqa: E402

import skillcore.sources.local_entry as local_entry  # noqa: E402
from skillcore import SkillLibrary  # noqa: E402

_WITH = local_entry.frontmatter_prefix


def _without(head: bytes, complete: bool = False) -> tuple[bytes, tuple[str, ...] | None]:
    """The frontmatter only and no headings (what the scan kept before headings)."""
    if not head.startswith(b"---") or head.find(b"\x00", 0, 8192) != -1:
        return head, None
    if not head.isascii():
        try:
            head.decode("utf-8")
        except UnicodeDecodeError:
            return head, None
    end = local_entry.closing_end(head)
    if end == -1:
        return head, None
    return head[:end], ()


def discover(root: str, with_headings: bool) -> int:
    local_entry.frontmatter_prefix = _WITH if with_headings else _without  # type: ignore[assignment]
    try:
        return len(SkillLibrary(root, cache=False).discover())
    finally:
        local_entry.frontmatter_prefix = _WITH


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Median CPU seconds of each function, the functions run round-robin ``rounds`` times."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for fn in fns.values():
        fn()  # warm-up (page cache, imports)
    for _ in range(rounds):
        for key, fn in fns.items():
            gc.collect()
            start = time.process_time()
            fn()
            times[key].append(time.process_time() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--repos", type=Path, default=real_skills.REPOS)
    parser.add_argument("--clone", action="store_true", help="clone missing repositories")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/skillcore-bench"))
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args(argv)
    real = real_skills.make_real_library(
        args.cache / f"real-{args.copies}", args.copies, args.repos, args.clone
    )
    libraries = {
        f"real skills ({args.copies} copies of 431)": str(real),
        "synthetic, 1,000": str(synth.make_library(args.cache / "lib-1000", 1000)),
    }
    print("| library | skills | without headings | with | with / without (target <= 1.15x) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for label, root in libraries.items():
        n = discover(root, True)
        t = interleaved(
            {
                "with": lambda r=root: discover(r, True),
                "without": lambda r=root: discover(r, False),
            },
            args.rounds,
        )
        print(
            f"| {label} | {n:,} | {t['without'] * 1000:.1f} ms | {t['with'] * 1000:.1f} ms "
            f"| {t['with'] / t['without']:.2f}x |"
        )


if __name__ == "__main__":
    main()
