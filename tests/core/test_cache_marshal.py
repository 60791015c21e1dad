"""The parse cache's marshal payload is untrusted: any oddity is a miss (a full parse)."""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import skillcore.cache as cache_mod
from skillcore import SkillLibrary


def _library(root: Path) -> Path:
    for name, extra in (("alpha", "tags: [a, b]\n"), ("beta", "allowed-tools: Read\n")):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Does {name} things.\n{extra}---\nBody.\n"
        )
    return root


def _write(path: Path, payload: bytes) -> None:
    digest = hashlib.blake2b(payload, digest_size=cache_mod._DIGEST).digest()
    path.write_bytes(cache_mod._MAGIC + digest + payload)


def _doc(path: Path) -> Any:
    return marshal.loads(path.read_bytes()[len(cache_mod._MAGIC) + cache_mod._DIGEST :])


@pytest.fixture
def filled(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = _library(tmp_path / "skills")
    cache_dir = tmp_path / "cache"
    SkillLibrary(root, cache=cache_dir).catalog  # noqa: B018 - fills the cache
    (path,) = cache_dir.glob("*.bin")
    return root, cache_dir, path


def _assert_full_parse(root: Path, cache_dir: Path) -> None:
    fresh = SkillLibrary(root, cache=False).catalog
    got = SkillLibrary(root, cache=cache_dir).catalog
    assert got == fresh and got.diagnostics == fresh.diagnostics
    assert [m.allowed_tools for m in got] == [m.allowed_tools for m in fresh]


def test_the_cache_file_is_marshal_with_the_format_magic(filled: tuple[Path, Path, Path]) -> None:
    _, _, path = filled
    assert path.read_bytes().startswith(cache_mod._MAGIC)
    doc = _doc(path)
    assert set(doc) == {"key", "entries"} and set(doc["entries"]) == {"alpha", "beta"}


def _tuple_entry(doc: Any) -> None:
    doc["entries"]["alpha"] = tuple(doc["entries"]["alpha"])


def _tuple_tools(doc: Any) -> None:  # a tuple is not a list: the restriction is not trusted
    doc["entries"]["beta"][1][5] = tuple(doc["entries"]["beta"][1][5])


def _code_in_extra(doc: Any) -> None:
    doc["entries"]["alpha"][1][14] = {"tags": compile("1", "x", "eval")}


def _set_in_extra(doc: Any) -> None:
    doc["entries"]["alpha"][1][14] = {"tags": frozenset({"a"})}


def _bytes_name(doc: Any) -> None:
    doc["entries"]["alpha"][1][0] = b"alpha"


@pytest.mark.parametrize(
    "edit", [_tuple_entry, _tuple_tools, _code_in_extra, _set_in_extra, _bytes_name]
)
def test_a_type_marshal_can_hold_but_json_cannot_is_a_miss(
    filled: tuple[Path, Path, Path], edit: Any
) -> None:
    root, cache_dir, path = filled
    doc = _doc(path)
    edit(doc)
    _write(path, marshal.dumps(doc))
    _assert_full_parse(root, cache_dir)


@pytest.mark.parametrize("cut", [1, 7, 40])
def test_a_truncated_payload_with_a_valid_checksum_is_a_miss(
    filled: tuple[Path, Path, Path], cut: int
) -> None:
    root, cache_dir, path = filled
    payload = path.read_bytes()[len(cache_mod._MAGIC) + cache_mod._DIGEST :]
    _write(path, payload[:-cut])
    _assert_full_parse(root, cache_dir)


def test_a_json_cache_of_the_previous_format_is_a_miss(filled: tuple[Path, Path, Path]) -> None:
    root, cache_dir, path = filled
    path.write_bytes(b"SKCPARSE1\n" + bytes(cache_mod._DIGEST) + b'{"key":"","entries":{}}')
    _assert_full_parse(root, cache_dir)


@settings(
    settings.get_profile("skillcore"), suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(garbage=st.binary(max_size=200), keep=st.integers(min_value=0, max_value=400))
def test_garbage_with_a_valid_checksum_is_a_miss(
    filled: tuple[Path, Path, Path], garbage: bytes, keep: int
) -> None:
    root, cache_dir, path = filled
    path.unlink(missing_ok=True)
    SkillLibrary(root, cache=cache_dir).catalog  # noqa: B018 - a fresh, valid file
    payload = path.read_bytes()[len(cache_mod._MAGIC) + cache_mod._DIGEST :]
    _write(path, payload[:keep] + garbage)
    _assert_full_parse(root, cache_dir)
