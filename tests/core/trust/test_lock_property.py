"""The verification property on an in-memory tree: after any sequence of edits (byte flips,
renames, additions, removals), a frozen lock refuses the skill exactly when its files differ
from the locked ones, at discovery and on reading every file."""

from __future__ import annotations

from typing import Any

from fsspec.implementations.memory import MemoryFileSystem
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillcore import ReadError, SkillLibrary, SkillSource
from skillcore.trust import LockFile, TrustTier, locked_skill

SKILL = b"---\nname: prop-skill\ndescription: A property skill.\n---\nBody text here.\n"
START = {
    "SKILL.md": SKILL,
    "references/guide.md": b"guide\n",
    "scripts/run.py": b"print(1)\n",
    "assets/data.bin": b"\x00\x01\x02",
}
#: Names an edit may give a file (no hidden names: those are never part of a skill).
NAMES = st.sampled_from(
    ["references/guide.md", "references/new.md", "scripts/run.py", "scripts/x.sh", "other.txt"]
)


def _fs(files: dict[str, bytes]) -> MemoryFileSystem:
    fs = MemoryFileSystem(skip_instance_cache=True)
    fs.store = {}
    fs.pseudo_dirs = [""]
    fs.pipe({f"/lib/prop-skill/{p}": data for p, data in files.items()})
    return fs


def _library(files: dict[str, bytes], lock: Any = False, frozen: bool = False) -> SkillLibrary:
    source = SkillSource("/lib", fs=_fs(files), label="mem")
    return SkillLibrary([source], cache=False, lock=lock, frozen=frozen)


def _lock() -> LockFile:
    lib = _library(START)
    (meta,) = lib.catalog.skills
    return LockFile.of([locked_skill(lib.reader("mem"), meta)])


LOCK = _lock()

edits = st.lists(
    st.one_of(
        st.tuples(st.just("flip"), st.integers(0, 10), st.integers(0, 200), st.integers(1, 255)),
        st.tuples(st.just("rename"), st.integers(0, 10), NAMES),
        st.tuples(st.just("add"), NAMES, st.binary(max_size=8)),
        st.tuples(st.just("remove"), st.integers(0, 10)),
    ),
    max_size=4,
)


def _apply(files: dict[str, bytes], steps: list[tuple[Any, ...]]) -> dict[str, bytes]:
    out = dict(files)
    for step in steps:
        paths = sorted(out)
        if not paths:
            break
        kind = step[0]
        if kind == "flip":
            path = paths[step[1] % len(paths)]
            data = bytearray(out[path])
            if data:
                at = step[2] % len(data)
                data[at] ^= step[3]
                out[path] = bytes(data)
        elif kind == "rename":
            path = paths[step[1] % len(paths)]
            out[step[2]] = out.pop(path)
        elif kind == "add":
            out[step[1]] = step[2]
        else:
            del out[paths[step[1] % len(paths)]]
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_verification_refuses_iff_the_tree_differs(steps: list[tuple[Any, ...]]) -> None:
    files = _apply(START, steps)
    lib = _library(files, LOCK, frozen=True)
    accepted = "prop-skill" in lib.catalog.names
    assert accepted == (files == START), (steps, sorted(files))
    if accepted:
        assert lib.tier("prop-skill") is TrustTier.PINNED
        for path in files:
            assert lib.reader("mem").read_file("prop-skill", path, 1 << 20) == files[path]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_reads_after_discovery_refuse_iff_the_file_differs(steps: list[tuple[Any, ...]]) -> None:
    source = SkillSource("/lib", fs=_fs(START), label="mem")
    lib = SkillLibrary([source], cache=False, lock=LOCK, frozen=True)
    assert lib.catalog.names == ("prop-skill",)
    files = _apply(START, steps)
    fs = source.fs
    fs.store.clear()
    fs.pseudo_dirs[:] = [""]
    fs.pipe({f"/lib/prop-skill/{p}": data for p, data in files.items()})
    reader = lib.reader("mem")
    for path in sorted(set(files) | set(START)):
        try:
            data = reader.read_file("prop-skill", path, 1 << 20)
        except ReadError:
            assert files.get(path) != START.get(path), path
        else:
            assert files.get(path) == START.get(path) == data, path
