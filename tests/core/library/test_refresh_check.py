"""Refresh of an unchanged local library stats files instead of listing and reading them,
and still sees every change a full scan would see."""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import SkillLibrary
from skillcore.sources.local import LocalReader

_clock = itertools.count(1)


def age(root: Path) -> None:
    """Give every file and directory a distinct time well in the past (a settled library)."""
    base = time.time() - 3600
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames + dirnames:
            t = base + next(_clock) * 0.001
            os.utime(os.path.join(dirpath, name), (t, t), follow_symlinks=False)
    t = base + next(_clock) * 0.001
    os.utime(root, (t, t))


def settle(*paths: Path) -> None:
    """Give these paths (when they exist) new distinct times in the past."""
    base = time.time() - 1800
    for p in paths:
        if os.path.lexists(p):
            t = base + next(_clock) * 0.001
            os.utime(p, (t, t), follow_symlinks=False)


def write(root: Path, name: str, desc: str = "Does X.") -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nBody\n")


class CountingScans:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.scans = 0
        real = LocalReader.scan

        def scan(reader: LocalReader, *args: object) -> object:
            self.scans += 1
            return real(reader, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(LocalReader, "scan", scan)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "skills"
    for name in ("alpha", "beta", "gamma"):
        write(r, name)
    (r / "notes").mkdir()  # a directory without a skill
    (r / "README.md").write_text("not a skill")
    age(r)
    return r


def test_an_unchanged_settled_library_is_not_scanned_again(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = SkillLibrary(root, cache=False)
    first = lib.catalog
    counter = CountingScans(monkeypatch)
    assert lib.refresh() is first
    assert lib.refresh() is first
    assert counter.scans == 0


@pytest.mark.parametrize(
    "change",
    [
        lambda r: write(r, "alpha", "Edited in place."),
        lambda r: write(r, "delta"),
        lambda r: (r / "gamma" / "SKILL.md").unlink(),
        lambda r: write(r, "notes"),  # a directory without a skill gains one
        lambda r: (r / "beta").rename(r / "beta2"),
        lambda r: (
            (r / "beta" / "SKILL.md").unlink(),
            os.symlink(r / "alpha" / "SKILL.md", r / "beta" / "SKILL.md"),
        ),
        lambda r: os.link(r / "alpha" / "SKILL.md", r / "alpha-link"),
    ],
)
def test_every_change_is_seen(root: Path, change: object) -> None:
    lib = SkillLibrary(root, cache=False)
    first = lib.catalog
    change(root)  # type: ignore[operator]
    fresh = SkillLibrary(root, cache=False).catalog
    got = lib.refresh()
    assert got is not first
    assert got.names == fresh.names
    assert got.diagnostics == fresh.diagnostics
    assert [s.description for s in got] == [s.description for s in fresh]


def test_a_change_in_the_same_tick_as_the_scan_is_not_missed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Times within a second of the scan are not trusted: the next refresh scans."""
    root = tmp_path / "skills"
    write(root, "alpha")
    lib = SkillLibrary(root, cache=False)
    lib.discover()
    counter = CountingScans(monkeypatch)
    lib.refresh()
    assert counter.scans == 1


def test_a_symlinked_entry_disables_the_shortcut(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.symlink(root / "alpha", root / "alias")
    age(root)
    lib = SkillLibrary(root, cache=False)
    lib.discover()
    counter = CountingScans(monkeypatch)
    lib.refresh()
    assert counter.scans == 1


_ops = st.lists(
    st.tuples(
        st.sampled_from(["write", "edit", "delete", "rmdir", "mkdir", "rename"]),
        st.sampled_from(["a", "b", "c", "d"]),
    ),
    max_size=6,
)


@settings(settings.get_profile("skillcore"), max_examples=40)
@given(ops=_ops)
def test_refresh_equals_a_fresh_scan_after_any_changes(
    ops: list[tuple[str, str]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("lib") / "skills"
    for name in ("a", "b"):
        write(root, name)
    age(root)
    lib = SkillLibrary(root, cache=False)
    lib.discover()
    shortcuts = 0
    for i, (op, name) in enumerate(ops):
        d = root / name
        done = True
        if op == "write":
            write(root, name, f"Version {i}.")
        elif op == "edit" and (d / "SKILL.md").exists():
            write(root, name, f"Edited {i} {'x' * i}.")
        elif op == "delete" and (d / "SKILL.md").exists():
            (d / "SKILL.md").unlink()
        elif op == "rmdir" and d.exists() and not any(d.iterdir()):
            d.rmdir()
        elif op == "mkdir" and not d.exists():
            d.mkdir()
        elif op == "rename" and d.exists() and not (root / f"{name}-r").exists():
            d.rename(root / f"{name}-r")
        else:
            done = False  # nothing changed: the shortcut must answer
        if done:
            # Changed paths get new, settled times (the shortcut is in play for the rest).
            settle(root, d, d / "SKILL.md", root / f"{name}-r", root / f"{name}-r" / "SKILL.md")
        before = lib.catalog
        reader = lib.reader(lib.sources[0])
        state = lib._states[lib.sources[0].label]
        shortcut = reader.unchanged(state.stamps)
        assert not (done and shortcut and op != "mkdir"), "a change was not noticed"
        shortcuts += shortcut
        got = lib.refresh()
        fresh = SkillLibrary(root, cache=False).catalog
        assert got.names == fresh.names
        assert [s.description for s in got] == [s.description for s in fresh]
        assert got.diagnostics == fresh.diagnostics
        if shortcut:
            assert got is before
