"""Which loaded skills' instructions the model still sees: proven only by the reply to the
very call recorded as each skill's delivery (never by text a tool output could forge). A part
of :class:`~skillcore.state.transitions.SkillSession`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from skillcore._text import skill_content_marker
from skillcore.state.schema import LoadedSkill


class Deliveries:
    """The delivery queries of a session (see the module docstring)."""

    __slots__ = ()

    if TYPE_CHECKING:
        # Fields and queries of the session class this is mixed into.
        loaded: tuple[LoadedSkill, ...]

        @property
        def loaded_names(self) -> tuple[str, ...]: ...

    @property
    def deliveries(self) -> dict[str, str]:
        """``{call id: skill name}``: the recorded delivery of each loaded skill that has one
        (:attr:`LoadedSkill.delivery`), what :meth:`delivered` looks for."""
        return {s.delivery: s.name for s in self.loaded if s.delivery is not None}

    def delivered(self, replies: Iterable[tuple[str | None, object]]) -> frozenset[str]:
        """The loaded skills whose instructions the model still sees, from the tool replies
        it receives (newest first: the scan stops once all are found), each ``(call id,
        content)`` as the adapter read them from its framework's messages.

        A skill counts only through the reply to the very call recorded as its delivery,
        and only while that reply still opens with its ``<skill_content>`` (a context editor
        may have cleared it): a tool output carrying the same text under any other call id,
        or under none (``None``), proves nothing, since it is not skillcore's answer.
        Adapters pass only replies shown to answer a call of the load tool (models repeat
        call ids: another tool's reply may carry the load's), with the id the framework
        gave that call (see :class:`~skillcore.tools.reinjection.DeliveryIndex`).
        """
        wanted = self.deliveries
        if not wanted:
            return frozenset()
        by_name = {n: skill_content_marker(n) for n in wanted.values()}
        found: set[str] = set()
        for call_id, content in replies:
            owner = wanted.get(call_id) if isinstance(call_id, str) else None
            if owner is None or owner in found:
                continue
            if _head(content).startswith(by_name[owner]):
                found.add(owner)
            if len(found) == len(by_name):
                break
        return frozenset(found)

    def undelivered(self, replies: Iterable[tuple[str | None, object]]) -> frozenset[str]:
        """Loaded skills whose instructions the model does not see (see :meth:`delivered`):
        loading one sends them again (``REDELIVERED``) and adapters repeat them in the
        system prompt."""
        return frozenset(self.loaded_names) - self.delivered(replies)


def _head(content: object) -> str:
    """The text a tool reply opens with: a string, or the first text block of a content
    list (LangChain, OpenAI and Anthropic shapes); "" for anything else."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content:
        block = content[0]
        if isinstance(block, str):
            return block
        if isinstance(block, dict):
            text = block.get("text")
            return text if isinstance(text, str) else ""
        text = getattr(block, "text", None)
        return text if isinstance(text, str) else ""
    return ""


__all__ = ["Deliveries"]
