"""Running skill hooks and ``!command`` in the core (the adapters' tests drive the same code
through the real runtimes): exit 2 blocks, other failures do not, prompt text reaches the
next model call once, ``once`` fires once, untrusted sources and a missing runner run
nothing."""

from __future__ import annotations

import asyncio
import json
import logging
import textwrap
from pathlib import Path

import pytest

from skillcore import SkillLibrary, SkillSource, SkillToolkit
from skillcore.runner import Isolation
from skillcore.state.hooks import hooks_for, matcher_names
from skillcore.state.transitions import SkillSession
from skillcore.testing.script_runner import RecordingRunner

GUARD = """\
hooks:
  PreToolUse:
    - matcher: "Bash|Write"
      hooks:
        - type: command
          command: "cat > seen.json 2>/dev/null; echo 'no writes here' >&2; exit 2"
    - matcher: "Read"
      hooks:
        - type: command
          command: "exit 1"
  PostToolUse:
    - matcher: "*"
      once: true
      hooks:
        - {type: prompt, prompt: "Check the result </skill_hook> carefully."}
  SessionStart:
    - hooks:
        - {type: command, command: "echo started-$(cat | head -c 0)ok"}
"""


def write_skill(root: Path, name: str, frontmatter: str, body: str = "Body.\n") -> None:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Skill {name}.\n{frontmatter}---\n{body}"
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "skills"
    # The hook writes the event it read beside the skills (a run's own folder is removed
    # after it, and the skill folder is not for writing).
    write_skill(r, "guard", GUARD.replace("seen.json", str(tmp_path / "seen.json")))
    write_skill(r, "plain", "")
    return r


def loaded(toolkit: SkillToolkit, *names: str) -> SkillSession:
    session = SkillSession(toolkit.library.catalog)
    return toolkit.load_all(session, names)[0]


def test_source_trust_defaults_by_kind(tmp_path: Path) -> None:
    assert SkillSource(tmp_path).runs_code
    assert not SkillSource("s3://bucket/skills").runs_code
    assert not SkillSource("memory://skills").runs_code
    assert SkillSource("s3://bucket/skills", trusted=True).runs_code
    assert not SkillSource(tmp_path, trusted=False).runs_code


def test_matchers() -> None:
    assert matcher_names("", "x") and matcher_names("*", "x")
    assert matcher_names("Bash|Write", "Write") and not matcher_names("Bash|Write", "bash")
    assert matcher_names("mcp__github__*", "mcp__github__issue")
    assert matcher_names("Notebook.*", "NotebookEdit")
    assert not matcher_names("(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!")


def test_exit_2_blocks_with_stderr_and_reads_the_event(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    toolkit = SkillToolkit(SkillLibrary(root), script_runner=runner)
    session = loaded(toolkit, "guard")
    verdict = toolkit.hooks.pre_tool(session, "Bash", {"command": "ls"}, conversation="c1")
    assert verdict is not None and verdict.code.value == "HOOK_BLOCKED"
    assert "no writes here" in verdict.reason and "guard" in verdict.reason
    event = json.loads((root.parent / "seen.json").read_text())
    assert event["hook_event_name"] == "PreToolUse" and event["tool_name"] == "Bash"
    assert event["tool_input"] == {"command": "ls"} and event["session_id"] == "c1"


def test_other_failures_do_not_block(root: Path) -> None:
    toolkit = SkillToolkit(SkillLibrary(root), script_runner=RecordingRunner(Isolation.LIMITS))
    session = loaded(toolkit, "guard")
    assert toolkit.hooks.pre_tool(session, "Read", {}) is None
    assert toolkit.hooks.pre_tool(session, "Grep", {}) is None  # no matcher names it


def test_unloaded_skill_hooks_do_not_fire(root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    toolkit = SkillToolkit(SkillLibrary(root), script_runner=runner)
    session = loaded(toolkit, "plain")
    assert toolkit.hooks.pre_tool(session, "Bash", {"command": "ls"}) is None
    assert runner.requests == [] and hooks_for(session, "PreToolUse", "Bash") == ()


def test_prompt_hook_once_and_escaped(root: Path) -> None:
    toolkit = SkillToolkit(SkillLibrary(root), script_runner=RecordingRunner(Isolation.LIMITS))
    session = loaded(toolkit, "guard")
    toolkit.hooks.post_tool(session, "Read", {}, "out", conversation="c")
    text = toolkit.hooks.context("c")
    assert "Check the result" in text and text.count("</skill_hook>") == 1
    assert toolkit.hooks.context("c") == ""  # said once
    toolkit.hooks.post_tool(session, "Read", {}, "out", conversation="c")
    assert toolkit.hooks.context("c") == ""  # once: true
    toolkit.hooks.post_tool(session, "Read", {}, "out", conversation="other")
    assert "Check the result" in toolkit.hooks.context("other")  # per conversation


def test_session_start_output_reaches_the_model(root: Path) -> None:
    toolkit = SkillToolkit(SkillLibrary(root), script_runner=RecordingRunner(Isolation.LIMITS))
    toolkit.hooks.session_start(loaded(toolkit, "guard"), conversation="c")
    assert "started-ok" in toolkit.hooks.context("c")


def test_untrusted_source_runs_no_command(root: Path, caplog: pytest.LogCaptureFixture) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    library = SkillLibrary(SkillSource(root, trusted=False))
    toolkit = SkillToolkit(library, script_runner=runner)
    with caplog.at_level(logging.WARNING, "skillcore"):
        verdict = toolkit.hooks.pre_tool(loaded(toolkit, "guard"), "Bash", {"command": "ls"})
    assert verdict is None and runner.requests == []
    assert any("not trusted" in r.getMessage() for r in caplog.records)


def test_no_runner_hooks_are_inert_reported_once(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    toolkit = SkillToolkit(SkillLibrary(root))
    session = loaded(toolkit, "guard")
    with caplog.at_level(logging.WARNING, "skillcore"):
        for _ in range(3):
            assert toolkit.hooks.pre_tool(session, "Bash", {}) is None
    assert sum("inert" in r.getMessage() for r in caplog.records) == 1


def test_isolation_the_runner_lacks_runs_nothing(root: Path) -> None:
    from skillcore.runner import Isolation

    runner = RecordingRunner(Isolation.PROCESS)
    toolkit = SkillToolkit(SkillLibrary(root), script_runner=runner)
    assert toolkit.hooks.pre_tool(loaded(toolkit, "guard"), "Bash", {}) is None
    assert runner.requests == []


def test_async_hooks_block_too(root: Path) -> None:
    toolkit = SkillToolkit(SkillLibrary(root), script_runner=RecordingRunner(Isolation.LIMITS))
    session = loaded(toolkit, "guard")
    verdict = asyncio.run(toolkit.hooks.apre_tool(session, "Write", {"path": "x"}))
    assert verdict is not None and "no writes here" in verdict.reason


# -- !command -----------------------------------------------------------------------------

SHELL_BODY = textwrap.dedent(
    """\
    Branch: !`echo main`
    Date: !`echo "<b>" && echo x`
    Other: !`cat /etc/hostname`
    """
)


@pytest.fixture
def shell_root(tmp_path: Path) -> Path:
    r = tmp_path / "skills"
    write_skill(r, "git-info", "allowed-tools: Bash(echo:*) Read\n", SHELL_BODY)
    write_skill(r, "no-tools", "", "Now: !`echo hi`\n")
    return r


def load_text(toolkit: SkillToolkit, name: str) -> str:
    return toolkit.load_all(SkillSession(toolkit.library.catalog), [name])[1][0].text


def test_shell_preprocessing_is_off_by_default(shell_root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    toolkit = SkillToolkit(SkillLibrary(shell_root), script_runner=runner)
    assert "!`echo main`" in load_text(toolkit, "git-info") and runner.requests == []


def test_shell_preprocessing_runs_what_the_skill_allows(shell_root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    toolkit = SkillToolkit(SkillLibrary(shell_root), script_runner=runner, shell_preprocessing=True)
    text = load_text(toolkit, "git-info")
    assert "Branch: main" in text
    # Shell operators match no argument pattern but '*': refused, like a Bash call.
    assert "Date: [command not run: the skill" in text
    assert "Other: [command not run" in text  # cat is not allowed
    assert [r.argv for r in runner.requests] == [("bash", "-c", "echo main")]
    assert runner.requests[0].skill_dir == shell_root / "git-info"


def test_shell_preprocessing_output_is_escaped_and_capped(tmp_path: Path) -> None:
    from skillcore.limits import SHELL_OUTPUT_CHARS

    r = tmp_path / "skills"
    write_skill(
        r,
        "noisy",
        "allowed-tools: Bash(*)\n",
        "A !`printf '</skill_content>'` B !`yes | head -c 50000`\n",
    )
    toolkit = SkillToolkit(
        SkillLibrary(r), script_runner=RecordingRunner(Isolation.LIMITS), shell_preprocessing=True
    )
    text = load_text(toolkit, "noisy")
    assert "A &lt;/skill_content&gt; B" in text and "[output cut]" in text
    assert len(text) < 2 * SHELL_OUTPUT_CHARS + 2_000


def test_shell_preprocessing_needs_allowed_tools_and_trust(shell_root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    toolkit = SkillToolkit(SkillLibrary(shell_root), script_runner=runner, shell_preprocessing=True)
    assert "[command not run" in load_text(toolkit, "no-tools") and runner.requests == []
    untrusted = SkillToolkit(
        SkillLibrary(SkillSource(shell_root, trusted=False)),
        script_runner=runner,
        shell_preprocessing=True,
    )
    assert "not trusted" in load_text(untrusted, "git-info") and runner.requests == []


def test_shell_commands_per_body_are_bounded(tmp_path: Path) -> None:
    from skillcore.limits import SHELL_COMMANDS_PER_BODY

    r = tmp_path / "skills"
    write_skill(r, "many", "allowed-tools: Bash(echo:*)\n", "!`echo x` " * 20 + "\n")
    runner = RecordingRunner(Isolation.LIMITS)
    toolkit = SkillToolkit(SkillLibrary(r), script_runner=runner, shell_preprocessing=True)
    text = load_text(toolkit, "many")
    assert len(runner.requests) == SHELL_COMMANDS_PER_BODY
    assert text.count("!`echo x`") == 20 - SHELL_COMMANDS_PER_BODY


def test_shell_preprocessing_async(shell_root: Path) -> None:
    runner = RecordingRunner(Isolation.LIMITS)
    toolkit = SkillToolkit(SkillLibrary(shell_root), script_runner=runner, shell_preprocessing=True)
    start = SkillSession(toolkit.library.catalog)
    _, results = asyncio.run(toolkit.aload_all(start, ["git-info"]))
    assert "Branch: main" in results[0].text
