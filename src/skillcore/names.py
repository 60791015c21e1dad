"""The names of the four skill tools, identical in every adapter (optionally prefixed)."""

from __future__ import annotations

import attrs

LOAD = "load_skill"
UNLOAD = "unload_skill"
RESOURCE = "load_skill_resource"
SEARCH = "search_skills"


@attrs.frozen
class ToolNames:
    """Tool names as the model sees them. Use :meth:`prefixed` to coexist with other toolsets."""

    load: str = LOAD
    unload: str = UNLOAD
    resource: str = RESOURCE
    search: str = SEARCH

    @classmethod
    def prefixed(cls, prefix: str = "") -> ToolNames:
        """``ToolNames.prefixed("sc_")`` gives ``sc_load_skill`` and so on."""
        return cls(prefix + LOAD, prefix + UNLOAD, prefix + RESOURCE, prefix + SEARCH)

    def all(self) -> tuple[str, str, str, str]:
        """The four names."""
        return (self.load, self.unload, self.resource, self.search)
