"""Trust and supply chain: the lock file (``skills.lock``), verification of skills against
it (at discovery, and again on every read and script run) and the trust tiers that decide
whose code runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.trust.digests import file_digest, tree_digest
    from skillcore.trust.discovery import Verdict, verify_skill
    from skillcore.trust.lockfile import (
        LOCK_ENV,
        LOCK_FILE,
        LOCK_VERSION,
        MAX_LOCK_BYTES,
        LockedSkill,
        LockError,
        LockFile,
        parse_lock,
        read_lock,
        write_lock,
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
        "LOCK_ENV": "skillcore.trust.lockfile",
        "LOCK_FILE": "skillcore.trust.lockfile",
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
