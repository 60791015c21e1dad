"""Small timing helpers for the benchmarks: repeated wall-clock runs and Markdown tables."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict


class Measurement(TypedDict):
    """Wall-clock statistics of repeated runs, in seconds."""

    median: float
    p10: float
    p90: float
    min: float
    runs: int
    times: list[float]
    result: Any


def measure(
    fn: Callable[[], Any],
    repeat: int = 7,
    warmup: int = 1,
    budget_s: float | None = None,
) -> Measurement:
    """Time ``fn()`` ``repeat`` times after ``warmup`` untimed calls.

    With ``budget_s``, stop early once the timed runs add up to at least that many seconds
    (always at least one timed run), so slow peers do not dominate the wall time of a suite.
    ``result`` is the return value of the last call.
    """
    result: Any = None
    for _ in range(warmup):
        result = fn()
    times: list[float] = []
    for _ in range(max(1, repeat)):
        # Collect beforehand so one run does not pay for the previous run's garbage;
        # GC stays enabled during the run, as it is in real use.
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
        if budget_s is not None and sum(times) >= budget_s:
            break
    if len(times) >= 2:
        deciles = statistics.quantiles(times, n=10, method="inclusive")
        p10, p90 = deciles[0], deciles[-1]
    else:
        p10 = p90 = times[0]
    return Measurement(
        median=statistics.median(times),
        p10=p10,
        p90=p90,
        min=min(times),
        runs=len(times),
        times=times,
        result=result,
    )


def format_table(rows: Sequence[Mapping[str, object]]) -> str:
    """Render ``rows`` (dicts sharing the first row's keys) as a Markdown table."""
    if not rows:
        return ""
    headers = list(rows[0])
    cells = [[str(row.get(h, "")) for h in headers] for row in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep, *(line(c) for c in cells)])


def print_table(rows: Sequence[Mapping[str, object]]) -> None:
    """Print ``rows`` as a Markdown table (see :func:`format_table`)."""
    print(format_table(rows), flush=True)
