"""The graph state ``SkillsMiddleware`` adds (LangGraph resolves these annotations at runtime:
the schema stays at module level, every name imported for real, the reducer last)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from langchain.agents.middleware.types import AgentState, OmitFromOutput, PrivateStateAttr
from typing_extensions import NotRequired

from skillcore.runtime import merge_states

#: The graph state key holding the serialized skill session (private to each agent).
STATE_KEY = "skillcore"
#: Input-only key that seeds the session of a thread's first run (see ``share_with_subagents``).
SEED_KEY = "skillcore_seed"
#: Input-only key: skill names to load at the start of this run (any run, not only the first).
LOAD_KEY = "skillcore_load"


def merge_seed(left: Any, right: Any) -> Any:
    """Reducer of :data:`SEED_KEY`: a serialized state merges like the session, names replace."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return merge_states(left, right)
    return left if right is None else right


def merge_load(left: Any, right: Any) -> Any:
    """Reducer of :data:`LOAD_KEY`: lists written in one step add up; ``None`` (written by the
    middleware once the request is applied) clears it, so it does not repeat on later runs."""
    if right is None:
        return None
    if isinstance(left, list | str) and isinstance(right, list | str):
        # A single name may be given as a string (see requested_names).
        return [*_as_list(left), *_as_list(right)]
    return right


def _as_list(value: list[Any] | str) -> list[Any]:
    return [value] if isinstance(value, str) else value


def state_update(value: dict[str, Any], share_with_subagents: bool) -> dict[str, Any]:
    """The graph state update saving a session's state ``value`` (also as the seed that
    deepagents' ``task`` tool forwards to subagents, when they share it)."""
    update: dict[str, Any] = {STATE_KEY: value}
    if share_with_subagents:
        update[SEED_KEY] = value
    return update


class SkillsState(AgentState):
    """Graph state added by :class:`SkillsMiddleware`."""

    skillcore: NotRequired[Annotated[dict[str, Any] | None, PrivateStateAttr, merge_states]]
    """``SkillSession.to_state()`` (with ``turn``/``seq``); never the catalog. Private: it is
    neither accepted as input nor returned, so parents and subagents never share it."""

    skillcore_seed: NotRequired[
        Annotated[dict[str, Any] | list[str] | None, OmitFromOutput, merge_seed]
    ]
    """Input-only: a serialized session (a parent's ``skillcore`` value) or skill names to load
    when a thread starts. Ignored once the thread has its own session."""

    skillcore_load: NotRequired[Annotated[list[str] | str | None, OmitFromOutput, merge_load]]
    """Input-only: skill names to load at the start of this run, under the model's load rules
    (see :func:`skillcore.tools.preload.requested_names`); cleared once applied."""
