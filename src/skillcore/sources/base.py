"""Where skills live: ``SkillSource`` values and the readers behind them.

A reader does all I/O for one source through a few primitives: ``scan`` (list skill
directories and read the head of each ``SKILL.md``), ``read_file`` (confined, capped) and
``list_files``. Local disk gets a direct ``os.scandir`` reader (several times faster than
fsspec's ``find``); any other fsspec URL goes through the generic reader. Other backends
register themselves with :func:`register_reader`.

This module gathers the names of the modules that hold each job (kept importable from here):
the source type (:mod:`~skillcore.sources.source`), read and scan errors
(:mod:`~skillcore.sources.errors`), the scan types (:mod:`~skillcore.sources.scan`), the
reader protocol and its path rule (:mod:`~skillcore.sources.reader`), the confined local
cursor (:mod:`~skillcore.sources.cursor`), the local reader (:mod:`~skillcore.sources.local`,
with :mod:`~skillcore.sources.local_scan` and :mod:`~skillcore.sources.local_listing`), the
fsspec reader (:mod:`~skillcore.sources.fsspec_reader`), the reader registry
(:mod:`~skillcore.sources.registry`) and the project's conventional sources
(:mod:`~skillcore.sources.project`).
"""

from __future__ import annotations

from skillcore.limits import DEFAULT_MAX_FILE_BYTES
from skillcore.sources.cursor import (
    MAX_SYMLINK_HOPS,
    NotRegularFile,
    PathEscape,
    file_kind,
)
from skillcore.sources.errors import ReadError, SourceUnavailable, read_error
from skillcore.sources.fsspec_reader import FsspecReader, cat_capped, cat_head
from skillcore.sources.local import LocalReader
from skillcore.sources.local_listing import MAX_LISTED_DIRS, MAX_LISTED_ENTRIES
from skillcore.sources.project import project_sources
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.registry import ReaderFactory, open_reader, register_reader
from skillcore.sources.scan import Scan, ScanEntry, misnamed_diagnostic, misnamed_skill_file
from skillcore.sources.source import ARCHIVE_SUFFIXES, SKILL_FILE, SKIP_DIRS, SkillSource

__all__ = [
    "ARCHIVE_SUFFIXES",
    "DEFAULT_MAX_FILE_BYTES",
    "MAX_LISTED_DIRS",
    "MAX_LISTED_ENTRIES",
    "MAX_SYMLINK_HOPS",
    "SKILL_FILE",
    "SKIP_DIRS",
    "FsspecReader",
    "LocalReader",
    "NotRegularFile",
    "PathEscape",
    "ReadError",
    "ReaderFactory",
    "Scan",
    "ScanEntry",
    "SkillSource",
    "SourceReader",
    "SourceUnavailable",
    "cat_capped",
    "cat_head",
    "file_kind",
    "misnamed_diagnostic",
    "misnamed_skill_file",
    "open_reader",
    "project_sources",
    "read_error",
    "register_reader",
    "safe_relpath",
]
