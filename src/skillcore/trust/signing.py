"""Ed25519 signatures over a file's exact bytes (e.g. ``skills.lock``) or a tree digest string,
kept in a detached text file (``skills.lock.sig``). Needs the ``sign`` extra (``cryptography``).

The signature file, UTF-8 text, one ``key: value`` per line, in this order::

    skillcore-signature: 1
    algorithm: ed25519
    purpose: file                      (or: tree-digest)
    key-id: SHA256:<base64>            (the key's OpenSSH fingerprint, as ssh-keygen -l shows it)
    signature: <base64 of 64 bytes>

What is signed is ``b"skillcore-signature-v1\\0" + purpose + b"\\0" + data``: the prefix and
the purpose keep a signature made for one use from being accepted for another (a file's
signature never verifies a tree digest). Keys: PEM (PKCS#8 private, SubjectPublicKeyInfo
public) or OpenSSH (``ssh-ed25519 AAAA...`` public lines, unencrypted ``OPENSSH PRIVATE KEY``).
"""

from __future__ import annotations

import base64
import binascii
import enum
import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Union, cast

import attrs

from skillcore.errors import SkillcoreError, require

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

#: The extra that installs what signing needs.
SIGN_EXTRA = "sign"
#: A detached signature's file name is the signed file's name plus this.
SIGNATURE_SUFFIX = ".sig"
#: The only algorithm (Sigstore and others are not supported).
ALGORITHM = "ed25519"
#: What a signature covers.
PURPOSE_FILE = "file"
PURPOSE_TREE_DIGEST = "tree-digest"
_PURPOSES = (PURPOSE_FILE, PURPOSE_TREE_DIGEST)
_VERSION = "1"
_PREFIX = b"skillcore-signature-v1\x00"
#: Largest signature or key file read (both are a few hundred bytes).
MAX_KEY_FILE_BYTES = 64 * 1024
_FIELDS = ("skillcore-signature", "algorithm", "purpose", "key-id", "signature")

PrivateKeyLike = Union["Ed25519PrivateKey", bytes, str]
PublicKeyLike = Union["Ed25519PublicKey", bytes, str]


class SignatureProblem(str, enum.Enum):
    """Why a signature was refused (stable values)."""

    MALFORMED = "MALFORMED"
    UNTRUSTED_KEY = "UNTRUSTED_KEY"
    BAD_SIGNATURE = "BAD_SIGNATURE"
    WRONG_PURPOSE = "WRONG_PURPOSE"


class SignatureError(SkillcoreError):
    """A signature was refused; ``problem`` says why."""

    def __init__(self, problem: SignatureProblem, message: str) -> None:
        super().__init__(message)
        self.problem = problem


class KeyFileError(SkillcoreError):
    """A key file cannot be read as an Ed25519 key (the message says why)."""


@attrs.frozen
class Signature:
    """A parsed detached signature."""

    key_id: str
    signature: bytes
    purpose: str = PURPOSE_FILE
    algorithm: str = ALGORITHM

    def to_text(self) -> str:
        """The signature file's text."""
        values = (_VERSION, self.algorithm, self.purpose, self.key_id, _b64(self.signature))
        return "".join(f"{k}: {v}\n" for k, v in zip(_FIELDS, values))

    @classmethod
    def parse(cls, text: str | bytes) -> Signature:
        """Read a signature file; SignatureError(MALFORMED) for anything but the format."""
        if isinstance(text, bytes):
            if len(text) > MAX_KEY_FILE_BYTES:
                raise _malformed(f"the file is over {MAX_KEY_FILE_BYTES} bytes")
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise _malformed("the file is not UTF-8 text") from None
        if len(text) > MAX_KEY_FILE_BYTES:
            raise _malformed(f"the text is over {MAX_KEY_FILE_BYTES} characters")
        lines = [line.strip() for line in text.strip().splitlines()]
        if len(lines) != len(_FIELDS):
            raise _malformed(f"expected {len(_FIELDS)} lines ({', '.join(_FIELDS)})")
        values: list[str] = []
        for field, line in zip(_FIELDS, lines):
            key, sep, value = line.partition(":")
            if not sep or key.strip() != field:
                raise _malformed(f"expected the line {field!r}, found {line[:40]!r}")
            values.append(value.strip())
        version, algorithm, purpose, key_id, encoded = values
        if version != _VERSION:
            raise _malformed(f"unknown format version {version[:20]!r} (supported: {_VERSION})")
        if algorithm != ALGORITHM:
            raise _malformed(f"unsupported algorithm {algorithm[:20]!r} (supported: {ALGORITHM})")
        if purpose not in _PURPOSES:
            raise _malformed(f"unknown purpose {purpose[:20]!r} (known: {', '.join(_PURPOSES)})")
        try:
            raw = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise _malformed("the signature is not base64") from None
        if len(raw) != 64:
            raise _malformed(f"an ed25519 signature is 64 bytes, this one is {len(raw)}")
        return cls(key_id, raw, purpose, algorithm)


def _malformed(why: str) -> SignatureError:
    return SignatureError(SignatureProblem.MALFORMED, f"malformed signature file: {why}")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _crypto() -> Any:
    """The Ed25519 and serialization modules, or an ImportError naming the extra."""
    require("cryptography", SIGN_EXTRA, "signing")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519, serialization


def _message(data: bytes, purpose: str) -> bytes:
    return _PREFIX + purpose.encode("ascii") + b"\x00" + data


# -- keys ------------------------------------------------------------------------------------


def generate_keypair(comment: str = "skillcore") -> tuple[bytes, str]:
    """A new key: ``(private key PEM, public key as an OpenSSH line)``."""
    ed25519, serialization = _crypto()
    key = ed25519.Ed25519PrivateKey.generate()
    pem: bytes = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem, f"{public_key_text(key.public_key())} {comment}".strip() + "\n"


def public_key_text(public_key: Ed25519PublicKey) -> str:
    """``ssh-ed25519 AAAA...`` (the OpenSSH form, no comment)."""
    _, serialization = _crypto()
    line: bytes = public_key.public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return line.decode("ascii")


def key_id(public_key: Ed25519PublicKey) -> str:
    """The key's OpenSSH fingerprint, ``SHA256:<base64 without padding>``."""
    blob = base64.b64decode(public_key_text(public_key).split()[1])
    return "SHA256:" + _b64(hashlib.sha256(blob).digest()).rstrip("=")


def _text(data: bytes | str, what: str) -> bytes:
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if len(raw) > MAX_KEY_FILE_BYTES:
        raise KeyFileError(f"the {what} is over {MAX_KEY_FILE_BYTES} bytes; not a key file")
    return raw


def load_private_key(data: PrivateKeyLike, password: bytes | None = None) -> Ed25519PrivateKey:
    """An Ed25519 private key from PEM or OpenSSH text (or the key itself)."""
    ed25519, serialization = _crypto()
    if isinstance(data, ed25519.Ed25519PrivateKey):
        return cast("Ed25519PrivateKey", data)
    raw = _text(data, "private key")  # type: ignore[arg-type]
    loader = (
        serialization.load_ssh_private_key
        if b"OPENSSH PRIVATE KEY" in raw
        else serialization.load_pem_private_key
    )
    try:
        key = loader(raw, password=password)
    except (ValueError, TypeError) as exc:
        raise KeyFileError(f"cannot read the private key: {exc}") from None
    except Exception as exc:  # cryptography's UnsupportedAlgorithm and kin
        raise KeyFileError(f"cannot read the private key: {type(exc).__name__}: {exc}") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise KeyFileError(f"the private key is {type(key).__name__}, not an Ed25519 key")
    return cast("Ed25519PrivateKey", key)


def load_public_keys(data: PublicKeyLike) -> tuple[Ed25519PublicKey, ...]:
    """Every Ed25519 public key in a text: PEM blocks and ``ssh-ed25519`` lines (a file of
    trusted keys may hold several; blank lines and ``#`` comments are skipped)."""
    ed25519, serialization = _crypto()
    if isinstance(data, ed25519.Ed25519PublicKey):
        return (data,)
    text = _text(data, "public key").decode("utf-8", "replace")  # type: ignore[arg-type]
    keys: list[Ed25519PublicKey] = []
    pem: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if pem is not None:
            pem.append(stripped)
            if stripped.startswith("-----END"):
                keys.append(_one(serialization.load_pem_public_key, "\n".join(pem), ed25519))
                pem = None
        elif stripped.startswith("-----BEGIN"):
            pem = [stripped]
        elif stripped and not stripped.startswith("#"):
            keys.append(_one(serialization.load_ssh_public_key, stripped, ed25519))
    if pem is not None:
        raise KeyFileError("cannot read the public key: a PEM block has no END line")
    if not keys:
        raise KeyFileError("no public key found (expected PEM or an 'ssh-ed25519 AAAA...' line)")
    return tuple(keys)


def _one(loader: Any, text: str, ed25519: Any) -> Ed25519PublicKey:
    try:
        key = loader(text.encode("utf-8"))
    except Exception as exc:  # ValueError, UnsupportedAlgorithm
        raise KeyFileError(f"cannot read the public key {text[:30]!r}...: {exc}") from None
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise KeyFileError(f"the public key is {type(key).__name__}, not an Ed25519 key")
    return key  # type: ignore[no-any-return]


# -- signing and verifying -------------------------------------------------------------------


def sign_bytes(data: bytes, private_key: PrivateKeyLike, *, purpose: str = PURPOSE_FILE) -> str:
    """The detached signature file's text for ``data`` (a file's exact bytes)."""
    if purpose not in _PURPOSES:
        raise ValueError(f"unknown purpose {purpose!r} (known: {', '.join(_PURPOSES)})")
    key = load_private_key(private_key)
    raw = key.sign(_message(bytes(data), purpose))
    return Signature(key_id(key.public_key()), raw, purpose).to_text()


def verify_signature(
    data: bytes,
    signature_text: str | bytes,
    trusted_public_keys: Iterable[PublicKeyLike],
    *,
    purpose: str = PURPOSE_FILE,
) -> str:
    """The key id that signed ``data``; SignatureError when the file is malformed, made for
    another purpose, by a key not among ``trusted_public_keys``, or does not verify."""
    _crypto()  # the ImportError naming the extra comes first
    sig = Signature.parse(signature_text)
    if sig.purpose != purpose:
        raise SignatureError(
            SignatureProblem.WRONG_PURPOSE,
            f"the signature is for a {sig.purpose}, not a {purpose}",
        )
    trusted = {key_id(k): k for given in trusted_public_keys for k in load_public_keys(given)}
    key = trusted.get(sig.key_id)
    if key is None:
        known = ", ".join(sorted(trusted)) or "none"
        raise SignatureError(
            SignatureProblem.UNTRUSTED_KEY,
            f"signed by key {sig.key_id[:60]!r}, which is not a trusted key (trusted: {known})",
        )
    from cryptography.exceptions import InvalidSignature

    try:
        key.verify(sig.signature, _message(bytes(data), purpose))
    except InvalidSignature:
        raise SignatureError(
            SignatureProblem.BAD_SIGNATURE,
            f"the signature by {sig.key_id} does not match the content (changed after signing?)",
        ) from None
    return sig.key_id


def sign_tree_digest(digest: str, private_key: PrivateKeyLike) -> str:
    """The signature file's text for a tree digest string (e.g. ``sha256:...``)."""
    return sign_bytes(digest.encode("utf-8"), private_key, purpose=PURPOSE_TREE_DIGEST)


def verify_tree_digest(
    digest: str, signature_text: str | bytes, trusted_public_keys: Iterable[PublicKeyLike]
) -> str:
    """The key id that signed the tree digest ``digest`` (see :func:`verify_signature`)."""
    return verify_signature(
        digest.encode("utf-8"), signature_text, trusted_public_keys, purpose=PURPOSE_TREE_DIGEST
    )
