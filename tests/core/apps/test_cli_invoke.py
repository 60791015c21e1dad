"""``skillcore expand`` and ``skillcore list --user`` as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from skillcore.testing import write_skill

SRC = Path(__file__).resolve().parents[3] / "src"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "skillcore", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _library(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(
        root,
        "deploy",
        "Deploy the application.",
        "Deploy $0 to $1 (session ${CLAUDE_SESSION_ID}).",
        "disable-model-invocation: true\nargument-hint: <app> <env>\n",
    )
    write_skill(root, "legacy", "Legacy knowledge.", "Legacy.", "user-invocable: false\n")
    return root


def test_expand_prints_the_expanded_instructions(tmp_path: Path) -> None:
    root = _library(tmp_path)
    done = run_cli("expand", '/deploy web "eu west"', str(root), "--session-id", "s-1")
    assert done.returncode == 0, done.stderr
    assert "Deploy web to eu west (session s-1)." in done.stdout
    refused = run_cli("expand", "/legacy", str(root))
    assert refused.returncode == 1 and "cannot be invoked by the user" in refused.stderr
    plain = run_cli("expand", "hello", str(root))
    assert plain.returncode == 1 and "not an invocation" in plain.stderr
    too_long = run_cli("expand", "/deploy " + "x" * 5_000, str(root))
    assert too_long.returncode == 1 and "too long" in too_long.stderr


def test_list_user_shows_hints_and_leaves_out_model_only_skills(tmp_path: Path) -> None:
    root = _library(tmp_path)
    done = run_cli("list", "--user", str(root))
    assert done.returncode == 0, done.stderr
    assert "/deploy <app> <env>" in done.stdout and "legacy" not in done.stdout
    data = json.loads(run_cli("list", "--json", str(root)).stdout)
    by_name = {d["name"]: d for d in data}
    assert by_name["deploy"]["argument_hint"] == "<app> <env>"
    assert by_name["deploy"]["model_invocable"] is False
    assert by_name["legacy"]["user_invocable"] is False
