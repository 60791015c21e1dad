"""The CLI on hostile paths: a FIFO given as an eval file does not hang, and ``new --dir``
pointing at a file or an unwritable place is a one-line error with exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillcore.apps.cli import main

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "skills"


def run_module(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m skillcore`` with this tree first on the path; a hang fails the test."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "skillcore", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )


def test_eval_trigger_fifo_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "evals.json"
    os.mkfifo(fifo)
    try:
        done = run_module("eval", str(EXAMPLES), "--trigger", f"csv-data-audit={fifo}")
    except subprocess.TimeoutExpired:  # pragma: no cover - the bug this test is about
        pytest.fail("skillcore eval hung on a FIFO")
    assert done.returncode == 2, done
    assert "not a regular file" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", ["file", "proc", "missing-parent-file"])
def test_new_in_a_bad_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    where = {"file": str(afile), "proc": "/proc", "missing-parent-file": str(afile / "sub")}[kind]
    code = main(["new", "my-skill", "--dir", where])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "cannot create" in err, err
