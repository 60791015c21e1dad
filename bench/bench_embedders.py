"""Encoders for the semantic ranker: WordLlama (the default) against the packaged MiniLM,
added beside it or replacing it, on the shipped routing requests over the real skills.

Three parts:

- ``--calibrate``: on the development requests (431 real skills), each encoder's best
  similarity for the 225 routed requests and the 20 no skill serves; the threshold that
  separates them best (most unserved abstaining less routed abstaining) and the area under
  the ROC curve. The chosen values go into ``CALIBRATIONS`` (skillcore/catalog/embedders.py).
- ``--measure``: recall@k, MRR and abstention per size, split and encoder choice.
- ``--startup``: a second start with 10,000 skills (fresh processes: import, catalog,
  encoders ready, first search), WordLlama alone against WordLlama + MiniLM with its vectors
  in the vector cache; the ratio of their times in one run.

    python bench/bench_embedders.py --calibrate
    python bench/bench_embedders.py --measure --sizes 431 10000 --json /tmp/embedders.json
    python bench/bench_embedders.py --startup
    python bench/bench_embedders.py --from-json a.json b.json --markdown bench/results/embedders.md
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_selection import EVALS, real_library  # noqa: E402

from skillcore.apps.evaluate import evaluate, load_routing  # noqa: E402
from skillcore.catalog.embedders import Calibration, Encoding  # noqa: E402
from skillcore.catalog.ranking import index_for  # noqa: E402

KS = (1, 5, 10)
#: The bench's own vector cache (not the user's).
VECTORS = Path(tempfile.gettempdir()) / f"skillcore-bench-vectors-{os.getuid()}"


def _minilm(mode: str, calibration: Calibration | None = None) -> Encoding:
    from skillcore.catalog.onnx_encoder import packaged_minilm

    VECTORS.mkdir(mode=0o700, exist_ok=True)
    return Encoding(packaged_minilm(), mode=mode, calibration=calibration, cache=str(VECTORS))  # type: ignore[arg-type]


def _auc(pos: list[float], neg: list[float]) -> float:
    """P(a routed request's best similarity > an unserved one's)."""
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def calibrate(n: int = 431) -> dict[str, Any]:
    """Best similarity per encoder for routed and unserved development requests."""
    cases = load_routing(EVALS / "routing-dev.json")
    cat = real_library(n)
    out: dict[str, Any] = {}
    wordllama = index_for(cat).semantic()
    minilm = index_for(cat, _minilm("replace")).encoded()
    assert minilm is not None
    for name, ix in (("wordllama", wordllama), ("minilm", minilm)):
        routed = [ix.nearest(c.query, 1)[0][1] for c in cases if c.skill]
        unserved = [ix.nearest(c.query, 1)[0][1] for c in cases if c.skill is None]

        def youden(
            t: float, routed: list[float] = routed, unserved: list[float] = unserved
        ) -> float:
            return sum(u < t for u in unserved) / len(unserved) - sum(r < t for r in routed) / len(
                routed
            )

        best = max((youden(t), t) for t in (x / 100 for x in range(10, 70)))
        table = {
            f"{t:.2f}": (
                round(sum(u < t for u in unserved) / len(unserved), 3),
                round(sum(r < t for r in routed) / len(routed), 3),
            )
            for t in (x / 100 for x in range(20, 50, 2))
        }
        auc = round(_auc(routed, unserved), 3)
        out[name] = {"auc": auc, "best_threshold": best[1], "table": table}
        print(name, json.dumps(out[name]), file=sys.stderr)
    return out


def measure(sizes: list[int]) -> list[dict[str, Any]]:
    """recall@k, MRR and abstention per size, split and encoder choice."""
    splits = {s: load_routing(EVALS / f"routing-{s}.json") for s in ("dev", "heldout")}
    rows: list[dict[str, Any]] = []
    for n in sizes:
        cat = real_library(n)
        choices: dict[str, Encoding | None] = {
            "wordllama (default)": None,
            "wordllama + minilm": _minilm("add"),
            "minilm alone": _minilm("replace"),
        }
        for label, enc in choices.items():
            started = time.process_time()
            index_for(cat, enc).warm("hybrid")
            build = time.process_time() - started
            for split, cases in splits.items():
                report = evaluate(cat, cases, ranker="hybrid", encoding=enc)
                cpu = []
                for case in cases[:60]:
                    t = time.process_time()
                    index_for(cat, enc).select(case.query, None, 10, "hybrid")
                    cpu.append(time.process_time() - t)
                row = {
                    "n": n,
                    "split": split,
                    "encoders": label,
                    **{f"recall@{k}": report.recall[k] for k in KS},
                    "mrr": report.mrr,
                    "abstain_recall": report.abstain_recall,
                    "routed_abstained": report.routed_abstained,
                    "tool_recall@5": report.tool_recall[5],
                    "build_cpu_s": build,
                    "cpu_ms_per_query": statistics.median(cpu) * 1000,
                }
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    return rows


_START = """
import sys, time
t0, c0 = time.perf_counter(), time.process_time()
sys.path.insert(0, {here!r})
from bench_selection import real_library
from skillcore.catalog.ranking import index_for
enc = None
if {minilm!r}:
    from bench_embedders import _minilm
    enc = _minilm("add")
cat = real_library({n})
t1 = time.perf_counter()
index_for(cat, enc).warm("hybrid")
index_for(cat, enc).select("pull the tables out of this annual report", None, 10, "hybrid")
print(time.perf_counter() - t0, time.process_time() - c0, time.perf_counter() - t1)
"""


def _start(minilm: bool, n: int) -> tuple[float, float, float]:
    code = _START.format(here=str(HERE), minilm=minilm, n=n)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    wall, cpu, ready = (float(x) for x in done.stdout.split())
    return wall, cpu, ready


def startup(n: int = 10_000, runs: int = 3) -> dict[str, Any]:
    """A second start with ``n`` skills: WordLlama alone vs WordLlama + cached MiniLM."""
    _start(True, n)  # fills the vector cache (the first start)
    got: dict[str, list[tuple[float, float, float]]] = {"wordllama": [], "minilm": []}
    for _ in range(runs):  # interleaved: the machine's load hits both alike
        got["wordllama"].append(_start(False, n))
        got["minilm"].append(_start(True, n))
    med = {k: [statistics.median(r[i] for r in rs) for i in range(3)] for k, rs in got.items()}
    out = {
        "n": n,
        "wordllama_wall_s": med["wordllama"][0],
        "wordllama_cpu_s": med["wordllama"][1],
        "minilm_wall_s": med["minilm"][0],
        "minilm_cpu_s": med["minilm"][1],
        "ratio_wall": med["minilm"][0] / med["wordllama"][0],
        "ratio_cpu": med["minilm"][1] / med["wordllama"][1],
        "ratio_ready_wall": med["minilm"][2] / med["wordllama"][2],
    }
    print(json.dumps(out), file=sys.stderr)
    return out


def markdown(result: dict[str, Any]) -> str:
    """The results as Markdown tables."""
    lines = ["# Encoders: WordLlama, + MiniLM, MiniLM alone", ""]
    for name, cal in result.get("calibration", {}).items():
        lines.append(
            f"- calibration ({name}, development requests, 431 skills): threshold "
            f"{cal['best_threshold']:.2f}, AUC {cal['auc']:.3f}"
        )
    if result.get("measure"):
        lines += [
            "",
            "| skills | requests | encoders | recall@1 | recall@5 | recall@10 | MRR "
            "| unserved abstained | routed abstained | recall@5 after abstention "
            "| encoder build CPU s | CPU ms/query |",
            "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for r in result["measure"]:
            lines.append(
                f"| {r['n']:,} | {r['split']} | {r['encoders']} | {r['recall@1']:.2f} "
                f"| {r['recall@5']:.2f} | {r['recall@10']:.2f} | {r['mrr']:.2f} "
                f"| {r['abstain_recall']:.2f} | {r['routed_abstained']:.2f} "
                f"| {r['tool_recall@5']:.2f} | {r['build_cpu_s']:.1f} "
                f"| {r['cpu_ms_per_query']:.1f} |"
            )
    for s in result.get("startups", []):
        lines.append(
            f"- second start, {s['n']:,} skills: WordLlama {s['wordllama_wall_s']:.1f} s wall "
            f"({s['wordllama_cpu_s']:.1f} s CPU), + MiniLM from the vector cache "
            f"{s['minilm_wall_s']:.1f} s ({s['minilm_cpu_s']:.1f} s CPU): ratio "
            f"{s['ratio_wall']:.2f} wall, {s['ratio_cpu']:.2f} CPU"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--measure", action="store_true")
    parser.add_argument("--startup", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*", default=[431, 10_000])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--from-json", type=Path, nargs="*", default=[], help="merge earlier runs")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {}
    for path in args.from_json:
        result.update(json.loads(path.read_text()))
    if args.calibrate:
        result["calibration"] = calibrate()
    if args.measure:
        result["measure"] = measure(args.sizes)
    if args.startup:
        # Twice: the machine is shared and the ratio is noisy.
        result["startups"] = [startup(), startup()]
    text = json.dumps(result, indent=1)
    if args.json:
        args.json.write_text(text)
    if args.markdown:
        args.markdown.write_text(markdown(result))
    print(text)


if __name__ == "__main__":
    main()
