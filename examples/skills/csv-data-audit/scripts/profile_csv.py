#!/usr/bin/env python3
"""Profile a CSV/TSV file: schema, nulls, duplicates, outliers. Standard library only.

Exit codes: 0 no issues found, 1 issues found, 2 usage error or unreadable file.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import sys
from collections import Counter
from datetime import date

NULLS = {"", "na", "n/a", "nan", "null", "none", "nil", "-"}
BOOLS = {"true", "false", "yes", "no"}


def infer(value: str) -> str:
    v = value.strip()
    try:
        int(v)
        return "int"
    except ValueError:
        pass
    try:
        float(v)
        return "float"
    except ValueError:
        pass
    if v.lower() in BOOLS:
        return "bool"
    try:
        date.fromisoformat(v[:10])
        return "date"
    except ValueError:
        return "string"


def column_type(counts: Counter) -> str:
    kinds = set(counts)
    if not kinds:
        return "empty"
    if kinds <= {"int"}:
        return "int"
    if kinds <= {"int", "float"}:
        return "float"
    if len(kinds) == 1:
        return kinds.pop()
    return "mixed(" + ",".join(sorted(kinds)) + ")"


def profile(
    rows: list[list[str]], header: list[str], iqr_k: float, lines: list[int] | None = None
) -> dict:
    issues: list[str] = []
    width = len(header)
    dupes = [name for name, n in Counter(header).items() if n > 1]
    if dupes:
        issues.append(f"duplicate column names: {dupes}")
    if any(not h.strip() for h in header):
        issues.append("empty column name(s)")
    lines = lines or list(range(2, len(rows) + 2))
    ragged = [ln for ln, r in zip(lines, rows) if len(r) != width]
    if ragged:
        issues.append(
            f"{len(ragged)} row(s) with a field count other than {width}, e.g. lines {ragged[:5]}"
        )
    seen: Counter = Counter(tuple(r) for r in rows)
    dup_rows = sum(n - 1 for n in seen.values() if n > 1)
    if dup_rows:
        issues.append(f"{dup_rows} exact duplicate row(s)")

    columns = []
    for idx, name in enumerate(header):
        values = [r[idx] if idx < len(r) else "" for r in rows]
        present = [v for v in values if v.strip().lower() not in NULLS]
        kinds = Counter(infer(v) for v in present)
        ctype = column_type(kinds)
        col = {
            "name": name,
            "type": ctype,
            "nulls": len(values) - len(present),
            "null_pct": round(100 * (len(values) - len(present)) / len(values), 1)
            if values
            else 0.0,
            "distinct": len(set(present)),
        }
        padded = sum(1 for v in present if v != v.strip())
        if padded:
            issues.append(f"{name!r}: {padded} value(s) with leading/trailing whitespace")
        if ctype.startswith("mixed"):
            minority = min(kinds, key=kinds.get)
            issues.append(f"{name!r}: mixed types {dict(kinds)} (check the {minority} values)")
        if col["null_pct"] >= 50 and values:
            issues.append(f"{name!r}: {col['null_pct']}% null")
        if ctype in ("int", "float"):
            conv = int if ctype == "int" else float
            nums = [conv(v) for v in present]
            col.update(min=min(nums), max=max(nums), mean=round(statistics.fmean(nums), 4))
            if len(nums) >= 4:
                q1, _, q3 = statistics.quantiles(nums, n=4, method="inclusive")
                lo, hi = q1 - iqr_k * (q3 - q1), q3 + iqr_k * (q3 - q1)
                out = [n for n in nums if n < lo or n > hi]
                col["outliers"] = len(out)
                if out:
                    issues.append(
                        f"{name!r}: {len(out)} outlier(s) outside [{lo:g}, {hi:g}], e.g. {out[:3]}"
                    )
        elif present:
            col.update(min=min(present), max=max(present))
            top = Counter(present).most_common(3)
            col["top"] = top
        if present and col["distinct"] == 1 and len(rows) > 1:
            issues.append(f"{name!r}: constant column (single value {present[0]!r})")
        columns.append(col)

    return {
        "rows": len(rows),
        "columns": len(header),
        "duplicate_rows": dup_rows,
        "ragged_rows": len(ragged),
        "schema": columns,
        "issues": issues,
    }


def render(report: dict, path: str) -> str:
    out = [
        f"file: {path}",
        f"rows: {report['rows']}  columns: {report['columns']}  "
        f"duplicate rows: {report['duplicate_rows']}  ragged rows: {report['ragged_rows']}",
        "",
    ]
    out.append(f"{'column':<20} {'type':<20} {'nulls':>7} {'null%':>6} {'distinct':>8}  range")
    for c in report["schema"]:
        rng = f"{c['min']!r} .. {c['max']!r}" if "min" in c else ""
        out.append(
            f"{c['name'][:20]:<20} {c['type'][:20]:<20} {c['nulls']:>7} "
            f"{c['null_pct']:>6} {c['distinct']:>8}  {rng}"
        )
    out.append("")
    out.append("issues:" if report["issues"] else "issues: none found")
    out.extend(f"  - {i}" for i in report["issues"])
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Profile a CSV/TSV file (schema, nulls, duplicates, outliers).",
        epilog="Exit codes: 0 no issues, 1 issues found, 2 error.",
    )
    ap.add_argument("path", help="CSV/TSV file ('-' for stdin)")
    ap.add_argument("-d", "--delimiter", help="field delimiter (default: sniffed; tab for .tsv)")
    ap.add_argument("--encoding", default="utf-8-sig", help="file encoding (default: %(default)s)")
    ap.add_argument(
        "--max-rows", type=int, default=0, help="profile only the first N rows (0 = all)"
    )
    ap.add_argument(
        "--iqr", type=float, default=1.5, help="outlier fence multiplier (default: %(default)s)"
    )
    ap.add_argument("--json", action="store_true", help="emit a JSON report instead of text")
    args = ap.parse_args(argv)

    try:
        if args.path == "-":
            text = sys.stdin.read()
        else:
            with open(args.path, encoding=args.encoding, newline="") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.path}: {exc}", file=sys.stderr)
        return 2

    delim = args.delimiter
    if delim == "\\t":
        delim = "\t"
    if not delim:
        if args.path.lower().endswith(".tsv"):
            delim = "\t"
        else:
            try:
                delim = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|").delimiter
            except csv.Error:
                delim = ","
    try:
        reader = csv.reader(io.StringIO(text), delimiter=delim)
        header = next(reader, None)
        rows, lines = [], []
        for row in reader:
            if not any(cell.strip() for cell in row):
                continue
            rows.append(row)
            lines.append(reader.line_num)
            if args.max_rows and len(rows) >= args.max_rows:
                break
    except csv.Error as exc:
        print(f"error: malformed CSV: {exc}", file=sys.stderr)
        return 2
    if header is None:
        print("error: file is empty", file=sys.stderr)
        return 2

    report = profile(rows, header, args.iqr, lines)
    report["delimiter"] = delim
    print(json.dumps(report, indent=2, default=str) if args.json else render(report, args.path))
    return 1 if report["issues"] else 0


if __name__ == "__main__":
    sys.exit(main())
