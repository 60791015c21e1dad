"""What ``SkillsMiddleware`` reads at the start of a run (``before_agent``): the thread's
saved session, or the seed a parent agent passed, and the arguments of its constructor that
deepagents spells its own way."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from skillcore import SkillSession
from skillcore.runtime import Restored, Sources
from skillcore_langchain._state import LOAD_KEY, SEED_KEY, STATE_KEY


def start(
    state: Mapping[str, Any], restore: Callable[[Any], Restored]
) -> tuple[SkillSession, list[str], bool, bool]:
    """The thread's session at the start of a run: ``(session, names to seed it with,
    new thread?, must be written?)``."""
    raw = state.get(STATE_KEY)
    if raw is None:
        seed = state.get(SEED_KEY)
        if isinstance(seed, Mapping):
            return restore(seed).session, [], True, True
        listed = seed if isinstance(seed, list | tuple) else ()
        names = [n for n in listed if isinstance(n, str)]
        return restore(None).session, names, True, bool(names)
    restored = restore(raw)
    # Unreadable state or skills removed from disk: persist the repaired session.
    return restored.session, [], False, restored.repaired


def started(
    state_update: Callable[[SkillSession], dict[str, Any]],
    session: SkillSession,
    changed: bool,
    requested: bool,
    state: Mapping[str, Any],
) -> dict[str, Any] | None:
    """The run-start state update: the session if it changed (``state_update`` of it), with
    the revision it rewrites kept; a run's load request (``skillcore_load``) cleared once
    applied, so it does not repeat on later runs."""
    update = state_update(session) if changed else {}
    if requested:
        update[LOAD_KEY] = None
    return keep_rev(update or None, state)


def keep_rev(update: dict[str, Any] | None, state: Mapping[str, Any]) -> dict[str, Any] | None:
    """A run-start write (a repair, configured skills) keeps the revision of the state it
    rewrites: it is the same point of the conversation, not a new turn."""
    raw = state.get(STATE_KEY)
    value = update.get(STATE_KEY) if update else None
    if isinstance(value, dict) and isinstance(raw, Mapping) and isinstance(raw.get("rev"), str):
        value["rev"] = raw["rev"]
    return update


def skills_argument(
    skills: Sources | None, sources: Sources | None, backend: Any
) -> Sources | None:
    """The ``skills`` argument, or ``sources``: deepagents' spelling, accepted next to
    ``backend`` only (the drop-in replacement of deepagents' middleware takes it)."""
    if sources is None:
        return skills
    if backend is None:
        raise TypeError("SkillsMiddleware() takes sources= only with backend=; use skills=")
    if skills is not None:
        raise TypeError("SkillsMiddleware() got both skills= and sources=")
    return sources
