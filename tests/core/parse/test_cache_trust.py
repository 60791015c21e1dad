"""Trusting the parse cache: only files and directories the current user alone can write
are used (checked with the owner and mode bits, which hold for root too), a FIFO at the
cache path never blocks, no cache content anyone else can write changes a policy-relevant
field, and an in-place edit that keeps size and mtime is noticed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import skillcore.parse.cache as cache_mod
from skillcore import SkillLibrary
from skillcore.policy.gating import skill_gated_tools

OTHER_UID = 4242 if os.geteuid() != 4242 else 4243


def _write(root: Path, name: str, extra: str = "") -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    p = d / "SKILL.md"
    p.write_text(f"---\nname: {name}\ndescription: Does {name}.\n{extra}---\n# Body\n")
    return p


@pytest.fixture
def lib_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    _write(root, "alpha", "allowed-tools: Read\n")
    _write(root, "beta", "")
    _write(root, "gamma", "disable-model-invocation: true\n")
    _write(root, "delta", "metadata:\n  include_tools: deploy\nallowed-tools: Bash(git:*)\n")
    return root


def policy_view(library: SkillLibrary) -> dict[str, Any]:
    """Every policy-relevant field of every skill in the catalog."""
    return {
        m.name: (m.allowed_tools, m.disable_model_invocation, skill_gated_tools(m))
        for m in library.catalog
    }


def cache_file(cache_dir: Path) -> Path:
    (path,) = cache_dir.glob("*.json")
    return path


def unkeyed(payload: bytes) -> bytes:
    """A payload with the checksum anyone can compute (no secret)."""
    digest = hashlib.blake2b(payload, digest_size=cache_mod._DIGEST).digest()
    return cache_mod._MAGIC + digest + payload


def payload_of(path: Path) -> dict[str, Any]:
    return json.loads(path.read_bytes()[len(cache_mod._MAGIC) + cache_mod._DIGEST :])


# -- ownership and modes --------------------------------------------------------------------


def _parses(lib_root: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    import skillcore.library.entries as library_mod

    calls = [0]
    real = library_mod.parse_skill_file

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(library_mod, "parse_skill_file", counted)
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    monkeypatch.undo()
    return calls[0]


@pytest.mark.parametrize(
    "how", ["file-other-owner", "file-group-writable", "file-world-writable", "dir-world-writable"]
)
def test_a_cache_others_can_write_is_not_used(
    lib_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    cache_dir = tmp_path / "cache"
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    assert _parses(lib_root, cache_dir, monkeypatch) == 0  # a private cache is used
    path = cache_file(cache_dir)
    if how == "file-other-owner":
        if os.geteuid() != 0:
            pytest.skip("changing a file's owner needs root")
        os.chown(path, OTHER_UID, -1)
    elif how == "file-group-writable":
        path.chmod(0o620)
    elif how == "file-world-writable":
        path.chmod(0o602)
    else:
        cache_dir.chmod(0o777)
    assert _parses(lib_root, cache_dir, monkeypatch) == 4


def test_cache_files_and_directories_are_created_private(lib_root: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache" / "parse"
    old = os.umask(0)  # the most permissive umask: privacy must not depend on it
    try:
        _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    finally:
        os.umask(old)
    assert cache_dir.stat().st_mode & 0o777 == 0o700
    for child in cache_dir.iterdir():
        assert child.stat().st_mode & 0o077 == 0, child
        assert child.stat().st_uid == os.geteuid()


def test_a_world_writable_cache_directory_is_not_written(lib_root: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "shared"
    cache_dir.mkdir()
    cache_dir.chmod(0o777)
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    assert list(cache_dir.iterdir()) == []


def test_a_fifo_at_the_cache_path_does_not_block(lib_root: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    first = SkillLibrary(lib_root, cache=cache_dir).catalog
    path = cache_file(cache_dir)
    path.unlink()
    os.mkfifo(path, 0o600)
    code = (
        "import sys; from skillcore import SkillLibrary; "
        "print(len(SkillLibrary(sys.argv[1], cache=sys.argv[2]).catalog))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(lib_root), str(cache_dir)],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    except subprocess.TimeoutExpired:  # pragma: no cover - the bug this test is about
        # Unblock the reader left behind, then fail.
        threading.Thread(target=lambda: open(path, "wb").close(), daemon=True).start()
        pytest.fail("discovery blocked on a FIFO at the cache path")
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(first)


# -- policy fields ---------------------------------------------------------------------------


def test_moving_a_restriction_in_the_cache_is_refused(lib_root: Path, tmp_path: Path) -> None:
    """One changed step moves alpha's allowed-tools to another entry: with a checksum
    anyone can recompute, the file must still not be used."""
    cache_dir = tmp_path / "cache"
    fresh = policy_view(SkillLibrary(lib_root, cache=False))
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    path = cache_file(cache_dir)
    doc = payload_of(path)
    steps = doc["allowed_tools"][0]
    doc["allowed_tools"][0] = [steps[0] + 1, *steps[1:]] if sum(steps) < doc["parsed"] else steps
    path.write_bytes(unkeyed(json.dumps(doc).encode()))
    assert policy_view(SkillLibrary(lib_root, cache=cache_dir)) == fresh


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 5) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


#: The payload columns that hold or place policy-relevant fields.
_POLICY_COLUMNS = ("allowed_tools", "disable_model_invocation", "metadata", "dirs", "parsed")


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, (*prefix, i))
    return out


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_cache_content_changes_a_policy_field(
    lib_root: Path, tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """For any cache file content (edited values, moved steps, random bytes, each with the
    checksum recomputed as anyone can), discovery's policy-relevant fields equal a fresh
    parse, or the entry is dropped (then the file is parsed afresh)."""
    fresh = policy_view(SkillLibrary(lib_root, cache=False))
    cache_dir = tmp_path_factory.mktemp("cache")
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    path = cache_file(cache_dir)
    kind = data.draw(st.sampled_from(["value", "swap", "shift", "bytes"]), label="kind")
    if kind == "bytes":
        raw = data.draw(st.binary(max_size=300), label="bytes")
        path.write_bytes(cache_mod._MAGIC + raw if data.draw(st.booleans()) else raw)
    else:
        doc = payload_of(path)
        paths = [p for p in _paths(doc) if p and p[0] != "key"]
        for _ in range(data.draw(st.integers(1, 3), label="edits")):
            # Half the time an edit aimed at the columns policy depends on.
            aimed = [p for p in paths if p[0] in _POLICY_COLUMNS] or paths
            where = data.draw(st.sampled_from(aimed) | st.sampled_from(paths), label="where")
            parent = doc
            for step in where[:-1]:
                parent = parent[step]
            if kind == "value":
                new = data.draw(_json, label="value")
            elif kind == "shift":  # one number moved: an entry step, a table index
                old = parent[where[-1]]
                if type(old) is not int:
                    continue
                new = old + data.draw(st.sampled_from([-1, 1]), label="by")
            else:  # a value from elsewhere in the file: a plausible, well-typed edit
                other = data.draw(st.sampled_from(paths), label="from")
                new = doc
                for step in other:
                    new = new[step]
                new = json.loads(json.dumps(new))
            try:
                parent[where[-1]] = new
            except (IndexError, KeyError, TypeError):
                continue
            paths = [p for p in _paths(doc) if p and p[0] != "key"]
        path.write_bytes(unkeyed(json.dumps(doc).encode()))
    library = SkillLibrary(lib_root, cache=cache_dir)
    got = policy_view(library)
    for name, fields in got.items():
        assert fields == fresh[name], (name, fields, fresh[name])
    assert set(got) <= set(fresh)


# -- change stamps ---------------------------------------------------------------------------


def test_an_in_place_edit_keeping_size_and_mtime_is_noticed(lib_root: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    _ = SkillLibrary(lib_root, cache=cache_dir).catalog
    path = lib_root / "beta" / "SKILL.md"
    before = path.stat()
    text = path.read_text()
    edited = text.replace("# Body\n", "").replace("---\n# ", "---\n# ")
    edited = edited.replace(
        "description: Does beta.\n", "description: Does beta.\ndisable-model-invocation: true\n"
    )
    edited = edited[: len(text)] if len(edited) >= len(text) else edited
    assert len(edited.encode()) <= len(text.encode())
    edited = edited + " " * (len(text.encode()) - len(edited.encode()))
    with open(path, "r+b") as fh:  # in place: same inode
        fh.write(edited.encode())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as cp -p / tar x do
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    beta = SkillLibrary(lib_root, cache=cache_dir).catalog.get("beta")
    assert beta is None or beta.disable_model_invocation, beta
