"""The OpenAI Agents SDK adapter: :class:`~skillcore_openai.AgentSkills` (``adapter``), the
conversations it keeps (``conversations``), the SDK hooks and wrappers that guard an agent
(``guard``) and :class:`~skillcore_openai.ProfiledAgentSkills` (``profiles``). Import them from
:mod:`skillcore_openai`; this package needs the ``agents`` extra."""

from skillcore.runtime import require

# Before any module of this package imports the SDK: a missing SDK names the extra to install.
require("agents", "agents", "skillcore_openai.AgentSkills (OpenAI Agents SDK tools)")
