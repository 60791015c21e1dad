"""The parse cache's fast rebuild: typed entries skip the converters, and nothing else changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skillcore.parse.cache as cache_mod
from skillcore import SkillLibrary
from skillcore._frozen import FrozenDict
from skillcore.model import SkillLocation, SkillMetadata

SRC = Path(__file__).resolve().parents[3] / "src"


def _skill(root: Path, name: str, extra: str = "") -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Does {name}.\n{extra}---\n# Body\n"
    )


@pytest.fixture
def lib_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    _skill(root, "alpha", "license: MIT\ncompatibility: any\nargument-hint: '[file]'\n")
    _skill(root, "beta", "version: '2'\n")
    return root


def _forge(path: Path, edit: object) -> None:
    """Rewrite a cache file with a valid checksum after ``edit(payload)``."""
    data = path.read_bytes()
    doc = json.loads(data[len(cache_mod._MAGIC) + cache_mod._DIGEST :])
    edit(doc)  # type: ignore[operator]
    sealed = cache_mod.seal(path.parent, json.dumps(doc).encode())  # with the user's key
    assert sealed is not None
    path.write_bytes(sealed)


_text = st.text(max_size=8)
_opt = st.none() | _text
_strs = st.lists(_text, max_size=3).map(tuple)


@settings(settings.get_profile("skillcore"))
@given(
    st.fixed_dictionaries(
        {
            "name": _text,
            "description": _text,
            "license": _opt,
            "compatibility": _opt,
            "metadata": st.dictionaries(_text, _text, max_size=3).map(FrozenDict),
            "allowed_tools": st.none() | _strs,
            "version": _opt,
            "triggers": _strs,
            "file_patterns": _strs,
            "priority": st.integers(-5, 5),
            "dependencies": _strs,
            "disable_model_invocation": st.booleans(),
            "user_invocable": st.booleans(),
            "argument_hint": _opt,
            "hooks": st.dictionaries(_text, st.integers(), max_size=2).map(FrozenDict),
            "extra": st.dictionaries(_text, st.integers(), max_size=2).map(FrozenDict),
            "stamp": _text,
            "headings": _strs,
        }
    )
)
def test_the_column_builder_builds_what_init_builds(fields: dict[str, object]) -> None:
    loc = SkillLocation("s", "d", "/d")
    made = SkillMetadata(location=loc, **fields)  # type: ignore[arg-type]
    names = [a.name for a in attrs.fields(SkillMetadata)]
    # The cache's column builder: every field of every instance set slot by slot.
    columns = {n: [loc if n == "location" else fields[n]] * 2 for n in names}
    built = cache_mod._build(SkillMetadata, 2, columns)
    for one in built:
        assert one == made and hash(one) == hash(made) and repr(one) == repr(made)
    with pytest.raises(cache_mod._Bad):  # a column too short would leave slots unset
        cache_mod._build(SkillMetadata, 3, columns)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("license", [[1], [0], [5]]),  # license not text
        ("compatibility", [[1], [0], [["any"]]]),  # compatibility not text
        ("version", [[2], [0], [2.0]]),  # version not text
        ("argument_hint", [[1], [0], [{"a": "b"}]]),  # argument-hint not text
        ("triggers", [[2], [0], ["a"]]),  # triggers not a list
        ("file_patterns", [[2], [0], [[1]]]),  # file patterns not strings
        ("dependencies", None),  # dependencies not a sparse field
        ("metadata", [[2], [[]]]),  # metadata not a mapping
        ("priority", [[2], [None]]),  # priority not an int
        ("user_invocable", [None]),  # a step not an int
    ],
)
def test_a_mistyped_field_rejects_the_whole_file(
    lib_root: Path, tmp_path: Path, field: str, value: object
) -> None:
    cache_dir = tmp_path / "cache"
    first = SkillLibrary(lib_root, cache=cache_dir).catalog
    (path,) = sorted(cache_dir.glob("*.json"))
    lib = SkillLibrary(lib_root, cache=cache_dir)
    reader = lib.reader(lib.sources[0])
    label = lib.sources[0].label
    cache = cache_mod.ParseCache(cache_dir, label, reader.root, "lenient", lib.head_bytes)
    assert cache.load(reader.url_for)[1]  # the file as written is good

    def edit(doc: dict[str, object]) -> None:
        doc[field] = value

    _forge(path, edit)
    assert cache.load(reader.url_for) == ({}, {})
    assert SkillLibrary(lib_root, cache=cache_dir).catalog == first


def test_the_rules_key_does_not_depend_on_what_was_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import skillcore.parse.yamlload  # noqa: F401 - present before, absent after

    before = cache_mod._rules()
    monkeypatch.delitem(sys.modules, "skillcore.parse.yamlload")
    monkeypatch.delitem(sys.modules, "skillcore.parse.fast", raising=False)
    assert cache_mod._rules() == before


def test_a_cold_start_from_the_cache_imports_no_yaml(lib_root: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    code = (
        "import sys\n"
        "from skillcore import SkillLibrary, render_catalog\n"
        f"lib = SkillLibrary({str(lib_root)!r}, cache={str(cache_dir)!r})\n"
        "text = render_catalog(lib.session())\n"
        "print(len(lib.catalog), 'yaml' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC), "SKILLCORE_NO_CACHE": ""}

    def run() -> str:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        ).stdout.split()

    assert run() == ["2", "True"]  # the first run parses (and fills the cache)
    assert run() == ["2", "False"]  # the second one is served by the cache alone
