"""The names of the skill tools, identical in every adapter (optionally prefixed)."""

from __future__ import annotations

import attrs

LOAD = "load_skill"
UNLOAD = "unload_skill"
RESOURCE = "load_skill_resource"
SEARCH = "search_skills"
#: Offered only when a script runner is configured (see ``SkillConfig.script_runner``).
SCRIPT = "run_skill_script"


@attrs.frozen
class ToolNames:
    """Tool names as the model sees them. Use :meth:`prefixed` to coexist with other toolsets."""

    load: str = LOAD
    unload: str = UNLOAD
    resource: str = RESOURCE
    search: str = SEARCH
    script: str = SCRIPT

    @classmethod
    def prefixed(cls, prefix: str = "") -> ToolNames:
        """``ToolNames.prefixed("sc_")`` gives ``sc_load_skill`` and so on."""
        return cls(
            prefix + LOAD, prefix + UNLOAD, prefix + RESOURCE, prefix + SEARCH, prefix + SCRIPT
        )

    def all(self) -> tuple[str, ...]:
        """Every skill tool name (the script tool's too: the policy judges a script run by
        its skill and script, :meth:`~skillcore.SkillSession.check_script`, not by name)."""
        return (self.load, self.unload, self.resource, self.search, self.script)
