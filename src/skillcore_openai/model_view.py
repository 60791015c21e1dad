"""What the model sees from :class:`~skillcore_openai.OpenAISkills`: the tools it is
offered (skill tools, yours, the gated ones while unlocked), the instructions with the catalog
and any instructions its history lacks, and the per-request suggestion notes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from skillcore import SkillConfig, SkillSession, SkillToolkit, ToolPolicy
from skillcore.runtime import DeliveryIndex, Reinjection
from skillcore_openai.calls import calls_of, parse_call, replies_of
from skillcore_openai.messages import with_notes
from skillcore_openai.schemas import chat_shape, chat_tool, response_shape, response_tool, tool_name

__all__ = ["ModelView"]


class ModelView:
    """The model-facing part of :class:`~skillcore_openai.OpenAISkills` (which sets these
    attributes)."""

    toolkit: SkillToolkit
    config: SkillConfig
    policy: ToolPolicy
    strict: bool
    gated_tools: list[dict[str, Any]]
    handlers: dict[str, Any] | None
    reinjection: Reinjection
    deliveries: DeliveryIndex

    def chat_tools(
        self, session: SkillSession, tools: Iterable[Mapping[str, Any]] = ()
    ) -> list[dict[str, Any]]:
        """``tools=`` entries for Chat Completions: the skill tools (none when there are no
        skills), then ``tools`` (your own, any shape, passed through) and the gated tools,
        each only if the model may be offered it now (see :meth:`offered`)."""
        specs = [chat_tool(s, strict=self.strict) for s in self.toolkit.specs(session)]
        return specs + self.offered(session, tools, chat_shape)

    def response_tools(
        self, session: SkillSession, tools: Iterable[Mapping[str, Any]] = ()
    ) -> list[dict[str, Any]]:
        """``tools=`` entries for the Responses API (as :meth:`chat_tools`)."""
        specs = [response_tool(s, strict=self.strict) for s in self.toolkit.specs(session)]
        return specs + self.offered(session, tools, response_shape)

    def offered(
        self,
        session: SkillSession,
        tools: Iterable[Mapping[str, Any]] = (),
        shape: Callable[[dict[str, Any]], dict[str, Any]] = dict,
    ) -> list[dict[str, Any]]:
        """``tools`` followed by the gated tools (converted by ``shape``), less those the
        model may not be offered now: locked gated tools and, with ``hide_blocked_tools``
        under RESTRICT, tools the loaded skills block. Calls are checked either way."""
        candidates = [dict(t) for t in tools] + [shape(t) for t in self.gated_tools]
        names = [tool_name(t) for t in candidates]
        shown = set(
            session.offered_tools(
                (n for n in names if n is not None), hide_blocked=self.config.hide_blocked_tools
            )
        )
        return [t for t, n in zip(candidates, names) if n is None or n in shown]

    def agent_tools(self) -> frozenset[str] | None:
        """Every tool name the dispatcher can run (skill tools, handlers, gated tools), or
        None when it does not know them (no ``handlers``): what a skill's allowed-tools are
        checked against when it is loaded (``TOOL_NOT_AVAILABLE``)."""
        if self.handlers is None:
            return None
        return frozenset({*self.toolkit.tool_names, *self.handlers, *self.policy.gated_tools})

    def instructions(
        self,
        session: SkillSession,
        base: str = "",
        *,
        budget: int | None = None,
        query: str | None = None,
        history: Any = None,
        conversation: str = "",
    ) -> str:
        """``base`` followed by the skill catalog (just ``base`` when there are no skills).

        ``query``: the latest user message (:func:`latest_user_text` of your messages), which
        orders the catalog when ``catalog_order="relevance"``; pass the same one on every
        model call of a user message and the text stays the same.

        Loaded skills whose load reply is not in ``history`` (the messages/input items the
        model receives) get their instructions appended, as in every adapter; without
        ``history``, those of the configured skills (``default_skills``, ``pinned_skills``),
        which no tool reply delivered.

        ``conversation``: as given to :meth:`dispatch`: the text of the loaded skills'
        hooks waiting for this conversation's next model call is appended (once)."""
        catalog = self.toolkit.instructions(session, budget, query)
        if catalog:
            only = self.toolkit.preset if history is None else None
            seen = self._seen(session, history) if history is not None else frozenset()
            missing = self.reinjection.missing(session, seen, only=only)
            if missing:
                catalog += "\n\n" + self.reinjection.text(session, missing)
        hooks = self.toolkit.hooks.context(conversation)
        return "\n\n".join(part for part in (base.rstrip(), catalog, hooks) if part)

    def _seen(self, session: SkillSession, history: Any) -> frozenset[str]:
        """Loaded skills whose delivery (the reply to the recorded load call id) is in
        ``history``. A history is known by its first item: appending to the same list costs
        only the new items; any other list is read once."""
        items = history if isinstance(history, Sequence) else list(history)
        key = ("history", id(items[0])) if items else ("history", None)
        return self.deliveries.visible(session, items, replies_of, conversation=key, calls=calls_of)

    def _hidden(self, session: SkillSession, history: Any) -> frozenset[str]:
        """Loaded skills whose delivery is not in ``history`` (none when it is not given)."""
        if history is None or not session.loaded:
            return frozenset()
        return frozenset(session.loaded_names) - self._seen(session, history)

    def with_suggestions(self, session: SkillSession, messages: Any) -> Any:
        """Your ``messages`` (Chat Completions) or ``input`` (Responses) with the "skills that
        may fit this request" note after each user message, to send instead of them; yours
        are not changed. The note depends only on the catalog and the message text, so every
        request extends the one before and the prompt cache keeps the whole history."""
        return with_notes(messages, partial(self.toolkit.suggestion_note, session))

    def is_skill_call(self, call: Any) -> bool:
        """True if ``call`` targets one of the skill tools."""
        return self.toolkit.is_skill_tool(parse_call(call).name)
