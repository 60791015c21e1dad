"""Ed25519 detached signatures: the API (files, tree digests, PEM and OpenSSH keys, every way
a signature is refused) and the ``keygen`` / ``sign`` / ``verify`` commands as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.core.extras import needs

from skillcore.trust import (
    KeyFileError,
    Signature,
    SignatureError,
    SignatureProblem,
    generate_keypair,
    key_id,
    load_public_keys,
    sign_bytes,
    sign_tree_digest,
    verify_signature,
    verify_tree_digest,
)

pytestmark = needs("cryptography")

ROOT = Path(__file__).resolve().parents[3]
LOCK = b'{"version": 1, "skills": {"pdf": "sha256:00"}}\n'


@pytest.fixture(scope="module")
def keys() -> tuple[bytes, str, bytes, str]:
    private, public = generate_keypair()
    other_private, other_public = generate_keypair("other")
    return private, public, other_private, other_public


def test_sign_and_verify_exact_bytes(keys: tuple[bytes, str, bytes, str]) -> None:
    private, public, _, other_public = keys
    text = sign_bytes(LOCK, private)
    sig = Signature.parse(text)
    assert text.splitlines()[:3] == [
        "skillcore-signature: 1",
        "algorithm: ed25519",
        "purpose: file",
    ]
    assert sig.key_id == key_id(load_public_keys(public)[0]) and sig.key_id.startswith("SHA256:")
    assert verify_signature(LOCK, text, [other_public, public]) == sig.key_id
    assert verify_signature(LOCK, text.encode(), [other_public + public]) == sig.key_id


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ("content", SignatureProblem.BAD_SIGNATURE),
        ("untrusted", SignatureProblem.UNTRUSTED_KEY),
        ("forged-id", SignatureProblem.BAD_SIGNATURE),
        ("truncated", SignatureProblem.MALFORMED),
        ("not-base64", SignatureProblem.MALFORMED),
        ("algorithm", SignatureProblem.MALFORMED),
        ("purpose", SignatureProblem.WRONG_PURPOSE),
    ],
)
def test_refusals(
    keys: tuple[bytes, str, bytes, str], change: str, problem: SignatureProblem
) -> None:
    private, public, other_private, other_public = keys
    text, data, trusted = sign_bytes(LOCK, private), LOCK, [public]
    if change == "content":
        data = LOCK.replace(b"00", b"01")
    elif change == "untrusted":
        trusted = [other_public]  # a lock signed by a key the user does not trust
    elif change == "forged-id":  # another key's signature presented under the trusted key's id
        forged = Signature.parse(sign_bytes(LOCK, other_private))
        text = Signature(Signature.parse(text).key_id, forged.signature).to_text()
    elif change == "truncated":
        text = "\n".join(text.splitlines()[:4])
    elif change == "not-base64":
        text = text.replace("signature: ", "signature: !!")
    elif change == "algorithm":
        text = text.replace("ed25519", "rsa")
    elif change == "purpose":
        text = sign_tree_digest(LOCK.decode(), private)
    with pytest.raises(SignatureError) as exc:
        verify_signature(data, text, trusted)
    assert exc.value.problem is problem
    assert str(exc.value)


def test_tree_digest_signatures_are_their_own_kind(keys: tuple[bytes, str, bytes, str]) -> None:
    private, public, _, _ = keys
    digest = "sha256:" + "ab" * 32
    text = sign_tree_digest(digest, private)
    assert verify_tree_digest(digest, text, [public]).startswith("SHA256:")
    with pytest.raises(SignatureError) as exc:
        verify_tree_digest("sha256:" + "cd" * 32, text, [public])
    assert exc.value.problem is SignatureProblem.BAD_SIGNATURE
    with pytest.raises(SignatureError):  # a file signature of the same bytes is not accepted
        verify_tree_digest(digest, sign_bytes(digest.encode(), private), [public])


def test_pem_and_openssh_keys_agree(keys: tuple[bytes, str, bytes, str]) -> None:
    from cryptography.hazmat.primitives import serialization

    from skillcore.trust import load_private_key

    private, public, _, _ = keys
    key = load_private_key(private)
    pem_public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    ssh_private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )
    text = sign_bytes(LOCK, ssh_private)
    assert verify_signature(LOCK, text, [pem_public]) == verify_signature(LOCK, text, [public])
    trusted_file = b"# team keys\n\n" + pem_public + public.encode()
    assert len(load_public_keys(trusted_file)) == 2


@pytest.mark.parametrize(
    "bad",
    [
        b"",
        b"# only a comment\n",
        b"ssh-rsa AAAAB3NzaC1yc2E= x\n",
        b"-----BEGIN PUBLIC KEY-----\nAA\n",
    ],
)
def test_unreadable_public_keys(bad: bytes) -> None:
    with pytest.raises(KeyFileError):
        load_public_keys(bad)


def test_rsa_private_key_refused() -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    pem = rsa.generate_private_key(65537, 2048).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    with pytest.raises(KeyFileError, match="not an Ed25519 key"):
        sign_bytes(LOCK, pem)


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "skillcore", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_cli_keygen_sign_verify(tmp_path: Path) -> None:
    made = _cli(tmp_path, "keygen", "--out", "team")
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "team").stat().st_mode & 0o077 == 0  # private key: owner only
    assert "key id:      SHA256:" in made.stdout
    assert _cli(tmp_path, "keygen", "--out", "team").returncode == 2  # never overwritten
    _cli(tmp_path, "keygen", "--out", "stranger")
    (tmp_path / "skills.lock").write_bytes(LOCK)
    signed = _cli(tmp_path, "sign", "skills.lock", "--key", "team")
    assert signed.returncode == 0, signed.stderr
    assert (tmp_path / "skills.lock.sig").read_text().startswith("skillcore-signature: 1\n")
    ok = _cli(tmp_path, "verify", "skills.lock", "--key", "team.pub")
    assert ok.returncode == 0 and "verified skills.lock: signed by SHA256:" in ok.stdout
    untrusted = _cli(tmp_path, "verify", "skills.lock", "--key", "stranger.pub")
    assert untrusted.returncode == 1
    assert "not a trusted key" in untrusted.stderr and "UNTRUSTED_KEY" in untrusted.stderr
    (tmp_path / "skills.lock").write_bytes(LOCK + b"\n")
    changed = _cli(tmp_path, "verify", "skills.lock", "--key", "team.pub")
    assert changed.returncode == 1 and "BAD_SIGNATURE" in changed.stderr
    missing = _cli(tmp_path, "verify", "nothing.lock", "--key", "team.pub")
    assert missing.returncode == 2 and "cannot read the file nothing.lock" in missing.stderr
