"""``Bash(git:*)`` confines the first word; by default it does not allow the options and
subcommands through which git runs another program (``-c core.pager=...``,
``--upload-pack=...``), unless the policy opts out."""

from __future__ import annotations

import pytest

from skillcore import (
    Catalog,
    Limits,
    PolicyMode,
    SkillDocument,
    SkillLocation,
    SkillMetadata,
    SkillSession,
    ToolPolicy,
)

RUNS_PROGRAMS = [
    "git -c core.pager=sh\\ -c\\ id log",
    "git -c alias.x=!id x",
    "git --config-env=core.pager=EVIL log",
    "git --exec-path=/tmp/evil status",
    "git fetch --upload-pack=/tmp/evil origin",
    "git fetch --upload-pack /tmp/evil origin",
    "git ls-remote --upload-pack=/tmp/evil origin",
    "git push --receive-pack=/tmp/evil origin",
    "git archive --remote=origin --exec=/tmp/evil HEAD",
    "git clone -u /tmp/evil origin dest",
    "git rebase -x id HEAD~1",
    "git rebase --exec=id HEAD~1",
    "git grep -Oid foo",
    "git grep --open-files-in-pager=id foo",
    "git difftool --extcmd=id",
    "git config core.pager id",
    "git config --global core.fsmonitor /tmp/evil",
    "git filter-branch --tree-filter id HEAD",
    "git submodule foreach id",
    "git bisect run id",
    "git send-email --sendmail-cmd=id x.patch",
    "git mergetool -t id",
    # Configuration given to a subcommand, in every spelling git accepts.
    'git clone -c protocol.ext.allow=always "ext::sh -c touch% pwned" d',
    "git clone -cprotocol.ext.allow=always origin d",
    "git clone -qc core.fsmonitor=/tmp/evil origin d",
    "git clone --config=core.fsmonitor=/tmp/evil origin d",
    "git clone --config core.sshCommand=/tmp/evil host:r d",
    "git clone --conf=core.sshCommand=/tmp/evil host:r d",
    "git clone --template=/tmp/hooks origin d",
    "git clone --templ /tmp/hooks origin d",
    "git init --template=/tmp/hooks",
    "git clone --upload-pack=/tmp/evil origin d",
    # Transports and commands that run a program named on the command line.
    'git fetch "ext::sh -c id" main',
    "git clone EXT::sh origin",
    "git remote-ext origin id",
    "git merge-index id -a",
    "git for-each-repo --config=maintenance.repo -c alias.x=!id x",
    "git hook run pre-commit",
    "git maintenance register",
    "git submodule--helper foreach id",
    "git svn clone --authors-prog=/tmp/evil url",
    # Environment assignments in front of the command.
    "GIT_SSH_COMMAND=/tmp/evil git fetch origin",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=id git log",
    # Spellings of a subcommand or a program git still runs.
    "git CONFIG core.pager id",
    "/usr/bin/git -c core.pager=id log",
    # A global option skillcore does not know may take a value and hide the subcommand.
    "git --unknown-option config core.pager id",
    "git --attr-source HEAD config core.pager id",
]
PLAIN = [
    "git status",
    "git log -1 --oneline",
    "git log -c",  # combined diff: -c after the subcommand is not a config option
    "git add -u",
    "git push -u origin main",
    "git cherry-pick -x abc123",
    "git grep -i foo",
    "git submodule update --init",
    "git bisect start",
    "git diff --stat",
    "git switch -c topic",  # -c: create a branch, not configuration
    "git commit -c HEAD",
    "git clone -b main origin d",
    "git clone --depth 1 origin d",
    "git commit --template=msg.txt",  # a message template, not a template directory
    "git --no-pager -C sub --git-dir .git log -1",
]


def session(**policy: object) -> SkillSession:
    meta = SkillMetadata(
        name="gitter",
        description="Git.",
        location=SkillLocation("s", "gitter", "/s/gitter"),
        # The second entry reaches commands that do not start with ``git``.
        allowed_tools=("Bash(git:*)", "Bash(*git *)"),
    )
    pol = ToolPolicy(PolicyMode.RESTRICT, aliases="deepagents", **policy)  # type: ignore[arg-type]
    s = SkillSession(Catalog((meta,)), Limits(max_loaded=2), pol)
    s, _ = s.finish_load(SkillDocument(meta, "body"))
    return s


@pytest.mark.parametrize("command", RUNS_PROGRAMS)
def test_git_options_that_run_programs_are_refused(command: str) -> None:
    decision = session().check_tool("execute", arguments={"command": command})
    assert not decision.allowed, command
    assert "runs other programs" in decision.reason, decision.reason


@pytest.mark.parametrize("command", PLAIN)
def test_plain_git_commands_still_pass(command: str) -> None:
    assert session().check_tool("execute", arguments={"command": command}).allowed, command


@pytest.mark.parametrize("command", RUNS_PROGRAMS)
def test_the_policy_can_opt_out(command: str) -> None:
    s = session(program_options="allow")
    assert s.check_tool("execute", arguments={"command": command}).allowed, command


ARGV_RUNS_PROGRAMS = [
    # A quote inside one element must not hide the next ones.
    ["git", "clone", "x'", "-u", "touch pwned", "'y", "repo"],
    ["git", "clone", "x'", "--config=core.fsmonitor=id", "'y", "repo"],
    ["git", "-c", "core.pager=id", "log"],
]
ARGV_PLAIN = [
    ["git", "status"],
    ["git", "log", "--format=it's %h", "-1"],
    ["git", "commit", "-m", "-u is not an option here"],
]


def session_with(entry: str) -> SkillSession:
    meta = SkillMetadata(
        name="gitter",
        description="Git.",
        location=SkillLocation("s", "gitter", "/s/gitter"),
        allowed_tools=(entry,),
    )
    pol = ToolPolicy(PolicyMode.RESTRICT, aliases="agents_sdk")
    s = SkillSession(Catalog((meta,)), Limits(max_loaded=2), pol)
    s, _ = s.finish_load(SkillDocument(meta, "body"))
    return s


@pytest.mark.parametrize("argv", ARGV_RUNS_PROGRAMS)
def test_an_argv_is_judged_as_the_program_receives_it(argv: list[str]) -> None:
    decision = session_with("Bash(git:*)").check_tool("local_shell", arguments={"command": argv})
    assert not decision.allowed, argv
    assert "runs other programs" in decision.reason, decision.reason


@pytest.mark.parametrize("argv", ARGV_PLAIN)
def test_plain_argvs_pass(argv: list[str]) -> None:
    s = session_with("Bash(git:*)")
    assert s.check_tool("local_shell", arguments={"command": argv}).allowed, argv


def test_argv_elements_are_words_not_text() -> None:
    # One element "git status" names a program called that, not git with an argument.
    s = session_with("Bash(git:*)")
    assert not s.check_tool("local_shell", arguments={"command": ["git status"]}).allowed
    exact = session_with("Bash(git log -1)")
    assert exact.check_tool("local_shell", arguments={"command": ["git", "log", "-1"]}).allowed
    assert not exact.check_tool("local_shell", arguments={"command": ["git log", "-1"]}).allowed
    prefix = session_with("Bash(git log:*)")
    assert prefix.check_tool("local_shell", arguments={"command": ["git", "log", "-3"]}).allowed
    assert not prefix.check_tool("local_shell", arguments={"command": ["git", "logx"]}).allowed
    assert not prefix.check_tool("local_shell", arguments={"command": ["git", "log x"]}).allowed


def test_the_security_page_lists_every_refused_word() -> None:
    from pathlib import Path

    from skillcore.policy import commands

    doc = (Path(__file__).resolve().parents[3] / "docs" / "security.md").read_text()
    words = [
        *commands.GIT_GLOBAL_RUNNERS,
        *commands.GIT_RUNNER_COMMANDS,
        *(" ".join(w) for w in commands.GIT_RUNNER_WORDS),
        # The filter-branch filters are named as such.
        *(o for o in commands.GIT_RUNNER_OPTIONS if not o.endswith("-filter")),
        *(f"{sub} {o}" for sub, opts in commands.GIT_CONFIG_OPTIONS.items() for o in opts),
        *(f"{sub} -{c}" for sub, cs in commands.GIT_RUNNER_SHORT.items() for c in cs if c != "c"),
        commands.GIT_EXT_TRANSPORT,
    ]
    missing = [w for w in words if f"`{w}" not in doc and f"{w}`" not in doc]
    assert not missing
