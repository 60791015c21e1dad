"""What a source reports when a read or a whole scan fails."""

from __future__ import annotations

from collections.abc import Callable

from skillcore._escaping import describe
from skillcore.codes import OutcomeCode
from skillcore.errors import SkillcoreError
from skillcore.paths import PathProblem


class ReadError(SkillcoreError):
    """A file could not be read; ``code`` is the outcome code to report.

    ``missing`` is True when the file does not exist (as opposed to existing but refused);
    ``problem`` says why a path was refused (``PATH_REJECTED`` by the path rule).
    """

    def __init__(
        self,
        code: OutcomeCode,
        message: str,
        *,
        missing: bool = False,
        problem: PathProblem | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.missing = missing
        self.problem = problem
        #: For a resource that does not exist: the paths of its skill's files, when the
        #: reader listed them for the reply (None: not listed).
        self.listing: tuple[str, ...] | None = None


class SourceUnavailable(SkillcoreError):
    """A whole source could not be scanned (missing root, network failure, ...)."""


def _describe(exc: BaseException) -> str:
    return describe(exc)


def read_error(
    exc: BaseException, rel_path: str, describe: Callable[[BaseException], str] = _describe
) -> ReadError:
    """The :class:`ReadError` for a failed read of ``rel_path`` (missing, a directory, other)."""
    if isinstance(exc, FileNotFoundError):
        return ReadError(
            OutcomeCode.RESOURCE_NOT_FOUND,
            f"no file {rel_path!r} in the skill directory",
            missing=True,
        )
    if isinstance(exc, IsADirectoryError):
        return ReadError(OutcomeCode.RESOURCE_NOT_FOUND, f"{rel_path!r} is a directory, not a file")
    return ReadError(OutcomeCode.READ_FAILED, f"cannot read {rel_path!r}: {describe(exc)}")
