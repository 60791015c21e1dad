"""The shipped rerankers over the first stage, on the real skills grown to 1,000 and 10,000
(``bench_selection.real_library``) and both request files, in one run.

For each size, split and first stage (WordLlama, the offline default; WordLlama + MiniLM
added), with no second stage, ``EncoderReranker`` (MiniLM's cosine blended by reciprocal
rank) and ``FeatureReranker`` (fitted features): recall@1/5/10 of the routed requests over
the first 30 candidates, recall@5 as the search shows it (after abstention keeps 3, which
the second stage chooses), recall@5 over the reply's lines (near-duplicate variants folded
into their best member's line), the unserved requests that abstain, and the median CPU ms
per query (search + rerank).

``--cost`` measures what sharing the first stage's query vector saves: the CPU ms per query
of WordLlama + MiniLM with the feature reranker, the query embedded once (as the search tool
does: ``sharing_query_vectors``) and twice (each stage its own), on the development requests
at 10,000 skills, alternating the two per request.

``--tune`` measures ``EncoderReranker``'s weight and rank constant, and ``--fit`` fits
``FeatureReranker``'s weights, on the development requests only (the held-out ones are never
used to choose anything) and prints them.

    python bench/bench_rerank.py --fit
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
from skillcore.catalog import (  # noqa: E402
    RERANK_DEPTH,
    index_for,
    rerank,
    sharing_query_vectors,
    with_variants,
)
from skillcore.catalog.encoder_rerank import RERANK_WEIGHT, EncoderReranker  # noqa: E402
from skillcore.catalog.feature_rerank import FEATURES, FeatureReranker  # noqa: E402
from skillcore.catalog.onnx_encoder import packaged_minilm  # noqa: E402

KS = (1, 5, 10)
SHOWN = 10


def _cases(split: str, routed: bool = True) -> list[Any]:
    return [c for c in load_routing(EVALS / f"routing-{split}.json") if bool(c.skill) == routed]


def _run(cat: Any, enc: Any, split: str, reranker: Any) -> dict[str, Any]:
    index = index_for(cat, enc)
    cases = _cases(split)
    found_at: dict[int, int] = dict.fromkeys(KS, 0)
    shown5 = lines5 = 0
    cpu = []
    for case in cases:
        t = time.process_time()
        with sharing_query_vectors():  # as the search tool runs the two stages
            sel = index.select(case.query, None, RERANK_DEPTH, "hybrid")
            if reranker is not None:
                sel = rerank(sel, case.query, reranker)
        cpu.append(time.process_time() - t)
        names = [h.skill.name for h in sel.hits + sel.withheld]  # before abstention's cut
        for k in KS:
            found_at[k] += case.skill in names[:k]
        shown5 += case.skill in [h.skill.name for h in sel.hits[:5]]
        lines = with_variants(index, sel.hits)[:SHOWN]
        lines5 += any(case.skill in (c.hit.skill.name, *c.variants) for c in lines[:5])
    unserved = _cases(split, routed=False)
    abstained = sum(index.select(c.query, None, RERANK_DEPTH, "hybrid").abstained for c in unserved)
    n = len(cases)
    return {
        **{f"recall@{k}": found_at[k] / n for k in KS},
        "shown@5": shown5 / n,
        "lines@5": lines5 / n,
        "unserved_abstained": abstained / len(unserved),
        "cpu_ms": statistics.median(cpu) * 1000,
    }


def tune(sizes: list[int]) -> list[dict[str, Any]]:
    """recall@k on the development requests for each weight and rank constant (over the
    offline default first stage)."""
    reranker = EncoderReranker(packaged_minilm(), cache=str(VECTORS))
    rows = []
    for n in sizes:
        cat = real_library(n)
        index_for(cat).warm("hybrid")
        for k in (2, 5, 10, 20, 60):
            for w in (0.3, 0.4, 0.5, 0.6, 0.7):
                reranker.weight, reranker.rank_constant = w, k
                row = {"n": n, "rank_constant": k, "weight": w, **_run(cat, None, "dev", reranker)}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    return rows


def fit(sizes: list[int], l2: float = 1e-3, steps: int = 1500, rate: float = 0.5) -> list[float]:
    """``FeatureReranker``'s weights: a listwise logistic regression (softmax over each routed
    development request's first ``RERANK_DEPTH`` candidates, first stage WordLlama + MiniLM,
    the features standardised while fitting) by gradient descent."""
    import numpy as np

    features = FeatureReranker(packaged_minilm(), cache=str(VECTORS))
    groups = []
    enc = _minilm("add")
    for n in sizes:
        index = index_for(real_library(n), enc)
        index.warm("hybrid")
        for case in _cases("dev"):
            sel = index.select(case.query, None, RERANK_DEPTH, "hybrid")
            skills = [h.skill for h in sel.hits + sel.withheld]
            y = np.array([s.name == case.skill for s in skills], dtype=np.float64)
            if len(skills) > 1 and y.sum():
                groups.append((features.features(case.query, skills), y))
    stacked = np.concatenate([x for x, _ in groups])
    mu, sd = stacked.mean(0), stacked.std(0) + 1e-9
    scaled = [((x - mu) / sd, y) for x, y in groups]
    w = np.zeros(len(FEATURES))
    for _ in range(steps):
        grad = l2 * w
        for x, y in scaled:
            z = x @ w
            p = np.exp(z - z.max())
            grad += x.T @ (p / p.sum() - y) / len(scaled)
        w -= rate * grad
    weights = [round(float(v), 3) for v in w / sd]
    print(json.dumps(dict(zip(FEATURES, weights))), file=sys.stderr)
    return weights


def cost(n: int = 10_000) -> dict[str, Any]:
    """Median CPU ms per query with the query vector shared between the stages and not."""
    reranker = FeatureReranker(packaged_minilm(), cache=str(VECTORS))
    enc = _minilm("add")
    index = index_for(real_library(n), enc)
    index.warm("hybrid")
    times: dict[str, list[float]] = {"shared": [], "twice": []}
    for case in _cases("dev"):
        for label in ("twice", "shared") if len(times["shared"]) % 2 else ("shared", "twice"):
            t = time.process_time()
            if label == "shared":
                with sharing_query_vectors():
                    rerank(
                        index.select(case.query, None, RERANK_DEPTH, "hybrid"), case.query, reranker
                    )
            else:
                rerank(index.select(case.query, None, RERANK_DEPTH, "hybrid"), case.query, reranker)
            times[label].append(time.process_time() - t)
    shared = statistics.median(times["shared"]) * 1000
    twice = statistics.median(times["twice"]) * 1000
    row = {"n": n, "shared_cpu_ms": shared, "twice_cpu_ms": twice, "ratio": shared / twice}
    print(json.dumps(row), file=sys.stderr)
    return row


SECOND = ("none", "minilm reranker", "feature reranker")


def measure(sizes: list[int], weight: float) -> list[dict[str, Any]]:
    """Each first stage alone and with each reranker, per size and split."""
    rerankers = {
        "none": None,
        "minilm reranker": EncoderReranker(packaged_minilm(), weight=weight, cache=str(VECTORS)),
        "feature reranker": FeatureReranker(packaged_minilm(), cache=str(VECTORS)),
    }
    rows = []
    for n in sizes:
        cat = real_library(n)
        for label, enc in (("wordllama", None), ("wordllama + minilm", _minilm("add"))):
            index_for(cat, enc).warm("hybrid")
            for split in ("dev", "heldout"):
                for second, reranker in rerankers.items():
                    got = _run(cat, enc, split, reranker)
                    row = {"n": n, "split": split, "first": label, "second": second, **got}
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| skills | requests | first stage | second stage | recall@1 | recall@5 | recall@10 "
        "| recall@5 shown | in first 5 lines | unserved: abstained | CPU ms/query |",
        "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']:,} | {r['split']} | {r['first']} | {r['second']} | {r['recall@1']:.2f} "
            f"| {r['recall@5']:.2f} | {r['recall@10']:.2f} | {r['shown@5']:.2f} "
            f"| {r['lines@5']:.2f} | {r['unserved_abstained']:.2f} | {r['cpu_ms']:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--cost", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000])
    parser.add_argument("--weight", type=float, default=RERANK_WEIGHT)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    if args.fit:
        print(json.dumps(fit(args.sizes)))
        return
    if args.cost:
        print(json.dumps(cost()))
        return
    rows = tune(args.sizes) if args.tune else measure(args.sizes, args.weight)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    if args.markdown and not args.tune:
        args.markdown.write_text(markdown(rows))
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
