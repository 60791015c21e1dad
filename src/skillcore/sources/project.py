"""The conventional skill folders of a project and of its user."""

from __future__ import annotations

import os
from pathlib import Path

from skillcore.sources.source import SkillSource


def project_sources(
    project: str | os.PathLike[str] = ".", home: str | None = None
) -> list[SkillSource]:
    """The conventional source list for a project, lowest precedence first.

    User-level folders (``~/.agents/skills``, ``~/.claude/skills``) come first and project
    folders (``<project>/.agents/skills``, ``<project>/.claude/skills``) last, so project skills
    override user skills. Folders that do not exist are left out.
    """
    home_dir = Path(home) if home else Path.home()
    proj = Path(project)
    candidates = [
        ("user:.agents", home_dir / ".agents" / "skills"),
        ("user:.claude", home_dir / ".claude" / "skills"),
        ("project:.agents", proj / ".agents" / "skills"),
        ("project:.claude", proj / ".claude" / "skills"),
    ]
    return [SkillSource(str(p), label=label) for label, p in candidates if p.is_dir()]
