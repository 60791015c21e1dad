"""The library: skills from one or more sources, discovered, refreshed and read.

:class:`SkillLibrary` (:mod:`~skillcore.library.skill_library`) is the I/O shell around the
pure core; the modules beside it hold its jobs.
"""

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

__all__ = [
    "DEFAULT_HEAD_BYTES",
    "FULL_CHECK_SECONDS",
    "ROLLING_CHECK_FILES",
    "ROLLING_CHECK_FROM",
    "SKILL_GRACE_SECONDS",
    "ProgressCallback",
    "ResourceContent",
    "SkillLibrary",
    "SourceState",
    "missing_dependencies",
]
