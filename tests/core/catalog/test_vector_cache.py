"""The vector cache: keyed by encoder id and text hash, trusted only when private, every entry
checksummed (a damaged one is recomputed with a diagnostic, never used), bounded, and safe
with concurrent writers."""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.core.extras import needs

from skillcore.catalog.embedders import EmbedderId

pytestmark = needs("numpy")

ID = EmbedderId("fake", "1", "ab" * 32)


class Fake:
    """A deterministic encoder (a text's vector from its hash) that counts its texts."""

    def __init__(self, embedder_id: EmbedderId = ID, dims: int = 6) -> None:
        self._id = embedder_id
        self.dims = dims
        self.embedded: list[str] = []

    @property
    def id(self) -> EmbedderId:
        return self._id

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        self.embedded += texts
        # Seeded by a stable hash (``hash()`` differs between processes).
        seeds = [int.from_bytes(hashlib.blake2b(t.encode()).digest()[:4], "little") for t in texts]
        rows = [np.random.default_rng(s).standard_normal(self.dims) for s in seeds]
        out = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dims)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def private(tmp_path: Path) -> Path:
    d = tmp_path / "vectors"
    d.mkdir(mode=0o700)
    os.chmod(d, 0o700)
    return d


TEXTS = [f"skill {i}: does thing number {i}" for i in range(20)]


def test_a_second_start_embeds_nothing(tmp_path: Path) -> None:
    import numpy as np

    from skillcore.catalog.vector_cache import cached_vectors

    d = private(tmp_path)
    first = Fake()
    a = cached_vectors(first, TEXTS, str(d))
    assert len(first.embedded) == len(TEXTS)
    again = Fake()
    b = cached_vectors(again, TEXTS, str(d))
    assert again.embedded == [] and np.array_equal(a, b)
    # One new text: only it is embedded.
    c = cached_vectors(again, [*TEXTS, "a new skill"], str(d))
    assert again.embedded == ["a new skill"] and np.array_equal(c[:-1], a)


def test_vectors_of_another_encoder_are_never_used(tmp_path: Path) -> None:
    from skillcore.catalog.vector_cache import cached_vectors

    d = private(tmp_path)
    cached_vectors(Fake(), TEXTS, str(d))
    other = Fake(EmbedderId("fake", "2", "ab" * 32))
    cached_vectors(other, TEXTS, str(d))
    assert len(other.embedded) == len(TEXTS)


def test_a_damaged_entry_is_recomputed_with_a_diagnostic(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import numpy as np

    from skillcore.catalog.vector_cache import VectorCache, cached_vectors

    d = private(tmp_path)
    want = cached_vectors(Fake(), TEXTS, str(d))
    path = VectorCache(ID, d).path
    data = bytearray(path.read_bytes())
    data[-40] ^= 0x40  # inside the last entry's vector
    path.write_bytes(bytes(data))
    again = Fake()
    with caplog.at_level(logging.WARNING, logger="skillcore.catalog"):
        got = cached_vectors(again, TEXTS, str(d))
    assert again.embedded == [TEXTS[-1]]
    assert np.allclose(got, want)
    assert any("1 damaged entries skipped" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    "damage", ["truncated", "garbage", "header", "empty", "torn tail", "huge dims"]
)
def test_a_damaged_file_is_a_miss_never_a_crash(tmp_path: Path, damage: str) -> None:
    import numpy as np

    from skillcore.catalog.vector_cache import VectorCache, cached_vectors

    d = private(tmp_path)
    want = cached_vectors(Fake(), TEXTS, str(d))
    path = VectorCache(ID, d).path
    data = path.read_bytes()
    if damage == "truncated":
        data = data[:30]
    elif damage == "garbage":
        data = os.urandom(len(data))
    elif damage == "header":
        data = data.replace(b'"dims": 6', b'"dims": 7')
    elif damage == "empty":
        data = b""
    elif damage == "torn tail":
        data = data[:-10]
    else:
        data = data.replace(b'"dims": 6', b'"dims": 9999999')
    path.write_bytes(data)
    got = cached_vectors(Fake(), TEXTS, str(d))
    assert np.allclose(got, want)


def test_a_cache_others_can_write_is_neither_read_nor_written(tmp_path: Path) -> None:
    from skillcore.catalog.vector_cache import VectorCache, cached_vectors

    d = private(tmp_path)
    cached_vectors(Fake(), TEXTS, str(d))
    os.chmod(d, 0o777)
    again = Fake()
    cached_vectors(again, TEXTS, str(d))
    assert len(again.embedded) == len(TEXTS)  # not read
    before = VectorCache(ID, d).path.stat().st_mtime_ns
    cached_vectors(Fake(), ["fresh text"], str(d))
    assert VectorCache(ID, d).path.stat().st_mtime_ns == before  # not written


def test_a_symlinked_or_foreign_file_is_not_read(tmp_path: Path) -> None:
    from skillcore.catalog.vector_cache import VectorCache, cached_vectors

    d = private(tmp_path)
    cached_vectors(Fake(), TEXTS, str(d))
    path = VectorCache(ID, d).path
    target = tmp_path / "elsewhere.vec"
    path.rename(target)
    path.symlink_to(target)
    again = Fake()
    cached_vectors(again, TEXTS, str(d))
    assert len(again.embedded) == len(TEXTS)
    # A file sealed with another directory's key (copied in) is a miss.
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    cached_vectors(Fake(), TEXTS, str(other))
    path.unlink()
    (d / path.name).write_bytes((other / path.name).read_bytes())
    os.chmod(d / path.name, 0o600)
    third = Fake()
    cached_vectors(third, TEXTS, str(d))
    assert len(third.embedded) == len(TEXTS)


def test_the_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillcore.catalog import vector_cache
    from skillcore.catalog.vector_cache import VectorCache, cached_vectors

    monkeypatch.setattr(vector_cache, "MAX_VECTOR_ENTRIES", 8)
    d = private(tmp_path)
    cached_vectors(Fake(), TEXTS[:5], str(d))
    cached_vectors(Fake(), TEXTS[5:], str(d))
    kept = VectorCache(ID, d).load()
    assert len(kept) == 8  # the newest
    from skillcore.catalog.vector_cache import text_hash

    assert text_hash(TEXTS[-1]) in kept and text_hash(TEXTS[0]) not in kept


def test_off_switches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillcore.catalog.vector_cache import cached_vectors

    d = private(tmp_path)
    cached_vectors(Fake(), TEXTS, False)
    assert list(d.iterdir()) == []
    monkeypatch.setenv("SKILLCORE_NO_CACHE", "1")
    cached_vectors(Fake(), TEXTS, str(d))
    assert list(d.iterdir()) == []


def test_the_default_directory_is_beside_the_parse_cache() -> None:
    from skillcore.catalog.vector_cache import default_vector_dir
    from skillcore.parse.cache import default_cache_dir

    assert default_vector_dir() == default_cache_dir().parent / "vectors"


def _writer(directory: str, worker: int) -> None:
    from skillcore.catalog.vector_cache import cached_vectors

    for round_ in range(15):
        cached_vectors(Fake(), [f"w{worker} r{round_} {t}" for t in TEXTS[:4]], directory)


def test_concurrent_writers_never_leave_a_damaged_file(tmp_path: Path) -> None:
    import numpy as np

    from skillcore.catalog.vector_cache import VectorCache, text_hash

    d = private(tmp_path)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(d), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    cache = VectorCache(ID, d)
    kept = cache.load()
    assert cache.ignored == 0 and kept
    fake = Fake()
    for digest, row in kept.items():
        # Every kept vector is exactly the one computed for its text.
        text = next(
            t
            for w in range(3)
            for r in range(15)
            for t in (f"w{w} r{r} {x}" for x in TEXTS[:4])
            if text_hash(t) == digest
        )
        assert np.allclose(row, fake.embed([text])[0])
    assert not [p for p in d.iterdir() if p.name.startswith(".tmp-")]


def test_the_security_page_states_the_vector_cache_caps() -> None:
    from skillcore.catalog import vector_cache as vc

    page = " ".join(
        (Path(__file__).resolve().parents[3] / "docs" / "security.md").read_text().split()
    )
    for text in (
        f"at most {vc.MAX_VECTOR_BYTES // (1024 * 1024)} MiB read",
        f"more than {vc.MAX_VECTOR_DIMS:,} dimensions",
        f"At most {vc.MAX_VECTOR_ENTRIES:,} entries are kept per encoder",
    ):
        assert text in page, text


def test_an_interrupted_build_keeps_what_it_embedded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillcore.catalog import vector_cache
    from skillcore.catalog.vector_cache import cached_vectors

    monkeypatch.setattr(vector_cache, "EMBED_BATCH", 4)
    monkeypatch.setattr(vector_cache, "SAVE_EVERY", 8)

    class Stops(Fake):
        def embed(self, texts: Sequence[str]) -> Any:
            if len(self.embedded) >= 12:
                raise KeyboardInterrupt
            return super().embed(texts)

    d = private(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        cached_vectors(Stops(), TEXTS, str(d))
    again = Fake()
    cached_vectors(again, TEXTS, str(d))
    assert len(again.embedded) == len(TEXTS) - 8
