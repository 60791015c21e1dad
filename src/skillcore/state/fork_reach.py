"""Which plain calls a fork could refuse (:func:`fork_can_refuse`): a fork's state is read
as some set of the current catalog's skills loaded, so a call that no such set refuses
needs no ledger check before it is decided."""

from __future__ import annotations

import threading
import weakref

import attrs

from skillcore._recent import Recent
from skillcore.model import Catalog
from skillcore.policy import ToolPolicy
from skillcore.state.merge import apply_effect
from skillcore.state.transitions import SkillSession

#: Answers kept per catalog (policy and tool name; the least recently used are dropped).
_PER_CATALOG = 1024

_lock = threading.Lock()
_known: weakref.WeakKeyDictionary[Catalog, Recent[tuple[ToolPolicy, str], bool]] = (
    weakref.WeakKeyDictionary()
)


def fork_can_refuse(session: SkillSession, tool_name: str) -> bool:
    """Whether some set of ``session``'s catalog skills, loaded (what any fork's state is
    read as), refuses a call of ``tool_name``, whatever its arguments.

    A set refuses a call only if the empty set or one of its skills that declares
    ``allowed-tools``, loaded alone, does (a set's allowed tools are the union of its
    skills' entries; a gated tool no skill of the set unlocks is locked), so those are the
    only sets tried, with the arguments unseen (then only entries that allow any arguments
    allow the call). Worked out once per catalog, policy and tool name."""
    with _lock:
        memo = _known.get(session.catalog)
        if memo is None:
            memo = _known[session.catalog] = Recent(_PER_CATALOG)
        known = memo.get((session.policy, tool_name))
    if known is None:
        known = _can_refuse(session, tool_name)
        with _lock:
            memo.set((session.policy, tool_name), known)
    return known


def _can_refuse(session: SkillSession, tool_name: str) -> bool:
    empty = attrs.evolve(session, loaded=())
    if not empty.check_tool(tool_name).allowed:
        return True
    for meta in session.catalog.skills:
        if meta.allowed_tools is None:
            continue  # loaded alone it restricts nothing
        alone = apply_effect(empty, {"add": [{"name": meta.name}]})
        if not alone.check_tool(tool_name).allowed:
            return True
    return False


__all__ = ["fork_can_refuse"]
