"""skillcore for LangChain v1: ``SkillsMiddleware`` for ``langchain.agents.create_agent``.

Works with LangGraph checkpointers and with deepagents' ``create_deep_agent(middleware=...)``.
Install with ``pip install "skillcore-agents[langchain]"``.
"""

from __future__ import annotations

from skillcore.runtime import require

require("langchain.agents", "langchain", "skillcore_langchain")

from skillcore_langchain._state import (  # noqa: E402 - after the dependency check
    LOAD_KEY,
    SEED_KEY,
    STATE_KEY,
    SkillsState,
    merge_load,
    merge_seed,
)
from skillcore_langchain.middleware import SkillsMiddleware  # noqa: E402
from skillcore_langchain.profiles import ProfiledSkillsMiddleware  # noqa: E402

__all__ = [
    "LOAD_KEY",
    "SEED_KEY",
    "STATE_KEY",
    "ProfiledSkillsMiddleware",
    "SkillsMiddleware",
    "SkillsState",
    "merge_load",
    "merge_seed",
]
