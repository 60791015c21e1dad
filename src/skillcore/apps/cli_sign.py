"""The signing commands of the command line: ``keygen``, ``sign`` and ``verify`` (Ed25519
detached signatures of a file's exact bytes; the ``sign`` extra)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from skillcore.apps.cli_common import EXIT_OK, SkillsProblem, UsageError
from skillcore.errors import MissingDependencyError
from skillcore.trust.signing import (
    MAX_KEY_FILE_BYTES,
    SIGNATURE_SUFFIX,
    KeyFileError,
    Signature,
    SignatureError,
    generate_keypair,
    key_id,
    load_public_keys,
    sign_bytes,
    verify_signature,
)

#: The largest file ``sign`` and ``verify`` read (a lock file is far smaller).
MAX_SIGNED_BYTES = 64 * 1024 * 1024
#: Where ``keygen`` writes without ``--out``: PATH and PATH.pub.
DEFAULT_KEY = "skillcore_ed25519"


def _read(path: str, limit: int, what: str) -> bytes:
    try:
        size = os.path.getsize(path)
        if size > limit:
            raise UsageError(f"{what} {path} is {size} bytes, over the limit of {limit}")
        return Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def cmd_keygen(args: argparse.Namespace) -> int:
    """Write a new private key (mode 0600) and its public key (``.pub``, OpenSSH form)."""
    private, public = Path(args.out), Path(args.out + ".pub")
    for path in (private, public):
        if path.exists():
            raise UsageError(f"{path} exists; not overwritten (choose another --out)")
    try:
        pem, line = generate_keypair(args.comment)
    except MissingDependencyError as exc:
        raise UsageError(str(exc)) from None
    try:
        # O_EXCL and 0600 from the start: the key is never readable by others, even briefly.
        fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        public.write_text(line, encoding="ascii")
    except OSError as exc:
        where = exc.filename or private
        raise UsageError(f"cannot write the key {where}: {exc.strerror or exc}") from None
    print(f"private key: {private} (keep it secret)")
    print(f"public key:  {public}")
    print(f"key id:      {key_id(load_public_keys(line)[0])}")
    return EXIT_OK


def cmd_sign(args: argparse.Namespace) -> int:
    """Write FILE.sig, a detached signature of FILE's exact bytes."""
    data = _read(args.file, MAX_SIGNED_BYTES, "the file")
    key = _read(args.key, MAX_KEY_FILE_BYTES, "the key")
    try:
        text = sign_bytes(data, key)
    except (MissingDependencyError, KeyFileError) as exc:
        raise UsageError(f"{args.key}: {exc}") from None
    out = args.output or args.file + SIGNATURE_SUFFIX
    try:
        Path(out).write_text(text, encoding="ascii")
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    print(f"signed {args.file}: {out} (key {Signature.parse(text).key_id})")
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    """Check FILE against FILE.sig and the trusted public keys (exit 1 when refused)."""
    data = _read(args.file, MAX_SIGNED_BYTES, "the file")
    sig_path = args.signature or args.file + SIGNATURE_SUFFIX
    signature = _read(sig_path, MAX_KEY_FILE_BYTES, "the signature")
    keys = [_read(k, MAX_KEY_FILE_BYTES, "the public key") for k in args.key]
    try:
        signer = verify_signature(data, signature, keys)
    except (MissingDependencyError, KeyFileError) as exc:
        raise UsageError(str(exc)) from None
    except SignatureError as exc:
        raise SkillsProblem(f"refused {args.file}: {exc} [{exc.problem.value}]") from None
    print(f"verified {args.file}: signed by {signer}")
    return EXIT_OK


def add_sign_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """keygen, sign, verify."""
    p = sub.add_parser("keygen", help="create an Ed25519 signing key pair")
    p.set_defaults(subparser=p, func=cmd_keygen)
    p.add_argument("--out", default=DEFAULT_KEY, help=f"private key path (default {DEFAULT_KEY})")
    p.add_argument("--comment", default="skillcore", help="comment of the public key line")

    p = sub.add_parser("sign", help="sign a file (e.g. skills.lock): writes FILE.sig")
    p.set_defaults(subparser=p, func=cmd_sign)
    p.add_argument("file", help="the file to sign (its exact bytes)")
    p.add_argument("--key", required=True, help="private key file (PEM or OpenSSH)")
    p.add_argument("--output", help="signature file (default FILE.sig)")

    p = sub.add_parser("verify", help="verify FILE.sig against trusted public keys")
    p.set_defaults(subparser=p, func=cmd_verify)
    p.add_argument("file", help="the signed file")
    p.add_argument(
        "--key",
        required=True,
        action="append",
        help="trusted public key file (PEM or ssh-ed25519 lines; repeatable)",
    )
    p.add_argument("--signature", help="signature file (default FILE.sig)")
