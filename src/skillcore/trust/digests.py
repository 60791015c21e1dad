"""The digests a lock records: one per file, and one over a skill's whole tree.

A file digest is ``sha256:`` and the hex SHA-256 of the file's bytes. The tree digest is
``sha256:`` and the hex SHA-256 of, for each file in order of its relative path (``/``
separated, compared as Unicode code points, which is UTF-8 byte order), the UTF-8 path, a NUL
byte, the file's digest and a newline. Two trees have the same tree digest exactly when they
hold the same paths with the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: The prefix every digest carries (the algorithm, as SEP-2640's ``digest`` fields spell it).
DIGEST_PREFIX = "sha256:"
#: A digest as a lock writes it.
DIGEST_PATTERN = re.compile(r"^sha256:[0-9a-f]{64}$")


def file_digest(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``."""
    # Imported here: hashlib loads OpenSSL, milliseconds of every cold start without a lock.
    import hashlib

    return DIGEST_PREFIX + hashlib.sha256(data).hexdigest()


def tree_digest(files: Mapping[str, str]) -> str:
    """The digest of a tree given as ``{relative path: file digest}`` (see the module)."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
        h.update(files[path].encode("ascii"))
        h.update(b"\n")
    return DIGEST_PREFIX + h.hexdigest()


__all__ = ["DIGEST_PATTERN", "DIGEST_PREFIX", "file_digest", "tree_digest"]
