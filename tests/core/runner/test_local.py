"""The interpreter table and the local runner's contract: what it reports, what it refuses,
and an ordinary run."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skillcore.runner import (
    Isolation,
    IsolationUnavailable,
    LocalRunner,
    Refusal,
    RunLimits,
    ScriptRequest,
    ScriptRunner,
    command_for,
    default_interpreters,
)
from skillcore.runner import interpreters as table

from .conftest import run_script

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux runner")


def test_a_script_symlinked_to_a_shell_is_refused(skill_dir: Path) -> None:
    link = skill_dir / "scripts" / "run.sh"
    link.symlink_to("/bin/sh")
    refused = command_for(link)
    assert isinstance(refused, Refusal) and refused.code == table.SCRIPT_NOT_RUNNABLE
    plain = skill_dir / "scripts" / "tool"
    shutil.copy("/bin/true", plain)  # a binary of the skill is never executed
    refused = command_for(plain)
    assert isinstance(refused, Refusal) and refused.code == table.NO_INTERPRETER


@pytest.mark.parametrize(
    ("first_line", "kind"),
    [
        ("#!/usr/bin/env python3", "python"),
        ("#!/usr/bin/python3 -u", "python"),
        ("#!/bin/sh", "bash"),
        ("#!/usr/bin/env -S bash -e", "bash"),
        ("#!/usr/bin/perl", None),
        ("#!/tmp/evil", None),
        ("print('no shebang')", None),
    ],
)
def test_a_shebang_only_picks_from_the_table(skill_dir: Path, first_line: str, kind: str) -> None:
    script = skill_dir / "scripts" / "tool"
    script.write_text(first_line + "\n")
    interpreters = {"python": ("/py",), "bash": ("/bash",), "node": ("/node",)}
    got = command_for(script, interpreters)
    if kind is None:
        assert isinstance(got, Refusal) and got.code == table.NO_INTERPRETER
    else:
        assert got == (*interpreters[kind], str(script))


def test_extensions_and_missing_interpreters(skill_dir: Path) -> None:
    for name, kind in [("a.py", "python"), ("b.sh", "bash"), ("c.BASH", "bash"), ("d.mjs", "node")]:
        path = skill_dir / name
        path.write_text("#!/usr/bin/perl\n")  # the extension decides
        assert command_for(path, {kind: (kind,)}) == (kind, str(path))
    refused = command_for(skill_dir / "d.mjs", {"python": ("py",)})
    assert isinstance(refused, Refusal) and "node" in refused.message
    assert default_interpreters()["python"] == (sys.executable,)


@linux
def test_a_run_requiring_more_than_the_runner_gives_is_refused_before_running(
    skill_dir: Path, tmp_path: Path
) -> None:
    runner = LocalRunner(namespaces=False)
    assert runner.isolation() < Isolation.NO_NETWORK
    marker = tmp_path / "ran"
    script = skill_dir / "touch.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    argv = command_for(script)
    assert isinstance(argv, tuple)
    request = ScriptRequest("skill", "touch.py", argv, skill_dir, require=Isolation.NO_NETWORK)
    with pytest.raises(IsolationUnavailable, match="NO_NETWORK"):
        runner.run(request)
    assert not marker.exists()


@linux
def test_an_ordinary_run(skill_dir: Path) -> None:
    runner = LocalRunner()
    assert isinstance(runner, ScriptRunner)
    body = """
        import os, sys
        data = sys.stdin.read()
        open("out.txt", "w").write(data)
        print(os.getcwd(), data.upper()[:10], len(data), sys.argv[1:])
        print("warn", file=sys.stderr)
        sys.exit(3)
    """
    result = run_script(runner, skill_dir, body, "a b", stdin=b"hello" * 20_000)
    assert result.exit_code == 3 and not result.truncated and result.killed == ""
    cwd, rest = result.stdout.decode().split(" ", 1)
    assert rest.rstrip() == "HELLOHELLO 100000 ['a b']"
    assert result.stderr == b"warn\n"
    assert not os.path.exists(cwd)  # the working directory is removed
    assert result.isolation == runner.isolation() and result.mechanisms == runner.mechanisms()
    assert result.duration_seconds > 0
    assert ("cgroup-memory" in result.mechanisms) == (result.memory_peak_bytes is not None)


@linux
def test_bash_and_async(skill_dir: Path) -> None:
    runner = LocalRunner()
    script = skill_dir / "hi.sh"
    script.write_text('echo "hi $1"; echo "$HOME"\n')
    argv = command_for(script)
    assert isinstance(argv, tuple)
    request = ScriptRequest("skill", "hi.sh", (*argv, "there"), skill_dir)
    result = asyncio.run(runner.arun(request))
    assert result.exit_code == 0 and result.stdout.startswith(b"hi there\n")


def test_limits_are_validated() -> None:
    with pytest.raises(ValueError, match="wall_seconds"):
        RunLimits(wall_seconds=0)
    with pytest.raises(ValueError, match="processes"):
        RunLimits(processes=True)  # type: ignore[arg-type]


def test_the_scripts_page_states_the_run_limits() -> None:
    """docs/scripts.md's table of limits shows the defaults of skillcore.limits."""
    from skillcore import limits

    page = " ".join(
        (Path(__file__).resolve().parents[3] / "docs" / "scripts.md").read_text().split()
    )
    mib = 1024 * 1024
    for text in (
        f"| wall clock | {limits.DEFAULT_RUN_WALL_SECONDS:g} seconds |",
        f"| CPU | {limits.DEFAULT_RUN_CPU_SECONDS} seconds |",
        f"| memory | {limits.DEFAULT_RUN_MEMORY_BYTES // mib} MiB |",
        f"| processes | {limits.DEFAULT_RUN_PROCESSES} |",
        f"| file size | {limits.DEFAULT_RUN_FILE_BYTES // mib} MiB |",
        f"| open files | {limits.DEFAULT_RUN_OPEN_FILES} |",
        f"{limits.DEFAULT_RUN_OUTPUT_BYTES // 1024} KiB of stdout",
        f"past {limits.MAX_RUN_DISCARDED_BYTES // mib} MiB dropped",
        f"SIGKILL {limits.RUN_KILL_GRACE_SECONDS:g} seconds later",
    ):
        assert text in page, text


@linux
def test_concurrent_runs_keep_apart(skill_dir: Path) -> None:
    """Runs in parallel (async) each get their own working directory, cgroup and output."""
    runner = LocalRunner()
    script = skill_dir / "echo.py"
    script.write_text("import os, sys\nopen('mine', 'w').write(sys.argv[1])\nprint(sys.argv[1])\n")
    argv = command_for(script)
    assert isinstance(argv, tuple)

    async def all_runs() -> list[bytes]:
        requests = [ScriptRequest("skill", "echo.py", (*argv, str(n)), skill_dir) for n in range(6)]
        results = await asyncio.gather(*(runner.arun(r) for r in requests))
        return [r.stdout for r in results]

    assert asyncio.run(all_runs()) == [f"{n}\n".encode() for n in range(6)]


@linux
def test_an_interpreter_under_tmp_is_seen_in_the_sandbox(tmp_path: Path) -> None:
    """A virtual environment made under /tmp (as ``mktemp -d`` makes CI's) stays visible in
    the bubblewrap sandbox: its fresh /tmp is mounted before the binds, not over them."""
    from skillcore.runner import BubblewrapRunner
    from skillcore.runner.confine import bwrap_argv, bwrap_path

    argv = bwrap_argv("bwrap", ("/tmp/venv-x/bin/python", "s.py"), Path("/tmp/skill"), None, ())
    tmpfs = argv.index("--tmpfs")
    binds = [i for i, word in enumerate(argv) if word == "--ro-bind"]
    assert all(i > tmpfs for i in binds), argv
    if bwrap_path() is None:
        pytest.skip("bubblewrap does not work here")
    venv = Path("/tmp") / f"skillcore-venv-{os.getpid()}"
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        (tmp_path / "x.py").write_text("print('ran')\n")
        request = ScriptRequest(
            skill="s",
            script="x.py",
            argv=(str(venv / "bin" / "python"), str(tmp_path / "x.py")),
            skill_dir=tmp_path,
            require=Isolation.SANDBOX,
        )
        result = BubblewrapRunner().run(request)
        assert (result.exit_code, result.stdout) == (0, b"ran\n"), result.stderr
    finally:
        shutil.rmtree(venv, ignore_errors=True)
