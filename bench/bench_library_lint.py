"""What the library linter finds, and what fixing it buys (``python bench/bench_library_lint.py``).

On the 431 real skills of ``examples/evals/selection/skills.json`` (public collections) it
reports the findings per rule. Then it adds over-general skills written the way they appear
in the wild ("helps with any coding task ...") and measures, on the routed requests of both
request files: how many requests such skills hijack (they come first instead of the right
skill) in skillcore's own search, and how many of them the linter flags.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from skillcore.apps.evaluate import load_routing, load_skill_facts
from skillcore.apps.library_lint import lint_library
from skillcore.catalog import index_for
from skillcore.model import SkillLocation, SkillMetadata

HERE = Path(__file__).resolve().parent.parent / "examples" / "evals" / "selection"

#: Over-general descriptions (each with a narrowed one, as the fix asks, for comparison).
GENERAL = {
    "coding-helper": (
        "Helps with any coding task: write, edit, review, test, debug and refactor code, "
        "files and projects in any language. Use for anything related to code or development.",
        "Explains an unfamiliar Python traceback line by line. Use when a user pastes a "
        "traceback and asks what went wrong.",
    ),
    "document-assistant": (
        "General assistant for documents, data and writing: create, edit, convert, summarise "
        "and format any document, report, spreadsheet, presentation or file the user needs.",
        "Turns meeting notes into a one-page summary with decisions and owners. Use when a "
        "user shares raw meeting notes.",
    ),
    "productivity-booster": (
        "Boosts productivity for every task. Use whenever the user asks to make, build, "
        "design, plan, analyse, generate, improve or automate something for their work.",
        "Builds a weekly plan from a list of tasks with estimates. Use when a user asks to "
        "schedule their week.",
    ),
    "expert-mode": (
        "Expert best practices for software, data science, research, design, security, "
        "writing and business. Use this skill for high-quality results on any request.",
        "Checks a pull request description against a team's template. Use when a user asks "
        "whether a pull request description is complete.",
    ),
    "web-and-apps": (
        "Build and fix web apps, APIs, websites, frontends, backends, databases, tests and "
        "deployments with modern frameworks and tools. Use for web or app development.",
        "Sets up a favicon and web manifest for a static site. Use when a user asks for site "
        "icons.",
    ),
}


def skill(name: str, description: str) -> SkillMetadata:
    return SkillMetadata(name, description, SkillLocation("bench", name, name))


def hijack_rate(skills: list[SkillMetadata], cases: list, ranker: str, names: set[str]) -> float:
    index = index_for(skills)
    taken = 0
    for case in cases:
        hits = index.search(case.query, None, 1, ranker)
        taken += bool(hits) and hits[0].skill.name in names and hits[0].skill.name != case.skill
    return taken / len(cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ranker", default="bm25", choices=["bm25", "hybrid"])
    args = parser.parse_args()
    real = list(load_skill_facts(HERE / "skills.json"))
    cases = [
        c
        for f in ("routing-dev.json", "routing-heldout.json")
        for c in load_routing(HERE / f)
        if c.skill
    ]
    start = time.perf_counter()
    report = lint_library(real, ranker=args.ranker)
    took = time.perf_counter() - start
    print(f"real skills: {report.skills}, probes {report.probes}, {took:.2f} s")
    print(f"  findings: {report.counts()}")
    for f in report.findings:
        if f.rule in ("black-hole", "over-general"):
            print(f"  {f.message}")
    general = {n: d for n, (d, _) in GENERAL.items()}
    names = set(general)
    library = real + [skill(n, d) for n, d in general.items()]
    before = hijack_rate(library, cases, args.ranker, names)
    flagged = {
        f.skills[0]
        for f in lint_library(library, ranker=args.ranker).findings
        if f.rule in ("black-hole", "over-general")
    }
    print(
        f"over-general skills added: {len(names)}; flagged {len(flagged & names)} "
        f"(and {len(flagged - names)} real ones)"
    )
    print(f"requests the over-general skills take from the right skill in search: {before:.1%}")


if __name__ == "__main__":
    main()
