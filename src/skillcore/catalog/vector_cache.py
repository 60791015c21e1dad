"""An on-disk cache of skill vectors, so a second start does not run an encoder again.

One file per encoder (named by a hash of its :class:`~skillcore.catalog.embedders.EmbedderId`)
in ``vectors`` beside the parse cache's ``parse`` directory (the user cache directory; the
same rules: ``SKILLCORE_NO_CACHE=1`` turns it off). An entry is one skill text's vector,
keyed by the hash of that text, so an edited skill misses alone and a catalog of other
sources with the same skills reuses them.

The same trust rules as the parse cache (:mod:`skillcore.parse.cache`):

- the directory and files must be the current user's and writable by nobody else, opened
  without following a link or waiting on a FIFO, read up to :data:`MAX_VECTOR_BYTES` only;
  anything else is neither read nor written;
- every entry carries a keyed BLAKE2b checksum (the directory's private ``key`` file) over
  the encoder id, the text hash and the vector, so a damaged or foreign entry is skipped (a
  diagnostic event ``vectors.cache_ignored`` says how many) and never gives a wrong vector;
  the file's own header is checked the same way;
- at most :data:`MAX_VECTOR_ENTRIES` entries per encoder are kept (the most recently
  written); writers merge what is on disk with their own entries, write a temporary file in
  the same directory and ``os.replace`` it: a concurrent reader sees a whole file, two
  writers lose at most each other's new entries (a miss at the next start, never damage).

Layout: ``MAGIC``, a 4-byte header length, a JSON header (format, encoder id, dimensions,
entries), its 16-byte checksum, then per entry the 16-byte text hash, the float32 vector
and its 16-byte checksum.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillcore import events
from skillcore.catalog.embedders import Embedder, EmbedderId
from skillcore.parse.cache import cache_disabled, default_cache_dir
from skillcore.parse.private_files import make_private, private_dir, read_key, read_private

try:  # the BLAKE2 module itself: ``hashlib`` would also load OpenSSL
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

_MAGIC = b"SKCVECS1\n"
_FORMAT = 1
_HASH = 16
_MAC = 16
#: Entries kept per encoder (about 15 MB of 384-dimension vectors; a library a few times the
#: size of the largest measured one).
MAX_VECTOR_ENTRIES = 200_000
#: Vector files larger than this are not read.
MAX_VECTOR_BYTES = 512 * 1024 * 1024
#: Dimensions an entry may have (a larger header is refused as damaged).
MAX_VECTOR_DIMS = 8_192
#: Texts embedded per call of the encoder while the cache is filled.
EMBED_BATCH = 64
#: New vectors written to the cache at least this often while a large library is embedded.
SAVE_EVERY = 2_048


def default_vector_dir() -> Path:
    """The vector cache's directory: ``vectors`` beside the parse cache's ``parse``."""
    return default_cache_dir().parent / "vectors"


def text_hash(text: str) -> bytes:
    """The key of one text's vector."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=_HASH).digest()


class VectorCache:
    """The cached vectors of one encoder (see the module docstring)."""

    def __init__(self, embedder_id: EmbedderId, directory: Path | None = None) -> None:
        self.id = embedder_id
        self.directory = directory if directory is not None else default_vector_dir()
        name = blake2b(embedder_id.key.encode("utf-8", "surrogatepass"), digest_size=16)
        self.path = self.directory / f"{name.hexdigest()}.vec"
        self._ident = embedder_id.key.encode("utf-8", "surrogatepass")
        #: Entries skipped by the last read because their checksum or shape was wrong.
        self.ignored = 0

    # -- reading -------------------------------------------------------------------------

    def load(self) -> dict[bytes, Any]:
        """``{text hash: float32 vector}`` of the entries whose checksum holds; empty on any
        problem with the file (never raises)."""
        self.ignored = 0
        try:
            found = self._read()
        except Exception:  # a cache never breaks search: anything odd is a miss
            found = None
            self._report("unreadable file")
        return found or {}

    def _read(self) -> dict[bytes, Any] | None:
        if not private_dir(self.directory):
            return None
        key = read_key(self.directory, create=False)
        if key is None:
            return None
        data = read_private(self.path, MAX_VECTOR_BYTES)
        if data is None:
            return None
        if len(data) > MAX_VECTOR_BYTES or not data.startswith(_MAGIC):
            self._report("not a vector cache file")
            return None
        at = len(_MAGIC)
        size = int.from_bytes(data[at : at + 4], "little")
        header_bytes = data[at + 4 : at + 4 + size]
        mac = data[at + 4 + size : at + 4 + size + _MAC]
        if size > 4096 or _mac(key, header_bytes) != mac:
            self._report("damaged header")
            return None
        header = json.loads(header_bytes)
        dims = header.get("dims")
        if (
            header.get("format") != _FORMAT
            or header.get("id") != self.id.key
            or not isinstance(dims, int)
            or not 0 < dims <= MAX_VECTOR_DIMS
        ):
            return None
        import numpy as np

        body = memoryview(data)[at + 4 + size + _MAC :]
        width = _HASH + 4 * dims + _MAC
        count = len(body) // width
        self.ignored += 1 if len(body) % width else 0  # a torn tail
        out: dict[bytes, Any] = {}
        for i in range(min(count, MAX_VECTOR_ENTRIES)):
            entry = body[i * width : (i + 1) * width]
            digest, vector, mac = entry[:_HASH], entry[_HASH:-_MAC], bytes(entry[-_MAC:])
            if _mac(key, self._ident, digest, vector) != mac:
                self.ignored += 1
                continue
            row = np.frombuffer(vector, dtype="<f4").astype(np.float32)
            if not np.all(np.isfinite(row)):
                self.ignored += 1
                continue
            out[bytes(digest)] = row
        if self.ignored:
            self._report(f"{self.ignored} damaged entries skipped")
        return out

    def _report(self, detail: str) -> None:
        events.emit("vectors.cache_ignored", {"path": str(self.path), "detail": detail})

    # -- writing -------------------------------------------------------------------------

    def save(self, entries: dict[bytes, Any]) -> bool:
        """Merge ``entries`` into the file (theirs win; at most :data:`MAX_VECTOR_ENTRIES`,
        the newest kept); True when written. Never raises."""
        if not entries:
            return False
        try:
            return self._write(entries)
        except Exception:
            return False

    def _write(self, entries: dict[bytes, Any]) -> bool:
        import tempfile

        import numpy as np

        make_private(self.directory)
        key = read_key(self.directory, create=True) if private_dir(self.directory) else None
        if key is None:  # a directory others can write is never written to
            return False
        merged = {k: v for k, v in self.load().items() if k not in entries}
        merged.update(entries)
        items = list(merged.items())[-MAX_VECTOR_ENTRIES:]
        dims = len(items[0][1])
        header = json.dumps({"format": _FORMAT, "id": self.id.key, "dims": dims}).encode()
        parts = [_MAGIC, len(header).to_bytes(4, "little"), header, _mac(key, header)]
        for digest, row in items:
            vector = np.asarray(row, dtype="<f4").tobytes()
            if len(vector) != 4 * dims:
                continue
            parts += [digest, vector, _mac(key, self._ident, digest, vector)]
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(b"".join(parts))
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return True


def _mac(key: bytes, *parts: Any) -> bytes:
    h = blake2b(digest_size=_MAC, key=key)
    for part in parts:
        h.update(part)
    return h.digest()


def cached_vectors(
    embedder: Embedder, texts: Sequence[str], cache: bool | str | Path = True
) -> Any:
    """Unit-length vectors of ``texts`` (float32 rows): from the vector cache where an entry
    holds, the rest from ``embedder`` (and written back). ``cache=False`` (or
    ``SKILLCORE_NO_CACHE=1``) embeds everything; a path names the cache directory."""
    import numpy as np

    store: VectorCache | None = None
    if cache is not False and not cache_disabled():
        store = VectorCache(embedder.id, None if cache is True else Path(cache))
    known = store.load() if store is not None else {}
    keys = [text_hash(t) for t in texts]
    missing = [i for i, k in enumerate(keys) if k not in known]
    fresh: dict[bytes, Any] = {}
    unsaved = 0
    for start in range(0, len(missing), EMBED_BATCH):
        chunk = missing[start : start + EMBED_BATCH]
        rows = np.asarray(embedder.embed([texts[i] for i in chunk]), dtype=np.float32)
        for i, row in zip(chunk, rows):
            fresh[keys[i]] = row
        unsaved += len(chunk)
        if store is not None and unsaved >= SAVE_EVERY:  # an interrupted build keeps its work
            store.save(fresh)
            unsaved = 0
    if store is not None and unsaved:
        store.save(fresh)
    found = {**known, **fresh}
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    dims = {len(found[k]) for k in keys}
    if len(dims) != 1:  # cached rows of another shape: never mix them with fresh ones
        return np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)


__all__ = [
    "EMBED_BATCH",
    "MAX_VECTOR_BYTES",
    "MAX_VECTOR_DIMS",
    "MAX_VECTOR_ENTRIES",
    "SAVE_EVERY",
    "VectorCache",
    "cached_vectors",
    "default_vector_dir",
    "text_hash",
]
