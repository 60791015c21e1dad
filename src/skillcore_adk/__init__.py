"""skillcore for Google ADK: a ``SkillToolset``, RESTRICT enforcement and registry interop.

- :class:`SkillToolset` -- a ``BaseToolset`` with the four skill tools (``load_skill``,
  ``unload_skill``, ``load_skill_resource``, ``search_skills``), the budgeted catalog in the
  instructions, and loaded-skill state persisted per agent in the ADK session.
- ``toolset.before_tool_callback`` (one agent) or :class:`SkillPolicyPlugin` (a whole app):
  block tools the loaded skills' ``allowed-tools`` do not cover, under RESTRICT.
- :class:`ProfiledSkillToolset` -- several skill profiles (tenants), one selected per session
  from its state.
- :class:`LibrarySkillRegistry` -- ADK's ``SkillRegistry`` backed by a skillcore library, for
  ADK's native ``SkillToolset(registry=...)``.

Install with ``pip install "skillcore-agents[adk]"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore.runtime import require

require("google.adk", "adk", "skillcore_adk")

from skillcore_adk._plugin import SkillPolicyPlugin  # noqa: E402
from skillcore_adk._profiles import DEFAULT_PROFILE_KEY, ProfiledSkillToolset  # noqa: E402
from skillcore_adk._toolset import (  # noqa: E402
    AGENT_TRANSFER_TOOL,
    DEFAULT_STATE_KEY_PREFIX,
    SkillTool,
    SkillToolset,
)

__all__ = [
    "AGENT_TRANSFER_TOOL",
    "DEFAULT_PROFILE_KEY",
    "DEFAULT_STATE_KEY_PREFIX",
    "LibrarySkillRegistry",
    "ProfiledSkillToolset",
    "SkillPolicyPlugin",
    "SkillTool",
    "SkillToolset",
    "to_frontmatter",
]

if TYPE_CHECKING:
    from skillcore_adk._registry import LibrarySkillRegistry, to_frontmatter


def __getattr__(name: str) -> object:
    # ``google.adk.skills`` is imported on first use only: the toolset does not need it, and on
    # some ADK releases importing it pulls in optional cloud-storage dependencies.
    if name in ("LibrarySkillRegistry", "to_frontmatter"):
        from skillcore_adk import _registry

        return getattr(_registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
