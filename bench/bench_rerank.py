"""The packaged reranker (``EncoderReranker`` with MiniLM) over the first stage, on the real
skills grown to 1,000 and 10,000 (``bench_selection.real_library``) and both request files.

For each size, split and first stage (WordLlama, the offline default; WordLlama + MiniLM
added), with and without the reranker: recall@1/5/10 of the routed requests over the
first 30 candidates, recall@5 over the reply's lines (near-duplicate variants folded into
their best member's line, as the search tool shows them) and the median CPU ms per query
(search + rerank). ``--tune`` measures the reranker's weight and rank constant on the
development requests only; the held-out ones are never used to choose anything.

    python bench/bench_rerank.py --tune
    python bench/bench_rerank.py --json /tmp/rerank.json --markdown bench/results/rerank.md
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_embedders import VECTORS, _minilm  # noqa: E402
from bench_selection import EVALS, real_library  # noqa: E402

from skillcore.apps.evaluate import load_routing  # noqa: E402
from skillcore.catalog import RERANK_DEPTH, index_for, rerank, with_variants  # noqa: E402
from skillcore.catalog.encoder_rerank import RERANK_WEIGHT, EncoderReranker  # noqa: E402
from skillcore.catalog.onnx_encoder import packaged_minilm  # noqa: E402

KS = (1, 5, 10)
SHOWN = 10


def _cases(split: str) -> list[Any]:
    return [c for c in load_routing(EVALS / f"routing-{split}.json") if c.skill]


def _run(cat: Any, enc: Any, cases: list[Any], reranker: EncoderReranker | None) -> dict[str, Any]:
    index = index_for(cat, enc)
    found_at: dict[int, int] = dict.fromkeys(KS, 0)
    lines5 = 0
    cpu = []
    for case in cases:
        t = time.process_time()
        sel = index.select(case.query, None, RERANK_DEPTH, "hybrid")
        if reranker is not None:
            sel = rerank(sel, case.query, reranker)
        cpu.append(time.process_time() - t)
        names = [h.skill.name for h in sel.hits]
        for k in KS:
            found_at[k] += case.skill in names[:k]
        lines = with_variants(index, sel.hits)[:SHOWN]
        lines5 += any(case.skill in (c.hit.skill.name, *c.variants) for c in lines[:5])
    n = len(cases)
    return {
        **{f"recall@{k}": found_at[k] / n for k in KS},
        "lines@5": lines5 / n,
        "cpu_ms": statistics.median(cpu) * 1000,
    }


def tune(sizes: list[int]) -> list[dict[str, Any]]:
    """recall@k on the development requests for each weight and rank constant (over the
    offline default first stage)."""
    cases = _cases("dev")
    reranker = EncoderReranker(packaged_minilm(), cache=str(VECTORS))
    rows = []
    for n in sizes:
        cat = real_library(n)
        index_for(cat).warm("hybrid")
        for k in (2, 5, 10, 20, 60):
            for w in (0.3, 0.4, 0.5, 0.6, 0.7):
                reranker.weight, reranker.rank_constant = w, k
                row = {"n": n, "rank_constant": k, "weight": w, **_run(cat, None, cases, reranker)}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    return rows


def measure(sizes: list[int], weight: float) -> list[dict[str, Any]]:
    """First stage alone and with the reranker, per size, split and first stage."""
    reranker = EncoderReranker(packaged_minilm(), weight=weight, cache=str(VECTORS))
    splits = {s: _cases(s) for s in ("dev", "heldout")}
    rows = []
    for n in sizes:
        cat = real_library(n)
        for label, enc in (("wordllama", None), ("wordllama + minilm", _minilm("add"))):
            index_for(cat, enc).warm("hybrid")
            for split, cases in splits.items():
                for second in ("none", "minilm reranker"):
                    got = _run(cat, enc, cases, reranker if second != "none" else None)
                    row = {"n": n, "split": split, "first": label, "second": second, **got}
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| skills | requests | first stage | second stage | recall@1 | recall@5 | recall@10 "
        "| in first 5 lines | CPU ms/query |",
        "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']:,} | {r['split']} | {r['first']} | {r['second']} | {r['recall@1']:.2f} "
            f"| {r['recall@5']:.2f} | {r['recall@10']:.2f} | {r['lines@5']:.2f} "
            f"| {r['cpu_ms']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000])
    parser.add_argument("--weight", type=float, default=RERANK_WEIGHT)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    rows = tune(args.sizes) if args.tune else measure(args.sizes, args.weight)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.markdown and not args.tune:
        args.markdown.write_text(markdown(rows))
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
