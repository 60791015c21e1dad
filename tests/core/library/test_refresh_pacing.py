"""RefreshGate paces scans by their cost: a slow (large) library is not re-checked every run."""

from __future__ import annotations

import asyncio
import types
from pathlib import Path

import pytest

import skillcore.state.refresh as refresh_module
from skillcore import RefreshGate, SkillLibrary
from skillcore.runtime.config import AdapterParts
from skillcore.state.refresh import REFRESH_COST_FACTOR, REFRESH_COST_FLOOR


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(refresh_module, "time", types.SimpleNamespace(monotonic=c.monotonic))
    return c


class Lib:
    def __init__(self, seconds: float) -> None:
        self.refresh_seconds = seconds


def test_a_cheap_scan_keeps_once_per_run(clock: Clock) -> None:
    gate = RefreshGate(True, Lib(REFRESH_COST_FLOOR / 2))
    assert [gate.due(run) for run in ("a", "a", "b", "c")] == [True, False, True, True]


def test_a_costly_scan_spaces_the_next_one(clock: Clock) -> None:
    cost = 0.4  # an unchanged check of 100,000 local skills
    gate = RefreshGate(True, Lib(cost))
    assert gate.due("a")
    clock.now += cost * REFRESH_COST_FACTOR - 0.01
    assert not gate.due("b") and not gate.due("c")  # later runs: no scan, no stat
    clock.now += 0.02
    assert gate.due("d")


def test_an_explicit_interval_is_kept_when_longer(clock: Clock) -> None:
    gate = RefreshGate(3600, Lib(1.0))
    assert gate.due()
    clock.now += 1.0 * REFRESH_COST_FACTOR + 1
    assert not gate.due()
    clock.now += 3600
    assert gate.due()


@pytest.mark.parametrize("value", [None, "slow", float("nan")])
def test_an_odd_cost_does_not_pace(clock: Clock, value: object) -> None:
    gate = RefreshGate(True, Lib(value))  # type: ignore[arg-type]
    assert gate.due("a") and gate.due("b")


def test_without_a_library_the_gate_is_unchanged(clock: Clock) -> None:
    gate = RefreshGate(True)
    assert gate.due("a") and gate.due("b") and not gate.due("b")


def test_a_library_records_what_each_refresh_cost(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text("---\nname: a\ndescription: A.\n---\nbody\n")
    lib = SkillLibrary(tmp_path, cache=False)
    lib.refresh()
    assert lib.refresh_seconds == 0.0  # the first discovery is no measure of later checks
    lib.refresh()
    first = lib.refresh_seconds
    assert first > 0.0
    asyncio.run(lib.arefresh())
    assert lib.refresh_seconds > 0.0 and lib.refresh_seconds != first


def test_adapters_pace_by_their_library(tmp_path: Path, clock: Clock) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text("---\nname: a\ndescription: A.\n---\nbody\n")
    parts = AdapterParts.build([tmp_path])
    parts.library.refresh_seconds = 1.0  # as if the last scan had taken a second
    assert parts.refresh.due("run-1")
    assert not parts.refresh.due("run-2")
    parts.library.refresh_seconds = 0.0
    assert parts.refresh.due("run-3")
