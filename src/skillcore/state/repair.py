"""How every adapter reads saved state: repaired or reset, never raising for what it holds."""

from __future__ import annotations

from typing import Any

import attrs

from skillcore import events
from skillcore._text import single_line
from skillcore.errors import StateError
from skillcore.limits import Limits
from skillcore.model import Catalog
from skillcore.names import ToolNames
from skillcore.policy.rules import ToolPolicy
from skillcore.state.schema import loaded_names_of
from skillcore.state.transitions import SkillSession


@attrs.frozen
class Restored:
    """What :func:`restore_session` made of a saved state."""

    session: SkillSession
    #: Why the state was not used as it was (None when it was): unreadable state was reset,
    #: or loaded skills that left the catalog were dropped.
    note: str | None = None

    @property
    def repaired(self) -> bool:
        """True when the saved state should be replaced by ``session.to_state()``."""
        return self.note is not None


def restore_session(
    state: Any,
    catalog: Catalog,
    limits: Limits | None = None,
    policy: ToolPolicy | None = None,
    names: ToolNames | None = None,
) -> Restored:
    """How every adapter reads saved state: never raises for what the state holds.

    Unreadable state (hand-edited, tampered, from an incompatible version) resets to an empty
    session; loaded skills no longer in the catalog are dropped. Either way the reason is
    reported (events ``state.reset`` / ``state.repaired``) and returned as ``note`` so the
    adapter can persist the repaired state and tell the model.
    """
    try:
        session = SkillSession.from_state(state, catalog, limits, policy, names, strict=False)
    except StateError as exc:
        note = f"unreadable skill state was reset to an empty session ({exc})"
        events.emit("state.reset", {"reason": str(exc)})
        return Restored(SkillSession.from_state(None, catalog, limits, policy, names), note)
    kept = set(session.loaded_names)
    stored = loaded_names_of(state)
    if stored != list(session.loaded_names):
        gone = single_line(", ".join(n for n in stored if n not in kept)[:300]) or "duplicates"
        note = f"loaded skills no longer available were dropped: {gone}"
        events.emit("state.repaired", {"dropped": gone})
        return Restored(session, note)
    return Restored(session)


__all__ = ["Restored", "restore_session"]
