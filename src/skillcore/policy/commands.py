"""The commands a shell tool call runs, as argument patterns judge them: read from the call's
arguments (a mapping, JSON text or a free-form tool's raw input), and the git options and
subcommands through which a command runs another program."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from skillcore.policy.aliases import ToolAliases

#: Largest JSON text of tool arguments parsed to find the command; larger arguments cannot
#: be checked, so argument-restricted entries do not allow the call.
MAX_ARGUMENTS_JSON = 65536
#: Git's global options (before the subcommand) through which it runs another program:
#: ``-c core.pager=...``, ``-c alias.x=!cmd``, ``--config-env``, ``--exec-path``.
GIT_GLOBAL_RUNNERS = ("-c", "--config-env", "--exec-path")
#: Git subcommands that run programs by design or write the config that names them.
GIT_RUNNER_COMMANDS = frozenset(
    {"config", "filter-branch", "difftool", "mergetool", "send-email", "daemon", "instaweb",
     "web--browse"}
)  # fmt: skip
#: Git subcommand words that run a program given on the command line.
GIT_RUNNER_WORDS = frozenset({("bisect", "run"), ("submodule", "foreach")})
#: Long options of git subcommands that name a program to run (git accepts any unambiguous
#: prefix of a long option, so a prefix of these is refused too).
GIT_RUNNER_OPTIONS = (
    "--upload-pack", "--receive-pack", "--exec", "--extcmd", "--ext-diff", "--tool",
    "--open-files-in-pager", "--sendmail-cmd", "--smtp-server", "--tree-filter",
    "--index-filter", "--msg-filter", "--env-filter", "--commit-filter", "--parent-filter",
    "--tag-name-filter",
)  # fmt: skip
#: Short options naming a program to run, by subcommand (also inside a cluster: ``-ix``).
GIT_RUNNER_SHORT = {"rebase": "x", "grep": "O", "clone": "u"}
#: Global options that take a separate value (skipped to find the subcommand).
_GIT_GLOBAL_VALUE = frozenset({"-C", "--git-dir", "--work-tree", "--namespace"})


def program_option(command: str) -> str | None:
    """The word through which ``command`` makes git run another program (a ``-c`` config,
    ``--upload-pack=...``, ``git config``, ...), or None. Words are read as the shell reads
    them (quotes and backslashes removed), so ``'-c'`` is ``-c``; a command whose quoting
    cannot be read is reported as such (fails closed). Only ``git`` is known here."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return "(unbalanced quotes)"
    if not words or words[0] != "git":
        return None
    i = 1
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        name = word.split("=", 1)[0]
        if word.startswith("-c") or name in GIT_GLOBAL_RUNNERS:
            return word
        i += 2 if name in _GIT_GLOBAL_VALUE and "=" not in word else 1
    if i >= len(words):
        return None
    sub, rest = words[i], words[i + 1 :]
    if sub in GIT_RUNNER_COMMANDS:
        return sub
    if rest and (sub, rest[0]) in GIT_RUNNER_WORDS:
        return f"{sub} {rest[0]}"
    short = GIT_RUNNER_SHORT.get(sub)
    for word in rest:
        if word == "--":
            break
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if len(name) > 2 and any(o.startswith(name) for o in GIT_RUNNER_OPTIONS):
                return word
        elif short is not None and word.startswith("-") and short in word[1:]:
            return word
    return None


@attrs.frozen
class RawInput:
    """The raw text input of a free-form (custom) tool call, as the tool receives it.

    Passed as a call's ``arguments``, it is judged as one command exactly as written: the
    tool gets this text, not a JSON object parsed out of it, so a JSON-looking input is not
    opened (``{"command": "git status",\n"touch": "x"}`` is one command with a line break).
    """

    text: str = attrs.field(validator=attrs.validators.instance_of(str))


#: What a tool call's arguments may be for the policy: a mapping (already parsed), the JSON
#: text the tool will parse, the raw input of a free-form tool, or None (not seen).
Arguments = Mapping[str, Any] | str | RawInput | None


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # JSON parsers disagree on which of two equal keys wins: the policy cannot know which
    # command the tool will see, so such arguments cannot be checked (fails closed).
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKey("duplicate key")
    return result


def command_texts(
    aliases: ToolAliases | None, tool_name: str, arguments: Arguments
) -> tuple[str, ...] | None:
    """The shell commands a call of ``tool_name`` runs, for argument patterns; None when
    they cannot be known (not a shell tool, arguments not seen, unreadable, ambiguous or too
    large). A :class:`RawInput` is one command, as written."""
    key = aliases.command_argument(tool_name) if aliases is not None else None
    if key is None or arguments is None:
        return None
    if isinstance(arguments, RawInput):
        return (arguments.text,)
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENTS_JSON:
            return None
        try:
            arguments = json.loads(arguments, object_pairs_hook=_no_duplicates)
        except (ValueError, RecursionError):
            return None
    if not isinstance(arguments, Mapping):
        return None
    value = arguments.get(key)
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        # ``commands`` lists commands; any other list is one command's argv.
        return tuple(value) if key == "commands" else (" ".join(value),)
    return None
