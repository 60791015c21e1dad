"""The ``skillcore`` commands that measure skill selection: eval (with its chart) and
lint-descriptions and lint-library."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import attrs

from skillcore._escaping import single_line
from skillcore.apps.cli_common import (
    EXIT_SKILL_PROBLEMS,
    UsageError,
    exit_status,
    open_library,
)
from skillcore.apps.evaluate import (
    EvalCase,
    EvalFileError,
    EvalReport,
    confusable_pairs,
    evaluate,
    load_routing,
    load_skill_facts,
    load_trigger_evals,
    report_table,
    skill_for_file,
    sub_catalog,
)
from skillcore.library import SkillLibrary


def _eval_cases(args: argparse.Namespace, lib: SkillLibrary) -> list[EvalCase]:
    cases: list[EvalCase] = []
    try:
        for path in args.routing or ():
            cases += load_routing(path)
        for spec in args.trigger or ():
            skill, sep, path = spec.partition("=")
            if not sep:
                path = spec
                found = skill_for_file(path, lib.catalog.names)
                if found is None:
                    raise UsageError(
                        f"cannot tell which skill {path} is for; use --trigger SKILL={path}"
                    )
                skill = found
            cases += load_trigger_evals(path, skill)
    except EvalFileError as exc:
        raise UsageError(single_line(str(exc))) from exc
    if not cases:
        raise UsageError("no queries: give --routing FILE and/or --trigger [SKILL=]FILE")
    return cases


def cmd_eval(args: argparse.Namespace) -> int:
    lib = open_library(args)
    cases = _eval_cases(args, lib)
    cat = lib.catalog
    if args.skills_json:
        try:
            cat = load_skill_facts(args.skills_json)
        except EvalFileError as exc:
            raise UsageError(single_line(str(exc))) from exc
    expected = {c.skill for c in cases if c.skill}
    if expected and not expected & set(cat.names):
        raise UsageError(
            single_line(
                "none of the skills the queries expect is in the library: "
                + ", ".join(sorted(expected))
            )
        )
    sizes = [n for n in (args.sizes or [len(cat)]) if n <= len(cat)] or [len(cat)]
    keep = {c.skill for c in cases if c.skill}
    try:
        reports = [
            evaluate(
                sub_catalog(cat, n, keep) if n < len(cat) else cat,
                cases,
                ranker=args.ranker,
                budget=args.budget,
                catalog_order=args.catalog,
            )
            for n in sizes
        ]
    except ImportError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        json.dump([r.to_dict() for r in reports], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(eval_table(reports))
        last = reports[-1]
        if last.unknown:
            print(f"\nnot in the library (left out): {single_line(', '.join(last.unknown))}")
        for miss in last.misses[: args.misses]:
            where = f"rank {miss.rank}" if miss.rank else "not in the top 10"
            print(
                single_line(
                    f"miss: {miss.query!r} -> expected {miss.expected} ({where}), "
                    f"got {miss.got or 'nothing'}"
                )
            )
    if args.plot:
        plot_reports(reports, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    if reports[-1].unknown:
        if args.json:
            unknown = ", ".join(reports[-1].unknown)
            print(single_line(f"not in the library (left out): {unknown}"), file=sys.stderr)
        return max(exit_status(lib), EXIT_SKILL_PROBLEMS)
    return exit_status(lib)


eval_table = report_table


def plot_reports(reports: Sequence[EvalReport], path: str) -> None:
    """Plot recall@k and catalog reach against library size (needs matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError('--plot needs matplotlib: pip install "skillcore-agents[plot]"') from exc
    xs = [r.skills for r in reports]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for k in sorted(reports[0].recall):
        ax.plot(xs, [r.recall[k] for r in reports], marker="o", label=f"recall@{k}")
    ax.plot(xs, [r.mrr for r in reports], marker="s", label="MRR")
    ax.plot(xs, [r.visible for r in reports], marker="^", linestyle="--", label="visible")
    ax.plot(
        xs, [r.visible_or_found for r in reports], marker="v", linestyle=":", label="visible|found"
    )
    if len(xs) > 1 and xs[-1] / max(xs[0], 1) >= 10:
        ax.set_xscale("log")
    ax.set(xlabel="skills in the library", ylabel="fraction of queries", ylim=(0, 1.02))
    ax.set_title(f"Skill selection ({reports[-1].ranker})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def cmd_lint_descriptions(args: argparse.Namespace) -> int:
    lib = open_library(args)
    try:
        pairs = confusable_pairs(lib.catalog, args.top, args.method, args.min_score)
    except ImportError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        json.dump([attrs.asdict(p) for p in pairs], sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not pairs:
        print("no similar descriptions found")
    for p in pairs if not args.json else ():
        shared = f"  (shared: {', '.join(p.shared)})" if p.shared else ""
        print(single_line(f"{p.score:.2f}  {p.first}  <->  {p.second}{shared}"))
    return exit_status(lib)


def cmd_lint_library(args: argparse.Namespace) -> int:
    from skillcore.apps.library_lint import lint_library

    lib = open_library(args)
    try:
        report = lint_library(lib.catalog, ranker=args.ranker)
    except ImportError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        out = {
            "skills": report.skills,
            "probes": report.probes,
            "findings": [attrs.asdict(f) for f in report.findings],
        }
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for f in report.findings:
            print(single_line(f"{f.severity} {f.rule}: {f.message}"))
            print(single_line(f"  fix: {f.fix}"))
        counts = ", ".join(f"{n} {rule}" for rule, n in sorted(report.counts().items()))
        print(f"{report.skills} skills, {report.probes} probe requests: {counts or 'no findings'}")
    warned = any(f.severity == "warning" for f in report.findings)
    return max(exit_status(lib), EXIT_SKILL_PROBLEMS if args.strict and warned else 0)
