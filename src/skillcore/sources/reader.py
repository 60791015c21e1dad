"""The reader protocol every storage implements, and the path rule it applies to a request."""

from __future__ import annotations

from collections.abc import Mapping

from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.limits import DEFAULT_MAX_FILE_BYTES
from skillcore.model import Resource
from skillcore.paths import normalise_relpath, path_problem, printable_name
from skillcore.sources.errors import ReadError
from skillcore.sources.scan import Scan, source_diagnostic
from skillcore.sources.source import SkillSource


def safe_relpath(path: str) -> str:
    """Normalise a path relative to a skill directory, rejecting escapes (the rule is
    :func:`skillcore.paths.path_problem`). Raises ReadError(PATH_REJECTED) with the reason."""
    problem = path_problem(path)
    if problem is not None:
        shown = printable_name(path) if isinstance(path, str) else repr(path)
        raise ReadError(OutcomeCode.PATH_REJECTED, f"{problem.value}: {shown!r}", problem=problem)
    return normalise_relpath(path)


class SourceReader:
    """Base class of source readers. Subclasses implement the three sync primitives; the async
    versions default to one thread hop per call (a whole scan is one hop)."""

    #: Files larger than this are never read whole, not even for a discovery head (backends
    #: that must inflate a whole object to read its head, like Git, refuse it up front).
    #: ``SkillLibrary`` sets it to its ``max_file_bytes``.
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES

    def __init__(self, source: SkillSource) -> None:
        self.source = source

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """List skill directories and read SKILL.md heads for entries whose stamp changed."""
        raise NotImplementedError

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Read a file of a skill directory, confined to it. Raises ReadError."""
        raise NotImplementedError

    def read_head(self, directory: str, rel_path: str, max_bytes: int) -> tuple[bytes, bool]:
        """The first ``max_bytes`` of a file and whether that is all of it. Raises ReadError.

        This default reads the file whole (up to ``max_file_bytes``) and cuts it; readers that
        can read a byte range override it.
        """
        try:
            return self.read_file(directory, rel_path, max_bytes), True
        except ReadError as exc:
            if exc.code is not OutcomeCode.TOO_LARGE:
                raise
        data = self.read_file(directory, rel_path, max(self.max_file_bytes, max_bytes))
        return data[:max_bytes], len(data) <= max_bytes

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """Files of a skill directory (excluding SKILL.md), capped; ``(resources, truncated)``."""
        raise NotImplementedError

    def diag(
        self, code: Code, message: str, path: str, severity: Severity = Severity.ERROR
    ) -> Diagnostic:
        """A diagnostic about ``path`` of this reader's source (ERROR unless told)."""
        return source_diagnostic(code, message, self.source, path, severity)

    def url_for(self, directory: str) -> str:
        """A display URL/path of a skill directory."""
        base = self.source.url.rstrip("/")
        return f"{base}/{directory}" if directory else base

    async def ascan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """Async :meth:`scan`."""
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.scan, head_bytes, known)

    async def aread_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Async :meth:`read_file`."""
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.read_file, directory, rel_path, max_bytes)

    async def alist_files(
        self, directory: str, max_entries: int
    ) -> tuple[tuple[Resource, ...], bool]:
        """Async :meth:`list_files`."""
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self.list_files, directory, max_entries)
