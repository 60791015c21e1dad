"""skillcore against its own floors: warm discovery + render, cold start, memory, per-call work.

    python bench/bench_perf.py --sizes 1000 10000 [--big 100000] [--json out.json]

Every ratio comes from one run with the compared variants interleaved (round-robin), and
in-process timings are CPU time (``time.process_time``) medians, so other load on the
machine shifts both sides alike. The references live here, not in skillcore:

- ``plain loop``: ``os.scandir`` + read a 16 KiB head + split the frontmatter + libyaml's
  ``CSafeLoader`` (what a careful hand-written discovery does);
- ``best``: the same loop with skillcore's checked fast scanner in front of ``CSafeLoader``,
  minimal metadata, and skillcore's own render (the best achievable with this render);
- ``floor`` (cold start): a fresh interpreter that loads a ``marshal`` file of
  ``{directory: (size, mtime_ns, name, description)}``, stats every ``SKILL.md`` against it
  and renders the entries with a plain string join: the least a stat-checked on-disk cache
  can cost.
"""

from __future__ import annotations

import argparse
import gc
import json
import marshal
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
if "skillcore" not in sys.modules:
    try:
        import skillcore  # noqa: F401
    except ImportError:  # pragma: no cover - running from a checkout without install
        sys.path.insert(0, str(REPO / "src"))

import synth  # noqa: E402
import yaml  # noqa: E402

from skillcore import (  # noqa: E402
    Catalog,
    SkillLibrary,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    SkillSource,
    render_catalog,
)
from skillcore.parse.document import split_frontmatter  # noqa: E402
from skillcore.parse.fast import scan_frontmatter  # noqa: E402

HEAD = 16 * 1024
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# -- references ----------------------------------------------------------------------------


def _heads(root: str) -> list[tuple[str, bytes]]:
    out = []
    with os.scandir(root) as it:
        for entry in it:
            if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                try:
                    with open(os.path.join(entry.path, "SKILL.md"), "rb") as fh:
                        out.append((entry.name, fh.read(HEAD)))
                except OSError:
                    pass
    return out


def plain_loop(root: str) -> list[tuple[str, str, str]]:
    """scandir + head + CSafeLoader: ``(directory, name, description)`` per skill."""
    skills = []
    for name, head in _heads(root):
        text, _, ok = split_frontmatter(head.decode("utf-8", "replace"))
        if not ok or text is None:
            continue
        try:
            data = yaml.load(text, Loader=_Loader)
        except yaml.YAMLError:
            continue
        if isinstance(data, dict) and isinstance(data.get("description"), str):
            skills.append((name, str(data.get("name", name)), data["description"]))
    return skills


def best_reference(root: str) -> str:
    """The fast scanner (libyaml when it declines), minimal metadata, skillcore's render."""
    metas = []
    for name, head in _heads(root):
        text, _, ok = split_frontmatter(head.decode("utf-8", "replace"))
        if not ok or text is None:
            continue
        data = scan_frontmatter(text)
        if data is None:
            try:
                data = yaml.load(text, Loader=_Loader)
            except yaml.YAMLError:
                continue
        if isinstance(data, dict) and isinstance(data.get("description"), str):
            metas.append(
                SkillMetadata(
                    name=str(data.get("name", name)),
                    description=data["description"],
                    location=SkillLocation("bench", name, os.path.join(root, name)),
                )
            )
    metas.sort(key=lambda m: m.name)
    session = SkillSession(Catalog(tuple(metas)))
    return render_catalog(session)


def skillcore_warm(root: str) -> str:
    lib = SkillLibrary(root, cache=False)
    lib.discover()
    return render_catalog(lib.session())


# -- timing helpers ------------------------------------------------------------------------


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


#: Child interpreters read and write compiled bytecode here, as an installed package has it
#: (with ``PYTHONDONTWRITEBYTECODE`` set, every child would compile skillcore from source).
PYCACHE = Path(tempfile.gettempdir()) / "skillcore-bench-pycache"


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    out = {**os.environ, "PYTHONPYCACHEPREFIX": str(PYCACHE), **(env or {})}
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    return out


def child(code: str, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run ``python -c code`` fresh: (wall seconds, CPU seconds of the child, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=child_env(env),
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout.strip()


def interleaved_children(
    codes: dict[str, str], rounds: int, env: dict[str, str] | None = None
) -> dict[str, dict[str, float]]:
    walls: dict[str, list[float]] = {k: [] for k in codes}
    cpus: dict[str, list[float]] = {k: [] for k in codes}
    for code in codes.values():
        child(code, env)  # warm-up
    for _ in range(rounds):
        for key, code in codes.items():
            wall, cpu, _ = child(code, env)
            walls[key].append(wall)
            cpus[key].append(cpu)
    return {
        k: {"wall": statistics.median(walls[k]), "cpu": statistics.median(cpus[k])} for k in codes
    }


# -- cold start ----------------------------------------------------------------------------

_FLOOR = textwrap.dedent(
    """
    import marshal, os
    root, path = {root!r}, {path!r}
    with open(path, "rb") as fh:
        entries = marshal.load(fh)
    out, used = [], 0
    for d in sorted(entries):
        size, mtime, name, desc = entries[d]
        st = os.stat(os.path.join(root, d, "SKILL.md"))
        if st.st_size != size or st.st_mtime_ns != mtime:
            raise SystemExit("stale")
        line = "- **" + name + "**: " + desc
        if used + len(line) < 16000:
            out.append(line)
            used += len(line) + 1
    print(len("\\n".join(out)))
    """
)

_COLD = textwrap.dedent(
    """
    from skillcore import SkillLibrary, render_catalog
    lib = SkillLibrary({root!r}, cache={cache!r})
    print(len(render_catalog(lib.session())))
    """
)

#: The same at large N: the source's default entry cap is below 100,000.
_COLD_BIG = textwrap.dedent(
    """
    from skillcore import SkillLibrary, SkillSource, render_catalog
    lib = SkillLibrary(SkillSource({root!r}, max_entries=10**6), cache={cache!r})
    print(len(render_catalog(lib.session())))
    """
)


def write_floor_cache(root: str, path: str, rows: Any = None) -> None:
    """The floor's file: stamp, name and description per skill directory (``rows`` of
    (directory, name, description); by default from the plain loop)."""
    entries = {}
    for d, name, desc in plain_loop(root) if rows is None else rows:
        st = os.stat(os.path.join(root, d, "SKILL.md"))
        entries[d] = (st.st_size, st.st_mtime_ns, name, desc)
    with open(path, "wb") as fh:
        marshal.dump(entries, fh)


# -- memory and per-call work at large N ---------------------------------------------------

_MEMORY = textwrap.dedent(
    """
    import gc, json, time, tracemalloc
    from skillcore import SkillLibrary, SkillSource
    tracemalloc.start()
    lib = SkillLibrary(SkillSource({root!r}, max_entries=10**6), cache=False)
    catalog = lib.discover()
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps({{"skills": len(catalog), "peak": peak, "kept": kept}}))
    """
)

_PER_CALL = textwrap.dedent(
    """
    import json, statistics, time
    from skillcore import SkillLibrary, SkillSource, render_catalog
    t0, c0 = time.perf_counter(), time.process_time()
    lib = SkillLibrary(SkillSource({root!r}, max_entries=10**6), cache={cache!r})
    catalog = lib.catalog
    load_s, load_cpu = time.perf_counter() - t0, time.process_time() - c0
    session = lib.session()
    render_catalog(session)
    # A different skill each time: a repeated state would hit the render memo.
    docs = iter([lib.read_document(n) for n in catalog.names[1000:1100]])

    def cpu(fn, n=7):
        times = []
        for _ in range(n):
            c = time.process_time(); fn(); times.append(time.process_time() - c)
        return statistics.median(times)

    def render_after_load():
        s, _ = session.finish_load(next(docs))
        render_catalog(s)

    base, _ = session.finish_load(next(docs))
    render_catalog(base)

    def render_after_unload():
        doc = next(docs)
        s, _ = base.finish_load(doc)
        u, _ = s.unload(doc.name)
        render_catalog(u)

    def full_refresh():
        lib._unchanged = lambda: False
        try:
            lib.refresh()
        finally:
            del lib._unchanged

    out = {{
        "skills": len(catalog),
        "catalog_load_s": load_s,
        "catalog_load_cpu_s": load_cpu,
        "render_unchanged_s": cpu(lambda: render_catalog(session)),
        "render_after_load_s": cpu(render_after_load),
        "render_after_load_unload_s": cpu(render_after_unload),
    }}
    # Per call: the unknown-name hint (a typo of a real name) and search_skills (words of a
    # real description), the first call of each (it builds its index) apart.
    import random
    from skillcore import search_skills
    rnd = random.Random(7)
    picks = [catalog.get(n) for n in rnd.sample(catalog.names, 31)]
    typos = iter([m.name[:3] + m.name[4:] for m in picks])
    queries = iter([" ".join(m.description.split()[:4]) for m in picks])
    c = time.process_time(); session._not_found(next(typos))
    out["hint_first_s"] = time.process_time() - c
    out["hint_s"] = cpu(lambda: session._not_found(next(typos)), 30)
    c = time.process_time(); search_skills(catalog, next(queries))
    out["search_first_s"] = time.process_time() - c
    out["search_s"] = cpu(lambda: search_skills(catalog, next(queries)), 30)
    check, full = [], []
    for _ in range(5):
        check.append(cpu(lib.refresh, 1))
        full.append(cpu(full_refresh, 1))
    out["refresh_check_s"] = statistics.median(check)
    out["refresh_full_s"] = statistics.median(full)
    # What each run of an adapter pays with the default refresh=True: the gate, and the check
    # when the gate says it is due (runs back to back: the worst case for the pacing).
    from skillcore import RefreshGate
    try:
        gate = RefreshGate(True, lib)
    except TypeError:  # a version without cost pacing
        gate = RefreshGate(True)
    runs = iter(range(10**6))
    def one_run():
        if gate.due(next(runs)):
            lib.refresh()
    per_run = []
    for _ in range(20):
        c = time.process_time(); one_run(); per_run.append(time.process_time() - c)
    out["refresh_per_run_s"] = statistics.median(per_run)
    out["refresh_per_run_max_s"] = max(per_run)
    out["refresh_spacing_s"] = gate._spacing() if hasattr(gate, "_spacing") else 0.0
    print(json.dumps(out))
    """
)


# -- report --------------------------------------------------------------------------------


def chart(results: dict[str, Any], path: Path) -> bool:
    """Bars of the warm and cold comparisons (CPU ms per N); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    panels = (
        (axes[0], results["warm"], ("skillcore", "best", "plain"), lambda r, k: r[k],
         "Warm discovery + render"),
        (axes[1], results["cold"], ("cached", "floor", "nocache"), lambda r, k: r[k]["cpu"],
         "Cold start to a rendered catalog"),
    )  # fmt: skip
    for ax, rows, keys, get, title in panels:
        ns = [r["n"] for r in rows]
        width = 0.8 / len(keys)
        for i, key in enumerate(keys):
            xs = [j + i * width for j in range(len(ns))]
            ax.bar(xs, [get(r, key) * 1000 for r in rows], width, label=key)
        ax.set_xticks([j + width for j in range(len(ns))], [f"N={n:,}" for n in ns])
        ax.set_yscale("log")
        ax.set_ylabel("CPU ms (median, interleaved)")
        ax.set_title(title)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def ms(s: float) -> str:
    return f"{s * 1000:,.2f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=[1000, 10000])
    parser.add_argument("--big", type=int, default=0, help="also memory/per-call at this N")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/skillcore-bench"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--chart", type=Path, help="write a PNG of the warm and cold tables")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"warm": [], "cold": [], "big": None, "imports": None}
    work = Path(tempfile.mkdtemp(prefix="skillcore-perf-"))
    parse_cache = str(work / "parse-cache")
    lines = []

    # Imports (fresh interpreters, interleaved).
    imp = interleaved_children(
        {
            "python -c pass": "pass",
            "import skillcore": "import skillcore",
            "from skillcore import SkillLibrary": "from skillcore import SkillLibrary",
            "import yaml": "import yaml",
            # skillcore's values are attrs classes: the least any start of skillcore imports.
            "import attrs": "import attrs",
        },
        args.rounds,
    )
    results["imports"] = imp
    lines += [
        "### Import time (fresh interpreter, whole process)",
        "",
        "| statement | wall ms | CPU ms |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| `{k}` | {ms(v['wall'])} | {ms(v['cpu'])} |" for k, v in imp.items()]
    lines.append("")

    warm_rows = []
    cold_rows = []
    for n in args.sizes:
        root = str(synth.make_library(args.cache / f"lib-{n}", n))
        rounds = args.rounds if n <= 1000 else max(3, args.rounds // 2)
        warm = interleaved(
            {
                "skillcore": lambda r=root: skillcore_warm(r),
                "best": lambda r=root: best_reference(r),
                "plain": lambda r=root: plain_loop(r),
            },
            rounds,
        )
        lib = SkillLibrary(root, cache=False)
        lib.discover()

        def full_refresh(lib: SkillLibrary = lib) -> None:
            lib._unchanged = lambda: False  # type: ignore[method-assign]
            try:
                lib.refresh()
            finally:
                del lib._unchanged

        refresh = interleaved({"check": lib.refresh, "full": full_refresh}, rounds * 2)
        warm["refresh_check"], warm["refresh_full"] = refresh["check"], refresh["full"]
        results["warm"].append({"n": n, **warm})
        warm_rows.append(
            f"| {n:,} | {ms(warm['skillcore'])} | {ms(warm['best'])} | {ms(warm['plain'])} "
            f"| {warm['skillcore'] / warm['best']:.2f}x | {warm['skillcore'] / warm['plain']:.2f}x "
            f"| {ms(warm['refresh_check'])} / {ms(warm['refresh_full'])} |"
        )

        floor_path = str(work / f"floor-{n}.marshal")
        write_floor_cache(root, floor_path)
        child(_COLD.format(root=root, cache=parse_cache))  # fill the parse cache
        cold = interleaved_children(
            {
                "cached": _COLD.format(root=root, cache=parse_cache),
                "floor": _FLOOR.format(root=root, path=floor_path),
                "nocache": _COLD.format(root=root, cache=False),
            },
            max(3, rounds),
        )
        results["cold"].append({"n": n, **cold})
        cold_rows.append(
            f"| {n:,} | {ms(cold['cached']['wall'])} / {ms(cold['cached']['cpu'])} "
            f"| {ms(cold['floor']['wall'])} / {ms(cold['floor']['cpu'])} "
            f"| {ms(cold['nocache']['wall'])} / {ms(cold['nocache']['cpu'])} "
            f"| {cold['cached']['wall'] / cold['floor']['wall']:.2f}x / "
            f"{cold['cached']['cpu'] / cold['floor']['cpu']:.2f}x "
            f"| {cold['nocache']['cpu'] / cold['cached']['cpu']:.2f}x |"
        )

    lines += [
        "### Warm discovery + render (CPU ms, median, interleaved)",
        "",
        "`skillcore`: `SkillLibrary(root, cache=False).discover()` + `render_catalog()`; "
        "`best`: fast scanner + minimal metadata + the same render; `plain`: scandir + head + "
        "CSafeLoader (no render). Targets: skillcore/best <= 1.5x, skillcore/plain <= 0.5x. "
        "Last column: `refresh()` of the unchanged library with the stat check / with the "
        "full re-scan it replaces.",
        "",
        "| N | skillcore | best | plain loop | skillcore / best | skillcore / plain "
        "| refresh: check / full |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *warm_rows,
        "",
        "### Cold start: fresh interpreter to a rendered catalog (wall / CPU ms, median)",
        "",
        "`cached`: skillcore with a filled parse cache; `floor`: marshal file of names and "
        "descriptions, stat-checked, joined; `no cache`: `cache=False`. Target: cached/floor "
        "<= 2x.",
        "",
        "| N | skillcore cached | floor | skillcore no cache | cached / floor | "
        "no cache / cached (CPU) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        *cold_rows,
        "",
    ]

    if args.big:
        n = args.big
        root = str(synth.make_library(args.cache / f"lib-{n}", n))
        _, _, mem_out = child(_MEMORY.format(root=root))
        mem = json.loads(mem_out)
        # The first run fills the parse cache, the second reads it.
        per_call_nocache = json.loads(child(_PER_CALL.format(root=root, cache=parse_cache))[2])
        per_call = json.loads(child(_PER_CALL.format(root=root, cache=parse_cache))[2])
        floor_path = str(work / f"floor-{n}.marshal")
        # The names and descriptions from the cache-filled catalog: the plain loop would
        # take minutes at this size and gives the same rows.
        big = SkillLibrary(SkillSource(root, max_entries=10**6), cache=parse_cache).catalog
        write_floor_cache(
            root, floor_path, [(m.location.directory, m.name, m.description) for m in big]
        )
        del big
        cold_big = interleaved_children(
            {
                "cached": _COLD_BIG.format(root=root, cache=parse_cache),
                "floor": _FLOOR.format(root=root, path=floor_path),
            },
            3,
        )
        results["big"] = {
            "memory": mem,
            "first": per_call_nocache,
            "cached": per_call,
            "cold": cold_big,
        }
        mib = 1024 * 1024
        lines += [
            f"### {n:,} skills: memory and per-call work",
            "",
            f"- discovery (no cache) under tracemalloc: peak {mem['peak'] / mib:,.0f} MiB, "
            f"kept after discovery (catalog + library state) {mem['kept'] / mib:,.0f} MiB: "
            f"peak / kept = {mem['peak'] / mem['kept']:.2f}x (target <= 2x)",
            f"- catalog load in a fresh process: {per_call_nocache['catalog_load_s']:.2f} s "
            f"wall / {per_call_nocache['catalog_load_cpu_s']:.2f} s CPU filling the parse "
            f"cache, {per_call['catalog_load_s']:.2f} s / {per_call['catalog_load_cpu_s']:.2f} s "
            "from it",
            f"- cold start to a rendered catalog (fresh interpreter, median of 3): "
            f"{cold_big['cached']['cpu']:.2f} s CPU from the parse cache vs "
            f"{cold_big['floor']['cpu']:.2f} s for the on-disk floor "
            f"({cold_big['cached']['cpu'] / cold_big['floor']['cpu']:.2f}x; wall "
            f"{cold_big['cached']['wall']:.2f} / {cold_big['floor']['wall']:.2f} s)",
            f"- unknown-name hint: {ms(per_call['hint_s'])} ms CPU per typo (median of 30; "
            f"target <= 10 ms), the first {ms(per_call['hint_first_s'])} ms (builds the "
            "name index)",
            f"- `search_skills`: {ms(per_call['search_s'])} ms CPU per query (median of 30; "
            f"target <= 10 ms), the first {ms(per_call['search_first_s'])} ms (builds the "
            "BM25 index)",
            f"- render, unchanged session: {ms(per_call['render_unchanged_s'])} ms CPU",
            f"- load + render: {ms(per_call['render_after_load_s'])} ms; load + unload + "
            f"render (one skill already loaded): {ms(per_call['render_after_load_unload_s'])} "
            "ms CPU (target: render after a load/unload <= 1 ms)",
            f"- refresh of the unchanged library: {ms(per_call['refresh_check_s'])} ms with "
            f"the stat check vs {ms(per_call['refresh_full_s'])} ms for the full re-scan "
            f"({per_call['refresh_check_s'] / per_call['refresh_full_s']:.2f}x)",
            f"- refresh per run through the default gate (`refresh=True`, 20 runs back to "
            f"back): median {ms(per_call['refresh_per_run_s'])} ms, worst "
            f"{ms(per_call['refresh_per_run_max_s'])} ms CPU; a stat check at most every "
            f"{per_call['refresh_spacing_s']:.1f} s",
            "",
        ]

    text = "\n".join(lines)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    if args.chart and results["warm"]:
        chart(results, args.chart)


if __name__ == "__main__":
    main()
