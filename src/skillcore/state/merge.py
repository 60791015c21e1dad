"""Merging the parallel writes of one model turn: each call's effect on the loaded skills, the
state a call of a turn writes, and the reducer that folds such writes in call order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from skillcore.errors import StateError
from skillcore.state.schema import MAX_STATE_ENTRIES, LoadedSkill, fitting
from skillcore.state.transitions import SkillSession


def _seq(state: Mapping[str, Any]) -> int:
    seq = state.get("seq", 0)
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else 0


def effect_between(before: SkillSession, after: SkillSession) -> dict[str, Any]:
    """The effect of one call as JSON: ``{"add": [loaded-skill entries], "drop": [names]}``
    (entries ``after`` has that ``before`` lacks or holds otherwise, e.g. a redelivery's new
    call id, and the names ``before`` has that ``after`` lacks)."""
    had = {s.name: s for s in before.loaded}
    has = {s.name for s in after.loaded}
    return {
        "add": [s.to_json() for s in after.loaded if had.get(s.name) != s],
        "drop": [s.name for s in before.loaded if s.name not in has],
    }


def apply_effect(session: SkillSession, effect: Mapping[str, Any]) -> SkillSession:
    """``session`` with an :func:`effect_between` effect applied (an added entry for a loaded
    name replaces it in place); entries that do not fit (unknown skill, over the limit,
    malformed) are left out. Never raises."""
    drop = {n for n in _effect_list(effect, "drop") if isinstance(n, str)}
    loaded = [s for s in session.loaded if s.name not in drop]
    for raw in _effect_list(effect, "add"):
        try:
            entry = LoadedSkill.from_json(raw)
        except StateError:
            continue
        at = next((i for i, s in enumerate(loaded) if s.name == entry.name), None)
        if at is None:
            loaded.append(entry)
        else:
            loaded[at] = entry
    kept = fitting(loaded, session.catalog, session.limits.max_loaded)
    if tuple(kept) == session.loaded:
        return session
    return attrs.evolve(session, loaded=tuple(kept))


def _effect_list(effect: Any, key: str) -> list[Any]:
    value = effect.get(key) if isinstance(effect, Mapping) else None
    return list(value[:MAX_STATE_ENTRIES]) if isinstance(value, (list, tuple)) else []


def turn_state(
    session: SkillSession,
    *,
    turn: str,
    seq: int,
    base: SkillSession,
    call: str,
    effect: Mapping[str, Any],
    order: Iterable[str],
) -> dict[str, Any]:
    """The state a call of a model turn writes: ``session`` (the turn as this call saw it)
    plus ``turn``, ``seq`` (the call's position), the turn's ``base`` entries, the skill
    calls' ``order`` and this call's own effect under ``effects``, so :func:`merge_states`
    can combine the effects of all calls in order (see :data:`STATE_SCHEMA`)."""
    state = session.to_state(turn=turn, seq=seq)
    state["base"] = [s.to_json() for s in base.loaded]
    state["order"] = list(order)[:MAX_STATE_ENTRIES]
    state["effects"] = {call: dict(effect)}
    return state


def _fold(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any] | None:
    """Two writes of one turn combined: every call's effect, applied to the turn's base in
    call order (None when either lacks the fields; the older rule then applies)."""
    le, re_, base, order = (
        left.get("effects"),
        right.get("effects"),
        right.get("base"),
        right.get("order"),
    )
    if not (
        isinstance(le, Mapping)
        and isinstance(re_, Mapping)
        and isinstance(base, list)
        and isinstance(order, list)
        and len(le) + len(re_) <= MAX_STATE_ENTRIES
        and len(base) <= MAX_STATE_ENTRIES
    ):
        return None
    effects = {**le, **re_}
    loaded = [e for e in base if isinstance(e, Mapping) and isinstance(e.get("name"), str)]
    for call in order[:MAX_STATE_ENTRIES]:
        effect = effects.get(call) if isinstance(call, str) else None
        if not isinstance(effect, Mapping):
            continue
        drop = {n for n in _effect_list(effect, "drop") if isinstance(n, str)}
        loaded = [e for e in loaded if e["name"] not in drop]
        names = {e["name"] for e in loaded}
        for entry in _effect_list(effect, "add"):
            name = entry.get("name") if isinstance(entry, Mapping) else None
            if isinstance(name, str) and name not in names:
                loaded.append(entry)
                names.add(name)
    winner = right if _seq(right) >= _seq(left) else left
    return {**winner, "effects": effects, "loaded": loaded[:MAX_STATE_ENTRIES]}


def merge_states(left: Any, right: Any) -> Any:
    """Reducer for frameworks that merge parallel state writes (LangGraph channels).

    Writes of the calls of one model turn carry ``turn``, the turn's ``base``, the skill
    calls' ``order`` and each call's own effect (:func:`turn_state`): two writes of one turn
    combine into the base with every effect applied in call order, whatever order the writes
    arrive in and whichever process made them, so no effect is ever dropped (DESIGN §3.11).
    Writes without those fields keep the older rule (the higher ``seq`` of a turn wins).
    Otherwise the newer write wins. Never raises.
    """
    if right is None:
        return left
    if left is None or not isinstance(left, Mapping) or not isinstance(right, Mapping):
        return right
    lt, rt = left.get("turn"), right.get("turn")
    if isinstance(lt, str) and lt == rt:
        folded = _fold(left, right)
        if folded is not None:
            return folded
        if _seq(left) > _seq(right):
            return left
    return right


__all__ = ["apply_effect", "effect_between", "merge_states", "turn_state"]
