"""The type checker and the import contracts run with the tests, so neither can rot.

``mypy`` checks ``src/`` in strict mode (``[tool.mypy]`` in pyproject.toml states what that
covers); ``lint-imports`` checks the contracts of ``[tool.importlinter]``: which package and
module may import which (the core no framework, each framework only its adapter, the
foundation modules nothing above them).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
CONFIG = ROOT / "pyproject.toml"

#: Typed packages src/ imports: without them mypy cannot check the modules that use them.
TYPED_DEPENDENCIES = (
    "langchain",
    "langgraph",
    "google.adk",
    "agents",
    "deepagents",
    "mcp",
    "pygit2",
)


def _missing(names: tuple[str, ...]) -> list[str]:
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # the parent package is missing ("google")
            found = False
        if not found:
            missing.append(name)
    return missing


def test_import_contracts_kept() -> None:
    pytest.importorskip("importlinter")
    # This tree's packages, whatever an installed copy of them says.
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            str(CONFIG),
            "--no-cache",
            "--no-logo",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert " 0 broken" in proc.stdout, output


@pytest.mark.slow
def test_mypy_strict_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    api = pytest.importorskip("mypy.api")
    missing = _missing(TYPED_DEPENDENCIES)
    if missing:
        pytest.skip(f"not installed, so src/ cannot be type-checked: {', '.join(missing)}")
    # A cache kept between runs (one per checkout): a cold check takes about a minute, a
    # warm one seconds. mypy validates every cached entry against the files it read.
    key = hashlib.sha256(str(ROOT).encode()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / f"skillcore-mypy-cache-{key}"
    monkeypatch.chdir(ROOT)  # the configuration's paths are relative to the checkout
    stdout, stderr, status = api.run(["--config-file", str(CONFIG), "--cache-dir", str(cache)])
    assert status == 0, stdout + stderr
    assert stdout.startswith("Success: no issues found"), stdout + stderr
