"""The command line's verdicts do not mislead: a folder whose only SKILL.md was skipped says
why (not "no skills found"), and every command prints the verdict on the same stream."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m skillcore ARGS`` with this checkout's code, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SKILLCORE_NO_CACHE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "skillcore", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def skipped_only(tmp_path: Path) -> Path:
    """A folder whose one skill is skipped (its frontmatter is not valid YAML)."""
    root = tmp_path / "skills"
    (root / "broken").mkdir(parents=True)
    (root / "broken" / "SKILL.md").write_text(
        "---\nname: broken\ndescription: [unclosed\n---\nBody.\n", encoding="utf-8"
    )
    return root


@pytest.mark.parametrize(
    "command", ["list", "list --json", "validate", "validate --json", "render", "demo"]
)
def test_a_skipped_skill_is_explained_not_called_missing(
    skipped_only: Path, tmp_path: Path, command: str
) -> None:
    proc = run(*command.split(), str(skipped_only), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "a skill is a folder with a SKILL.md" not in proc.stdout + proc.stderr
    assert f"no usable skills in {skipped_only}: 1 SKILL.md file(s) skipped" in proc.stderr
    # ... and why: the diagnostic naming the file and the problem is printed too.
    assert "YAML_ERROR" in proc.stdout + proc.stderr
    assert "broken/SKILL.md" in proc.stdout + proc.stderr


@pytest.mark.parametrize("command", ["list", "validate", "render"])
def test_every_command_prints_the_verdict_on_stderr(tmp_path: Path, command: str) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run(command, str(empty), cwd=tmp_path)
    assert proc.returncode == 1
    verdict = f"no skills found in {empty} (a skill is a folder with a SKILL.md)"
    assert verdict in proc.stderr and verdict not in proc.stdout
