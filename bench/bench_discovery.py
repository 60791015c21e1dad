"""Discovery benchmark: skillcore vs. the peers' real discovery code on one synthetic library.

Run from the repository root::

    python bench/bench_discovery.py                 # N = 1,000 and 10,000
    python bench/bench_discovery.py --sizes 1000 --json /tmp/discovery.json

For each N it builds (or reuses) a synthetic library under ``--cache``, warms the page cache and
every system's imports, then times each system and prints a Markdown table: median wall time,
the p10-p90 spread, and the ratio to the plain ``os.scandir`` + libyaml loop measured in the
same run. Small sizes get 7 runs after a warm-up; large sizes get at most 3 runs and a time
budget per system, so the default suite stays within about three minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from peers import BASELINES, PEERS, DiscoverFn, version_of
from synth import make_library
from timing import Measurement, measure, print_table

REPO = Path(__file__).resolve().parent.parent
PLAIN = "plain loop (head + CSafeLoader)"
SMALL_N = 2_000  # at or below: full repeats with a warm-up; above: capped repeats + budget


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
        systems["skillcore SkillLibrary.discover"] = hooked
    return systems


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
) -> list[dict[str, object]]:
    """Measure every system on an ``n``-skill library; print the table, return raw records."""
    root = make_library(cache / f"lib-{n}", n)
    _warm_page_cache(root)
    small = n <= SMALL_N
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
        records.append(record)
        rows.append(row)
    print(f"\n### Discovery of N = {n:,} skills\n")
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
    parser.add_argument("--json", type=Path, help="also write raw results (seconds) here")
    args = parser.parse_args(argv)

    systems = _systems()
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs; libyaml: {yaml.__with_libyaml__}"
    )
    broken = _warm_imports(systems, args.cache)
    for name, err in broken.items():
        print(f"  skipped {name}: {err}", file=sys.stderr)
    records = [r for n in args.sizes for r in run_size(n, args.cache, systems, broken, args.budget)]
    if args.json:
        meta = {"python": platform.python_version(), "cpus": os.cpu_count()}
        payload = {"meta": meta, "results": records}
        args.json.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
