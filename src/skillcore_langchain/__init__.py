"""skillcore adapter for langchain (work in progress)."""

from __future__ import annotations

from skillcore.errors import SkillcoreError

__all__: list[str] = []


def __getattr__(name: str) -> object:
    raise SkillcoreError(
        f"skillcore_langchain.{name} is not available yet in this version of skillcore"
    )
