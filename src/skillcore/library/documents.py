"""What reading a skill gives: its document (body and resources) and resource contents, and
the errors of a read named for the user."""

from __future__ import annotations

from typing import Any

import attrs

from skillcore.codes import OutcomeCode
from skillcore.limits import DEFAULT_MAX_RESOURCE_BYTES
from skillcore.model import Catalog, Resource, SkillDocument, SkillMetadata
from skillcore.parse import body_span, decode_text
from skillcore.sources import SKILL_FILE, ReadError, SkillSource, SourceReader


@attrs.frozen
class ResourceContent:
    """A resource file read from a skill: its text, or a description when it is binary."""

    skill: str
    path: str
    size: int
    text: str | None
    binary: bool = False
    #: The bytes of a binary file (empty for text), for :mod:`skillcore.tools.binary`.
    data: bytes = attrs.field(default=b"", repr=False)


def document_from(meta: SkillMetadata, data: bytes, listing: tuple[Any, bool]) -> SkillDocument:
    """The document of a skill from its ``SKILL.md`` bytes and its resource listing."""
    text, _err, msg = decode_text(data)
    if text is None:
        raise ReadError(OutcomeCode.DECODE_ERROR, f"SKILL.md {msg}")
    resources, truncated = listing
    start, body = body_span(text)
    return SkillDocument(meta, body, resources, truncated, start)


def document_error(exc: ReadError) -> ReadError:
    """The error of a failed read of a skill's own SKILL.md (named as such)."""
    if exc.missing:
        return ReadError(
            OutcomeCode.READ_FAILED,
            "its SKILL.md is gone (deleted after discovery); the skill list may be out of date",
        )
    if exc.code is OutcomeCode.RESOURCE_NOT_FOUND:  # e.g. SKILL.md swapped for a FIFO
        return ReadError(OutcomeCode.READ_FAILED, f"cannot read its SKILL.md: {exc.message}")
    return exc


def resource_content(skill: str, path: str, data: bytes) -> ResourceContent:
    """A resource's bytes as text, or as binary when they are not UTF-8 text."""
    if b"\x00" in data[:8192]:
        return ResourceContent(skill, path, len(data), None, True, data)
    try:
        return ResourceContent(skill, path, len(data), data.decode("utf-8"))
    except UnicodeDecodeError:
        return ResourceContent(skill, path, len(data), None, True, data)


def read_document(
    reader: SourceReader, meta: SkillMetadata, max_bytes: int, max_resources: int
) -> SkillDocument:
    """Read a skill's full SKILL.md (at most ``max_bytes``) and list its resources."""
    try:
        data = reader.read_file(meta.location.directory, SKILL_FILE, max_bytes)
    except ReadError as exc:
        raise document_error(exc) from None
    listing = reader.list_files(meta.location.directory, max_resources)
    return document_from(meta, data, listing)


async def aread_document(
    reader: SourceReader, meta: SkillMetadata, max_bytes: int, max_resources: int
) -> SkillDocument:
    """Async :func:`read_document`."""
    import anyio.to_thread

    if type(reader).aread_file is SourceReader.aread_file and type(reader).alist_files is (
        SourceReader.alist_files
    ):
        # One thread hop for both reads instead of two.
        return await anyio.to_thread.run_sync(read_document, reader, meta, max_bytes, max_resources)
    try:
        data = await reader.aread_file(meta.location.directory, SKILL_FILE, max_bytes)
    except ReadError as exc:
        raise document_error(exc) from None
    listing = await reader.alist_files(meta.location.directory, max_resources)
    return document_from(meta, data, listing)


class DocumentReads:
    """The reads of a library: a skill's document and its resources, through the reader of
    the skill's source. The library provides ``catalog``, ``reader`` and the caps."""

    max_file_bytes: int
    max_resources: int

    @property
    def catalog(self) -> Catalog:
        """The current catalog."""
        raise NotImplementedError

    def reader(self, source: SkillSource | str) -> SourceReader:
        """The reader of a source, by value or label."""
        raise NotImplementedError

    def _meta(self, name: str | SkillMetadata) -> SkillMetadata:
        if isinstance(name, SkillMetadata):
            return name
        meta = self.catalog.get(name)
        if meta is None:
            raise ReadError(OutcomeCode.SKILL_NOT_FOUND, f"no skill named {name!r}")
        return meta

    def _located(self, name: str | SkillMetadata) -> tuple[SkillMetadata, SourceReader]:
        """The skill (by name or as given) and the reader of its source."""
        meta = self._meta(name)
        return meta, self.reader(meta.location.source)

    def read_document(
        self, name: str | SkillMetadata, max_bytes: int | None = None
    ) -> SkillDocument:
        """Read a skill's full SKILL.md (at most ``max_bytes``, default the library's
        ``max_file_bytes``) and list its resources. Raises ReadError."""
        meta, reader = self._located(name)
        cap = self.max_file_bytes if max_bytes is None else max_bytes
        return read_document(reader, meta, cap, self.max_resources)

    async def aread_document(
        self, name: str | SkillMetadata, max_bytes: int | None = None
    ) -> SkillDocument:
        """Async :meth:`read_document`."""
        meta, reader = self._located(name)
        cap = self.max_file_bytes if max_bytes is None else max_bytes
        return await aread_document(reader, meta, cap, self.max_resources)

    def list_resources(
        self, name: str | SkillMetadata, max_entries: int | None = None
    ) -> tuple[Resource, ...]:
        """The files of a skill as its load reply lists them (at most ``max_entries``,
        default the library's ``max_resources``). Raises ReadError."""
        meta, reader = self._located(name)
        cap = self.max_resources if max_entries is None else max_entries
        return reader.list_files(meta.location.directory, cap)[0]

    async def alist_resources(
        self, name: str | SkillMetadata, max_entries: int | None = None
    ) -> tuple[Resource, ...]:
        """Async :meth:`list_resources`."""
        meta, reader = self._located(name)
        cap = self.max_resources if max_entries is None else max_entries
        return (await reader.alist_files(meta.location.directory, cap))[0]

    def read_resource(
        self,
        name: str | SkillMetadata,
        path: str,
        max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    ) -> ResourceContent:
        """Read one file of a skill, confined to its directory and capped. Raises ReadError."""
        meta, reader = self._located(name)
        data = reader.read_file(meta.location.directory, path, max_bytes)
        return resource_content(meta.name, path, data)

    async def aread_resource(
        self,
        name: str | SkillMetadata,
        path: str,
        max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    ) -> ResourceContent:
        """Async :meth:`read_resource`."""
        meta, reader = self._located(name)
        data = await reader.aread_file(meta.location.directory, path, max_bytes)
        return resource_content(meta.name, path, data)
