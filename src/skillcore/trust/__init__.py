"""Trust and supply chain: the lock file (``skills.lock``), verification of skills against
it (at discovery, and again on every read and script run), the trust tiers that decide whose
code runs, detached Ed25519 signatures of files and tree digests, and locks used only when
signed by a trusted key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.trust.digests import file_digest, tree_digest
    from skillcore.trust.discovery import Verdict, verify_skill
    from skillcore.trust.lockfile import (
        LOCK_ENV,
        LOCK_FILE,
        LOCK_KEYS_ENV,
        LOCK_VERSION,
        MAX_LOCK_BYTES,
        LockedSkill,
        LockError,
        LockFile,
        parse_lock,
        read_lock,
        write_lock,
    )
    from skillcore.trust.signed_lock import (
        LockKey,
        load_lock_keys,
        read_signed_lock,
        signature_path,
        write_signature,
    )
    from skillcore.trust.signing import (
        SIGNATURE_SUFFIX,
        KeyFileError,
        Signature,
        SignatureError,
        SignatureProblem,
        generate_keypair,
        key_id,
        load_private_key,
        load_public_keys,
        sign_bytes,
        sign_tree_digest,
        verify_signature,
        verify_tree_digest,
    )
    from skillcore.trust.snapshot import (
        MAX_LOCKED_SKILL_BYTES,
        Bounds,
        Snapshot,
        SnapshotError,
        locked_skill,
        snapshot,
    )
    from skillcore.trust.verify import (
        Difference,
        LockPolicy,
        TrustTier,
        VerifyingReader,
        compare,
        tier_of,
    )

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "SIGNATURE_SUFFIX": "skillcore.trust.signing",
        "KeyFileError": "skillcore.trust.signing",
        "Signature": "skillcore.trust.signing",
        "SignatureError": "skillcore.trust.signing",
        "SignatureProblem": "skillcore.trust.signing",
        "generate_keypair": "skillcore.trust.signing",
        "key_id": "skillcore.trust.signing",
        "load_private_key": "skillcore.trust.signing",
        "load_public_keys": "skillcore.trust.signing",
        "sign_bytes": "skillcore.trust.signing",
        "sign_tree_digest": "skillcore.trust.signing",
        "verify_signature": "skillcore.trust.signing",
        "verify_tree_digest": "skillcore.trust.signing",
        "LOCK_ENV": "skillcore.trust.lockfile",
        "LOCK_FILE": "skillcore.trust.lockfile",
        "LOCK_KEYS_ENV": "skillcore.trust.lockfile",
        "LockKey": "skillcore.trust.signed_lock",
        "load_lock_keys": "skillcore.trust.signed_lock",
        "read_signed_lock": "skillcore.trust.signed_lock",
        "signature_path": "skillcore.trust.signed_lock",
        "write_signature": "skillcore.trust.signed_lock",
        "LOCK_VERSION": "skillcore.trust.lockfile",
        "MAX_LOCK_BYTES": "skillcore.trust.lockfile",
        "MAX_LOCKED_SKILL_BYTES": "skillcore.trust.snapshot",
        "Bounds": "skillcore.trust.snapshot",
        "Difference": "skillcore.trust.verify",
        "LockError": "skillcore.trust.lockfile",
        "LockFile": "skillcore.trust.lockfile",
        "LockPolicy": "skillcore.trust.verify",
        "LockedSkill": "skillcore.trust.lockfile",
        "Snapshot": "skillcore.trust.snapshot",
        "SnapshotError": "skillcore.trust.snapshot",
        "TrustTier": "skillcore.trust.verify",
        "Verdict": "skillcore.trust.discovery",
        "VerifyingReader": "skillcore.trust.verify",
        "compare": "skillcore.trust.verify",
        "file_digest": "skillcore.trust.digests",
        "locked_skill": "skillcore.trust.snapshot",
        "parse_lock": "skillcore.trust.lockfile",
        "read_lock": "skillcore.trust.lockfile",
        "snapshot": "skillcore.trust.snapshot",
        "tier_of": "skillcore.trust.verify",
        "tree_digest": "skillcore.trust.digests",
        "verify_skill": "skillcore.trust.discovery",
        "write_lock": "skillcore.trust.lockfile",
    },
)
