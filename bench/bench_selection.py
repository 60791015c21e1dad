"""Skill selection at scale: does the right skill reach the model among 100 / 1,000 / 10,000?

Libraries are built from ``bench/selection/skills.json`` (40 skills with realistic
descriptions, each with two user queries written for it), *confusable near-duplicates* of
them (the same first sentence with another scope: the kind of sibling skills large libraries
accumulate) and synthetic filler skills from ``synth.py``. The queries' expected skill is
always the original.

Measured per library size N, for each ranker: recall@1/@5/@10 and MRR of the ranked search
(what ``search_skills`` returns), and median milliseconds per query:

- ``skillcore bm25`` - the BM25 index (``search_skills(..., ranker="bm25")``);
- ``skillcore hybrid`` - BM25 fused with static embeddings (only with the semantic extra);
- ``previous lexical`` - the search skillcore shipped before (``lexical_baseline.py``);
- ``random`` - the expected values of a uniformly random ranking (k/N).

And for the prompt: the share of queries whose skill is *visible* in skillcore's 16,000
character catalog or *found by one search* (top 10); and for the peers, which list every skill
in the prompt (deepagents, ADK): the catalog's size in tokens (~4 characters a token) and the
share of it that fits in an 8k / 32k / 128k-token context.

A timing section measures per-query milliseconds on in-memory synthetic catalogs of 1,000 /
10,000 / 100,000 skills (previous search vs the BM25 index) and the index build time.

    python bench/bench_selection.py [--sizes 100 1000 10000] [--json FILE] [--chart FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lexical_baseline  # noqa: E402
import synth  # noqa: E402

from skillcore import Catalog, SkillLocation, SkillMetadata  # noqa: E402
from skillcore.apps.evaluate import (  # noqa: E402
    EvalCase,
    evaluate,
    load_routing,
    relevant_shown,
    visible_names,
)
from skillcore.catalog.ranking import FUSION_DEPTH, SearchIndex, index_for  # noqa: E402
from skillcore.catalog.semantic import semantic_available  # noqa: E402

DATA = HERE / "selection" / "skills.json"
KS = (1, 5, 10)
BUDGET = 16_000
CONTEXTS = (8_000, 32_000, 128_000)
CHARS_PER_TOKEN = 4
SCOPES = (
    "Legacy variant kept for projects still on the old toolchain.",
    "Scoped to the finance team's templates and naming rules.",
    "For air-gapped environments with no network access.",
    "Tuned for very large monorepos with many packages.",
    "Lightweight version for quick one-off tasks on laptops.",
    "Enterprise edition with audit logging and approval steps.",
    "Only for the mobile apps' repositories.",
    "Experimental rewrite; prefer the stable skill unless asked.",
)
TAGS = ("legacy", "finance", "airgap", "monorepo", "lite", "enterprise", "mobile", "next")


def _meta(name: str, description: str, headings: Sequence[str] = ()) -> SkillMetadata:
    location = SkillLocation("bench", name, f"/bench/{name}")
    return SkillMetadata(name, description, location, headings=tuple(headings))


#: A heading at least this many of the real skills share is a generic one ("Overview").
GENERIC_HEADING_SKILLS = 8


def _filler_headings(
    rng: random.Random, generic: Sequence[str], domain: str, verb: str, obj: str
) -> list[str]:
    """What a filler skill's body would be titled: a few generic headings of the real skills
    and headings in its own words (only when the real skills have headings at all)."""
    if not generic:
        return []
    picked = rng.sample(list(generic), min(len(generic), rng.randint(3, 8)))
    return [
        *picked,
        f"{verb.capitalize()} {obj}",
        f"{domain.capitalize()} {obj}",
        f"{verb.capitalize()} {domain} {obj} checklist",
        f"Common {domain} mistakes",
    ]


def library(n: int, seed: int = 0) -> tuple[Catalog, list[EvalCase]]:
    """A catalog of ``n`` skills (name order, as one source lists them) and its queries."""
    base = json.loads(DATA.read_text(encoding="utf-8"))
    each = 1 if n <= 100 else 3 if n <= 1_000 else 5
    skills = _grown(base, n, each, seed, digits=5)
    cases = [EvalCase(q, b["name"]) for b in base for q in b["queries"]]
    return Catalog(skills), cases


def _grown(
    base: list[dict[str, Any]], n: int, each: int, seed: int, digits: int
) -> list[SkillMetadata]:
    """``base`` grown to ``n`` skills, sorted by name: ``each`` confusable near-duplicates per
    skill (its first sentence with another scope), then synthetic filler."""
    skills = [_meta(b["name"], b["description"], b.get("headings", ())) for b in base]
    for b in base:
        first = b["description"].split(". ")[0].rstrip(".") + "."
        for v in range(each):
            if len(skills) >= n:
                break
            # A variant of a skill keeps its body, so its headings.
            name = f"{b['name']}-{TAGS[v]}"
            skills.append(_meta(name, f"{first} {SCOPES[v]}", b.get("headings", ())))
    shared = Counter(h.lower() for b in base for h in {*b.get("headings", ())})
    generic = sorted(h for h, count in shared.items() if count >= GENERIC_HEADING_SKILLS)
    rng = random.Random(seed)
    filler = random.Random(f"{seed}:headings")  # its own stream: the filler's words stay
    i = 0
    while len(skills) < n:
        i += 1
        domain, verb, obj = (
            rng.choice(synth._DOMAINS),
            rng.choice(synth._VERBS),
            rng.choice(synth._OBJECTS),
        )
        name = f"{verb}-{domain}-{obj.replace(' ', '-')}-{i:0{digits}d}"
        headings = _filler_headings(filler, generic, domain, verb, obj)
        skills.append(_meta(name, synth._description(rng, domain, verb, obj), headings))
    skills.sort(key=lambda s: s.name)
    return skills[:n]


def synthetic_catalog(n: int, seed: int = 0) -> Catalog:
    """``n`` synthetic skills in memory (the discovery benchmark's generator, no disk)."""
    skills = []
    for i in range(1, n + 1):
        rng = random.Random(f"{seed}:{i}")
        domain, verb, obj = (
            rng.choice(synth._DOMAINS),
            rng.choice(synth._VERBS),
            rng.choice(synth._OBJECTS),
        )
        name = f"{verb}-{domain}-{obj.replace(' ', '-')}-{i:06d}"
        kw: dict[str, Any] = {}
        if i % 2 == 0:
            kw["triggers"] = (f"{verb} {domain}", f"{domain} {obj}", verb)
        if i % 4 == 1:
            kw["file_patterns"] = (f"**/*.{domain[:4]}", f"{domain}/**/*.md")
        desc = synth._description(rng, domain, verb, obj)
        skills.append(SkillMetadata(name, desc, SkillLocation("s", name, f"/s/{name}"), **kw))
    return Catalog(skills)


def score(rank_fn: Callable[[str], list[str]], cases: Sequence[EvalCase]) -> dict[str, float]:
    """recall@k, MRR and median ms per query of one ranking function."""
    hits = dict.fromkeys(KS, 0)
    rr = 0.0
    times = []
    cpu = []
    for case in cases:
        started, started_cpu = time.perf_counter(), time.process_time()
        ranked = rank_fn(case.query)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        if case.skill in ranked:
            rank = ranked.index(case.skill) + 1
            rr += 1 / rank
            for k in KS:
                hits[k] += rank <= k
    out = {f"recall@{k}": hits[k] / len(cases) for k in KS}
    out["mrr"] = rr / len(cases)
    out["ms_per_query"] = statistics.median(times) * 1000
    out["cpu_ms_per_query"] = statistics.median(cpu) * 1000
    return out


def selection(sizes: Sequence[int]) -> list[dict[str, Any]]:
    """Recall per ranker and library size, plus what the prompt shows."""
    rows: list[dict[str, Any]] = []
    for n in sizes:
        cat, cases = library(n)
        started = time.perf_counter()
        index = SearchIndex(cat.skills)
        build = time.perf_counter() - started
        rankers: dict[str, Callable[[str], list[str]]] = {
            "skillcore bm25": lambda q, ix=index: [
                h.skill.name for h in ix.search(q, None, 10, "bm25")
            ],
            "previous lexical": lambda q, c=cat: [
                h.skill.name for h in lexical_baseline.search_skills(c, q, limit=10)
            ],
        }
        if semantic_available():
            index.semantic()  # built once, outside the timed queries
            rankers["skillcore hybrid"] = lambda q, ix=index: [
                h.skill.name for h in ix.search(q, None, 10, "hybrid")
            ]
        for name, fn in rankers.items():
            row = {"n": n, "ranker": name, **score(fn, cases)}
            if name == "skillcore bm25":
                row["index_build_s"] = build
            rows.append(row)
            print(f"  N={n} {name}: {row}", file=sys.stderr)
        harmonic = sum(1 / r for r in range(1, n + 1))
        rows.append(
            {
                "n": n,
                "ranker": "random",
                **{f"recall@{k}": min(1.0, k / n) for k in KS},
                "mrr": harmonic / n,
                "ms_per_query": None,
            }
        )
        shown = visible_names(cat, BUDGET)
        bm25 = {
            c.query: [h.skill.name for h in index.search(c.query, None, 10, "bm25")] for c in cases
        }
        visible = sum(c.skill in shown for c in cases) / len(cases)
        either = sum(c.skill in shown or c.skill in bm25[c.query] for c in cases) / len(cases)
        relevant = sum(c.skill in relevant_shown(cat, c.query, BUDGET, "bm25") for c in cases)
        listing = "".join(f"- **{s.name}**: {s.description}\n" for s in cat)
        tokens = len(listing) / CHARS_PER_TOKEN
        rows.append(
            {
                "n": n,
                "ranker": "prompt",
                "skillcore_visible": visible,
                "skillcore_visible_or_found": either,
                "skillcore_catalog_skills": len(shown),
                "relevance_visible": relevant / len(cases),
                "peer_catalog_tokens": round(tokens),
                **{f"peer_fits_{c // 1000}k": min(1.0, c / tokens) for c in CONTEXTS},
            }
        )
    return rows


#: Each timed query runs this many times (a busy moment of the shared machine shows in one
#: run, not in the median of several).
TIMING_ROUNDS = 5


def _timed(fn: Callable[[str], object], queries: Sequence[str]) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of ``fn`` per query, each query :data:`TIMING_ROUNDS` times."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(TIMING_ROUNDS):
        for q in queries:
            started, started_cpu = time.perf_counter(), time.process_time()
            fn(q)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
    return wall, cpu


def timing(sizes: Sequence[int], queries: Sequence[str]) -> list[dict[str, Any]]:
    """Per-query milliseconds, previous search vs the index, on synthetic catalogs."""
    rows = []
    for n in sizes:
        cat = synthetic_catalog(n)
        started = time.perf_counter()
        index = SearchIndex(cat.skills)
        build = time.perf_counter() - started
        new, new_cpu = _timed(lambda q, ix=index: ix.search(q, None, 10, "bm25"), queries)
        old = []
        for q in queries[: 3 if n > 10_000 else len(queries)]:
            started = time.perf_counter()
            lexical_baseline.search_skills(cat, q, limit=10)
            old.append(time.perf_counter() - started)
        hybrid: list[float] = []
        hybrid_cpu: list[float] = []
        semantic_build = None
        if semantic_available():
            started = time.perf_counter()
            index.semantic()
            semantic_build = time.perf_counter() - started
            hybrid, hybrid_cpu = _timed(
                lambda q, ix=index: ix.select(q, None, 10, "hybrid"), queries
            )
        index.close_names("warm-up")  # the first call builds the name trigram table
        started = time.perf_counter()
        index.close_names("valdate-csv-tabels")
        close = time.perf_counter() - started
        rows.append(
            {
                "n": n,
                "previous_ms": statistics.median(old) * 1000,
                "bm25_ms": statistics.median(new) * 1000,
                "bm25_max_ms": max(new) * 1000,
                "bm25_cpu_ms": statistics.median(new_cpu) * 1000,
                "hybrid_ms": statistics.median(hybrid) * 1000 if hybrid else None,
                "hybrid_cpu_ms": statistics.median(hybrid_cpu) * 1000 if hybrid else None,
                "hybrid_max_ms": max(hybrid) * 1000 if hybrid else None,
                "semantic_build_s": semantic_build,
                "build_s": build,
                "did_you_mean_ms": close * 1000,
            }
        )
        print(f"  timing N={n}: {rows[-1]}", file=sys.stderr)
    return rows


def markdown(rows: list[dict[str, Any]], times: list[dict[str, Any]]) -> str:
    """The Markdown tables."""
    out = [
        "### Recall of the ranked search (80 queries; the expected skill has 1-5 confusable "
        "near-duplicates)",
        "",
        "| skills | ranker | recall@1 | recall@5 | recall@10 | MRR | ms/query (median) |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        if r["ranker"] == "prompt":
            continue
        ms = "-" if r["ms_per_query"] is None else f"{r['ms_per_query']:.2f}"
        out.append(
            f"| {r['n']:,} | {r['ranker']} | {r['recall@1']:.2f} | {r['recall@5']:.2f} | "
            f"{r['recall@10']:.2f} | {r['mrr']:.2f} | {ms} |"
        )
    out += [
        "",
        "### What reaches the model through the prompt",
        "",
        "skillcore: the 16,000-character catalog (precedence order) plus one `search_skills` "
        "call (top 10, BM25). Peers that list every skill (deepagents, ADK): the listing's "
        "size and the share of it that fits in a context of 8k / 32k / 128k tokens.",
        "",
        "| skills | skillcore: skills in catalog | visible | visible or found by one search "
        "| visible in relevance-aware catalog "
        "| peers: catalog tokens | fits 8k | fits 32k | fits 128k |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        if r["ranker"] != "prompt":
            continue
        out.append(
            f"| {r['n']:,} | {r['skillcore_catalog_skills']} | {r['skillcore_visible']:.2f} | "
            f"{r['skillcore_visible_or_found']:.2f} | {r['relevance_visible']:.2f} | "
            f"{r['peer_catalog_tokens']:,} | "
            f"{r['peer_fits_8k']:.2f} | {r['peer_fits_32k']:.2f} | {r['peer_fits_128k']:.2f} |"
        )
    if times:
        out += [
            "",
            "### Search time on synthetic catalogs (in memory; dense vocabulary, worst case)",
            "",
            "| skills | previous search ms/query | BM25 ms/query (median) | BM25 CPU ms | "
            "BM25 max | hybrid ms/query (median) | hybrid CPU ms | hybrid max | index build s | "
            "semantic build s | did-you-mean ms |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for t in times:
            out.append(
                f"| {t['n']:,} | {t['previous_ms']:.1f} | {t['bm25_ms']:.2f} | "
                f"{_num(t.get('bm25_cpu_ms'))} | {t['bm25_max_ms']:.2f} | {_num(t['hybrid_ms'])} | "
                f"{_num(t.get('hybrid_cpu_ms'))} | {_num(t['hybrid_max_ms'])} | "
                f"{t['build_s']:.2f} | {_num(t['semantic_build_s'])} | "
                f"{t['did_you_mean_ms']:.1f} |"
            )
    return "\n".join(out) + "\n"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def chart(rows: list[dict[str, Any]], path: Path) -> bool:
    """recall@1 and recall@10 against N per ranker, and the peers' share that fits."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no chart", file=sys.stderr)
        return False
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    rankers = sorted({r["ranker"] for r in rows} - {"prompt"})
    for name in rankers:
        pts = sorted((r["n"], r["recall@1"], r["recall@10"]) for r in rows if r["ranker"] == name)
        xs = [p[0] for p in pts]
        (line,) = axes[0].plot(xs, [p[2] for p in pts], marker="o", label=f"{name} @10")
        axes[0].plot(
            xs,
            [p[1] for p in pts],
            marker="x",
            linestyle="--",
            color=line.get_color(),
            label=f"{name} @1",
        )
    axes[0].set(xscale="log", xlabel="skills", ylabel="recall", ylim=(0, 1.02))
    axes[0].set_title("Ranked search: recall@10 (solid) and @1 (dashed)")
    axes[0].legend(fontsize=7)
    prompt = sorted((r["n"], r) for r in rows if r["ranker"] == "prompt")
    xs = [n for n, _ in prompt]
    axes[1].plot(
        xs,
        [r["skillcore_visible"] for _, r in prompt],
        marker="o",
        label="skillcore: visible in 16k-char catalog",
    )
    axes[1].plot(
        xs,
        [r["skillcore_visible_or_found"] for _, r in prompt],
        marker="o",
        label="skillcore: visible or found by one search",
    )
    axes[1].plot(
        xs,
        [r["relevance_visible"] for _, r in prompt],
        marker="o",
        label="skillcore: visible in relevance-aware 16k-char catalog",
    )
    for c in CONTEXTS:
        key = f"peer_fits_{c // 1000}k"
        axes[1].plot(
            xs,
            [r[key] for _, r in prompt],
            marker="s",
            linestyle=":",
            label=f"list-everything peers: share fitting {c // 1000}k tokens",
        )
    axes[1].set(xscale="log", xlabel="skills", ylabel="fraction", ylim=(0, 1.02))
    axes[1].set_title("What reaches the model")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# -- real skills: the shipped routing eval sets ----------------------------------------------

EVALS = HERE.parent / "examples" / "evals" / "selection"
REAL_SIZES = (431, 1_000, 10_000, 100_000)


def real_library(n: int, seed: int = 0, headings: bool = True) -> Catalog:
    """The real skills of ``examples/evals/selection/skills.json`` (431), grown to ``n`` with
    confusable near-duplicates of them (the first sentence with another scope: 1 each up to
    1,000 skills, 5 up to 10,000, 8 beyond) and synthetic filler. A variant keeps its
    skill's body headings; a filler skill gets a few generic headings of the real skills and
    some in its own words. ``headings=False``: names and descriptions only."""
    base = json.loads((EVALS / "skills.json").read_text(encoding="utf-8"))["skills"]
    if not headings:
        base = [{k: v for k, v in b.items() if k != "headings"} for b in base]
    each = 0 if n <= len(base) else 1 if n <= 1_000 else 5 if n <= 10_000 else 8
    return Catalog(tuple(_grown(base, n, each, seed, digits=6)))


def _rrf(index: SearchIndex, query: str, limit: int = 10) -> list[str]:
    """The previous hybrid: reciprocal rank fusion (k=60) of BM25 and embedding ranks."""
    lexical = index.bm25(query, None, 100)
    dense, _ = index.semantic().scored(query, 100)
    fused: dict[int, float] = {}
    for ranking in (lexical, dense):
        for rank, (doc, _) in enumerate(ranking):
            fused[doc] = fused.get(doc, 0.0) + 1.0 / (61 + rank)
    order = sorted(fused, key=lambda d: (-fused[d], d))[:limit]
    return [index.skills[d].name for d in order]


def _unfolded(index: SearchIndex, query: str, ranker: str, limit: int = 10) -> list[str]:
    """The ranking without folding near-duplicate families (what the previous version did)."""
    lexical = index.bm25(query, None, limit if ranker == "bm25" else FUSION_DEPTH)
    if ranker == "bm25":
        return [index.skills[d].name for d, _ in lexical]
    dense, sims = index.semantic().scored(query, FUSION_DEPTH, (d for d, _ in lexical))
    return [index.skills[d].name for d, _ in index._blend(lexical, dense, sims, query)[:limit]]


def real_selection(sizes: Sequence[int], headings: bool = True) -> list[dict[str, Any]]:
    """Per size, split and ranker: recall@k, MRR, ms/query, abstention and reach.
    ``headings=False``: the skills without their body headings, BM25 and the blend only
    (rows labelled "(description only)")."""
    rows: list[dict[str, Any]] = []
    splits = {s: load_routing(EVALS / f"routing-{s}.json") for s in ("dev", "heldout")}
    for n in sizes:
        cat = real_library(n, headings=headings)
        index = index_for(cat)
        started = time.perf_counter()
        index.search("warm up", None, 10, "bm25")
        build = time.perf_counter() - started
        rankers: list[str] = ["bm25"]
        semantic_build = None
        if semantic_available():
            started = time.perf_counter()
            index.semantic()
            semantic_build = time.perf_counter() - started
            rankers += ["hybrid", "rrf"] if headings else ["hybrid"]
        if headings:
            rankers += [f"{r} (no folding)" for r in rankers if r != "rrf"]
        for split, cases in splits.items():
            routed = [c for c in cases if c.skill]
            for ranker in rankers:
                if ranker == "rrf" or ranker.endswith("(no folding)"):
                    base = ranker.split()[0]
                    fn = (
                        (lambda q, ix=index: _rrf(ix, q))
                        if ranker == "rrf"
                        else (lambda q, ix=index, r=base: _unfolded(ix, q, r))
                    )
                    label = "hybrid (rank fusion, no folding)" if ranker == "rrf" else ranker
                    row: dict[str, Any] = {"n": n, "split": split, "ranker": label}
                    row.update(score(fn, routed))
                    rows.append(row)
                    continue
                report = evaluate(cat, cases, ranker=ranker)  # type: ignore[arg-type]
                times = []
                cpu = []
                for case in cases:
                    started, started_cpu = time.perf_counter(), time.process_time()
                    index.select(case.query, None, 10, ranker)  # type: ignore[arg-type]
                    times.append(time.perf_counter() - started)
                    cpu.append(time.process_time() - started_cpu)
                row = {
                    "n": n,
                    "split": split,
                    "ranker": ranker if headings else f"{ranker} (description only)",
                    **{f"recall@{k}": report.recall[k] for k in KS},
                    "mrr": report.mrr,
                    "ms_per_query": statistics.median(times) * 1000,
                    "cpu_ms_per_query": statistics.median(cpu) * 1000,
                    "ms_max": max(times) * 1000,
                    "tool_recall@5": report.tool_recall[5],
                    "abstain_recall": report.abstain_recall,
                    "few_results": report.few_results,
                    "abstain_precision": report.abstain_precision,
                    "routed_abstained": report.routed_abstained,
                    "visible": report.visible,
                    "suggested": report.suggested,
                    "reachable": report.reachable,
                    "index_build_s": build,
                    "semantic_build_s": semantic_build if ranker == "hybrid" else None,
                }
                rows.append(row)
            print(f"  real N={n} {split}: {[r for r in rows if r['n'] == n][-1]}", file=sys.stderr)
    return rows


def semantic_rss(n: int) -> float:
    """Megabytes of resident memory the semantic ranker adds to a BM25 index of ``n`` real
    skills (measured in a fresh process)."""
    import subprocess

    code = (
        "import gc,sys; sys.path.insert(0, sys.argv[1]); import bench_selection as b\n"
        "from skillcore.catalog.ranking import SearchIndex\n"
        "def rss():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmRSS'): return int(line.split()[1]) / 1024\n"
        "ix = SearchIndex(b.real_library(int(sys.argv[2])).skills)\n"
        "ix.search('warm up', None, 10, 'bm25'); import numpy; gc.collect(); before = rss()\n"
        "ix.semantic(); ix.select('rotate the database passwords', None, 10, 'hybrid')\n"
        "gc.collect(); print(rss() - before)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(HERE), str(n)], capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def real_markdown(rows: list[dict[str, Any]], rss: dict[int, float]) -> str:
    """The Markdown tables of the real-skill section."""
    out = [
        "### Real skills: recall of the ranked search, per ranker (held-out requests)",
        "",
        "431 real skills from public repositories (`examples/evals/selection/skills.json`: "
        "name, description and the section headings of the body), grown with near-duplicates "
        "and synthetic filler; 225 routed requests per split written in users' words. `dev` "
        "tuned the parameters; `heldout` was not used for tuning. The `(description only)` "
        "rows rank the same skills without their headings.",
        "",
        "Near-duplicates are folded (the general skill before its scoped variants, one "
        "place per family among the first results); the `(no folding)` rows rank without it. "
        "ms/query is wall time on a shared machine (other jobs stretch it); CPU ms is the "
        "time this process spent; the `(no folding)` and rank fusion rows time the ranking "
        "alone, the others the whole search (results with their reasons, and abstention).",
        "",
        "| skills | split | ranker | recall@1 | recall@5 | recall@10 | MRR | "
        "ms/query (median) | CPU ms/query (median) |",
        "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    rows = sorted(rows, key=lambda r: (r["n"], r["split"]))  # stable: rankers keep their order
    for r in rows:
        out.append(
            f"| {r['n']:,} | {r['split']} | {r['ranker']} | {r['recall@1']:.2f} | "
            f"{r['recall@5']:.2f} | {r['recall@10']:.2f} | {r['mrr']:.2f} | "
            f"{r['ms_per_query']:.2f} | {_num(r.get('cpu_ms_per_query'))} |"
        )
    out += [
        "",
        "### Real skills: abstention and reach (20 requests no skill serves per split)",
        "",
        "| skills | split | ranker | unserved: abstained | unserved: 3 or fewer results | "
        "abstention precision | routed abstained | recall@5 after abstention | in catalog | "
        "suggested | reachable |",
        "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        if "abstain_recall" not in r:
            continue
        out.append(
            f"| {r['n']:,} | {r['split']} | {r['ranker']} | {r['abstain_recall']:.2f} | "
            f"{r['few_results']:.2f} | {r['abstain_precision']:.2f} | "
            f"{r['routed_abstained']:.2f} | {r['tool_recall@5']:.2f} | {r['visible']:.2f} | "
            f"{r['suggested']:.2f} | {r['reachable']:.2f} |"
        )
    if rss:
        out += [
            "",
            "Resident memory the semantic ranker adds: "
            + ", ".join(f"{rss[n]:.1f} MB at {n:,} skills" for n in sorted(rss))
            + ".",
        ]
    return "\n".join(out) + "\n"


QUERIES = (
    "validate csv schemas",
    "deploy kubernetes manifests",
    "extract tables from pdf reports",
    "convert markdown release notes",
    "audit terraform configuration files",
    "summarize jira incident timelines",
    "lint typescript",
    "review pull requests in django projects",
)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1_000, 10_000])
    parser.add_argument("--timing-sizes", type=int, nargs="*", default=[1_000, 10_000, 100_000])
    parser.add_argument("--real-sizes", type=int, nargs="*", default=list(REAL_SIZES))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--chart", type=Path)
    parser.add_argument(
        "--replot", type=Path, help="only redraw --chart from this earlier --json file"
    )
    args = parser.parse_args(argv)
    if args.replot:
        chart(json.loads(args.replot.read_text())["selection"], args.chart)
        return
    real = real_selection(args.real_sizes) if args.real_sizes else []
    if args.real_sizes:
        real += real_selection(args.real_sizes, headings=False)
    rss = (
        {n: semantic_rss(n) for n in (10_000,) if n in args.real_sizes}
        if semantic_available() and sys.platform.startswith("linux")
        else {}
    )
    rows = selection(args.sizes) if args.sizes else []
    times = timing(args.timing_sizes, QUERIES) if args.timing_sizes else []
    text = (real_markdown(real, rss) + "\n" if real else "") + markdown(rows, times)
    sys.stdout.write(text)
    if args.json:
        data = {"real": real, "semantic_rss_mb": rss, "selection": rows, "timing": times}
        args.json.write_text(json.dumps(data, indent=2))
    if args.chart:
        chart(rows, args.chart)


if __name__ == "__main__":
    main()
