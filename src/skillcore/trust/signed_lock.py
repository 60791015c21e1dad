"""Signed locks: a lock file used only when its detached signature (``skills.lock.sig``)
verifies against a trusted public key, checked over the file's exact bytes before they are
parsed. Missing, malformed or bad signatures, and good signatures by keys that are not
trusted, are all a :class:`~skillcore.trust.LockError`: the lock is refused, never used
unsigned."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Union

from skillcore.errors import MissingDependencyError
from skillcore.trust.lockfile import LockError, LockFile, parse_lock_bytes, read_lock_bytes
from skillcore.trust.signing import (
    MAX_KEY_FILE_BYTES,
    SIGNATURE_SUFFIX,
    KeyFileError,
    PrivateKeyLike,
    PublicKeyLike,
    Signature,
    SignatureError,
    key_id,
    load_public_keys,
    sign_bytes,
    verify_signature,
)

#: A trusted lock key: a public key file's path (text or path), a loaded Ed25519 public key,
#: or a key file's bytes.
LockKey = Union[str, "os.PathLike[str]", PublicKeyLike]


def signature_path(lock_path: str | os.PathLike[str]) -> str:
    """Where a lock's detached signature is kept: beside it, ``.sig`` appended."""
    return os.fspath(lock_path) + SIGNATURE_SUFFIX


def _read_small(path: str, what: str, where: str) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_KEY_FILE_BYTES + 1)
    except FileNotFoundError:
        raise LockError(f"lock file {where}: {what} {path} does not exist") from None
    except OSError as exc:
        raise LockError(f"lock file {where}: cannot read {what} {path} ({exc.strerror})") from None
    if len(data) > MAX_KEY_FILE_BYTES:
        raise LockError(f"lock file {where}: {what} {path} is over {MAX_KEY_FILE_BYTES} bytes")
    return data


def load_lock_keys(keys: Iterable[LockKey], where: str = "") -> tuple[Any, ...]:
    """The public keys of ``keys`` (paths are read, bounded). Raises :class:`LockError`
    when a key file cannot be read or holds no Ed25519 key, or when no key is given."""
    out: list[Any] = []  # Ed25519PublicKey (cryptography is imported by signing only)
    for key in keys:
        if isinstance(key, (str, os.PathLike)):
            path = os.fspath(key)
            data = _read_small(path, "the public key", where or "(any)")
            try:
                out.extend(load_public_keys(data))
            except (KeyFileError, MissingDependencyError) as exc:
                raise LockError(f"lock key {path}: {exc}") from None
        else:
            out.extend(load_public_keys(key))
    if not out:
        raise LockError("lock keys were configured but none was given")
    return tuple(out)


def read_signed_lock(path: str | os.PathLike[str], keys: Iterable[LockKey]) -> LockFile:
    """Read the lock at ``path`` after checking ``path.sig`` over its exact bytes against
    ``keys``. Raises :class:`LockError` naming the file, the key id and the problem."""
    where = os.fspath(path)
    trusted = load_lock_keys(keys, where)
    data = read_lock_bytes(where)
    sig_path = signature_path(where)
    ids = ", ".join(key_id(k) for k in trusted)
    try:
        signature = _read_small(sig_path, "the signature", where)
    except LockError as exc:
        raise LockError(f"{exc}: a signed lock is required (trusted keys: {ids})") from None
    try:
        verify_signature(data, signature, trusted)
    except SignatureError as exc:
        raise LockError(
            f"lock file {where}: refused, its signature {sig_path} fails: {exc} "
            f"[{exc.problem.value}]"
        ) from None
    return parse_lock_bytes(data, where)


def write_signature(
    lock_path: str | os.PathLike[str], private_key: PrivateKeyLike
) -> tuple[str, str]:
    """Sign the lock file's exact bytes: write ``lock_path.sig``. Returns ``(signature path,
    key id)``. Raises :class:`LockError` (a key that cannot be read too)."""
    where = os.fspath(lock_path)
    data = read_lock_bytes(where)
    try:
        text = sign_bytes(data, private_key)
    except KeyFileError as exc:
        raise LockError(f"lock file {where}: cannot sign: {exc}") from None
    out = Path(signature_path(where))
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="ascii")
    os.replace(tmp, out)
    return str(out), Signature.parse(text).key_id


__all__ = [
    "LockKey",
    "load_lock_keys",
    "read_signed_lock",
    "signature_path",
    "write_signature",
]
