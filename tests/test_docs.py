"""The docs cannot rot: every Python block in docs/ and the README runs; mkdocs builds strictly."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(?P<skip><!-- not-run -->\n)?```python\n(?P<code>.*?)^```", re.M | re.S)
DOC_FILES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])


def python_blocks(path: Path) -> list[str]:
    """The runnable ```python blocks of a Markdown file, in order."""
    return [m["code"] for m in FENCE.finditer(path.read_text()) if not m["skip"]]


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: p.name)
def test_doc_code_blocks_run(path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    blocks = python_blocks(path)
    if not blocks:
        pytest.skip("no python blocks")
    monkeypatch.chdir(ROOT)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    namespace: dict[str, object] = {"__name__": f"docs_{path.stem}"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{path.name}[block {i + 1}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{path.name} block {i + 1} failed: {type(exc).__name__}: {exc}\n{code}")


def test_fence_parser_finds_blocks() -> None:
    """Guard the guard: the regex must find the blocks it is meant to run."""
    assert len(python_blocks(ROOT / "docs" / "concepts.md")) >= 4
    sample = "text\n<!-- not-run -->\n```python\nraise SystemExit\n```\n```python\nx = 1\n```\n"
    tmp = [m["code"] for m in FENCE.finditer(sample) if not m["skip"]]
    assert tmp == ["x = 1\n"]


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    if shutil.which("mkdocs") is None:  # pragma: no cover - mkdocs is in the [test] extra
        pytest.skip("mkdocs is not installed")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
