"""What every bridge shares (:mod:`skillcore.runner.bridge`), with a plain subprocess as the
sandbox: the program's result line is read back only with the run's nonce (a script cannot
forge one), a sandbox that prints no result gives a result saying so, interpreters outside
what a bridge runs and skills too large to send are refused before anything runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import attrs

from skillcore.limits import MAX_BRIDGE_PAYLOAD_BYTES
from skillcore.runner import Isolation, RunLimits, ScriptRequest, ScriptResult, bridge, command_for

MARK = "SKILLCORE-BRIDGE-RESULT"


def _request(skill_dir: Path, body: str, name: str = "scripts/run.py") -> ScriptRequest:
    (skill_dir / name).write_text(body)
    argv = command_for(skill_dir / name)
    assert isinstance(argv, tuple)
    return ScriptRequest(
        skill="skill",
        script=name,
        argv=argv,
        skill_dir=skill_dir,
        limits=RunLimits(wall_seconds=5),
        require=Isolation.PROCESS,
    )


def _sandbox(job: bridge.Job) -> str:
    done = subprocess.run(
        [sys.executable, "-c", job.inline_code()], capture_output=True, text=True, timeout=60
    )
    return done.stdout + done.stderr


def _parse(text: str, nonce: str) -> ScriptResult:
    return bridge.parse(
        text, nonce, level=Isolation.PROCESS, mechanisms=(), duration=0.1, output_bytes=4096
    )


def test_a_forged_result_line_is_only_output(skill_dir: Path) -> None:
    forged = f"{MARK} 0000 eyJleGl0X2NvZGUiOiAwfQ=="
    job = bridge.prepare(_request(skill_dir, f"print({forged!r})\nraise SystemExit(7)\n"))
    assert isinstance(job, bridge.Job)
    result = _parse(_sandbox(job), job.nonce)
    assert result.exit_code == 7 and forged.encode() in result.stdout


def test_no_result_line_is_reported(skill_dir: Path) -> None:
    result = _parse("Traceback: the sandbox broke", "abc")
    assert result.exit_code is None and b"the sandbox ended without a result" in result.stderr
    assert b"the sandbox broke" in result.stderr and len(result.stderr) <= 4096


def test_refusals_before_anything_runs(skill_dir: Path) -> None:
    shell = bridge.prepare(_request(skill_dir, "echo hi\n", "scripts/run.sh"), ("python",), "X")
    assert isinstance(shell, ScriptResult) and shell.exit_code == 126
    assert b"X runs only python scripts" in shell.stderr
    (skill_dir / "big.bin").write_bytes(b"\0" * (MAX_BRIDGE_PAYLOAD_BYTES + 1))
    big = bridge.prepare(_request(skill_dir, "print(1)\n"))
    assert isinstance(big, ScriptResult) and b"exceed" in big.stderr


def test_no_folder_is_left(skill_dir: Path, tmp_path: Path) -> None:
    job = bridge.prepare(attrs.evolve(_request(skill_dir, "import os; print(os.getcwd())\n")))
    assert isinstance(job, bridge.Job)
    result = _parse(_sandbox(job), job.nonce)
    assert result.exit_code == 0
    assert not Path(result.stdout.decode().strip()).exists()
