"""Verification at discovery: each skill of a catalog checked against the lock, refused
(with a diagnostic per difference) or kept with its tier."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import SkillMetadata
from skillcore.sources import SkillSource, SourceReader
from skillcore.trust.digest_cache import DigestCache
from skillcore.trust.snapshot import Bounds, SnapshotError, snapshot
from skillcore.trust.verify import Difference, LockPolicy, TrustTier, compare, tier_of

#: Differences reported per refused skill (the rest are counted).
MAX_DIFFERENCES_SHOWN = 10


@attrs.frozen
class Verdict:
    """What verification decided for one skill: its tier, or why it is refused."""

    tier: TrustTier
    differences: tuple[Difference, ...] = ()
    #: A skill not in the lock (refused when the lock is frozen, else a warning).
    unlocked: bool = False

    @property
    def refused(self) -> bool:
        """Whether the skill is left out of the catalog."""
        return bool(self.differences)


def verify_skill(
    meta: SkillMetadata,
    source: SkillSource,
    reader: Callable[[], SourceReader],
    policy: LockPolicy,
    bounds: Bounds,
    digests: DigestCache | None = None,
) -> Verdict:
    """The verdict on one discovered skill (reads its files when the lock names it; a local
    file whose stamps match its entry in ``digests`` is not read again)."""
    locked = policy.lock.get(meta.name)
    if locked is None:
        unlocked = tier_of(source, False, policy.pins)
        if policy.frozen:
            return Verdict(unlocked, (Difference(meta.name, "not-locked"),), True)
        return Verdict(unlocked, (), True)
    directory = meta.location.directory
    try:
        snap = snapshot(reader(), directory, bounds, digests)
    except (SnapshotError, OSError) as exc:
        return Verdict(
            TrustTier.UNTRUSTED, (Difference(meta.name, "unreadable", "", "", str(exc)),)
        )
    differences = compare(locked, directory, snap)
    if differences:
        return Verdict(TrustTier.UNTRUSTED, tuple(differences))
    return Verdict(tier_of(source, True, policy.pins))


def verdict_diagnostics(meta: SkillMetadata, verdict: Verdict, frozen: bool) -> list[Diagnostic]:
    """The diagnostics of a verdict: one ERROR per difference of a refused skill (the first
    few), a WARNING for a skill the lock does not name in a lock that is not frozen."""
    if not verdict.unlocked and not verdict.refused:
        return []
    where, path = meta.location.source, meta.location.directory
    if verdict.unlocked and not verdict.refused:
        return [
            Diagnostic(
                Severity.WARNING,
                Code.NOT_LOCKED,
                f"skill {meta.name!r} is not in the lock (its tier: {verdict.tier.value}); "
                "run skillcore update to add it",
                where,
                path,
            )
        ]
    if verdict.unlocked:
        return [
            Diagnostic(
                Severity.ERROR,
                Code.NOT_LOCKED,
                f"refused: skill {meta.name!r} is not in the lock and the lock is frozen",
                where,
                path,
            )
        ]
    shown = verdict.differences[:MAX_DIFFERENCES_SHOWN]
    out = [
        Diagnostic(
            Severity.ERROR,
            Code.LOCK_MISMATCH,
            f"refused: skill {meta.name!r} does not match the lock: {d.message}",
            where,
            f"{path}/{d.path}".strip("/") if d.path else path,
        )
        for d in shown
    ]
    rest = len(verdict.differences) - len(shown)
    if rest:
        out.append(
            Diagnostic(
                Severity.ERROR,
                Code.LOCK_MISMATCH,
                f"refused: skill {meta.name!r}: {rest} more differences",
                where,
                path,
            )
        )
    return out


__all__ = ["MAX_DIFFERENCES_SHOWN", "Verdict", "verdict_diagnostics", "verify_skill"]
