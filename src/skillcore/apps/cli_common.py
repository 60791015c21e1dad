"""What every ``skillcore`` command shares: exit codes and the two kinds of error, opening the
sources' library (with a progress line), and printing diagnostics and the exit status."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any, TextIO

import attrs

from skillcore._escaping import single_line
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import SkillcoreError, SkillSourceWarning
from skillcore.examples import examples_path
from skillcore.library import SkillLibrary
from skillcore.sources import SkillSource


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


class CommandFailed(SkillcoreError):
    """The command could not do its work although its input was fine (e.g. the port a
    server must listen on is taken): one line, exit code 1."""


def open_library(args: argparse.Namespace, *, need_skills: bool = True) -> SkillLibrary:
    """The discovered library of ``args.sources``; a source that cannot be read is a
    :class:`UsageError` and, with ``need_skills``, finding no skill a :class:`SkillsProblem`."""
    sources: list[SkillSource | str] = list(
        args.sources or _configured(args) or [default_examples()]
    )
    if args.recursive:
        sources = [SkillSource(str(s), recursive=True, max_depth=args.max_depth) for s in sources]
    progress = _Progress(sys.stderr)
    try:
        cache = args.settings.get("cache", True)
        lock = _lock(args)
        lib = SkillLibrary(sources, mode=args.mode, progress=progress, cache=cache, lock=lock)
    except (SkillcoreError, ValueError) as exc:  # e.g. the same source given twice
        raise UsageError(single_line(str(exc))) from exc
    with warnings.catch_warnings():
        # The command prints the source's diagnostics itself: once, not also as a warning.
        warnings.simplefilter("ignore", SkillSourceWarning)
        lib.discover()
    progress.close()
    unreachable = [d for d in lib.catalog.diagnostics if d.code is Code.SOURCE_UNREACHABLE]
    if unreachable:
        raise UsageError(single_line("; ".join(d.message for d in unreachable)))
    if need_skills and not lib.catalog.skills:
        # Why each SKILL.md found was skipped, before the one-line verdict.
        print_diagnostics(lib, sys.stderr, Severity.WARNING)
        raise SkillsProblem(no_skills_message(lib))
    return lib


def _lock(args: argparse.Namespace) -> Any:
    """The lock policy of a command (``--lock``, ``--frozen``, then the settings), or False
    for none (the lock commands read the sources as they are)."""
    from skillcore.runtime.settings import lock_policy

    if getattr(args, "no_lock", False):
        return False
    lock, frozen = getattr(args, "lock", None), getattr(args, "frozen", None)
    return lock_policy(args.settings, lock, frozen, getattr(args, "lock_keys", None)) or False


def _configured(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The configured sources (asked for only when the command line names none: a settings
    file's refused sources matter only then)."""
    try:
        configured: tuple[str, ...] | None = args.settings.get("sources")
    except SkillcoreError as exc:  # ConfigError: a source the settings file may not name
        raise UsageError(single_line(str(exc))) from exc
    return configured


def no_skills_message(lib: SkillLibrary) -> str:
    """The verdict on a library without a usable skill (printed to stderr by every command,
    after the diagnostics that say why each SKILL.md found was skipped)."""
    where = ", ".join(s.url for s in lib.sources)
    skipped = sum(1 for d in lib.catalog.errors if d.path)
    if skipped:
        return single_line(
            f"no usable skills in {where}: {skipped} SKILL.md file(s) skipped because of the "
            "errors listed"
        )
    return single_line(f"no skills found in {where} (a skill is a folder with a SKILL.md)")


def exit_status(lib: SkillLibrary, printed: bool = False) -> int:
    """1 when discovery reported errors (printed to stderr unless ``printed``), else 0."""
    errors = lib.catalog.errors
    if not printed:
        for diag in errors:
            print(single_line(user_path(diag).format()), file=sys.stderr)
    return EXIT_SKILL_PROBLEMS if errors else EXIT_OK


def user_path(diag: Diagnostic) -> Diagnostic:
    """The diagnostic with a path a user can open: the source joined with the file."""
    if diag.source and diag.path:
        return attrs.evolve(diag, path=f"{diag.source.rstrip('/')}/{diag.path}")
    return diag


def print_diagnostics(lib: SkillLibrary, out: TextIO, min_severity: Severity) -> None:
    order = [Severity.INFO, Severity.WARNING, Severity.ERROR]
    for diag in lib.catalog.diagnostics:
        if order.index(diag.severity) >= order.index(min_severity):
            # Messages quote skill text (directory names, values): one safe line each.
            out.write(single_line(user_path(diag).format()) + "\n")
