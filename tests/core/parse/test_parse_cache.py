"""The on-disk parse cache: transparent, stat-checked, fail-safe and opt-out."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skillcore.library.entries as library_mod
import skillcore.parse.cache as cache_mod
from skillcore import SkillLibrary, SkillSource
from skillcore.model import SkillLocation
from skillcore.parse.cache import ParseCache
from skillcore.parse.frontmatter import parse_skill_file


def write(root: Path, name: str, extra: str = "", desc: str = "Does X.") -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    p = d / "SKILL.md"
    p.write_text(f"---\nname: {name}\ndescription: {desc}\n{extra}---\n# Body\n")
    return p


@pytest.fixture
def lib_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write(root, "alpha", "allowed-tools: Read Bash(git:*)\n")
    write(root, "beta", "metadata:\n  author: me\ntriggers: [a, b]\nversion: '1.0'\n")
    write(root, "gamma", "custom: {nested: [1, 2.5, true, null]}\n")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("---\nname: broken\n---\n")  # no description
    return root


class CountingParse:
    """Counts parse_skill_file calls made by the library."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = library_mod.parse_skill_file

        def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(library_mod, "parse_skill_file", counted)


def cache_files(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.glob("*.json")) if cache_dir.exists() else []


def test_a_second_library_reads_the_cache_instead_of_parsing(
    lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "cache"
    first = SkillLibrary(lib_root, cache=cache_dir).catalog
    assert len(cache_files(cache_dir)) == 1
    counter = CountingParse(monkeypatch)
    second = SkillLibrary(lib_root, cache=cache_dir).catalog
    assert counter.calls == 0
    assert second == first
    assert second.diagnostics == first.diagnostics
    assert second.fingerprint == first.fingerprint
    assert second.get("alpha").allowed_tools == ("Read", "Bash(git:*)")  # type: ignore[union-attr]


def test_a_changed_file_is_parsed_again(
    lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "cache"
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    write(lib_root, "alpha", "allowed-tools: Write\n", desc="Changed and longer.")
    counter = CountingParse(monkeypatch)
    catalog = SkillLibrary(lib_root, cache=cache_dir).catalog
    assert counter.calls == 1
    alpha = catalog.get("alpha")
    assert alpha is not None and alpha.allowed_tools == ("Write",)
    assert alpha.description == "Changed and longer."


def test_an_unchanged_cache_is_not_rewritten(lib_root: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    (path,) = cache_files(cache_dir)
    before = path.stat().st_mtime_ns
    lib = SkillLibrary(lib_root, cache=cache_dir)
    _ = lib.catalog
    lib.refresh()
    assert path.stat().st_mtime_ns == before


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "flip":
        mid = len(data) // 2
        path.write_bytes(data[:mid] + bytes([data[mid] ^ 0x20]) + data[mid + 1 :])
    elif how == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(b"\x00\xff" * 100)
    elif how == "magic":
        path.write_bytes(b"X" + data[1:])
    elif how == "directory":
        path.unlink()
        path.mkdir()


@pytest.mark.parametrize("how", ["flip", "truncate", "empty", "garbage", "magic", "directory"])
def test_a_damaged_cache_is_a_miss(
    lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    cache_dir = tmp_path / "cache"
    first = SkillLibrary(lib_root, cache=cache_dir).catalog
    (path,) = cache_files(cache_dir)
    _damage(path, how)
    counter = CountingParse(monkeypatch)
    again = SkillLibrary(lib_root, cache=cache_dir).catalog
    assert counter.calls == 4  # every file parsed again
    assert again == first and again.diagnostics == first.diagnostics


def _forge(path: Path, key: str, edit: object) -> None:
    """Rewrite a cache file with a valid checksum after ``edit(payload)``."""
    data = path.read_bytes()
    payload = data[len(cache_mod._MAGIC) + cache_mod._DIGEST :]
    doc = json.loads(payload)
    doc["key"] = key if key else doc["key"]
    edit(doc)  # type: ignore[operator]
    sealed = cache_mod.seal(path.parent, json.dumps(doc).encode())  # with the user's key
    assert sealed is not None
    path.write_bytes(sealed)


def _set_allowed(value: object) -> object:
    def edit(doc: dict[str, list[list[object]]]) -> None:
        assert doc["allowed_tools"][2] == [["Read", "Bash(git:*)"]]  # alpha's, the only one
        doc["allowed_tools"][2][0] = value

    return edit


@pytest.mark.parametrize("value", ["Read", 5, [1], ["Read", None], {"a": "b"}, True])
def test_a_forged_allowed_tools_value_never_lifts_the_restriction(
    lib_root: Path, tmp_path: Path, value: object
) -> None:
    cache_dir = tmp_path / "cache"
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    (path,) = cache_files(cache_dir)
    _forge(path, "", _set_allowed(value))
    lib = SkillLibrary(lib_root, cache=cache_dir)
    alpha = lib.catalog.get("alpha")
    assert alpha is not None and alpha.allowed_tools == ("Read", "Bash(git:*)")
    # The forged file was replaced by a good one.
    assert ParseCache(
        cache_dir, lib.sources[0].label, str(lib_root), "lenient", lib.head_bytes
    ).load(lib.reader(lib.sources[0]).url_for)[1]


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d["metadata"][1].__setitem__(0, {"author": 1}),  # metadata value not text
        lambda d: d.__setitem__("priority", [[1], ["5"]]),  # priority not an int
        lambda d: d.__setitem__("priority", [[1], [True]]),  # nor a bool
        lambda d: d.__setitem__("disable_model_invocation", [True]),  # a step not an int
        lambda d: d["triggers"].pop(),  # wrong field shape
        lambda d: d.pop("version"),  # a field missing
        lambda d: d["stamps"].__setitem__(1, ""),  # empty stamp
        lambda d: d["diagnostics"][2].__setitem__(0, "NO_SUCH_CODE"),
        lambda d: d["diagnostics"][1].__setitem__(0, "fatal"),  # no such severity
        lambda d: d["diagnostics"][0].__setitem__(0, 4),  # past the last entry
        lambda d: d["extra"][1].__setitem__(0, [1, 2]),  # extra not a mapping
        lambda d: d["offsets"].__setitem__(0, "0"),  # body offset not an int
        lambda d: d["offsets"].__setitem__(0, -1),  # nor negative
        lambda d: d["offsets"].pop(),  # a column too short
        lambda d: d["name"].append("delta"),  # or too long
        lambda d: d["dirs"].__setitem__(1, d["dirs"][0]),  # a directory listed twice
        lambda d: d.__setitem__("parsed", 5),  # more parsed entries than entries
        lambda d: d.__setitem__("parsed", 3.0),
        lambda d: d["allowed_tools"].__setitem__(0, [4]),  # past the last parsed entry
        lambda d: d["allowed_tools"].__setitem__(0, [0]),  # a step of 0
        lambda d: d["allowed_tools"].__setitem__(1, [1]),  # past the end of the table
        lambda d: d["allowed_tools"].__setitem__(1, [-1]),
        lambda d: d["license"].__setitem__(0, [1]),  # steps without values
        lambda d: d.__setitem__("extra", [[1], [{"a": json.loads("[" * 70 + "]" * 70)}]]),
    ],
)
def test_any_mistyped_entry_rejects_the_file(
    lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: object
) -> None:
    cache_dir = tmp_path / "cache"
    first = SkillLibrary(lib_root, cache=cache_dir).catalog
    (path,) = cache_files(cache_dir)
    _forge(path, "", edit)
    counter = CountingParse(monkeypatch)
    assert SkillLibrary(lib_root, cache=cache_dir).catalog == first
    assert counter.calls == 4


def test_changed_parser_rules_invalidate_the_cache(
    lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "cache"
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    monkeypatch.setattr(cache_mod, "_rules", lambda: "other rules")
    counter = CountingParse(monkeypatch)
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    assert counter.calls == 4


def test_the_rules_key_covers_the_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillcore.parse import frontmatter_caps as caps

    before = cache_mod._rules()
    monkeypatch.setattr(caps, "MAX_DESCRIPTION", caps.MAX_DESCRIPTION + 1)
    assert cache_mod._rules() != before


def test_opt_out(lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache_dir = tmp_path / "cache"
    _ = SkillLibrary(lib_root, cache=False).catalog
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("SKILLCORE_NO_CACHE", "1")
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    _ = SkillLibrary(lib_root).catalog
    assert not cache_dir.exists()
    assert not (tmp_path / "xdg").exists()
    monkeypatch.delenv("SKILLCORE_NO_CACHE")
    assert SkillLibrary(lib_root).cache_dir is not None


def test_the_default_directory_is_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert str(cache_mod.default_cache_dir()).startswith(str(tmp_path / "xdg"))


def test_an_unwritable_cache_directory_is_harmless(lib_root: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    catalog = SkillLibrary(lib_root, cache=blocker / "cache").catalog
    assert catalog.names == ("alpha", "beta", "gamma")


def test_an_unreachable_source_does_not_serve_cached_skills(lib_root: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    moved = tmp_path / "moved"
    lib_root.rename(moved)
    catalog = SkillLibrary(SkillSource(str(lib_root), optional=True), cache=cache_dir).catalog
    assert len(catalog) == 0
    assert [d.code.value for d in catalog.diagnostics] == ["SOURCE_UNREACHABLE"]


def test_concurrent_writers_leave_a_whole_file(lib_root: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    lib = SkillLibrary(lib_root, cache=cache_dir)
    _ = lib.catalog
    state = lib._states[lib.sources[0].label]
    url_for = lib.reader(lib.sources[0]).url_for
    errors: list[BaseException] = []
    seen: list[int] = []

    def writer(k: int) -> None:
        try:
            for _ in range(30):
                c = ParseCache(
                    cache_dir, lib.sources[0].label, str(lib_root), "lenient", lib.head_bytes
                )
                stamps = {d: s for j, (d, s) in enumerate(sorted(state.stamps.items())) if j <= k}
                c.save(stamps, state.parsed)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader() -> None:
        for _ in range(60):
            c = ParseCache(
                cache_dir, lib.sources[0].label, str(lib_root), "lenient", lib.head_bytes
            )
            seen.append(len(c.load(url_for)[1]))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(3)]
    threads.append(threading.Thread(target=reader))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    # Every read saw one writer's whole file (1, 2 or 3 entries), never a torn one.
    assert set(seen) <= {1, 2, 3, 4}
    assert [p.name for p in cache_dir.iterdir() if p.name.startswith(".tmp")] == []


# -- the stored form round-trips every parse result --------------------------------------

_texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12
)
_fields = st.fixed_dictionaries(
    {},
    optional={
        "license": _texts,
        "compatibility": _texts,
        "version": st.one_of(_texts, st.integers(-5, 5), st.floats(allow_nan=False)),
        "allowed-tools": st.one_of(_texts, st.lists(_texts, max_size=3), st.integers()),
        "metadata": st.dictionaries(_texts, st.one_of(_texts, st.integers()), max_size=3),
        "triggers": st.lists(_texts, max_size=3),
        "priority": st.integers(-3, 3),
        "disable-model-invocation": st.booleans(),
        "hooks": st.sampled_from(
            [
                {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}
                    ]
                },
                {"SessionStart": [{"once": True, "hooks": [{"type": "prompt", "prompt": "p"}]}]},
                {"PostToolUse": 3},
            ]
        ),
        "custom": st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), _texts),
            lambda inner: st.lists(inner, max_size=2) | st.dictionaries(_texts, inner, max_size=2),
            max_leaves=5,
        ),
    },
)


@settings(settings.get_profile("skillcore"))
@given(fields=_fields, description=st.one_of(_texts, st.none()))
def test_cached_results_round_trip(
    fields: dict[str, object], description: str | None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    doc = {"name": "skill-a", **({"description": description} if description else {}), **fields}
    text = "---\n" + json.dumps(doc) + "\n---\nbody\n"  # JSON is YAML: any value is writable
    loc = SkillLocation("src", "skill-a", "/r/skill-a")
    result = parse_skill_file(
        text.encode(), directory_name="skill-a", location=loc, path="skill-a/SKILL.md", stamp="9:9"
    )
    cache_dir = tmp_path_factory.mktemp("c")
    c = ParseCache(cache_dir, "src", "/r", "lenient", 100)
    assert c.save({"skill-a": "9:9"}, {"skill-a": result})
    stamps, results = ParseCache(cache_dir, "src", "/r", "lenient", 100).load(lambda d: f"/r/{d}")
    assert stamps == {"skill-a": "9:9"} and results == {"skill-a": result}


def test_rewrites_are_throttled_after_the_first_write(
    lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-running library does not rewrite the whole cache after every edit."""
    cache_dir = tmp_path / "cache"
    lib = SkillLibrary(lib_root, cache=cache_dir)
    _ = lib.catalog
    (path,) = cache_files(cache_dir)
    before = path.read_bytes()
    write(lib_root, "alpha", desc="Edited once more, and longer.")
    lib.refresh()
    assert path.read_bytes() == before  # within the interval: not rewritten
    monkeypatch.setattr(cache_mod, "SAVE_INTERVAL", 0.0)
    write(lib_root, "alpha", desc="Edited again, and longer still.")
    lib.refresh()
    assert path.read_bytes() != before
    # A stale entry costs one parse at the next cold start, never a wrong result.
    assert SkillLibrary(lib_root, cache=cache_dir).catalog == lib.catalog


def test_async_discovery_reads_the_cache_too(
    lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio

    cache_dir = tmp_path / "cache"
    first = anyio.run(SkillLibrary(lib_root, cache=cache_dir).adiscover)
    counter = CountingParse(monkeypatch)
    again = anyio.run(SkillLibrary(lib_root, cache=cache_dir).adiscover)
    assert counter.calls == 0
    assert again == first and again.diagnostics == first.diagnostics
