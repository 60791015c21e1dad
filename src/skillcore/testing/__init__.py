"""The shared conformance suite every adapter runs (like ``langchain-tests``).

Laid out by job: the driver interface (:mod:`~skillcore.testing.driver`), the scenario's
libraries (:mod:`~skillcore.testing.scenario`), event recording
(:mod:`~skillcore.testing.recording`), capabilities and running one check
(:mod:`~skillcore.testing.capabilities`), and the checks (:mod:`~skillcore.testing.checks`);
everything is importable from here.

An adapter's test module subclasses :class:`AdapterDriver` so that each ``turn`` runs one
model turn through the *real* framework runtime (a scripted model emitting the given tool
calls), then calls :func:`run_conformance`, or parametrizes over :data:`CHECKS`.

The scenario uses a copy of a small skill library with ``max_loaded=2`` and the RESTRICT
policy, and two ordinary tools the agent must expose: ``Read`` and ``Write`` (any behaviour),
plus the shell tool :data:`SHELL_TOOL` (argument ``command``; it replies
:func:`shell_reply` of the command).
"""

from __future__ import annotations

from skillcore.testing.capabilities import (
    Check,
    applicable,
    missing,
    required,
    requires,
    run_check,
    skip_reason,
)
from skillcore.testing.checks import (
    CHECKS,
    check_binary_resources,
    check_call_order_in_one_turn,
    check_catalog_in_instructions,
    check_conversations_are_separate,
    check_default_skills,
    check_events_once,
    check_gated_tools,
    check_limit_and_unload,
    check_load_and_marks,
    check_locked_tool_call,
    check_parallel_load_and_unload,
    check_parallel_loads_one_slot,
    check_pinned_skills,
    check_pinned_skills_restrict,
    check_policy_per_conversation,
    check_redelivery_after_history_loss,
    check_refusals,
    check_resources,
    check_restrict_policy,
    check_run_skill_script,
    check_search,
    check_stable_prefix,
    check_tool_aliases,
    check_unloaded_default_leaves_prompt,
    run_conformance,
)
from skillcore.testing.checks_options import check_disallowed_tools, check_paths_skill_untouched
from skillcore.testing.driver import (
    ALL_CAPABILITIES,
    GATED_TOOL,
    PLAIN_TOOLS,
    SHELL_TOOL,
    SUBAGENT_ANSWER,
    SUBAGENT_NAME,
    AdapterDriver,
    Attachment,
    Call,
    Capability,
    Reply,
    UserTurn,
    shell_reply,
)
from skillcore.testing.fork_checks import (
    check_forked_skill_in_subagent,
    check_forked_skill_never_loads,
)
from skillcore.testing.invocation_checks import check_user_invocation
from skillcore.testing.recording import (
    Event,
    EventRecorder,
)
from skillcore.testing.scenario import (
    INVOICE_QUERY,
    PREFIX_SCRIPT,
    RELEVANCE_BUDGET,
    ROLLOUT_QUERY,
    SCENARIO_PNG,
    SCENARIO_PROFILE,
    SCENARIO_SKILLS,
    PrefixStats,
    make_gated_library,
    make_prefix_library,
    make_relevance_library,
    make_scenario_library,
    make_tenant_libraries,
    prefix_stats,
    scenario_config,
    scenario_profiles,
    write_skill,
)

__all__ = [
    "ALL_CAPABILITIES",
    "CHECKS",
    "GATED_TOOL",
    "INVOICE_QUERY",
    "PLAIN_TOOLS",
    "PREFIX_SCRIPT",
    "RELEVANCE_BUDGET",
    "ROLLOUT_QUERY",
    "SCENARIO_PNG",
    "SCENARIO_PROFILE",
    "SCENARIO_SKILLS",
    "SHELL_TOOL",
    "SUBAGENT_ANSWER",
    "SUBAGENT_NAME",
    "AdapterDriver",
    "Attachment",
    "Call",
    "Capability",
    "Check",
    "Event",
    "EventRecorder",
    "PrefixStats",
    "Reply",
    "UserTurn",
    "applicable",
    "check_binary_resources",
    "check_call_order_in_one_turn",
    "check_catalog_in_instructions",
    "check_conversations_are_separate",
    "check_default_skills",
    "check_disallowed_tools",
    "check_events_once",
    "check_forked_skill_in_subagent",
    "check_forked_skill_never_loads",
    "check_gated_tools",
    "check_limit_and_unload",
    "check_load_and_marks",
    "check_locked_tool_call",
    "check_parallel_load_and_unload",
    "check_parallel_loads_one_slot",
    "check_paths_skill_untouched",
    "check_pinned_skills",
    "check_pinned_skills_restrict",
    "check_policy_per_conversation",
    "check_redelivery_after_history_loss",
    "check_refusals",
    "check_resources",
    "check_restrict_policy",
    "check_run_skill_script",
    "check_search",
    "check_stable_prefix",
    "check_tool_aliases",
    "check_unloaded_default_leaves_prompt",
    "check_user_invocation",
    "make_gated_library",
    "make_prefix_library",
    "make_relevance_library",
    "make_scenario_library",
    "make_tenant_libraries",
    "missing",
    "prefix_stats",
    "required",
    "requires",
    "run_check",
    "run_conformance",
    "scenario_config",
    "scenario_profiles",
    "shell_reply",
    "skip_reason",
    "write_skill",
]
