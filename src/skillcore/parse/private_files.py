"""Files only the current user can write: the checks a cache directory and its files must
pass to be trusted, private creation (whatever the umask), bounded reads that never follow a
link nor wait on a FIFO, and the random key kept in such a directory."""

from __future__ import annotations

import os
import stat as stat_mod
from pathlib import Path

#: The file holding the checksum key, next to the cache files.
KEY_FILE = "key"
#: Bytes of the random checksum key of a cache directory.
KEY_BYTES = 32
_READ_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)  # fmt: skip


def _euid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else -1


def private_dir(directory: Path) -> bool:
    """True when ``directory`` is a directory owned by the effective user that neither
    group nor others can write (the mode bits and owner: this holds for root too)."""
    try:
        st = os.stat(directory)
    except OSError:
        return False
    return stat_mod.S_ISDIR(st.st_mode) and _private(st)


def _private(st: os.stat_result, secret: bool = False) -> bool:
    # Windows has no owners or POSIX modes to check: trust is that of the user's profile.
    if _euid() == -1:
        return True
    bits = 0o077 if secret else 0o022
    return st.st_uid == _euid() and not st.st_mode & bits


def read_private(path: Path, cap: int, secret: bool = False) -> bytes | None:
    """The bytes of a private regular file (at most ``cap`` + 1), or None when it is not
    one: missing, a symlink, a FIFO or device (opened non-blocking, never waited on),
    someone else's, or writable (``secret``: readable) by group or others. (Only the user
    can add a link to the private directory, so link counts need no check.)"""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not (stat_mod.S_ISREG(st.st_mode) and _private(st, secret)):
            return None
        chunks: list[bytes] = []
        total = 0
        while total <= cap:
            chunk = os.read(fd, min(cap + 1 - total, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_key(directory: Path, create: bool) -> bytes | None:
    """The checksum key of ``directory`` (created when missing and ``create``), or None."""
    path = directory / KEY_FILE
    key = read_private(path, KEY_BYTES, secret=True)
    if key is not None or not create:
        return key if key is not None and len(key) == KEY_BYTES else None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        key = read_private(path, KEY_BYTES, secret=True)
        return key if key is not None and len(key) == KEY_BYTES else None
    except OSError:
        return None
    try:
        key = os.urandom(KEY_BYTES)
        os.write(fd, key)
    except OSError:
        return None
    finally:
        os.close(fd)
    return key


def make_private(directory: Path) -> None:
    """Create ``directory`` (and missing parents) readable and writable by the user only,
    whatever the umask; an existing directory is left as it is (and then trusted or not)."""
    missing: list[Path] = []
    here = directory
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    for path in reversed(missing):
        try:
            os.mkdir(path, 0o700)
            os.chmod(path, 0o700)  # mkdir's mode is filtered by the umask
        except FileExistsError:
            pass
