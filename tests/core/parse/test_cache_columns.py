"""The parse cache's columnar payload: every field round-trips, and a value of a changed type
anywhere loads either exactly what was saved or nothing, never a different entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skillcore.parse.cache as cache_mod
from skillcore import SkillLibrary
from skillcore.model import SkillLocation
from skillcore.parse.cache import ParseCache
from skillcore.parse.context import ParseResult
from skillcore.parse.frontmatter import parse_skill_file

_texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8
)
_lists = st.lists(_texts, max_size=3)
_fields = st.fixed_dictionaries(
    {},
    optional={
        "description": _texts,  # without one, the skill is skipped (metadata None)
        "license": _texts,
        "compatibility": st.sampled_from(["any", "linux"]),  # repeated values share a table
        "version": st.one_of(_texts, st.integers(-5, 5)),
        "allowed-tools": st.one_of(_texts, _lists, st.integers()),  # [] restricts: not None
        "metadata": st.dictionaries(_texts, st.one_of(_texts, st.integers()), max_size=3),
        "triggers": _lists,
        "file_patterns": _lists,
        "dependencies": _lists,
        "priority": st.integers(-3, 3),
        "disable-model-invocation": st.booleans(),
        "user-invocable": st.booleans(),
        "argument-hint": _texts,
        "custom": st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _texts),
            lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_texts, inner, max_size=2),
            max_leaves=5,
        ),
    },
)
#: Skills as frontmatter fields, each with a flag: named after its directory or not (a
#: diagnostic with a field).
_skills = st.lists(st.tuples(_fields, st.booleans()), min_size=1, max_size=5)


def _parse(skills: list[tuple[dict[str, Any], bool]]) -> tuple[dict[str, str], dict[str, Any]]:
    stamps: dict[str, str] = {}
    parsed: dict[str, ParseResult] = {}
    for i, (fields, named) in enumerate(skills):
        directory = f"group/skill-{i}"
        name = f"skill-{i}" if named else f"other-{i}"
        text = "---\n" + json.dumps({"name": name, **fields}) + "\n---\nbody\n"
        loc = SkillLocation("src", directory, f"/r/{directory}")
        stamp = f"{i + 1}:{i * 7}"
        parsed[directory] = parse_skill_file(
            text.encode(), directory_name=f"skill-{i}", location=loc, path="p", stamp=stamp
        )
        stamps[directory] = stamp
    return stamps, parsed


def _save(cache_dir: Path, skills: list[tuple[dict[str, Any], bool]]) -> dict[str, Any]:
    stamps, parsed = _parse(skills)
    assert ParseCache(cache_dir, "src", "/r", "lenient", 100).save(stamps, parsed)
    return {d: (stamps[d], parsed[d]) for d in stamps}


def _load(cache_dir: Path) -> dict[str, tuple[str, ParseResult]]:
    stamps, results = ParseCache(cache_dir, "src", "/r", "lenient", 100).load(lambda d: f"/r/{d}")
    assert stamps.keys() == results.keys()
    return {d: (stamps[d], results[d]) for d in stamps}


@settings(settings.get_profile("skillcore"))
@given(skills=_skills)
def test_every_field_round_trips(
    skills: list[tuple[dict[str, Any], bool]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    cache_dir = tmp_path_factory.mktemp("c")
    expected = _save(cache_dir, skills)
    loaded = _load(cache_dir)
    assert loaded == expected
    for directory, (_, result) in loaded.items():
        want = expected[directory][1]
        assert result.diagnostics == want.diagnostics and result.body_offset == want.body_offset
        if want.metadata is not None:
            meta = result.metadata
            assert meta is not None and hash(meta) == hash(want.metadata)
            assert repr(meta) == repr(want.metadata)  # same types and order (metadata keys)
            assert meta.declares_allowed_tools == want.metadata.declares_allowed_tools
    cache = ParseCache(cache_dir, "src", "/r", "lenient", 100)
    stamps, results = cache.load(lambda d: f"/r/{d}")
    assert stamps == {d: s for d, (s, _) in expected.items()} == cache.saved
    assert results == {d: r for d, (_, r) in expected.items()}


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every JSON value of the payload, by path, but for the inside of ``extra`` values
    (free-form JSON: any type there is a valid value)."""
    found = [path]
    if path[:1] == ("extra",) and len(path) >= 3:
        return found
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*path, i))
    return found


_OTHERS: list[Any] = [None, True, 0, 1.5, "x", [], {}, [1], ["x"], {"x": "y"}]


@settings(settings.get_profile("skillcore"))
@given(skills=_skills, data=st.data())
def test_a_value_of_another_type_anywhere_is_exactly_right_or_a_miss(
    skills: list[tuple[dict[str, Any], bool]],
    data: st.DataObject,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    cache_dir = tmp_path_factory.mktemp("c")
    expected = _save(cache_dir, skills)
    (path,) = cache_dir.glob("*.json")
    raw = path.read_bytes()
    doc = json.loads(raw[len(cache_mod._MAGIC) + cache_mod._DIGEST :])
    where = data.draw(st.sampled_from(_paths(doc)[1:]), label="path")
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    old = parent[where[-1]]
    new = data.draw(
        st.sampled_from([v for v in _OTHERS if type(v) is not type(old)]), label="value"
    )
    parent[where[-1]] = new
    sealed = cache_mod.seal(path.parent, json.dumps(doc).encode())  # with the user's key
    assert sealed is not None
    path.write_bytes(sealed)
    assert _load(cache_dir) in ({}, expected)


def test_a_file_of_the_previous_format_is_a_clean_miss(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "alpha").mkdir(parents=True)
    (root / "alpha" / "SKILL.md").write_text("---\nname: alpha\ndescription: Does A.\n---\n")
    cache_dir = tmp_path / "cache"
    first = SkillLibrary(root, cache=cache_dir).catalog
    (path,) = cache_dir.glob("*.json")
    # What the previous format wrote: one named entry per directory, positional fields.
    payload = json.dumps({"key": "k", "entries": {"alpha": ["1:1", None, [], 0]}}).encode()
    sealed = cache_mod.seal(path.parent, payload)
    assert sealed is not None
    path.write_bytes(b"SKCPARSE1\n" + sealed[len(cache_mod._MAGIC) :])
    lib = SkillLibrary(root, cache=cache_dir)
    reader = lib.reader(lib.sources[0])
    cache = ParseCache(cache_dir, lib.sources[0].label, reader.root, "lenient", lib.head_bytes)
    assert cache.load(reader.url_for) == ({}, {}) and cache.saved is None
    assert lib.catalog == first
    assert path.read_bytes().startswith(cache_mod._MAGIC)  # rewritten in the current format
    assert cache.load(reader.url_for)[1]
