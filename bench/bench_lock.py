"""Lock verification against discovery: what checking 1,000 locked skills costs.

    python bench/bench_lock.py [--n 1000] [--rounds 7] [--json out.json]

One synthetic library (``synth.py``: every skill a ~3.5 KB ``SKILL.md`` and a reference, every
third one a script and an asset) is locked once; then, interleaved round-robin in one
process, CPU time (``time.process_time``, so other load on the machine shifts every variant
alike) medians of:

- ``discovery (parse cache)``: a new ``SkillLibrary`` over the library whose on-disk parse
  cache is warm (a stat per ``SKILL.md``, no parsing);
- ``verification (digest cache)``: checking every skill against the lock as discovery does,
  with the digest cache beside the parse cache (a stat per file; a file read and digested only
  when its stamps changed), the tree compared;
- ``verification (no digest cache)``: the same, every file read and digested;
- ``discovery + verification``: a new ``SkillLibrary(lock=...)`` over the warm parse cache;
- ``first discovery (no cache)``: a new ``SkillLibrary(cache=False)``: every ``SKILL.md``
  read and parsed.

It prints the ratios, measured in the same run; the target is verification at most 1.5x the
cached discovery.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from synth import make_library

from skillcore import SkillLibrary
from skillcore.trust import Bounds, LockFile, LockPolicy, locked_skill, verify_skill
from skillcore.trust.digest_cache import RACY_NS, DigestCache

TARGET = 1.5


def _verify_all(lib: SkillLibrary, policy: LockPolicy, cache: Path | None = None) -> int:
    bounds = Bounds(max_files=lib.max_resources, max_file_bytes=lib.max_file_bytes)
    source = lib.sources[0]
    reader = partial(lib.reader, source)
    # As discovery does: the digest cache beside the parse cache, loaded fresh each time.
    digests = None if cache is None else DigestCache(cache, lib.reader(source).root)  # type: ignore[attr-defined]
    refused = 0
    for meta in lib.catalog.skills:
        refused += verify_skill(meta, source, reader, policy, bounds, digests).refused
    if digests is not None:
        digests.save()
    return refused


def run(n: int, rounds: int, work: Path) -> dict[str, Any]:
    root = make_library(work / f"lib-{n}", n)
    cache = work / "parse-cache"
    lib = SkillLibrary(str(root), cache=cache)
    lib.discover()
    lock = LockFile.of(locked_skill(lib.reader(m.location.source), m) for m in lib.catalog.skills)
    policy = LockPolicy(lock)
    assert _verify_all(lib, policy) == 0
    time.sleep(RACY_NS / 1e9)  # files changed this recently are never recorded
    assert _verify_all(lib, policy, cache) == 0
    variants: dict[str, Callable[[], Any]] = {
        "discovery (parse cache)": lambda: SkillLibrary(str(root), cache=cache).discover(),
        "verification (digest cache)": lambda: _verify_all(lib, policy, cache),
        "verification (no digest cache)": lambda: _verify_all(lib, policy),
        "discovery + verification": lambda: SkillLibrary(
            str(root), cache=cache, lock=policy
        ).discover(),
        "first discovery (no cache)": lambda: SkillLibrary(str(root), cache=False).discover(),
    }
    times: dict[str, list[float]] = {k: [] for k in variants}
    for fn in variants.values():  # warm-up: imports, page cache
        fn()
    for _ in range(rounds):
        for name, fn in variants.items():
            gc.collect()
            start = time.process_time()
            fn()
            times[name].append(time.process_time() - start)
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med["discovery (parse cache)"]
    return {
        "n": n,
        "rounds": rounds,
        "median_seconds": med,
        "verification / cached discovery": med["verification (digest cache)"] / base,
        "uncached verification / cached discovery": med["verification (no digest cache)"] / base,
        "discovery+verification / cached discovery": med["discovery + verification"] / base,
        "verification / first discovery": med["verification (digest cache)"]
        / med["first discovery (no cache)"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--work", default=None, help="where the library is built (default: tmp)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.n, args.rounds, Path(args.work or tmp))
    print(f"| variant ({result['n']} skills, {result['rounds']} rounds) | CPU ms (median) |")
    print("| --- | --- |")
    for name, seconds in result["median_seconds"].items():
        print(f"| {name} | {seconds * 1000:.1f} |")
    ratio = result["verification / cached discovery"]
    print()
    print(
        f"verification / cached discovery: {ratio:.2f}x (target <= {TARGET}x: "
        f"{'met' if ratio <= TARGET else 'not met'})"
    )
    print(
        f"discovery + verification / cached discovery: "
        f"{result['discovery+verification / cached discovery']:.2f}x"
    )
    print(f"verification / first discovery: {result['verification / first discovery']:.2f}x")
    print(
        "verification without the digest cache / cached discovery: "
        f"{result['uncached verification / cached discovery']:.2f}x"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
