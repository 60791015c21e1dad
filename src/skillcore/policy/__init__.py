"""The allowed-tools policy: tool patterns, aliases, gating and the decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.policy.aliases import (
        ALIAS_PRESETS,
        AUTO_ALIASES,
        AliasesLike,
        ToolAliases,
        framework_aliases,
        to_aliases,
    )
    from skillcore.policy.commands import Arguments, RawInput, program_option
    from skillcore.policy.gating import (
        gated_registry,
        parse_tool_list,
        skill_gated_tools,
        unlockers_index,
    )
    from skillcore.policy.patterns import ToolPattern, normalize_tool_name, wildcard_match
    from skillcore.policy.rules import (
        PolicyMode,
        ProgramOptions,
        ToolDecision,
        ToolPolicy,
        UnrestrictedSkills,
        decide,
        decide_script,
        names_tool,
    )

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "ALIAS_PRESETS": "skillcore.policy.aliases",
        "AUTO_ALIASES": "skillcore.policy.aliases",
        "AliasesLike": "skillcore.policy.aliases",
        "Arguments": "skillcore.policy.commands",
        "PolicyMode": "skillcore.policy.rules",
        "ProgramOptions": "skillcore.policy.rules",
        "RawInput": "skillcore.policy.commands",
        "ToolAliases": "skillcore.policy.aliases",
        "ToolDecision": "skillcore.policy.rules",
        "ToolPattern": "skillcore.policy.patterns",
        "ToolPolicy": "skillcore.policy.rules",
        "UnrestrictedSkills": "skillcore.policy.rules",
        "decide": "skillcore.policy.rules",
        "decide_script": "skillcore.policy.rules",
        "framework_aliases": "skillcore.policy.aliases",
        "gated_registry": "skillcore.policy.gating",
        "names_tool": "skillcore.policy.rules",
        "normalize_tool_name": "skillcore.policy.patterns",
        "parse_tool_list": "skillcore.policy.gating",
        "program_option": "skillcore.policy.commands",
        "skill_gated_tools": "skillcore.policy.gating",
        "to_aliases": "skillcore.policy.aliases",
        "unlockers_index": "skillcore.policy.gating",
        "wildcard_match": "skillcore.policy.patterns",
    },
)
