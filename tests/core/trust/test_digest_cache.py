"""The digest cache of verification at discovery: an unchanged local tree verifies with stats
only; a file edited in place (even same size, same mtime) is read again and refused; a forged
or corrupt cache is a miss; reads still compare the bytes they hand out."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.core.trust.test_lock_verify import lock_of, make_library

import skillcore.trust.digest_cache as dc
import skillcore.trust.local_tree as local_tree
from skillcore import Code, ReadError, SkillLibrary
from skillcore.trust import LockFile, TrustTier, tree_digest

SCRIPT = "runner-skill/scripts/hello.py"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Files read by verification's one-pass reader (each call: one file)."""
    calls: list[int] = []
    real = local_tree.read_fd

    def counting(fd: int, limit: int) -> bytes:
        calls.append(fd)
        return real(fd, limit)

    monkeypatch.setattr(local_tree, "read_fd", counting)
    monkeypatch.setattr(dc, "RACY_NS", 0)  # the files were just written
    return calls


def _lib(root: Path, lock: LockFile, cache: Path) -> SkillLibrary:
    return SkillLibrary(root, lock=lock, frozen=True, cache=cache)


def test_unchanged_tree_verifies_with_stats_only(tmp_path: Path, reads: list[int]) -> None:
    root = make_library(tmp_path / "skills")
    lock = lock_of(SkillLibrary(root, cache=False))
    cache = tmp_path / "cache"
    first = _lib(root, lock, cache)
    assert first.tier("runner-skill") is TrustTier.PINNED
    assert len(reads) > 0
    reads.clear()
    again = _lib(root, lock, cache)
    assert again.catalog.names == first.catalog.names
    assert again.tier("runner-skill") is TrustTier.PINNED
    assert reads == []  # every file's stamps matched: none read


def test_same_size_same_mtime_edit_is_read_and_refused(tmp_path: Path, reads: list[int]) -> None:
    root = make_library(tmp_path / "skills")
    lock = lock_of(SkillLibrary(root, cache=False))
    cache = tmp_path / "cache"
    assert _lib(root, lock, cache).tier("runner-skill") is TrustTier.PINNED
    script = root / SCRIPT
    before = os.stat(script)
    data = script.read_bytes()
    script.write_bytes(data.replace(b"hello", b"HELLO"))  # same size
    os.utime(script, ns=(before.st_atime_ns, before.st_mtime_ns))  # same mtime
    assert os.stat(script).st_size == before.st_size
    reads.clear()
    changed = _lib(root, lock, cache)
    assert "runner-skill" not in changed.catalog.names
    assert any(
        d.code is Code.LOCK_MISMATCH and "scripts/hello.py" in d.message
        for d in changed.catalog.diagnostics
    )
    assert len(reads) == 1  # only the edited file was read again


def _forge(cache: Path, root: Path, digest: str, key: bytes | None = None) -> None:
    """Rewrite the cache so that the script's current stamps map to ``digest``, checksummed
    with ``key`` (None: without the directory's key, what anyone who cannot read it could
    write)."""
    from hashlib import blake2b

    (path,) = cache.glob("digests-*.bin")
    magic = b"SKCDIGEST3\n"
    doc = json.loads(path.read_bytes()[len(magic) + 32 :])
    paths, nums, files, _tree = doc["skills"]["runner-skill"]
    for i, p in enumerate(paths):  # every stamp as it is now (the swap changed some)
        nums[5 * i : 5 * i + 5] = list(dc.stamp_of(os.lstat(root / p if p else root)))
    files["scripts/hello.py"] = digest
    doc["skills"]["runner-skill"] = [paths, nums, files, tree_digest(files)]
    payload = json.dumps(doc).encode()
    check = b"\0" * 32 if key is None else blake2b(payload, digest_size=32, key=key).digest()
    path.write_bytes(magic + check + payload)


def test_forged_or_corrupt_cache_is_a_miss(tmp_path: Path, reads: list[int]) -> None:
    root = make_library(tmp_path / "skills")
    lock = lock_of(SkillLibrary(root, cache=False))
    cache = tmp_path / "cache"
    assert _lib(root, lock, cache).tier("runner-skill") is TrustTier.PINNED
    locked = lock.skills["runner-skill"].files["scripts/hello.py"]
    (root / SCRIPT).write_text("print('swapped')\n")
    _forge(cache, root, locked)
    assert "runner-skill" not in _lib(root, lock, cache).catalog.names
    # The same content with the right key is what the cache trusts (only the user can write
    # it): shown so the refusal above is the checksum's doing.
    _forge(cache, root, locked, (cache / "key").read_bytes())
    assert "runner-skill" in _lib(root, lock, cache).catalog.names
    (path,) = cache.glob("digests-*.bin")
    path.write_bytes(b"garbage")
    assert "runner-skill" not in _lib(root, lock, cache).catalog.names


def test_reads_still_compare_bytes(tmp_path: Path, reads: list[int]) -> None:
    root = make_library(tmp_path / "skills")
    lock = lock_of(SkillLibrary(root, cache=False))
    cache = tmp_path / "cache"
    _lib(root, lock, cache).discover()
    lib = _lib(root, lock, cache)
    assert lib.tier("runner-skill") is TrustTier.PINNED
    (root / "runner-skill/references/guide.md").write_text("the GUIDE\n")
    with pytest.raises(ReadError, match="does not match the lock"):
        lib.read_resource("runner-skill", "references/guide.md")
