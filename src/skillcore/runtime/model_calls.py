"""What every adapter adds to a model call: the catalog, the instructions of loaded skills
whose load reply the request no longer holds, and the per-message suggestion note.

The adapters read their framework's request (its history, the latest user message) and
write the result back into it; the rules of what goes in live here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import partial

from skillcore.state import SkillSession
from skillcore.tools import DeliveryIndex, Reinjection, SkillToolkit


class ModelCalls:
    """The skill text of each model call, over one adapter's toolkit (thread-safe)."""

    def __init__(self, toolkit: SkillToolkit) -> None:
        self.toolkit = toolkit
        #: Renders the instructions a conversation lost (documents re-read are cached).
        self.reinjection = Reinjection(toolkit)
        #: Where each conversation's load replies sit in its history (delivery by call id).
        self.deliveries = DeliveryIndex()

    def instructions(
        self,
        session: SkillSession,
        seen: Collection[str],
        *,
        query: str | None,
        extra: str = "",
    ) -> str:
        """The skill text of the system prompt ("" when there are no skills): the catalog
        (ranked for ``query``, the latest user message), ``extra``, then the instructions of
        loaded skills not among ``seen``: configured skills, state set by hand, a history
        trimmed or compacted."""
        text = self.toolkit.instructions(session, query=query)
        if not text:
            return ""
        missing = self.reinjection.missing(session, seen)
        return _joined(text, extra, self.reinjection.text(session, missing))

    async def ainstructions(
        self,
        session: SkillSession,
        seen: Collection[str],
        *,
        query: str | None,
        extra: str = "",
    ) -> str:
        """Async :meth:`instructions` (documents are read without blocking the loop)."""
        text = self.toolkit.instructions(session, query=query)
        if not text:
            return ""
        missing = self.reinjection.missing(session, seen)
        return _joined(text, extra, await self.reinjection.atext(session, missing))

    def note_for(self, session: SkillSession) -> Callable[[str | None], str] | None:
        """The suggestion note for a user message's text (None when the note is off, so the
        adapter need not walk the history)."""
        if not self.toolkit.suggestions:
            return None
        return partial(self.toolkit.suggestion_note, session)


def _joined(text: str, extra: str, repeated: str) -> str:
    return f"{text}{extra}\n{repeated}" if repeated else text + extra


__all__ = ["ModelCalls"]
