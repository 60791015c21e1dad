"""The steps of one skill tool call between :meth:`SkillToolkit.plan` and :meth:`finish`.

A planned call is an :data:`Effect`; the shell reads its :data:`Data` (:func:`read` /
:func:`aread`, the only I/O); finishing it gives a :class:`ToolResult`, reported once as a
structured event (:func:`report`). Reads are bounded by the tighter of the library's and the
session's caps.
"""

from __future__ import annotations

import attrs

from skillcore import events
from skillcore.codes import Coded, OutcomeCode
from skillcore.library import ResourceContent, SkillLibrary
from skillcore.model import SkillDocument
from skillcore.names import ToolNames
from skillcore.sources import ReadError
from skillcore.state import LoadRequest, Outcome, ResourceRequest, SkillSession
from skillcore.tools import replies
from skillcore.tools.binary import BinaryPayload, binary_payload, widens, wider


@attrs.frozen
class Unload:
    """A planned unload (no I/O needed)."""

    name: str


#: What a planned call needs done before it can finish.
Effect = LoadRequest | ResourceRequest | Unload
#: What the shell read for an effect.
Data = SkillDocument | ResourceContent | ReadError | None


@attrs.frozen
class ToolResult(Coded):
    """The result of one skill tool call: the session after it and the reply for the model."""

    session: SkillSession
    text: str
    code: OutcomeCode
    tool: str
    #: Position of this call's write within its turn (see :class:`TurnStore`); 0 if none.
    seq: int = 0
    #: The loaded document when ``code`` is LOADED (adapters may keep it for re-injection).
    document: SkillDocument | None = None
    #: A binary resource to deliver as the framework's native part (``binary_resources=True``;
    #: see :mod:`skillcore.tools.binary`); ``text`` then describes it.
    binary: BinaryPayload | None = None


def file_cap(library: SkillLibrary, session: SkillSession) -> int:
    """The byte cap of a ``SKILL.md`` read: the tighter of the library's and the session's."""
    return min(library.max_file_bytes, session.limits.max_file_bytes)


def read(
    library: SkillLibrary, effect: Effect, session: SkillSession, binary: bool = False
) -> Data:
    """Read what ``effect`` needs (nothing for an unload); a failed read is returned.
    ``binary``: a resource too large for text is read again with the binary cap, and kept
    if it is an allowed binary file (:mod:`skillcore.tools.binary`)."""
    try:
        if isinstance(effect, LoadRequest):
            return library.read_document(effect.name, file_cap(library, session))
        if isinstance(effect, ResourceRequest):
            limits = session.limits
            if effect.offset is not None:  # one page of a text file: read as a load reads
                return library.read_resource(effect.name, effect.path, file_cap(library, session))
            try:
                return library.read_resource(effect.name, effect.path, limits.max_resource_bytes)
            except ReadError as exc:
                if not (binary and widens(exc, *_caps(session))):
                    raise
                cap = limits.max_binary_bytes
                return wider(exc, library.read_resource(effect.name, effect.path, cap))
    except ReadError as exc:
        if isinstance(effect, ResourceRequest) and exc.code is OutcomeCode.RESOURCE_NOT_FOUND:
            try:
                listed = library.list_resources(effect.name, session.limits.max_resources)
                exc.listing = tuple(r.path for r in listed)
            except (ReadError, OSError):
                pass  # the reply then goes without the hint
        return exc
    return None


async def aread(
    library: SkillLibrary, effect: Effect, session: SkillSession, binary: bool = False
) -> Data:
    """Async :func:`read`."""
    try:
        if isinstance(effect, LoadRequest):
            return await library.aread_document(effect.name, file_cap(library, session))
        if isinstance(effect, ResourceRequest):
            limits = session.limits
            if effect.offset is not None:  # one page of a text file: read as a load reads
                cap = file_cap(library, session)
                return await library.aread_resource(effect.name, effect.path, cap)
            try:
                cap = limits.max_resource_bytes
                return await library.aread_resource(effect.name, effect.path, cap)
            except ReadError as exc:
                if not (binary and widens(exc, *_caps(session))):
                    raise
                cap = limits.max_binary_bytes
                wide = await library.aread_resource(effect.name, effect.path, cap)
                return wider(exc, wide)
    except ReadError as exc:
        if isinstance(effect, ResourceRequest) and exc.code is OutcomeCode.RESOURCE_NOT_FOUND:
            try:
                listed = await library.alist_resources(effect.name, session.limits.max_resources)
                exc.listing = tuple(r.path for r in listed)
            except (ReadError, OSError):
                pass
        return exc
    return None


def _caps(session: SkillSession) -> tuple[int, int]:
    """The text and binary caps of a resource read."""
    return session.limits.max_resource_bytes, session.limits.max_binary_bytes


def resource_result(
    session: SkillSession,
    req: ResourceRequest,
    data: Data,
    names: ToolNames,
    binary: bool = False,
) -> ToolResult:
    """The result of a resource read (no transition: the session is unchanged), re-checked
    against ``session`` since the skill may have been unloaded while the file was read.
    ``binary``: an allowed binary file within the binary cap is delivered as a payload."""
    tool = names.resource
    again = session.begin_resource(req.name, req.path)
    if isinstance(again, Outcome):
        return ToolResult(session, replies.refusal(again), again.code, tool)
    name, path = req.name, req.path
    if isinstance(data, ReadError):
        # The files are listed by the read (sessions keep no listing across a restore).
        listing = data.listing if data.code is OutcomeCode.RESOURCE_NOT_FOUND else None
        text = replies.read_failed(path, name, data, listing, names)
        return ToolResult(session, text, data.code, tool)
    assert isinstance(data, ResourceContent)
    if data.binary:
        payload = binary_payload(data) if binary else None
        if payload is None:
            text = replies.binary_resource(path, name, data)
            return ToolResult(session, text, OutcomeCode.BINARY_RESOURCE, tool)
        cap = session.limits.max_binary_bytes
        if payload.size > cap:
            text = replies.binary_too_large(payload, cap)
            return ToolResult(session, text, OutcomeCode.TOO_LARGE, tool)
        text = replies.binary_attached(payload)
        return ToolResult(session, text, OutcomeCode.RESOURCE_READ, tool, binary=payload)
    if req.offset is not None:
        cap = session.limits.max_load_chars
        text, ok = replies.resource_page(path, name, data, req.offset, cap, names.resource)
        code = OutcomeCode.RESOURCE_READ if ok else OutcomeCode.INVALID_ARGUMENTS
        return ToolResult(session, text, code, tool)
    return ToolResult(session, replies.resource(path, name, data), OutcomeCode.RESOURCE_READ, tool)


def report(effect: Effect, result: ToolResult, data: Data) -> None:
    """Report a finished call as its structured event (:func:`events.tool_outcome`)."""
    kind = (
        "resource"
        if isinstance(effect, ResourceRequest)
        else "unload"
        if isinstance(effect, Unload)
        else "load"
    )
    events.tool_outcome(
        kind,
        result,
        effect.name,
        effect.path if isinstance(effect, ResourceRequest) else None,
        data.message if isinstance(data, ReadError) else None,
        data.size if isinstance(data, ResourceContent) else None,
    )


__all__ = ["Data", "Effect", "ToolResult", "Unload", "aread", "read", "report", "resource_result"]
