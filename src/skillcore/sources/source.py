"""The source type: where skills live (a path or fsspec URL, plus options)."""

from __future__ import annotations

import os
from typing import Any

import attrs

from skillcore._frozen import FrozenDict, thaw, to_frozen
from skillcore.errors import SourceError
from skillcore.paths import SKIP_DIRS as SKIP_DIRS  # re-exported: its home is paths

SKILL_FILE = "SKILL.md"
#: File names of packaged skill libraries (read by the archive reader).
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def join_rel(*parts: str) -> str:
    """Relative path parts joined with ``/``, empty parts and stray slashes dropped."""
    return "/".join(p.strip("/") for p in parts if p.strip("/"))


def _as_text(url: str | os.PathLike[str]) -> str:
    """A path object as the text it stands for; anything else unchanged (validated later)."""
    return os.fspath(url) if isinstance(url, os.PathLike) else url


@attrs.frozen
class SkillSource:
    """A place skills live: a path or fsspec URL (or a ready filesystem), plus options.

    Sources listed later override earlier ones (the shadowing is recorded as a diagnostic).
    """

    #: A path (``str`` or path object, kept as text) or an fsspec URL.
    url: str = attrs.field(converter=_as_text)
    label: str = attrs.field()
    storage_options: FrozenDict[str, Any] = attrs.field(factory=FrozenDict, converter=to_frozen)
    #: An fsspec filesystem to use instead of resolving ``url`` (``url`` is then its root path).
    fs: Any = attrs.field(default=None, eq=False, hash=False, repr=False)
    #: Look for skills below the root, up to ``max_depth`` levels (monorepos).
    recursive: bool = False
    max_depth: int = 4
    #: Directory entries examined at most during one scan.
    max_entries: int = 100_000
    #: Read local files that have more than one hard link. Off by default: a hard link is
    #: indistinguishable from the file it links to (e.g. ``~/.ssh/id_rsa`` linked into a
    #: skill), so confinement cannot be checked. Turn on for trees built with hard links
    #: (e.g. package managers that link files from a cache).
    allow_hardlinks: bool = False
    #: A local folder that may not exist yet (e.g. a volume mounted later): no error when
    #: the library is built, no warning while it is absent; discovery reports it as a
    #: ``SOURCE_UNREACHABLE`` diagnostic until it appears. Off by default: a local path
    #: that does not exist is almost always a typo, and is refused where it is named.
    optional: bool = False
    #: Whether skills of this source may run code (scripts, hooks, ``!command``). None: decided by
    #: where the source is (:attr:`runs_code`): a local folder is trusted; remote and
    #: packaged sources (S3, Git, zip and other archives, MCP, memory, any fsspec URL) are
    #: not, unless the host marks them ``trusted=True``.
    trusted: bool | None = None

    @property
    def runs_code(self) -> bool:
        """Whether scripts of this source may run: ``trusted`` when set, else True only for
        a local folder (not an archive file, not a filesystem object given as ``fs``)."""
        if self.trusted is not None:
            return self.trusted
        local = self.fs is None and self.protocol in ("file", "local")
        return local and not self.url.lower().endswith(ARCHIVE_SUFFIXES)

    def fsspec_options(self) -> dict[str, Any]:
        """``storage_options`` as plain, mutable values (nested mappings as dicts, sequences
        as lists): what fsspec and its filesystems expect, since some copy or update them
        (s3fs copies ``client_kwargs``). A fresh copy on every call."""
        return thaw(self.storage_options)  # type: ignore[no-any-return]

    @label.default
    def _label(self) -> str:
        return self.url

    @classmethod
    def coerce(cls, value: SkillSource | str | os.PathLike[str]) -> SkillSource:
        """Accept a SkillSource, a path or a URL."""
        if isinstance(value, SkillSource):
            return value
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str) or not value.strip():
            raise SourceError(f"a source must be a path, a URL or a SkillSource, got {value!r}")
        return cls(value)

    @property
    def protocol(self) -> str:
        """``file`` for local paths, else the URL scheme (first of a chain)."""
        if self.fs is not None:
            proto = self.fs.protocol
            return proto if isinstance(proto, str) else proto[0]
        if "://" not in self.url and "::" not in self.url:
            return "file"
        head = self.url.split("::", 1)[0]
        return head.split("://", 1)[0] if "://" in head else head
