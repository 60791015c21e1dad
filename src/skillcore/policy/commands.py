"""The commands a shell tool call runs, as argument patterns judge them: read from the call's
arguments (a mapping, JSON text or a free-form tool's raw input), and the git options and
subcommands through which a command runs another program."""

from __future__ import annotations

import json
import re
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
#: Git subcommands that run programs by design or write the config that names them
#: (``for-each-repo`` runs git with any arguments, ``-c`` included; ``hook run`` runs hooks;
#: ``maintenance`` writes the global config and schedules programs; ``remote-ext`` is the
#: ``ext::`` transport; ``merge-index`` runs the program it is given).
GIT_RUNNER_COMMANDS = frozenset(
    {"config", "filter-branch", "difftool", "mergetool", "send-email", "daemon", "instaweb",
     "web--browse", "for-each-repo", "hook", "maintenance", "remote-ext", "merge-index",
     "submodule--helper"}
)  # fmt: skip
#: Git subcommand words that run a program given on the command line.
GIT_RUNNER_WORDS = frozenset({("bisect", "run"), ("submodule", "foreach")})
#: Long options of git subcommands that name a program to run (git accepts any unambiguous
#: prefix of a long option, so a prefix of these is refused too).
GIT_RUNNER_OPTIONS = (
    "--upload-pack", "--receive-pack", "--exec", "--extcmd", "--ext-diff", "--tool",
    "--open-files-in-pager", "--sendmail-cmd", "--smtp-server", "--tree-filter",
    "--index-filter", "--msg-filter", "--env-filter", "--commit-filter", "--parent-filter",
    "--tag-name-filter", "--authors-prog",
)  # fmt: skip
#: Long options that give configuration (which names programs: ``core.sshCommand``,
#: ``core.fsmonitor``, ``protocol.ext.allow``) or a template directory (whose hooks the new
#: repository runs), by subcommand; prefixes refused too.
GIT_CONFIG_OPTIONS = {"clone": ("--config", "--template"), "init": ("--template",)}
#: Short options naming a program to run or giving configuration, by subcommand (also inside
#: a cluster or with an attached value: ``-ix``, ``-qc``, ``-cname=value``).
GIT_RUNNER_SHORT = {"rebase": "x", "grep": "O", "clone": "uc"}
#: The transport that runs a command (``ext::sh -c ...``); compared without case, since an
#: unknown transport name is looked up as a program file (case-insensitive on some systems).
GIT_EXT_TRANSPORT = "ext::"
#: Global options that take a separate value (skipped to find the subcommand).
_GIT_GLOBAL_VALUE = frozenset(
    {"-C", "--git-dir", "--work-tree", "--namespace", "--shallow-file", "--attr-source",
     "--super-prefix"}
)  # fmt: skip
#: Global options without a value. Any other global option is refused: one git knows and
#: skillcore does not could take a value and hide the subcommand.
_GIT_GLOBAL_FLAGS = frozenset(
    {"-v", "--version", "-h", "--help", "-p", "--paginate", "-P", "--no-pager", "--bare",
     "--no-replace-objects", "--no-lazy-fetch", "--no-optional-locks", "--no-advice",
     "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
     "--html-path", "--man-path", "--info-path", "--list-cmds"}
)  # fmt: skip
#: ``NAME=value`` in front of a command: an environment assignment (``GIT_SSH_COMMAND=``,
#: ``GIT_CONFIG_COUNT=``, ``PAGER=``, ``LD_PRELOAD=`` all name programs).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")

#: One command as a shell tool receives it: shell text, or an argv (the words the program
#: gets, never joined and split again).
Command = str | tuple[str, ...]


def program_option(command: Command) -> str | None:
    """The word through which ``command`` makes git run another program (a ``-c`` config,
    ``--upload-pack=...``, ``git config``, an ``ext::`` URL, an environment assignment in
    front, ...), or None. Shell text is read as the shell reads it (quotes and backslashes
    removed), so ``'-c'`` is ``-c``; text whose quoting cannot be read is reported as such
    (fails closed). An argv is taken word for word. Only ``git`` is known here."""
    if isinstance(command, str):
        import shlex

        try:
            words = shlex.split(command)
        except ValueError:
            return "(unbalanced quotes)"
    else:
        words = list(command)
    if words and _ASSIGNMENT.match(words[0]):
        return words[0]
    if not words or _program_name(words[0]) != "git":
        return None
    for word in words:
        if GIT_EXT_TRANSPORT in word.lower():
            return word
    return _git_word(words)


def _program_name(word: str) -> str:
    # ``/usr/bin/git`` and ``git.exe`` run git too.
    name = word.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def _git_word(words: list[str]) -> str | None:
    """The runner word of a git command's arguments (``words[0]`` is git)."""
    i = 1
    while i < len(words) and words[i].startswith("-"):
        word = words[i]
        name = word.split("=", 1)[0]
        if word.startswith("-c") or name in GIT_GLOBAL_RUNNERS:
            return word
        if name in _GIT_GLOBAL_VALUE:
            i += 1 if "=" in word else 2
        elif name in _GIT_GLOBAL_FLAGS:
            i += 1
        else:
            return word
    if i >= len(words):
        return None
    sub, rest = words[i].lower(), words[i + 1 :]
    if sub in GIT_RUNNER_COMMANDS:
        return words[i]
    if rest and (sub, rest[0].lower()) in GIT_RUNNER_WORDS:
        return f"{words[i]} {rest[0]}"
    short = GIT_RUNNER_SHORT.get(sub, "")
    longs = GIT_RUNNER_OPTIONS + GIT_CONFIG_OPTIONS.get(sub, ())
    for word in rest:
        if word == "--":
            break
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if len(name) > 2 and any(o.startswith(name) for o in longs):
                return word
        elif word.startswith("-") and any(c in word[1:] for c in short):
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
) -> tuple[Command, ...] | None:
    """The shell commands a call of ``tool_name`` runs, for argument patterns; None when
    they cannot be known (not a shell tool, arguments not seen, unreadable, ambiguous or too
    large). A :class:`RawInput` is one command, as written; a list of words is one argv."""
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
        # ``commands`` lists commands; any other list is one command's argv, judged as the
        # words the program receives (joined and split again, a quote inside one word would
        # hide the next words).
        return tuple(value) if key == "commands" else (tuple(value),)
    return None
