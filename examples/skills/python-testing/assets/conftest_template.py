"""Shared pytest fixtures: a starting point for a project's tests/conftest.py.

Copy this file into the test directory and delete what the project does not need.
Requires Python 3.10+ and pytest. Nothing here needs a third-party plugin.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", default=False, help="run tests marked slow")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes more than a second; needs --run-slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip_slow = pytest.mark.skip(reason="slow test: pass --run-slow to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


@pytest.fixture(autouse=True)
def _isolate_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Keep tests away from the developer's real home directory and settings."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    monkeypatch.delenv("HTTPS_PROXY", raising=False)


@pytest.fixture
def rng() -> random.Random:
    """A seeded random generator: deterministic 'random' data."""
    return random.Random(1234)


@pytest.fixture
def data_dir() -> Path:
    """Directory of static test data files, next to this conftest.py."""
    return Path(__file__).parent / "data"


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[..., Path]:
    """Factory: write_file("a/b.txt", "text") -> Path inside tmp_path."""

    def _write(relative: str, content: str | bytes = "") -> Path:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return _write


@pytest.fixture
def load_json(data_dir: Path) -> Callable[[str], Any]:
    """Factory: load_json("payload.json") -> parsed JSON from data_dir."""

    def _load(name: str) -> Any:
        return json.loads((data_dir / name).read_text(encoding="utf-8"))

    return _load


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    """Freeze time.time(); append to / edit the yielded list to move the clock.

    Patch the module that *uses* time if it did `from time import time`.
    """
    import time

    now = [1_700_000_000.0]
    monkeypatch.setattr(time, "time", lambda: now[-1])
    yield now
