"""A load from the parse cache (unchanged skills taken in bulk, the root listed once) finds
exactly what a fresh discovery finds: same skills, order, diagnostics and fingerprint."""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import SkillLibrary, SkillSource
from skillcore.model import Catalog, SkillLocation, SkillMetadata, _fingerprint, indexed_catalog
from skillcore.model import blake2b as _blake2b
from skillcore.sources.local import LocalReader

_clock = itertools.count(1)
#: Examples per property: a few dozen in the normal run, the long profile's count with
#: ``HYPOTHESIS_PROFILE=long``.
_PROFILE = settings.get_profile("skillcore")
_EXAMPLES = min(_PROFILE.max_examples, 25) if _PROFILE.max_examples <= 100 else None
_SETTINGS = settings(_PROFILE, max_examples=_EXAMPLES or _PROFILE.max_examples, deadline=None)

#: What one top-level entry of a generated library is.
KINDS = (
    "skill",  # a plain skill
    "skill",
    "misnamed",  # a directory with skill.md instead of SKILL.md
    "link_in",  # a symlink to another directory of the source
    "link_out",  # a symlink to a skill outside the source
    "hardlink",  # SKILL.md hard-linked from outside the skill
    "no_skill",  # a directory without SKILL.md
    "file",  # a plain file
    "hidden",  # a dot-directory holding a skill
    "dup",  # a skill reusing the name of another one
    "bad",  # a SKILL.md without a description
)


def _settle(path: Path) -> None:
    t = time.time() - 3600 + next(_clock) * 0.001
    os.utime(path, (t, t), follow_symlinks=False)


def _skill(path: Path, name: str, desc: str = "Does X.") -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nBody\n")
    _settle(path / "SKILL.md")


def _make(root: Path, outside: Path, i: int, kind: str) -> None:
    name = f"s{i:02d}"
    if kind == "skill":
        _skill(root / name, name)
    elif kind == "misnamed":
        (root / name).mkdir()
        (root / name / "skill.md").write_text(f"---\nname: {name}\ndescription: D.\n---\n")
    elif kind == "link_in":
        _skill(root / "zz-target", "zz-target")
        os.symlink("zz-target", root / name)
    elif kind == "link_out":
        _skill(outside / name, name)
        os.symlink(outside / name, root / name)
    elif kind == "hardlink":
        (root / name).mkdir()
        _skill(outside / f"h{name}", name)
        os.link(outside / f"h{name}" / "SKILL.md", root / name / "SKILL.md")
    elif kind == "no_skill":
        (root / name / "notes").mkdir(parents=True)
    elif kind == "file":
        (root / f"{name}.txt").write_text("not a skill")
    elif kind == "hidden":
        _skill(root / f".{name}", name)
    elif kind == "dup":
        _skill(root / name, "s00-dup")
        _skill(root / f"{name}-b", "s00-dup")
    elif kind == "bad":
        (root / name).mkdir()
        (root / name / "SKILL.md").write_text(f"---\nname: {name}\n---\nBody\n")


def _library(root: Path, cache: Path | bool, **options: object) -> SkillLibrary:
    return SkillLibrary(SkillSource(str(root), **options), cache=cache)  # type: ignore[arg-type]


def _same(got: Catalog, want: Catalog) -> None:
    assert got.names == want.names
    assert got.skills == want.skills
    assert got.diagnostics == want.diagnostics
    assert got.fingerprint == want.fingerprint
    assert got == want


def _build(tmp: Path, kinds: list[str], root_misnamed: bool) -> tuple[Path, Path]:
    root, outside = tmp / "lib", tmp / "outside"
    root.mkdir()
    outside.mkdir()
    for i, kind in enumerate(kinds):
        _make(root, outside, i, kind)
    if root_misnamed:
        (root / "Skill.md").write_text("---\nname: root\ndescription: D.\n---\n")
    return root, outside


@_SETTINGS
@given(
    kinds=st.lists(st.sampled_from(KINDS), min_size=0, max_size=9),
    changes=st.lists(st.sampled_from(("touch", "remove", "add", "break")), max_size=4),
    root_misnamed=st.booleans(),
    hardlinks=st.booleans(),
)
def test_a_cached_load_finds_what_a_fresh_discovery_finds(
    tmp_path_factory: pytest.TempPathFactory,
    kinds: list[str],
    changes: list[str],
    root_misnamed: bool,
    hardlinks: bool,
) -> None:
    tmp = tmp_path_factory.mktemp("cold")
    root, _ = _build(tmp, kinds, root_misnamed)
    cache = tmp / "cache"
    warm = _library(root, cache, allow_hardlinks=hardlinks)
    _same(warm.catalog, _library(root, False, allow_hardlinks=hardlinks).catalog)
    # Then the library changes: some skills are edited, removed, added or broken.
    skills = [p for p in sorted(root.iterdir()) if (p / "SKILL.md").is_file()]
    for n, change in enumerate(changes):
        if change == "add":
            _skill(root / f"added{n}", f"added{n}")
        elif skills:
            target = skills[n % len(skills)]
            if change == "touch" and target.is_dir() and not target.is_symlink():
                _skill(target, target.name, desc=f"Changed {n}.")
            elif change == "remove" and not target.is_symlink():
                (target / "SKILL.md").unlink(missing_ok=True)
            elif change == "break" and not target.is_symlink() and (target / "SKILL.md").exists():
                (target / "SKILL.md").write_text("no frontmatter\n")
    fresh = _library(root, False, allow_hardlinks=hardlinks).catalog
    _same(_library(root, cache, allow_hardlinks=hardlinks).catalog, fresh)  # a cold load
    _same(warm.refresh(), fresh)  # and a refresh of the library loaded before


def test_the_mix_gives_each_diagnostic_once_and_in_order(tmp_path: Path) -> None:
    root, _ = _build(tmp_path, list(KINDS), root_misnamed=True)
    cache = tmp_path / "cache"
    assert _library(root, cache).catalog  # fills the cache
    cold = _library(root, cache).catalog
    _same(cold, _library(root, False).catalog)
    codes = [d.code.value for d in cold.diagnostics]
    assert codes.count("MISNAMED_SKILL_FILE") == 2  # the root's and s02's
    assert [d.path for d in cold.diagnostics if d.code.value == "MISNAMED_SKILL_FILE"] == [
        "Skill.md",
        "s02/skill.md",
    ]
    assert "SYMLINK_ESCAPE" in codes and "DUPLICATE_NAME" in codes and "UNSAFE_PATH" in codes
    assert cold.names == ("s00", "s00-dup", "s01", "zz-target")
    # The link inside the source is read (and its skill found twice).
    mismatched = [d.path for d in cold.diagnostics if d.code.value == "NAME_MISMATCH"]
    assert mismatched[:1] == ["s03/SKILL.md"]


def test_an_undecodable_name_is_reported_the_same_way(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    _skill(root / "alpha", "alpha")
    bad = os.path.join(os.fsencode(root), b"caf\xe9")
    os.mkdir(bad)
    with open(os.path.join(bad, b"SKILL.md"), "w") as fh:
        fh.write("---\nname: cafe\ndescription: D.\n---\n")
    cache = tmp_path / "cache"
    assert _library(root, cache).catalog  # fills the cache
    cold = _library(root, cache).catalog
    _same(cold, _library(root, False).catalog)
    assert [d.code.value for d in cold.diagnostics] == ["UNDECODABLE_NAME"]


@pytest.mark.parametrize("max_entries", [1, 2, 3, 5, 50])
def test_the_entry_budget_cuts_at_the_same_place(tmp_path: Path, max_entries: int) -> None:
    root = tmp_path / "lib"
    for name in ("a", "b", "c", "d"):
        _skill(root / name, name)
    (root / "b-notes.txt").write_text("x")
    cache = tmp_path / "cache"
    full = _library(root, cache, max_entries=50).catalog  # every skill in the cache
    assert len(full) == 4
    cold = _library(root, cache, max_entries=max_entries).catalog
    _same(cold, _library(root, False, max_entries=max_entries).catalog)
    assert any(d.code.value == "SOURCE_LIMIT" for d in cold.diagnostics) == (max_entries < 5)


def test_the_bulk_path_is_taken_and_gives_the_entries_a_plain_scan_gives(
    tmp_path: Path,
) -> None:
    root, _ = _build(tmp_path, list(KINDS), root_misnamed=True)
    reader = LocalReader(SkillSource(str(root)), str(root))
    first = reader.scan(4096, {})
    known = {e.directory: e.stamp for e in first.entries if e.error is None}
    split = reader.scan(4096, known, True)
    plain = reader.scan(4096, known)
    assert split.unchanged and not plain.unchanged
    # Links, refused files and directories without a skill take the one-by-one path.
    assert set(split.unchanged) == {"s00", "s01", "s09", "s09-b", "s10", "zz-target"}
    assert "s03" in {e.directory for e in split.entries}
    assert not {e.directory for e in split.entries} & set(split.unchanged)
    assert split.all_entries() == plain.entries
    assert split.diagnostics == plain.diagnostics == first.diagnostics
    assert all(e.head is None for e in plain.entries if e.directory in split.unchanged)


def test_progress_is_reported_per_skill_on_a_cached_load(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    for i in range(450):
        _skill(root / f"s{i:03d}", f"s{i:03d}")
    cache = tmp_path / "cache"
    assert _library(root, cache).catalog  # fills the cache
    calls: list[tuple[int, int]] = []
    lib = SkillLibrary(str(root), cache=cache, progress=lambda i, n: calls.append((i, n)))
    assert len(lib.catalog) == 450
    assert calls == [(1, 450), (201, 450), (401, 450), (450, 450)]


def _meta(name: str, desc: str = "D.", hidden: bool = False, stamp: str = "") -> SkillMetadata:
    return SkillMetadata(
        name,
        desc,
        SkillLocation("src", name, f"/skills/{name}"),
        disable_model_invocation=hidden,
        stamp=stamp,
    )


@_SETTINGS
@given(st.integers(0, 1100), st.booleans())
def test_the_blocked_fingerprint_is_the_hash_of_the_whole_text(count: int, hidden: bool) -> None:
    skills = tuple(
        _meta(f"s{i}", f"D {i} é", hidden and i % 3 == 0, f"{i}:9") for i in range(count)
    )
    text = "".join(
        f"{s.name}\x1f{s.location.url}\x1f{s.stamp}\x1f{s.description}\x1e" for s in skills
    )
    assert _fingerprint(skills) == _blake2b(text.encode(), digest_size=12).hexdigest()


@pytest.mark.parametrize("hidden", [(), (1,), (0, 2)])
def test_an_indexed_catalog_is_the_catalog_init_builds(hidden: tuple[int, ...]) -> None:
    skills = tuple(_meta(n, hidden=i in hidden) for i, n in enumerate(("a", "b", "c")))
    diags = ()
    built = indexed_catalog(skills, diags, {s.name: s for s in reversed(skills)})
    made = Catalog(skills, diags)
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    assert built.model_visible == made.model_visible
    assert built.model_visible_names == made.model_visible_names
    assert built.by_priority == made.by_priority
    assert all(built.get(s.name) is s for s in skills) and "z" not in built
    with pytest.raises(ValueError, match="unique"):
        indexed_catalog(skills, diags, {"a": skills[0]})


def test_a_catalog_refuses_a_name_twice() -> None:
    with pytest.raises(ValueError, match="catalog skill names must be unique"):
        Catalog((_meta("a"), _meta("a", "Other.")))


@_SETTINGS
@given(st.integers(0, 40), st.booleans())
def test_an_indexed_catalogs_fingerprint_is_hashed_on_first_read_as_init_hashes_it(
    count: int, hidden: bool
) -> None:
    import copy
    import pickle

    skills = tuple(_meta(f"s{i}", f"D {i}", hidden and i % 3 == 0, f"{i}:9") for i in range(count))
    made = Catalog(skills, ())
    for read in (
        lambda c: c.fingerprint,
        hash,
        repr,
        lambda c: attrs.evolve(c),
        lambda c: pickle.loads(pickle.dumps(c)),
        copy.copy,
        lambda c: c == made,
    ):
        built = indexed_catalog(skills, (), {s.name: s for s in skills})
        assert Catalog.fingerprint.__get__(built) is None  # not hashed until read
        read(built)
        assert built.fingerprint == made.fingerprint == _fingerprint(skills)
        assert Catalog.fingerprint.__get__(built) == made.fingerprint  # kept, hashed once
        assert built == made and repr(built) == repr(made) and hash(built) == hash(made)
        for other in (attrs.evolve(built), pickle.loads(pickle.dumps(built)), copy.copy(built)):
            assert other == made and other.fingerprint == made.fingerprint
