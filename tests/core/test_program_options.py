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
]


def session(**policy: object) -> SkillSession:
    meta = SkillMetadata(
        name="gitter",
        description="Git.",
        location=SkillLocation("s", "gitter", "/s/gitter"),
        allowed_tools=("Bash(git:*)",),
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
