"""The library: skills from one or more sources, discovered, refreshed and read.

:class:`SkillLibrary` (:mod:`~skillcore.library.skill_library`) is the I/O shell around the
pure core; the modules beside it hold its jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.library.documents import ResourceContent
    from skillcore.library.merge import missing_dependencies
    from skillcore.library.skill_library import DEFAULT_HEAD_BYTES, SkillLibrary
    from skillcore.library.state import (
        FULL_CHECK_SECONDS,
        ROLLING_CHECK_FILES,
        ROLLING_CHECK_FROM,
        SKILL_GRACE_SECONDS,
        ProgressCallback,
        SourceState,
    )

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "DEFAULT_HEAD_BYTES": "skillcore.library.skill_library",
        "FULL_CHECK_SECONDS": "skillcore.library.state",
        "ROLLING_CHECK_FILES": "skillcore.library.state",
        "ROLLING_CHECK_FROM": "skillcore.library.state",
        "SKILL_GRACE_SECONDS": "skillcore.library.state",
        "ProgressCallback": "skillcore.library.state",
        "ResourceContent": "skillcore.library.documents",
        "SkillLibrary": "skillcore.library.skill_library",
        "SourceState": "skillcore.library.state",
        "missing_dependencies": "skillcore.library.merge",
    },
)
