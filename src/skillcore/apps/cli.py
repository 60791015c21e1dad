"""The ``skillcore`` command line: list, validate, show, render, new, demo, expand, eval,
lint-descriptions, lint-library, mcp; the supply chain: lock, outdated, update, keygen, sign,
verify, scan.

This module parses the command line and runs a command; the commands live by job in
:mod:`~skillcore.apps.cli_skills` (about skills), :mod:`~skillcore.apps.cli_eval` (measuring
selection), :mod:`~skillcore.apps.cli_invoke` (``expand``), :mod:`~skillcore.apps.cli_lock`
(the lock), :mod:`~skillcore.apps.cli_sign` (keys and signatures), :mod:`~skillcore.apps.cli_scan`
(``scan``) and here (``mcp``), on what :mod:`~skillcore.apps.cli_common` shares.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import warnings
from collections.abc import Sequence

from skillcore._escaping import single_line
from skillcore.apps.cli_common import (
    EXIT_OK,
    EXIT_SKILL_PROBLEMS,
    EXIT_USAGE,
    CommandFailed,
    SkillsProblem,
    UsageError,
    default_examples,
    open_library,
    user_path,
)
from skillcore.apps.cli_eval import (
    cmd_eval,
    cmd_lint_descriptions,
    cmd_lint_library,
    eval_table,
    plot_reports,
)
from skillcore.apps.cli_invoke import add_invocation_commands
from skillcore.apps.cli_lock import KEY_HELP, add_lock_commands
from skillcore.apps.cli_scan import add_scan_command
from skillcore.apps.cli_sign import add_sign_commands
from skillcore.apps.cli_skills import (
    REFERENCE_MODE,
    SKELETON,
    cmd_demo,
    cmd_list,
    cmd_new,
    cmd_render,
    cmd_show,
    cmd_validate,
)
from skillcore.catalog import CatalogFormat, CatalogOrder
from skillcore.limits import Limits
from skillcore.parse import ValidationMode
from skillcore.runtime import settings

#: The catalog budget of a session with default limits.
_BUDGET = Limits().catalog_budget
_BUDGET_HELP = f"catalog character budget (default: SKILLCORE_CATALOG_BUDGET, else {_BUDGET})"


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the skills over MCP (stdio or streamable HTTP)."""
    import anyio

    from skillcore.errors import MissingDependencyError

    _check_mcp_options(args)
    try:
        from skillcore.apps.mcp_server import SkillMCPServer, listen_socket
    except MissingDependencyError as exc:
        raise UsageError(str(exc)) from None
    listener = None
    if args.transport == "http":  # bound before discovery: a bad host or port fails fast
        try:
            listener = listen_socket(args.host, args.port)
        except ValueError as exc:
            raise UsageError(f"--host: {exc}") from None
        except OSError as exc:
            where = f"[{args.host}]" if ":" in args.host else args.host
            reason = exc.strerror or str(exc)
            raise CommandFailed(f"cannot listen on {where}:{args.port}: {reason}") from None
    lib = open_library(args)
    for diag in lib.catalog.errors:  # stdout belongs to the protocol on stdio
        print(single_line(user_path(diag).format()), file=sys.stderr)
    server = SkillMCPServer(
        lib, limits=Limits(catalog_budget=args.budget), budget=args.budget, refresh=args.refresh
    )
    if listener is None:
        anyio.run(server.run_stdio)
        return 0

    def ready(url: str) -> None:
        skills = len(lib.catalog.model_visible)
        print(
            f"skillcore mcp: serving {skills} skills over streamable HTTP at {url} (Ctrl+C stops)",
            file=sys.stderr,
            flush=True,
        )

    anyio.run(server.serve_http, listener, args.host, ready)
    return 0


def _check_mcp_options(args: argparse.Namespace) -> None:
    """``mcp``'s numbers, checked before anything starts (a usage error each)."""
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be a port number from 0 to 65535, got {args.port}")
    refresh = args.refresh
    if refresh is not None and not (math.isfinite(refresh) and refresh > 0):
        raise UsageError(f"--refresh must be a number of seconds above 0, got {refresh}")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    from skillcore import __version__

    parser = argparse.ArgumentParser(
        prog="skillcore",
        description="Discover, validate and render Agent Skills. Exit codes: 0 success, "
        "1 the skills have problems (or a server cannot start), 2 usage or I/O errors.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_skill_commands(sub)
    add_invocation_commands(sub, _add_command)
    _add_eval_commands(sub)
    _add_lint_commands(sub)
    _add_mcp_command(sub)
    add_lock_commands(sub, _add_command)
    add_sign_commands(sub)
    add_scan_command(sub, _add_command)
    return parser


def _add_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help: str,
    sources: bool = True,
    first: tuple[str, str] | None = None,
    modes: tuple[str, ...] = (),
) -> argparse.ArgumentParser:
    """A subcommand's parser, with the options every command over sources takes."""
    p = sub.add_parser(name, help=help, description=help)
    p.set_defaults(subparser=p)  # usage errors name the subcommand and show its usage
    if first is not None:  # a positional that comes before the sources (``show NAME ...``)
        p.add_argument(first[0], help=first[1])
    if not sources:
        return p
    p.add_argument(
        "sources",
        nargs="*",
        help="skill sources: paths or URLs (s3://, git://, zip://, memory://); "
        "later ones override earlier ones (default: the bundled examples/skills)",
    )
    p.add_argument(
        "--mode",
        choices=[*(m.value for m in ValidationMode), *modes],
        default=None,
        help="validation mode (default: SKILLCORE_VALIDATION_MODE, else lenient)"
        + ("; reference: the verdicts of the Agent Skills reference validator" if modes else ""),
    )
    p.add_argument(
        "--recursive",
        action="store_true",
        help="also find skills in sub-folders of each source (monorepos)",
    )
    p.add_argument(
        "--max-depth", type=int, default=4, help="how deep --recursive looks (default: 4)"
    )
    p.add_argument(
        "--trust-settings",
        action="store_true",
        help="use the sources of the settings file in this directory even when they are URLs "
        f"or lead outside it (default: only folders inside it; see {settings.TRUST_ENV})",
    )
    p.add_argument(
        "--lock",
        default=None,
        help="verify the skills against this lock file (default: SKILLCORE_LOCK, else the "
        "settings' lock; see docs/trust.md)",
    )
    p.add_argument("--lock-key", dest="lock_keys", action="append", metavar="PUB", help=KEY_HELP)
    p.add_argument(
        "--frozen",
        action="store_true",
        default=None,
        help="refuse every skill the lock does not name or that differs from it (the lock "
        "defaults to skills.lock)",
    )
    return p


def _add_skill_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """list, validate, show, render, new, demo."""
    p = _add_command(sub, "list", "list the discovered skills")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--user", action="store_true", help="only skills a user may invoke (/name)")
    p.set_defaults(func=cmd_list)

    p = _add_command(
        sub,
        "validate",
        "validate skills and print every diagnostic (exit 1 on errors)",
        modes=(REFERENCE_MODE,),
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_validate)

    p = _add_command(
        sub, "show", "show one skill's metadata and resources", first=("name", "skill name")
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the skill's properties as JSON, as the reference's read-properties does",
    )
    p.add_argument("--body", action="store_true", help="also print the instructions")
    p.set_defaults(func=cmd_show)

    p = _add_command(sub, "render", "print the catalog exactly as the model sees it")
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

    p = _add_command(sub, "new", "create a new skill with the standard folders", sources=False)
    p.add_argument("name", help="skill name (lowercase, digits, hyphens)")
    p.add_argument("--dir", default=".", help="parent directory (default: .)")
    p.add_argument("--description", help="the skill's description")
    p.set_defaults(func=cmd_new)

    p = _add_command(sub, "demo", "a scripted walk through discover, load, tool policy and unload")
    p.add_argument("--budget", type=_budget, default=None, help=_BUDGET_HELP)
    p.set_defaults(func=cmd_demo)


def _add_eval_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """eval."""
    p = _add_command(
        sub, "eval", "measure skill selection: recall@k, MRR and catalog reach for query files"
    )
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


def _add_lint_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """lint-descriptions, lint-library."""
    p = _add_command(
        sub, "lint-descriptions", "list pairs of skills whose descriptions are confusable"
    )
    p.add_argument("--top", type=int, default=20, help="how many pairs (default 20)")
    p.add_argument(
        "--method", choices=["auto", "tfidf", "semantic"], default="tfidf", help="default: tfidf"
    )
    p.add_argument("--min-score", type=float, default=0.0, help="only pairs at least this alike")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_lint_descriptions)

    p = _add_command(
        sub,
        "lint-library",
        "find what makes the model pick the wrong skill: overlapping, over-general, "
        "request-stealing and too-short descriptions (exit 1 on warnings with --strict)",
    )
    p.add_argument(
        "--ranker",
        choices=["auto", "bm25", "hybrid"],
        default="bm25",
        help="the search ranker the probe requests go through (default: bm25)",
    )
    p.add_argument("--strict", action="store_true", help="exit 1 when there is a warning")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_lint_library)


def _add_mcp_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """mcp."""
    p = _add_command(
        sub, "mcp", "serve the skills over MCP: the skill tools, skill:// resources, skills/list"
    )
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


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError("sizes must be 1 or more")
    return sizes


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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", settings.ConfigWarning)
        try:
            found = settings.load_settings(trust=getattr(args, "trust_settings", False))
        except settings.ConfigError as exc:
            raise UsageError(single_line(str(exc))) from exc
        finally:  # also before an error: a mistyped variable may explain it
            for warning in caught:  # one line each, not Python's two-line format
                message = single_line(str(warning.message))
                print(f"skillcore {args.command}: warning: {message}", file=sys.stderr)
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
    except (SkillsProblem, CommandFailed) as exc:
        print(f"skillcore {args.command}: {exc}", file=sys.stderr)
        return EXIT_SKILL_PROBLEMS
    except BrokenPipeError:  # pragma: no cover - e.g. piping into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # pragma: no cover
        return 130


__all__ = [
    "EXIT_OK",
    "EXIT_SKILL_PROBLEMS",
    "EXIT_USAGE",
    "SKELETON",
    "SkillsProblem",
    "UsageError",
    "build_parser",
    "cmd_demo",
    "cmd_eval",
    "cmd_lint_descriptions",
    "cmd_lint_library",
    "cmd_list",
    "cmd_mcp",
    "cmd_new",
    "cmd_render",
    "cmd_show",
    "cmd_validate",
    "default_examples",
    "eval_table",
    "main",
    "plot_reports",
]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
