"""The ``skillcore`` commands about the user's own invocation of skills: ``expand`` (what a
message ``/name args`` expands to) and ``list --user`` (the skills a user may invoke, with
their argument hints)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from skillcore._escaping import prompt_text, single_line
from skillcore.apps.cli_common import EXIT_OK, EXIT_SKILL_PROBLEMS, open_library
from skillcore.catalog import entry_description
from skillcore.model import SkillMetadata
from skillcore.state import user_skills
from skillcore.tools import SkillToolkit, expand_message


def user_entry(meta: SkillMetadata) -> str:
    """How a skill is offered to a user: ``/name <hint>``."""
    hint = f" {single_line(meta.argument_hint)}" if meta.argument_hint else ""
    return f"/{single_line(meta.name)}{hint}"


def cmd_list_user(args: argparse.Namespace) -> int:
    """``skillcore list --user``: the skills a user may invoke, with their hints."""
    lib = open_library(args, need_skills=False)
    metas = user_skills(lib.catalog)
    if args.json:
        data = [
            {"name": m.name, "argument_hint": m.argument_hint, "description": m.description}
            for m in metas
        ]
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    rows = [(user_entry(m), entry_description(m)) for m in metas]
    width = max((len(entry) for entry, _ in rows), default=4)
    for entry, desc in rows:
        desc = desc if len(desc) <= 80 else desc[:77] + "..."
        print(f"{entry:<{width}}  {desc}")
    print(f"\n{len(rows)} skills a user may invoke", file=sys.stderr)
    return EXIT_OK


def cmd_expand(args: argparse.Namespace) -> int:
    """``skillcore expand "/name args"``: print what the invocation expands to (exit 1 when
    it is refused or is not an invocation)."""
    lib = open_library(args)
    toolkit = SkillToolkit(lib)
    result = expand_message(toolkit, lib.session(), args.message, session_id=args.session_id)
    if result is None:
        print(
            "not an invocation: the message must start with /name (or $name) of a skill a "
            "user may invoke",
            file=sys.stderr,
        )
        return EXIT_SKILL_PROBLEMS
    if not result.ok:
        print(prompt_text(result.text), file=sys.stderr)
        return EXIT_SKILL_PROBLEMS
    print(prompt_text(result.text))
    return EXIT_OK


def add_invocation_commands(sub: Any, add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """``expand`` (``list --user`` is an option of ``list``); ``add_command``: the CLI's
    subcommand builder (the options every command over sources takes)."""
    p = add_command(
        sub,
        "expand",
        "print what a user message /name args expands to (the skill's instructions with its "
        "arguments)",
        first=("message", 'the user message, e.g. "/fix-issue 123"'),
    )
    p.add_argument("--session-id", default=None, help="the session id the skill may name")
    p.set_defaults(func=cmd_expand)


__all__ = ["add_invocation_commands", "cmd_expand", "cmd_list_user", "user_entry"]
