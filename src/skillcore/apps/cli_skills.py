"""The ``skillcore`` commands about skills themselves: list, validate, show, render, new, and
the scripted demo."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import attrs

from skillcore._escaping import prompt_text, single_line
from skillcore.apps.cli_common import (
    EXIT_OK,
    EXIT_SKILL_PROBLEMS,
    EXIT_USAGE,
    UsageError,
    default_examples,
    exit_status,
    no_skills_message,
    open_library,
    print_diagnostics,
    user_path,
)
from skillcore.apps.cli_reference import check_folder, skill_folders
from skillcore.catalog import entry_description
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.library import SkillLibrary
from skillcore.limits import DEFAULT_MAX_FILE_BYTES, Limits
from skillcore.model import SkillMetadata
from skillcore.parse import ValidationMode, body_span, check_name, length_problem
from skillcore.parse.reference import reference_properties
from skillcore.policy import PolicyMode, ToolPattern, ToolPolicy
from skillcore.sources import ReadError
from skillcore.tools import SkillToolkit


def cmd_list(args: argparse.Namespace) -> int:
    if getattr(args, "user", False):
        from skillcore.apps.cli_invoke import cmd_list_user

        return cmd_list_user(args)
    lib = open_library(args, need_skills=False)
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
                "tier": lib.tier(s).value,
                "argument_hint": s.argument_hint,
                "user_invocable": s.user_invocable,
                "model_invocable": not s.disable_model_invocation,
            }
            for s in cat
        ]
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        if not cat.skills:
            print_diagnostics(lib, sys.stderr, Severity.WARNING)
            print(no_skills_message(lib), file=sys.stderr)
            return EXIT_SKILL_PROBLEMS
        return exit_status(lib)
    if not cat.skills:
        # Diagnostics and verdicts go to stderr in every command; stdout is the listing.
        print_diagnostics(lib, sys.stderr, Severity.WARNING)
        print(no_skills_message(lib), file=sys.stderr)
        return EXIT_SKILL_PROBLEMS
    # Skill text goes to a terminal: no raw escapes or bidi controls (see skillcore._escaping).
    # The trust tier (trusted, pinned, untrusted: whether its code may run) beside the name.
    rows = [(single_line(s.name), lib.tier(s).value, entry_description(s)) for s in cat]
    width = max((len(name) for name, _, _ in rows), default=4)
    for name, tier, desc in rows:
        desc = desc if len(desc) <= 69 else desc[:66] + "..."
        print(f"{name:<{width}}  {tier:<9}  {desc}")
    print(f"\n{len(cat)} skills from {len(lib.sources)} source(s)", file=sys.stderr)
    print_diagnostics(lib, sys.stderr, Severity.WARNING)
    return exit_status(lib, printed=True)


#: The ``validate`` mode that gives the Agent Skills reference validator's verdicts.
REFERENCE_MODE = "reference"


def cmd_validate(args: argparse.Namespace) -> int:
    if args.mode == REFERENCE_MODE:
        return _validate_reference(args)
    lib = open_library(args, need_skills=False)
    cat = lib.catalog
    # Validating a folder that holds no SKILL.md is an error in every mode (as the spec's
    # validator has it); discovery itself only warns in lenient mode.
    diags = [
        attrs.evolve(d, severity=Severity.ERROR) if d.code is Code.EMPTY_SOURCE else d
        for d in cat.diagnostics
    ]
    diags.extend(_line_counts(lib, diags))
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
            sys.stdout.write(single_line(user_path(diag).format()) + "\n")
        warnings = sum(1 for d in diags if d.severity is Severity.WARNING)
        print(f"{len(cat)} valid skills, {errors} errors, {warnings} warnings ({args.mode} mode)")
    if not cat.skills:  # the verdict goes to stderr, as in every command (and with --json)
        print(no_skills_message(lib), file=sys.stderr)
    return EXIT_SKILL_PROBLEMS if errors or not cat.skills else EXIT_OK


def _line_counts(lib: SkillLibrary, diags: list[Diagnostic]) -> list[Diagnostic]:
    """The length warnings discovery could not give: it reads only the head of each file, so
    it judges by size; ``validate`` reads every ``SKILL.md`` whole and counts its lines."""
    warned = {(d.source, d.path) for d in diags if d.code is Code.SKILL_TOO_LONG}
    found: list[Diagnostic] = []
    for meta in lib.catalog:
        path = f"{meta.location.directory}/SKILL.md" if meta.location.directory else "SKILL.md"
        if (meta.location.source, path) in warned:
            continue
        try:
            content = lib.read_resource(meta, "SKILL.md", DEFAULT_MAX_FILE_BYTES)
        except ReadError:
            continue  # a file that cannot be read now: discovery's findings stand
        if content.text is None:
            continue
        start, body = body_span(content.text)
        head = len(content.text[:start].encode())
        problem = length_problem(content.size - head, body.count("\n") + 1)
        if problem is not None:
            found.append(
                Diagnostic(
                    Severity.WARNING, Code.SKILL_TOO_LONG, problem, meta.location.source, path
                )
            )
    return found


def _validate_reference(args: argparse.Namespace) -> int:
    """``validate --mode reference``: each local skill folder judged by the reference's rules
    (:mod:`skillcore.parse.reference`), its messages printed as diagnostics."""
    if args.recursive:
        raise UsageError("--recursive cannot be used with --mode reference")
    sources = list(args.sources or args.settings.get("sources") or [default_examples()])
    names: list[str] = []
    diags: list[Diagnostic] = []
    for source in map(str, sources):
        folders = skill_folders(source)
        if folders and source.lower().endswith("skill.md"):
            source = str(folders[0])  # the file itself was named: report its folder
        if folders is None:
            remote = "://" in source and not source.startswith("file://")
            why = "--mode reference reads local folders only (a path)" if remote else "not found"
            raise UsageError(single_line(f"{source}: {why}"))
        if not folders:
            diags.append(
                Diagnostic(
                    Severity.ERROR,
                    Code.REFERENCE_RULE,
                    "Missing required file: SKILL.md (no skill folder here)",
                    source,
                )
            )
        for folder in folders:
            name, found = check_folder(folder, source)
            names.extend([name] if name else [])
            diags.extend(found)
    if args.json:
        json.dump(
            {"skills": names, "diagnostics": [d.to_dict() for d in diags]}, sys.stdout, indent=2
        )
        sys.stdout.write("\n")
    else:
        for diag in diags:
            sys.stdout.write(single_line(user_path(diag).format()) + "\n")
        print(f"{len(names)} valid skills, {len(diags)} errors, 0 warnings (reference mode)")
    return EXIT_SKILL_PROBLEMS if diags or not names else EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    lib = open_library(args, need_skills=False)
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
                print(single_line(user_path(diag).format()), file=sys.stderr)
            return EXIT_SKILL_PROBLEMS
        raise UsageError(single_line(f"no skill named {args.name!r}; see 'skillcore list'"))
    if args.json:
        json.dump(reference_properties(meta), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
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
    lib = open_library(args)
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
    return exit_status(lib)


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
    lib = open_library(args)
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
        return exit_status(lib)
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
    for tool in probe:
        name = ToolPattern.parse(tool).tool
        decision = toolkit.check_tool(session, name)
        say(f"   {name:<8} -> {'allowed' if decision.allowed else 'BLOCKED'}: {decision.reason}")
    if other is not None:
        say(f"\n== 6. loading {other.name!r} (no allowed-tools) adds nothing and lifts nothing")
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
    return exit_status(lib)
