"""Binary resources (images, PDFs) delivered as the framework's native binary part.

With ``binary_resources=True`` (:class:`~skillcore.SkillConfig`; off by default, because a
model without vision input can fail on an image), reading a resource whose *content* is an
allowed type returns a :class:`BinaryPayload` in :attr:`ToolResult.binary
<skillcore.ToolResult.binary>`; each adapter sends it as its framework's native part (ADK
inline data, a LangChain image/file block, an OpenAI ``input_image``/``input_file`` part).
The type comes from the file's leading bytes (:func:`sniff`), never from its name; any other
binary file stays refused as ``BINARY_RESOURCE`` (fail closed). Reads stay confined exactly
like text reads (the same reader, the same path rules) and are capped at
:attr:`Limits.max_binary_bytes <skillcore.Limits.max_binary_bytes>`.
"""

from __future__ import annotations

import base64
import posixpath
from typing import TYPE_CHECKING

import attrs

from skillcore.codes import OutcomeCode
from skillcore.limits import DEFAULT_MAX_BINARY_BYTES

if TYPE_CHECKING:
    from skillcore.library import ResourceContent
    from skillcore.sources import ReadError


#: How many leading bytes :func:`sniff` looks at (it never reads further).
SNIFF_BYTES = 16

#: MIME types delivered as images (every other allowed type is delivered as a file).
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: Every MIME type a binary resource may be delivered as.
ALLOWED_TYPES = IMAGE_TYPES | {"application/pdf"}

# Signatures at offset 0 (WEBP is checked apart: "RIFF" <size> "WEBP").
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)


def sniff(data: bytes) -> str | None:
    """The MIME type the leading bytes of ``data`` declare, or None when they match none of
    :data:`ALLOWED_TYPES`. Looks at :data:`SNIFF_BYTES` bytes at most; never raises."""
    head = bytes(data[:SNIFF_BYTES])
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


@attrs.frozen
class BinaryPayload:
    """A binary resource as it is delivered to the model: bytes, MIME type and where it
    came from. Adapters translate it; every encoding they need is defined here once."""

    skill: str
    path: str
    mime_type: str
    data: bytes = attrs.field(repr=False)

    @property
    def size(self) -> int:
        """Size in bytes."""
        return len(self.data)

    @property
    def is_image(self) -> bool:
        """True for images (sent as image parts); False for documents such as PDFs (sent as
        file parts)."""
        return self.mime_type in IMAGE_TYPES

    @property
    def filename(self) -> str:
        """The file's base name (e.g. ``logo.png``), for file parts that carry one."""
        return posixpath.basename(self.path) or self.path

    def base64(self) -> str:
        """The bytes as base64 text."""
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        """A ``data:<mime>;base64,...`` URL (what OpenAI image and file parts take)."""
        return f"data:{self.mime_type};base64,{self.base64()}"


def binary_payload(content: ResourceContent) -> BinaryPayload | None:
    """The payload for a binary resource read whole, or None when its type is not allowed."""
    data = content.data
    mime = sniff(data) if data else None
    if mime is None or mime not in ALLOWED_TYPES:
        return None
    return BinaryPayload(content.skill, content.path, mime, data)


def widens(error: ReadError, text_cap: int, binary_cap: int) -> bool:
    """True when a resource refused as too large for text may still be an allowed binary
    file within the (larger) binary cap, so it is worth reading again with that cap."""
    return error.code is OutcomeCode.TOO_LARGE and binary_cap > text_cap


def wider(first: ReadError, content: ResourceContent) -> ResourceContent | ReadError:
    """The result of reading again with the binary cap: the content when it is an allowed
    binary file, else the first refusal (text over the text cap stays too large)."""
    return content if content.binary and binary_payload(content) is not None else first


__all__ = [
    "ALLOWED_TYPES",
    "DEFAULT_MAX_BINARY_BYTES",
    "IMAGE_TYPES",
    "SNIFF_BYTES",
    "BinaryPayload",
    "binary_payload",
    "sniff",
    "widens",
    "wider",
]
