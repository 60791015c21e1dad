"""A large local source is checked in turns on refresh: skills added or removed show at once,
an in-place edit of a SKILL.md within len/ROLLING_CHECK_FILES refreshes or
FULL_CHECK_SECONDS, whichever comes first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.core.library.test_refresh_check import CountingScans, age, settle, write

import skillcore.library.state as library_mod
from skillcore import SkillLibrary

N = 8


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def small_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(library_mod, "ROLLING_CHECK_FROM", 4)
    monkeypatch.setattr(library_mod, "ROLLING_CHECK_FILES", 2)


def _library(root: Path) -> tuple[SkillLibrary, Clock]:
    for i in range(N):
        write(root, f"s{i}", "Old.")
    age(root)
    lib = SkillLibrary([root], cache=False)
    clock = Clock()
    lib._clock = clock
    lib.discover()
    return lib, clock


def _description(lib: SkillLibrary, name: str) -> str:
    meta = lib.catalog.get(name)
    assert meta is not None
    return meta.description


@pytest.mark.usefixtures("small_turns")
def test_an_edit_shows_within_one_round_of_checks(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "skills"
    lib, _ = _library(root)
    scans = CountingScans(monkeypatch)
    lib.refresh()  # the first check is a full one
    assert scans.scans == 0
    write(root, "s5", "New and longer.")
    settle(root / "s5" / "SKILL.md", root / "s5")
    seen_after = None
    for k in range(1, N // 2 + 1):
        lib.refresh()
        if _description(lib, "s5") == "New and longer.":
            seen_after = k
            break
    assert seen_after is not None, "the rolling check never reached the edited skill"
    assert scans.scans == 1


@pytest.mark.usefixtures("small_turns")
def test_a_full_check_at_least_every_full_check_seconds(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "skills"
    lib, clock = _library(root)
    lib.refresh()
    reader = lib.reader(lib.sources[0])
    checked: list[int | None] = []
    real = type(reader).unchanged

    def spy(self, known, files=None):  # type: ignore[no-untyped-def]
        checked.append(files)
        return real(self, known, files)

    monkeypatch.setattr(type(reader), "unchanged", spy)
    lib.refresh()
    clock.now += library_mod.FULL_CHECK_SECONDS
    lib.refresh()
    lib.refresh()
    assert checked == [2, None, 2]


@pytest.mark.usefixtures("small_turns")
def test_added_and_removed_skills_show_at_once(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    lib, _ = _library(root)
    lib.refresh()
    write(root, "added", "Added.")
    settle(root / "added" / "SKILL.md", root / "added", root)
    assert lib.refresh().get("added") is not None
    shutil.rmtree(root / "s1")  # a removed directory changes the root
    settle(root)
    lib.refresh()
    assert lib.catalog.get("s1") is None


def test_small_sources_are_checked_in_full(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    lib, _ = _library(root)
    lib.refresh()
    write(root, "s3", "New and longer.")
    settle(root / "s3" / "SKILL.md", root / "s3")
    lib.refresh()
    assert _description(lib, "s3") == "New and longer."
