"""``skillcore scan``: the static scan of skills for hostile content (text, JSON or SARIF).

Exit codes as for every command: 0 no finding at or above ``--fail-on``, 1 findings at or above
it (or no skill found), 2 usage or source errors.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from skillcore.apps.cli_common import EXIT_OK, EXIT_SKILL_PROBLEMS, UsageError, open_library
from skillcore.scan import (
    DEFAULT_FAIL_ON,
    ScanSeverity,
    sarif_report,
    scan_library,
    text_report,
    uri_maker,
)

#: ``--fail-on none``: report, never fail on findings.
FAIL_NEVER = "none"
FORMATS = ("text", "json", "sarif")


def cmd_scan(args: argparse.Namespace) -> int:
    """Scan the sources' skills and print the report."""
    from skillcore import __version__

    fail_on = None if args.fail_on == FAIL_NEVER else ScanSeverity(args.fail_on)
    lib = open_library(args)
    report = scan_library(lib)
    if args.format == "json":
        data = report.to_json()
        data["fail_on"] = args.fail_on
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif args.format == "sarif":
        uri_of = uri_maker({s.label: s.url for s in lib.sources})
        print(json.dumps(sarif_report(report, __version__, uri_of), indent=2))
    else:
        sys.stdout.write(text_report(report, fail_on))
    if fail_on is not None and report.at_least(fail_on):
        return EXIT_SKILL_PROBLEMS
    return EXIT_OK


def add_scan_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    add_command: Callable[..., argparse.ArgumentParser],
) -> None:
    """The ``scan`` subcommand (``add_command`` adds the options every command over sources
    takes)."""
    p = add_command(
        sub,
        "scan",
        "scan skills for hostile content: prompt injection, hidden Unicode, remote code, "
        "credential reads, exfiltration, obfuscation, broad allowed-tools (exit 1 on findings)",
    )
    p.add_argument("--format", choices=FORMATS, default="text", help="default: text")
    p.add_argument(
        "--fail-on",
        choices=[*(s.value for s in ScanSeverity), FAIL_NEVER],
        default=DEFAULT_FAIL_ON.value,
        help=f"exit 1 when a finding is at least this severe (default: {DEFAULT_FAIL_ON.value}; "
        "none: never)",
    )
    p.set_defaults(func=cmd_scan)


__all__ = ["FAIL_NEVER", "UsageError", "add_scan_command", "cmd_scan"]
