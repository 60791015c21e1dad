"""Where skills live: the source type, the reader protocol and one reader per kind of storage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.sources.cursor import O_FILE, read_fd
    from skillcore.sources.deepagents import SourceSpec, backend_sources
    from skillcore.sources.errors import ReadError, SourceUnavailable
    from skillcore.sources.local import LocalReader
    from skillcore.sources.mcp_spec import (
        MAX_SKILL_BYTES,
        MAX_SKILL_FILES,
        SKILLS_EXTENSION,
        raw_frontmatter,
    )
    from skillcore.sources.project import project_sources
    from skillcore.sources.reader import SourceReader
    from skillcore.sources.registry import check_source, open_reader, register_reader
    from skillcore.sources.scan import Scan, ScanEntry
    from skillcore.sources.source import SKILL_FILE, SkillSource

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "MAX_SKILL_BYTES": "skillcore.sources.mcp_spec",
        "MAX_SKILL_FILES": "skillcore.sources.mcp_spec",
        "O_FILE": "skillcore.sources.cursor",
        "SKILLS_EXTENSION": "skillcore.sources.mcp_spec",
        "SKILL_FILE": "skillcore.sources.source",
        "LocalReader": "skillcore.sources.local",
        "ReadError": "skillcore.sources.errors",
        "Scan": "skillcore.sources.scan",
        "ScanEntry": "skillcore.sources.scan",
        "SkillSource": "skillcore.sources.source",
        "SourceReader": "skillcore.sources.reader",
        "SourceSpec": "skillcore.sources.deepagents",
        "SourceUnavailable": "skillcore.sources.errors",
        "backend_sources": "skillcore.sources.deepagents",
        "check_source": "skillcore.sources.registry",
        "open_reader": "skillcore.sources.registry",
        "project_sources": "skillcore.sources.project",
        "raw_frontmatter": "skillcore.sources.mcp_spec",
        "read_fd": "skillcore.sources.cursor",
        "register_reader": "skillcore.sources.registry",
    },
)
