"""The ``skillcore`` command line: list, validate, show, render, new, demo, eval,
lint-descriptions."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any, TextIO

import attrs

from skillcore._text import prompt_text, single_line
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
from skillcore.catalog.relevance import CatalogOrder
from skillcore.catalog.render import CatalogFormat, entry_description
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import SkillcoreError
from skillcore.examples import examples_path
from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.model import SkillMetadata
from skillcore.parse.frontmatter import ValidationMode, check_name
from skillcore.policy.rules import PolicyMode, ToolPolicy
from skillcore.runtime import settings
from skillcore.sources.base import ReadError, SkillSource
from skillcore.tools.toolkit import SkillToolkit

#: The catalog budget of a session with default limits.
_BUDGET = Limits().catalog_budget
_BUDGET_HELP = f"catalog character budget (default: SKILLCORE_CATALOG_BUDGET, else {_BUDGET})"


def default_examples() -> str:
    """The bundled example skills (see :func:`skillcore.examples_path`), from any directory."""
    return str(examples_path("skills"))


class _Progress:
    """A one-line progress indicator on stderr for long discoveries (TTY only)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if self.enabled and total >= 500:
            self.stream.write(f"\rdiscovering skills: {done}/{total}")
            self.stream.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")


#: Exit codes, the same for every subcommand.
EXIT_OK, EXIT_SKILL_PROBLEMS, EXIT_USAGE = 0, 1, 2


class UsageError(SkillcoreError):
    """Bad command-line input or a source that cannot be read: one line, exit code 2."""


class SkillsProblem(SkillcoreError):
    """The skills cannot serve the command (none found, none usable): one line, exit code 1."""


def _library(args: argparse.Namespace, *, need_skills: bool = True) -> SkillLibrary:
    """The discovered library of ``args.sources``; a source that cannot be read is a
    :class:`UsageError` and, with ``need_skills``, finding no skill a :class:`SkillsProblem`."""
    configured = args.settings.get("sources")
    sources: list[SkillSource | str] = list(args.sources or configured or [default_examples()])
    if args.recursive:
        sources = [SkillSource(str(s), recursive=True, max_depth=args.max_depth) for s in sources]
    progress = _Progress(sys.stderr)
    try:
        cache = args.settings.get("cache", True)
        lib = SkillLibrary(sources, mode=args.mode, progress=progress, cache=cache)
    except (SkillcoreError, ValueError) as exc:  # e.g. the same source given twice
        raise UsageError(str(exc)) from exc
    lib.discover()
    progress.close()
    unreachable = [d for d in lib.catalog.diagnostics if d.code is Code.SOURCE_UNREACHABLE]
    if unreachable:
        raise UsageError(single_line("; ".join(d.message for d in unreachable)))
    if need_skills and not lib.catalog.skills:
        raise SkillsProblem(_no_skills(lib))
    return lib


def _no_skills(lib: SkillLibrary) -> str:
    where = ", ".join(s.url for s in lib.sources)
    return single_line(f"no skills found in {where} (a skill is a folder with a SKILL.md)")


def _status(lib: SkillLibrary, printed: bool = False) -> int:
    """1 when discovery reported errors (printed to stderr unless ``printed``), else 0."""
    errors = lib.catalog.errors
    if not printed:
        for diag in errors:
            print(single_line(_where(diag).format()), file=sys.stderr)
    return EXIT_SKILL_PROBLEMS if errors else EXIT_OK


def _where(diag: Diagnostic) -> Diagnostic:
    """The diagnostic with a path a user can open: the source joined with the file."""
    if diag.source and diag.path:
        return attrs.evolve(diag, path=f"{diag.source.rstrip('/')}/{diag.path}")
    return diag


def _print_diagnostics(lib: SkillLibrary, out: TextIO, min_severity: Severity) -> None:
    order = [Severity.INFO, Severity.WARNING, Severity.ERROR]
    for diag in lib.catalog.diagnostics:
        if order.index(diag.severity) >= order.index(min_severity):
            # Messages quote skill text (directory names, values): one safe line each.
            out.write(single_line(_where(diag).format()) + "\n")


def cmd_list(args: argparse.Namespace) -> int:
    lib = _library(args, need_skills=False)
    cat = lib.catalog
    if args.json:
        data = [
            {
                "name": s.name,
                "description": s.description,
                "source": s.location.source,
                "location": s.location.url,
                "allowed_tools": None if s.allowed_tools is None else list(s.allowed_tools),
                "version": s.version,
            }
            for s in cat
        ]
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        if not cat.skills:
            print(_no_skills(lib), file=sys.stderr)
            return EXIT_SKILL_PROBLEMS
        return _status(lib)
    if not cat.skills:
        print(_no_skills(lib))
        _print_diagnostics(lib, sys.stderr, Severity.WARNING)
        return EXIT_SKILL_PROBLEMS
    # Skill text goes to a terminal: no raw escapes or bidi controls (see skillcore._text).
    rows = [(single_line(s.name), entry_description(s)) for s in cat]
    width = max((len(name) for name, _ in rows), default=4)
    for name, desc in rows:
        desc = desc if len(desc) <= 80 else desc[:77] + "..."
        print(f"{name:<{width}}  {desc}")
    print(f"\n{len(cat)} skills from {len(lib.sources)} source(s)", file=sys.stderr)
    _print_diagnostics(lib, sys.stderr, Severity.WARNING)
    return _status(lib, printed=True)


def cmd_validate(args: argparse.Namespace) -> int:
    lib = _library(args, need_skills=False)
    cat = lib.catalog
    # Validating a folder that holds no SKILL.md is an error in every mode (as the spec's
    # validator has it); discovery itself only warns in lenient mode.
    diags = [
        attrs.evolve(d, severity=Severity.ERROR) if d.code is Code.EMPTY_SOURCE else d
        for d in cat.diagnostics
    ]
    errors = sum(1 for d in diags if d.severity is Severity.ERROR)
    if args.json:
        json.dump(
            {"skills": list(cat.names), "diagnostics": [d.to_dict() for d in diags]},
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
    else:
        for diag in diags:
            sys.stdout.write(single_line(_where(diag).format()) + "\n")
        warnings = sum(1 for d in diags if d.severity is Severity.WARNING)
        print(f"{len(cat)} valid skills, {errors} errors, {warnings} warnings ({args.mode} mode)")
        if not cat.skills:
            print(_no_skills(lib), file=sys.stderr)
    return EXIT_SKILL_PROBLEMS if errors or not cat.skills else EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    lib = _library(args, need_skills=False)
    meta = lib.catalog.get(args.name)
    if meta is None:
        # A folder of that name that discovery skipped: say why, not just "no skill".
        why = [
            d
            for d in lib.catalog.diagnostics
            if d.severity is Severity.ERROR and PurePosixPath(d.path).parent.name == args.name
        ]
        if why:
            print(single_line(f"{args.name!r} was skipped:"), file=sys.stderr)
            for diag in why:
                print(single_line(_where(diag).format()), file=sys.stderr)
            return EXIT_SKILL_PROBLEMS
        raise UsageError(single_line(f"no skill named {args.name!r}; see 'skillcore list'"))
    error: ReadError | None
    try:
        doc = lib.read_document(meta)
    except ReadError as exc:
        doc, error = None, exc
    else:
        error = None
    fields: list[tuple[str, Any]] = [
        ("name", meta.name),
        ("description", meta.description),
        ("location", meta.location.url),
        ("source", meta.location.source),
        ("license", meta.license),
        ("compatibility", meta.compatibility),
        ("version", meta.version),
        ("allowed-tools", None if meta.allowed_tools is None else " ".join(meta.allowed_tools)),
        ("triggers", ", ".join(meta.triggers) or None),
        ("file-patterns", ", ".join(meta.file_patterns) or None),
        ("dependencies", _dependencies(meta, lib)),
        ("metadata", dict(meta.metadata) or None),
    ]
    for key, value in fields:
        if value is not None:
            print(f"{key + ':':<15}{single_line(str(value))}")
    if doc is None:
        assert error is not None
        message = single_line(f"cannot read {meta.name}: {error.code.value}: {error.message}")
        print(message, file=sys.stderr)
        return 1
    print(f"{'resources:':<15}{len(doc.resources)}")
    for r in doc.resources:
        print(f"  {single_line(r.path)} ({r.kind.value}, {r.size} bytes)")
    if args.body:
        print()
        print(prompt_text(doc.body))
    return 0


def _dependencies(meta: SkillMetadata, lib: SkillLibrary) -> str | None:
    """The declared dependencies, and which of them the catalog lacks."""
    if not meta.dependencies:
        return None
    absent = [d for d in meta.dependencies if lib.catalog.get(d) is None]
    missing = f" (not in the catalog: {', '.join(absent)})" if absent else ""
    return ", ".join(meta.dependencies) + missing


def cmd_render(args: argparse.Namespace) -> int:
    lib = _library(args)
    session = lib.session(Limits(catalog_budget=args.budget))
    # Marks are what the dynamic prompt mode shows; the stable one ignores load state.
    mode = "dynamic" if args.loaded else None
    toolkit = SkillToolkit(lib, catalog_format=args.format, prompt_mode=mode)
    for name in args.loaded or ():
        if lib.catalog.get(name) is None:
            raise UsageError(
                single_line(f"--loaded {name}: no skill named {name!r}; see 'skillcore list'")
            )
        result = toolkit.call(session, toolkit.names.load, {"skill_name": name})
        if not result.ok:  # e.g. more --loaded skills than a session may hold
            code = result.code.value if result.code else "refused"
            raise UsageError(single_line(f"--loaded {name}: cannot be loaded ({code})"))
        session = result.session
    # Already safe (render sanitises skill text); prompt_text leaves safe text unchanged.
    sys.stdout.write(prompt_text(toolkit.instructions(session)))
    return _status(lib)


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


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError("sizes must be 1 or more")
    return sizes


def cmd_eval(args: argparse.Namespace) -> int:
    lib = _library(args)
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
        return max(_status(lib), EXIT_SKILL_PROBLEMS)
    return _status(lib)


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
    lib = _library(args)
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
    return _status(lib)


SKELETON = """---
name: {name}
description: {description}
---

# {title}

## When to use this skill

Describe the tasks and requests this skill is for.

## Instructions

1. First step.
2. Second step.

## Resources

- `scripts/` holds executable helpers.
- `references/` holds documents to read when needed.
- `assets/` holds templates and static files.
"""


def cmd_new(args: argparse.Namespace) -> int:
    usable, problem = check_name(args.name, ValidationMode.STRICT)
    if not usable or problem:
        print(f"invalid skill name: {problem}", file=sys.stderr)
        return 2
    target = Path(args.dir) / args.name
    if target.exists():
        print(f"{target} already exists", file=sys.stderr)
        return 2
    description = args.description or f"TODO: say what {args.name} does and when to use it."
    title = args.name.replace("-", " ").capitalize()
    try:
        for sub in ("scripts", "references", "assets"):
            (target / sub).mkdir(parents=True)
            (target / sub / ".gitkeep").write_text("")
        (target / "SKILL.md").write_text(
            SKELETON.format(name=args.name, description=json.dumps(description), title=title)
        )
    except OSError as exc:  # --dir is a file, /proc, read-only, ...
        reason = exc.strerror or type(exc).__name__
        print(single_line(f"cannot create {target}: {reason}"), file=sys.stderr)
        return EXIT_USAGE
    print(f"created {target}/SKILL.md (+ scripts/, references/, assets/)")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """A scripted walk through discover -> load -> policy -> unload. No network, no key."""
    lib = _library(args)
    cat = lib.catalog

    def say(text: str = "") -> None:
        print(prompt_text(text))  # replies quote skill text; keep the terminal safe

    say(f"== 1. discover: {len(cat)} skills from {', '.join(s.url for s in lib.sources)}")
    for s in cat:
        say(f"   - {s.name}")
    policy = ToolPolicy(PolicyMode.RESTRICT, always_allowed={"think"})
    session = lib.session(Limits(max_loaded=2, catalog_budget=args.budget), policy)
    toolkit = SkillToolkit(lib)
    say(f"\n== 2. the catalog the model sees (budget {args.budget} characters):\n")
    say(toolkit.instructions(session))
    restricted = next((s for s in cat if s.allowed_tools), None)
    other = next((s for s in cat if s.allowed_tools is None), None)
    if restricted is None:
        say("(no skill declares allowed-tools; skipping the policy part)")
        return _status(lib)
    say(f"== 3. the model calls load_skill({restricted.name!r})")
    result = toolkit.call(session, "load_skill", {"skill_name": restricted.name})
    session = result.session
    say("   " + result.text.splitlines()[0] + " ... (" + str(len(result.text)) + " characters)")
    say(f"   loaded: {', '.join(session.loaded_names)}")
    say("\n== 4. a second load of the same skill is refused, and the session is unchanged")
    again = toolkit.call(session, "load_skill", {"skill_name": restricted.name})
    say(f"   {again.code.value}: {again.text}")
    say("\n== 5. RESTRICT policy: tool calls are checked against allowed-tools")
    probe = (
        [*restricted.allowed_tools[:1], "Write", "think"] if restricted.allowed_tools else ["Write"]
    )
    from skillcore.policy.rules import ToolPattern

    for tool in probe:
        name = ToolPattern.parse(tool).tool
        decision = toolkit.check_tool(session, name)
        say(f"   {name:<8} -> {'allowed' if decision.allowed else 'BLOCKED'}: {decision.reason}")
    if other is not None:
        say(f"\n== 6. loading {other.name!r} (no allowed-tools) lifts the restriction")
        session = toolkit.call(session, "load_skill", {"skill_name": other.name}).session
        say(f"   Write -> {'allowed' if toolkit.check_tool(session, 'Write') else 'BLOCKED'}")
        say("\n== 7. the session is full (max_loaded=2): a third load is refused")
        third = next((s for s in cat if s.name not in session.loaded_names), None)
        if third is not None:
            res = toolkit.call(session, "load_skill", {"skill_name": third.name})
            say(f"   {res.code.value}: {res.text}")
    say("\n== 8. unload frees a slot; the state a checkpoint stores is small and JSON-native")
    res = toolkit.call(session, "unload_skill", {"skill_name": restricted.name})
    session = res.session
    say(f"   {res.text}")
    state = json.dumps(session.to_state())
    say(f"   state ({len(state)} bytes): {state[:160]}{'...' if len(state) > 160 else ''}")
    say("\n== 9. search finds skills the budget left out of the prompt")
    say("   " + toolkit.search_text(session, "csv data quality", None).replace("\n", "\n   "))
    return _status(lib)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the skills over MCP (stdio or streamable HTTP)."""
    import anyio

    from skillcore.apps.mcp_server import SkillMCPServer

    lib = _library(args)
    for diag in lib.catalog.errors:  # stdout belongs to the protocol on stdio
        print(single_line(_where(diag).format()), file=sys.stderr)
    server = SkillMCPServer(
        lib, limits=Limits(catalog_budget=args.budget), budget=args.budget, refresh=args.refresh
    )
    if args.transport == "stdio":
        anyio.run(server.run_stdio)
    else:

        def ready(url: str) -> None:
            skills = len(lib.catalog.model_visible)
            print(
                f"skillcore mcp: serving {skills} skills over streamable HTTP at {url} "
                "(Ctrl+C stops)",
                file=sys.stderr,
                flush=True,
            )

        anyio.run(server.run_http, args.host, args.port, ready)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    from skillcore import __version__

    parser = argparse.ArgumentParser(
        prog="skillcore",
        description="Discover, validate and render Agent Skills. Exit codes: 0 success, "
        "1 the skills have problems, 2 usage or I/O errors.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(
        name: str, help: str, sources: bool = True, first: tuple[str, str] | None = None
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.set_defaults(subparser=p)  # usage errors name the subcommand and show its usage
        if first is not None:  # a positional that comes before the sources (``show NAME ...``)
            p.add_argument(first[0], help=first[1])
        if sources:
            p.add_argument(
                "sources",
                nargs="*",
                help="skill sources: paths or URLs (s3://, git://, zip://, memory://); "
                "later ones override earlier ones (default: the bundled examples/skills)",
            )
            p.add_argument(
                "--mode",
                choices=[m.value for m in ValidationMode],
                default=None,
                help="validation mode (default: SKILLCORE_VALIDATION_MODE, else lenient)",
            )
            p.add_argument(
                "--recursive",
                action="store_true",
                help="also find skills in sub-folders of each source (monorepos)",
            )
            p.add_argument(
                "--max-depth",
                type=int,
                default=4,
                help="how deep --recursive looks (default: 4)",
            )
        return p

    p = add("list", "list the discovered skills")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_list)

    p = add("validate", "validate skills and print every diagnostic (exit 1 on errors)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_validate)

    p = add("show", "show one skill's metadata and resources", first=("name", "skill name"))
    p.add_argument("--body", action="store_true", help="also print the instructions")
    p.set_defaults(func=_show_args)

    p = add("render", "print the catalog exactly as the model sees it")
    p.add_argument("--budget", type=_budget, default=None, help=_BUDGET_HELP)
    p.add_argument(
        "--format", choices=[f.value for f in CatalogFormat], default=CatalogFormat.MARKDOWN.value
    )
    p.add_argument(
        "--loaded",
        action="append",
        help="mark this skill as loaded, as prompt_mode='dynamic' shows it (repeatable)",
    )
    p.set_defaults(func=cmd_render)

    p = add("new", "create a new skill with the standard folders", sources=False)
    p.add_argument("name", help="skill name (lowercase, digits, hyphens)")
    p.add_argument("--dir", default=".", help="parent directory (default: .)")
    p.add_argument("--description", help="the skill's description")
    p.set_defaults(func=cmd_new)

    p = add("demo", "a scripted walk through discover, load, tool policy and unload")
    p.add_argument("--budget", type=_budget, default=None, help=_BUDGET_HELP)
    p.set_defaults(func=cmd_demo)

    p = add("eval", "measure skill selection: recall@k, MRR and catalog reach for query files")
    p.add_argument(
        "--routing", action="append", help="JSON file of {query, skill} entries (repeatable)"
    )
    p.add_argument(
        "--trigger",
        action="append",
        metavar="[SKILL=]FILE",
        help="agentskills trigger-eval file ({query, should_trigger}) of one skill; the skill "
        "is the nearest folder or the file named like one, or SKILL= (repeatable)",
    )
    p.add_argument(
        "--ranker",
        choices=["auto", "bm25", "hybrid"],
        default="auto",
        help="default: auto (hybrid with the semantic extra, else bm25)",
    )
    p.add_argument(
        "--skills-json",
        help="measure on skill facts from a JSON list of {name, description} instead of "
        "the sources (e.g. examples/evals/selection/skills.json)",
    )
    p.add_argument("--budget", type=_budget, default=None, help=_BUDGET_HELP)
    p.add_argument(
        "--sizes", type=_sizes, help="also measure sub-libraries of these sizes, e.g. 10,100"
    )
    p.add_argument(
        "--catalog",
        choices=[o.value for o in CatalogOrder],
        default=CatalogOrder.PRECEDENCE.value,
        help="which catalog 'visible' measures: the default one, or filled by relevance",
    )
    p.add_argument("--plot", help="write a chart (PNG) of the results (needs matplotlib)")
    p.add_argument("--misses", type=int, default=10, help="print this many misses (default 10)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_eval)

    p = add("lint-descriptions", "list pairs of skills whose descriptions are confusable")
    p.add_argument("--top", type=int, default=20, help="how many pairs (default 20)")
    p.add_argument(
        "--method", choices=["auto", "tfidf", "semantic"], default="tfidf", help="default: tfidf"
    )
    p.add_argument("--min-score", type=float, default=0.0, help="only pairs at least this alike")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_lint_descriptions)

    p = add("mcp", "serve the skills over MCP: the skill tools, skill:// resources, skills/list")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    p.add_argument("--budget", type=_budget, default=None, help=_BUDGET_HELP)
    p.add_argument(
        "--refresh",
        type=float,
        default=None,
        help="re-scan the sources every this many seconds and tell clients when skills change "
        "(default: SKILLCORE_REFRESH when it is a number of seconds)",
    )
    p.set_defaults(func=cmd_mcp)
    return parser


def _show_args(args: argparse.Namespace) -> int:
    # ``show NAME [SOURCES...]``: the name is the first positional.
    return cmd_show(args)


def _budget(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _apply_settings(args: argparse.Namespace) -> None:
    """Options not given on the command line from the settings (``SKILLCORE_*``,
    ``skills.yaml``; see :mod:`skillcore.runtime.settings`): the command line wins."""
    try:
        found = settings.current()
    except settings.ConfigError as exc:
        raise UsageError(single_line(str(exc))) from exc
    args.settings = found
    if getattr(args, "mode", "") is None:
        args.mode = found.get("validation_mode", ValidationMode.LENIENT.value)
    if getattr(args, "budget", 0) is None:
        args.budget = found.get("catalog_budget", _BUDGET)
    refresh = found.get("refresh")
    if getattr(args, "refresh", 0) is None and not isinstance(refresh, bool) and refresh:
        args.refresh = refresh


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    parser = build_parser()
    # argparse stops filling a positional at the first option, so in ``show NAME --body SRC``
    # the trailing SRC comes back unrecognised: it is one more source.
    args, extra = parser.parse_known_args(argv)
    if extra:
        if any(e.startswith("-") for e in extra) or not hasattr(args, "sources"):
            args.subparser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.sources = [*args.sources, *extra]
    try:
        _apply_settings(args)
        return int(args.func(args))
    except UsageError as exc:
        print(f"skillcore {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SkillsProblem as exc:
        print(f"skillcore {args.command}: {exc}", file=sys.stderr)
        return EXIT_SKILL_PROBLEMS
    except BrokenPipeError:  # pragma: no cover - e.g. piping into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # pragma: no cover
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
