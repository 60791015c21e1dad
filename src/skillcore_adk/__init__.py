"""skillcore for Google ADK: a ``SkillToolset``, RESTRICT enforcement and registry interop.

- :class:`SkillToolset` -- a ``BaseToolset`` with the four skill tools (``load_skill``,
  ``unload_skill``, ``load_skill_resource``, ``search_skills``), the budgeted catalog in the
  instructions, and loaded-skill state persisted per agent in the ADK session.
- ``toolset.before_tool_callback`` (one agent) or :class:`SkillPolicyPlugin` (a whole app):
  block tools the loaded skills' ``allowed-tools`` do not cover, under RESTRICT.
- :class:`LibrarySkillRegistry` -- ADK's ``SkillRegistry`` backed by a skillcore library, for
  ADK's native ``SkillToolset(registry=...)``.

Install with ``pip install "skillcore-agents[adk]"``.
"""

from __future__ import annotations

from skillcore.errors import require

require("google.adk", "adk", "skillcore_adk")

from skillcore_adk._plugin import SkillPolicyPlugin  # noqa: E402
from skillcore_adk._registry import LibrarySkillRegistry, to_frontmatter  # noqa: E402
from skillcore_adk._toolset import (  # noqa: E402
    AGENT_TRANSFER_TOOL,
    DEFAULT_STATE_KEY_PREFIX,
    SkillTool,
    SkillToolset,
)

__all__ = [
    "AGENT_TRANSFER_TOOL",
    "DEFAULT_STATE_KEY_PREFIX",
    "LibrarySkillRegistry",
    "SkillPolicyPlugin",
    "SkillTool",
    "SkillToolset",
    "to_frontmatter",
]
