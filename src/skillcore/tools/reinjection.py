"""Instructions a conversation lost: loaded skills whose load reply was compacted away are
repeated in the system prompt (the re-read documents are cached, failures are not)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable

from skillcore.catalog.render import delivered
from skillcore.model import SkillDocument, SkillMetadata
from skillcore.sources.base import ReadError
from skillcore.state.session import SkillSession
from skillcore.tools import replies
from skillcore.tools.toolkit import SkillToolkit

#: How many re-read skill documents are kept.
DEFAULT_CACHE_SIZE = 64


class Reinjection:
    """Finds loaded skills whose instructions are gone and renders the block that repeats
    them (:func:`skillcore.tools.replies.reinjection`). Thread-safe; one per adapter instance."""

    def __init__(self, toolkit: SkillToolkit, cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        self.toolkit = toolkit
        self.cache_size = cache_size
        self._lock = threading.Lock()
        self._docs: OrderedDict[SkillMetadata, SkillDocument] = OrderedDict()

    def missing(
        self,
        session: SkillSession,
        tool_replies: Iterable[str],
        only: Collection[str] | None = None,
    ) -> list[SkillMetadata]:
        """Loaded skills none of whose load replies (``<skill_content name=...>`` at the start
        of a tool reply) is among ``tool_replies`` (newest first: the scan stops early);
        ``only``: just those of these names (e.g. the toolkit's :attr:`preset` skills)."""
        names = session.loaded_names
        if only is not None:
            names = tuple(n for n in names if n in only)
        seen = delivered(names, tool_replies)
        metas = (session.catalog.get(n) for n in names if n not in seen)
        return [m for m in metas if m is not None]

    def text(self, session: SkillSession, missing: list[SkillMetadata]) -> str:
        """The block repeating ``missing`` skills' instructions ("" when none is missing)."""
        return self._render(session, {m.name: self._read(m) for m in missing})

    async def atext(self, session: SkillSession, missing: list[SkillMetadata]) -> str:
        """Async :meth:`text` (documents are read without blocking the event loop)."""
        return self._render(session, {m.name: await self._aread(m) for m in missing})

    def _render(self, session: SkillSession, docs: dict[str, SkillDocument | ReadError]) -> str:
        if not docs:
            return ""
        bodies = {
            n: d if isinstance(d, ReadError) else self.toolkit.load_reply(session, d)
            for n, d in docs.items()
        }
        return replies.reinjection(self.toolkit.names, bodies)

    def _cached(self, meta: SkillMetadata) -> SkillDocument | None:
        with self._lock:
            return self._docs.get(meta)

    def _read(self, meta: SkillMetadata) -> SkillDocument | ReadError:
        doc = self._cached(meta)
        if doc is not None:
            return doc
        try:
            return self._remember(meta, self.toolkit.library.read_document(meta))
        except ReadError as exc:  # not cached: the file may come back
            return exc

    async def _aread(self, meta: SkillMetadata) -> SkillDocument | ReadError:
        doc = self._cached(meta)
        if doc is not None:
            return doc
        try:
            return self._remember(meta, await self.toolkit.library.aread_document(meta))
        except ReadError as exc:
            return exc

    def _remember(self, meta: SkillMetadata, doc: SkillDocument) -> SkillDocument:
        with self._lock:
            self._docs[meta] = doc
            while len(self._docs) > self.cache_size:
                self._docs.popitem(last=False)
        return doc


__all__ = ["DEFAULT_CACHE_SIZE", "Reinjection"]
