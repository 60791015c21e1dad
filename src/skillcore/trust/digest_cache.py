"""The digest cache of verification at discovery: a local file whose identity and change
stamps are those it had when it was digested is not read again.

One file per local source root, beside the parse cache and under the same trust rules
(:mod:`skillcore.parse.private_files`): a private directory owned by the user, a private
regular file never followed through a link, a keyed BLAKE2b checksum with the directory's
``key``; anything odd (missing, forged, truncated, another format) is a miss, never an error.
Each entry maps a file's path below the root to its stamp (device, inode, size, ``mtime_ns``,
``ctime_ns``) and its digest. ``ctime`` cannot be set by a user: a rewrite that keeps size and
``mtime`` still changes it. A file changed within :data:`RACY_NS` of being digested is not
recorded (its change could fall in the same clock tick). Reads and script runs never use this
cache: they digest the bytes they hand out.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from skillcore.parse.private_files import make_private, private_dir, read_key, read_private

try:  # the BLAKE2 module itself, as the parse cache does (no OpenSSL at import)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

_MAGIC = b"SKCDIGEST1\n"
_SUM = 32
#: Cache files larger than this are not read (about 2 million files).
MAX_DIGEST_CACHE_BYTES = 256 * 1024 * 1024
#: A file whose ctime or mtime is this close to the moment it was digested is not recorded.
RACY_NS = 2_000_000_000

Stamp = tuple[int, int, int, int, int]


def stamp_of(st: os.stat_result) -> Stamp:
    """The identity and change stamps an entry is valid for."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _stamp(nums: list[object]) -> Stamp:
    if len(nums) != 5 or not all(type(n) is int for n in nums):
        raise ValueError("not a stamp")
    return (int(nums[0]), int(nums[1]), int(nums[2]), int(nums[3]), int(nums[4]))  # type: ignore[call-overload]


class DigestCache:
    """The digests of one local source's files, by path below its root (see the module)."""

    def __init__(self, directory: str | os.PathLike[str], root: str) -> None:
        self.root = os.path.realpath(root)
        name = blake2b(self.root.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        self.path = Path(directory) / f"digests-{name}.bin"
        self._entries: dict[str, tuple[Stamp, str]] | None = None
        #: Whole skills: ``{directory: ((path, stamp) of every folder and file, digests)}``.
        self._skills: dict[str, tuple[tuple[tuple[str, Stamp], ...], dict[str, str]]] = {}
        self._dirty = False

    def _load(self) -> dict[str, tuple[Stamp, str]]:
        if self._entries is None:
            try:
                self._entries = self._read()
            except Exception:  # a cache never breaks verification: anything odd is a miss
                self._entries = {}
        return self._entries

    def _read(self) -> dict[str, tuple[Stamp, str]]:
        directory = self.path.parent
        key = read_key(directory, create=False) if private_dir(directory) else None
        if key is None:
            return {}
        data = read_private(self.path, MAX_DIGEST_CACHE_BYTES)
        if data is None or len(data) > MAX_DIGEST_CACHE_BYTES or not data.startswith(_MAGIC):
            return {}
        payload = data[len(_MAGIC) + _SUM :]
        if blake2b(payload, digest_size=_SUM, key=key).digest() != data[len(_MAGIC) :][:_SUM]:
            return {}
        doc = json.loads(payload)
        if not isinstance(doc, dict) or doc.get("root") != self.root:
            return {}
        out: dict[str, tuple[Stamp, str]] = {}
        for path, row in doc["files"].items():
            *nums, digest = row
            if len(nums) != 5 or not all(type(n) is int for n in nums):
                return {}
            if not isinstance(digest, str) or not digest.startswith("sha256:"):
                return {}
            out[path] = ((nums[0], nums[1], nums[2], nums[3], nums[4]), digest)
        for directory, (stamps, files) in doc["skills"].items():
            rows = tuple((str(p), _stamp(n)) for p, *n in stamps)
            if not all(isinstance(d, str) and d.startswith("sha256:") for d in files.values()):
                return {}
            self._skills[str(directory)] = (rows, {str(k): v for k, v in files.items()})
        return out

    def skill(self, directory: str) -> dict[str, str] | None:
        """The digests of the skill at ``directory`` when every folder and file recorded for
        it still has its stamp (``lstat``: a folder's stamps change when an entry is added,
        removed or renamed in it), else None."""
        self._load()
        found = self._skills.get(directory)
        if found is None:
            return None
        for path, stamp in found[0]:
            try:
                st = os.lstat(os.path.join(self.root, path))
            except OSError:
                return None
            if stamp_of(st) != stamp:
                return None
        return dict(found[1])

    def put_skill(
        self, directory: str, stamps: list[tuple[str, os.stat_result]], files: dict[str, str]
    ) -> None:
        """Record a whole skill as read (unless one of its stamps is too recent)."""
        self._load()
        now = time.time_ns()
        if any(now - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS for _p, st in stamps):
            self._skills.pop(directory, None)
            return
        record = (tuple((p, stamp_of(st)) for p, st in stamps), dict(files))
        if self._skills.get(directory) != record:
            self._skills[directory] = record
            self._dirty = True

    def get(self, path: str, st: os.stat_result) -> str | None:
        """The digest recorded for ``path`` if its stamp is still ``st``'s, else None."""
        found = self._load().get(path)
        return found[1] if found is not None and found[0] == stamp_of(st) else None

    def put(self, path: str, st: os.stat_result, digest: str) -> None:
        """Record the digest of ``path`` as read with stamp ``st`` (unless changed too
        recently to tell a later change in the same clock tick apart)."""
        entries = self._load()
        now = time.time_ns()
        if now - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS:
            entries.pop(path, None)
            return
        stamp = stamp_of(st)
        if entries.get(path) != (stamp, digest):
            entries[path] = (stamp, digest)
            self._dirty = True

    def save(self) -> bool:
        """Write the entries if they changed; True when written. Never raises."""
        if not self._dirty or self._entries is None:
            return False
        self._dirty = False
        try:
            files = {p: [*s, d] for p, (s, d) in self._entries.items()}
            skills = {d: [[[p, *st] for p, st in rows], f] for d, (rows, f) in self._skills.items()}
            doc = {"root": self.root, "files": files, "skills": skills}
            payload = json.dumps(doc).encode("utf-8")
            directory = self.path.parent
            make_private(directory)
            key = read_key(directory, create=True) if private_dir(directory) else None
            if key is None:  # a directory others can write is never written to
                return False
            digest = blake2b(payload, digest_size=_SUM, key=key).digest()
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(_MAGIC + digest + payload)
                os.replace(tmp, self.path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except Exception:
            return False
        return True


__all__ = ["MAX_DIGEST_CACHE_BYTES", "RACY_NS", "DigestCache", "stamp_of"]
