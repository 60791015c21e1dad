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

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from skillcore.parse.private_files import make_private, private_dir, read_key, read_private
from skillcore.trust.digests import tree_digest

try:  # the BLAKE2 module itself, as the parse cache does (no OpenSSL at import)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

_MAGIC = b"SKCDIGEST3\n"
_SUM = 32
#: Cache files larger than this are not read (about 2 million files).
MAX_DIGEST_CACHE_BYTES = 256 * 1024 * 1024
#: A file whose ctime or mtime is this close to the moment it was digested is not recorded.
RACY_NS = 2_000_000_000

Stamp = tuple[int, int, int, int, int]


def stamp_of(st: os.stat_result) -> Stamp:
    """The identity and change stamps an entry is valid for."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class DigestCache:
    """The digests of one local source's skills, by skill folder (see the module)."""

    def __init__(self, directory: str | os.PathLike[str], root: str) -> None:
        self.root = os.path.realpath(root)
        name = blake2b(self.root.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        self.path = Path(directory) / f"digests-{name}.bin"
        #: ``{skill folder: [paths below the root, their stamps flat (5 ints each),
        #: {path in the skill: digest}]}``, as stored (checked when used).
        self._skills: dict[str, list[Any]] | None = None
        self._dirty = False

    def _load(self) -> dict[str, list[Any]]:
        if self._skills is None:
            try:
                self._skills = self._read()
            except Exception:  # a cache never breaks verification: anything odd is a miss
                self._skills = {}
        return self._skills

    def _read(self) -> dict[str, list[Any]]:
        directory = self.path.parent
        key = read_key(directory, create=False) if private_dir(directory) else None
        if key is None:
            return {}
        data = read_private(self.path, MAX_DIGEST_CACHE_BYTES)
        if data is None or len(data) > MAX_DIGEST_CACHE_BYTES or not data.startswith(_MAGIC):
            return {}
        payload = memoryview(data)[len(_MAGIC) + _SUM :]
        if blake2b(payload, digest_size=_SUM, key=key).digest() != data[len(_MAGIC) :][:_SUM]:
            return {}
        doc = json.loads(bytes(payload))
        if not isinstance(doc, dict) or doc.get("root") != self.root:
            return {}
        skills = doc["skills"]
        return skills if isinstance(skills, dict) else {}

    def _record(self, directory: str) -> tuple[list[str], list[int], dict[str, str], str] | None:
        found = self._load().get(directory)
        if not isinstance(found, list) or len(found) != 4:
            return None
        paths, nums, files, tree = found
        if not (isinstance(paths, list) and isinstance(nums, list) and isinstance(files, dict)):
            return None
        if len(nums) != 5 * len(paths) or type(tree) is not str:
            return None
        return paths, nums, files, tree

    def skill(self, directory: str) -> tuple[dict[str, str], str] | None:
        """``(file digests, tree digest)`` of the skill at ``directory`` when every folder and
        file recorded for it still has its stamp (``lstat``: a folder's stamps change when an
        entry is added, removed or renamed in it), else None."""
        record = self._record(directory)
        if record is None:
            return None
        paths, nums, files, tree = record
        base = self.root + os.sep
        lstat = os.lstat
        i = 0
        try:
            for path in paths:
                st = lstat(base + path if path else self.root)
                # ctime and inode first: what an edit or a replacement changes.
                if (
                    st.st_ctime_ns != nums[i + 4]
                    or st.st_ino != nums[i + 1]
                    or st.st_mtime_ns != nums[i + 3]
                    or st.st_size != nums[i + 2]
                    or st.st_dev != nums[i]
                ):
                    return None
                i += 5
        except OSError:
            return None
        for digest in files.values():
            if type(digest) is not str or not digest.startswith("sha256:"):
                return None
        return files, tree

    def get(self, directory: str, rel: str, st: os.stat_result) -> str | None:
        """The digest recorded for the file ``rel`` of the skill at ``directory`` if its
        stamp is still ``st``'s, else None."""
        record = self._record(directory)
        if record is None:
            return None
        paths, nums, files, _tree = record
        full = f"{directory}/{rel}" if directory else rel
        try:
            i = paths.index(full) * 5
        except ValueError:
            return None
        digest = files.get(rel)
        if tuple(nums[i : i + 5]) != stamp_of(st) or not isinstance(digest, str):
            return None
        return digest if digest.startswith("sha256:") else None

    def put_skill(
        self, directory: str, stamps: list[tuple[str, os.stat_result]], files: dict[str, str]
    ) -> None:
        """Record a whole skill as read (unless one of its stamps is too recent to tell a
        later change in the same clock tick apart)."""
        skills = self._load()
        now = time.time_ns()
        if any(now - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS for _p, st in stamps):
            if skills.pop(directory, None) is not None:
                self._dirty = True
            return
        nums = [n for _p, st in stamps for n in stamp_of(st)]
        record = [[p for p, _st in stamps], nums, dict(files), tree_digest(files)]
        if skills.get(directory) != record:
            skills[directory] = record
            self._dirty = True

    def save(self) -> bool:
        """Write the entries if they changed; True when written. Never raises."""
        if not self._dirty or self._skills is None:
            return False
        self._dirty = False
        try:
            doc = {"root": self.root, "skills": self._skills}
            payload = json.dumps(doc, separators=(",", ":")).encode("utf-8", "surrogatepass")
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
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except Exception:
            return False
        return True


__all__ = ["MAX_DIGEST_CACHE_BYTES", "RACY_NS", "DigestCache", "stamp_of"]
