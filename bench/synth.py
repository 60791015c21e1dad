"""Deterministic synthetic Agent Skills library for the discovery benchmarks.

Every skill is a directory ``skill-NNNNN/`` with a ~3.5 KB ``SKILL.md`` whose frontmatter looks
like real skills (name, a 150-300 character description, license, a ``metadata`` map, and on
some skills ``compatibility``, ``allowed-tools``, ``triggers`` and ``file_patterns``), plus
``references/guide.md`` (~1 KB) on every skill and ``scripts/run.py`` + ``assets/template.txt``
on every third one.

The frontmatter deliberately stays inside what *every* peer accepts (block-style YAML lists,
``allowed-tools`` as a space-separated string, names equal to directory names), so all systems
discover all n skills and the timings compare like with like.

CLI: ``python bench/synth.py DIR N [--seed S]``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

SKILL_MD_BYTES = 3_500
GUIDE_BYTES = 1_000
_MARKER = ".synth.json"
_FORMAT_VERSION = 1  # bump when the generated content changes, to invalidate caches


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_DOMAINS = _words(
    """
    pdf spreadsheet invoice kubernetes terraform postgres changelog release docker pytest
    typescript graphql slack jira figma bigquery snowflake airflow react django rust golang
    security accessibility localization markdown latex csv openapi grpc
    """
)
_VERBS = _words(
    """
    extract validate generate summarize refactor migrate audit format convert review deploy
    benchmark document triage scaffold lint
    """
)
_OBJECTS = (
    "tables",
    "schemas",
    "reports",
    "pull requests",
    "test suites",
    "configuration files",
    "release notes",
    "dashboards",
    "data pipelines",
    "API clients",
    "forms",
    "manifests",
    "query plans",
    "style guides",
    "incident timelines",
    "dependency graphs",
)
_WORDS = _words(
    """
    the skill reads input files and checks each field before writing output with clear errors
    when a value is missing prefer small steps keep original data intact report what changed
    run script against sample confirm result matches expected format use reference guide for
    edge cases limits
    """
)
_LICENSES = (
    "Apache-2.0",
    "MIT",
    "BSD-3-Clause",
    "Proprietary. LICENSE.txt has complete terms",
)
_TOOLS = (
    "Read",
    "Write",
    "Edit",
    "Grep",
    "Glob",
    "Bash(git:*)",
    "Bash(python:*)",
    "WebFetch",
    "mcp__github__create_issue",
    "mcp__jira__*",
)


def _sentence(rng: random.Random, lo: int = 8, hi: int = 18) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    return " ".join(words).capitalize() + "."


def _description(rng: random.Random, domain: str, verb: str, obj: str) -> str:
    """Return a 150-300 character description with no ``": "`` (keeps plain scalars valid)."""
    text = (
        f"{verb.capitalize()} {obj} in {domain} projects. Use when the user asks to {verb} "
        f"{domain} {obj}, mentions {rng.choice(_DOMAINS)} or {rng.choice(_DOMAINS)} files, "
        f"or needs a repeatable checklist."
    )
    target = rng.randint(170, 300)
    while len(text) < target:
        text += " " + _sentence(rng, 4, 9)
    # Cut at a word boundary so the text stays readable.
    return text[:target].rsplit(" ", 1)[0].rstrip(" .") + "."


def _yaml_list(key: str, items: list[str]) -> list[str]:
    # Block style on purpose: strictyaml (skills-ref) rejects flow style like [a, b].
    return [f"{key}:"] + [f'  - "{item}"' for item in items]


def _frontmatter(rng: random.Random, i: int, name: str) -> list[str]:
    domain, verb, obj = rng.choice(_DOMAINS), rng.choice(_VERBS), rng.choice(_OBJECTS)
    desc = _description(rng, domain, verb, obj)
    lines = [f"name: {name}"]
    style = i % 4
    if style == 0:
        # Folded block scalar, as many hand-written skills use for long descriptions.
        cut = desc.rfind(" ", 0, len(desc) // 2)
        lines += ["description: >-", f"  {desc[:cut]}", f"  {desc[cut + 1 :]}"]
    elif style == 1:
        lines.append(f'description: "{desc}"')
    else:
        lines.append(f"description: {desc}")
    lic = rng.choice(_LICENSES)
    lines.append(f"license: {lic}")
    if i % 5 == 0:
        lines.append("compatibility: Requires Python 3.10+, git and network access")
    lines += [
        "metadata:",
        f"  author: team-{rng.choice(_DOMAINS)}",
        f'  version: "{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"',
        f"  category: {domain}",
        f"  owner: {rng.choice(_DOMAINS)}-maintainers@example.com",
    ]
    if i % 3 == 0:
        tools = rng.sample(_TOOLS, rng.randint(2, 5))
        lines.append(f"allowed-tools: {' '.join(tools)}")
    if i % 2 == 0:
        lines += _yaml_list("triggers", [f"{verb} {domain}", f"{domain} {obj}", verb])
    if i % 4 == 1:
        lines += _yaml_list("file_patterns", [f"**/*.{domain[:4]}", f"{domain}/**/*.md"])
    return lines


def _body(rng: random.Random, name: str, budget: int) -> str:
    """Return Markdown instructions of roughly ``budget`` bytes."""
    parts = [
        f"# {name.replace('-', ' ').title()}",
        "",
        "## When to use",
        "",
        *(f"- {_sentence(rng, 6, 12)}" for _ in range(4)),
        "",
        "## Steps",
        "",
        *(f"{k}. {_sentence(rng)}" for k in range(1, 7)),
        "",
        "```bash",
        "python scripts/run.py --input data/ --output out/ --strict",
        "```",
        "",
        "| Option | Meaning |",
        "| --- | --- |",
        "| `--strict` | fail on the first invalid record |",
        "| `--dry-run` | report without writing |",
        "",
        "---",  # a thematic break in the body: frontmatter splitters must not trip on it
        "",
        "## Notes",
        "",
    ]
    text = "\n".join(parts)
    while len(text) < budget - 150:  # a paragraph is ~300 bytes: aim for the middle
        text += "\n" + " ".join(_sentence(rng) for _ in range(3)) + "\n"
    text += "\nSee [the guide](references/guide.md) for edge cases.\n"
    return text


def _write_skill(root: Path, i: int, seed: int) -> None:
    name = f"skill-{i:05d}"
    rng = random.Random(f"{seed}:{i}")  # str seeds hash deterministically across runs
    skill = root / name
    skill.mkdir(parents=True)
    head = "---\n" + "\n".join(_frontmatter(rng, i, name)) + "\n---\n\n"
    body = _body(rng, name, SKILL_MD_BYTES - len(head.encode()) - 60)
    (skill / "SKILL.md").write_text(head + body, encoding="utf-8")

    refs = skill / "references"
    refs.mkdir()
    guide = f"# {name} guide\n\n"
    while len(guide) < GUIDE_BYTES:
        guide += _sentence(rng) + "\n"
    (refs / "guide.md").write_text(guide, encoding="utf-8")

    if i % 3 == 0:
        (skill / "scripts").mkdir()
        (skill / "scripts" / "run.py").write_text(
            f'"""Example skill script."""\n\nimport sys\n\nprint({name!r}, sys.argv[1:])\n',
            encoding="utf-8",
        )
        (skill / "assets").mkdir()
        (skill / "assets" / "template.txt").write_text(
            f"Template for {name}\n{{{{ title }}}}\n{{{{ body }}}}\n", encoding="utf-8"
        )


def make_library(root: Path, n: int, seed: int = 0) -> Path:
    """Create (or reuse) a library of ``n`` synthetic skills under ``root`` and return ``root``.

    A marker file records ``n``, ``seed`` and the format version; a directory whose marker
    matches is reused as is, anything else at ``root`` is replaced.
    """
    root = Path(root)
    marker = root / _MARKER
    want = {"n": n, "seed": seed, "format": _FORMAT_VERSION}
    try:
        if json.loads(marker.read_text(encoding="utf-8")) == want:
            return root
    except (OSError, ValueError):
        pass
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for i in range(1, n + 1):
        _write_skill(root, i, seed)
    # Written last, so an interrupted run is regenerated rather than reused half-made.
    marker.write_text(json.dumps(want), encoding="utf-8")
    return root


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("n", type=int)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    root = make_library(args.dir, args.n, args.seed)
    print(f"{args.n} skills in {root}")


if __name__ == "__main__":
    main()
