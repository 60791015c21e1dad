"""What :class:`~skillcore_openai.agents_sdk.AgentSkills` puts in the model's instructions and
input: the skill catalog of the run's session, the instructions of loaded skills whose load
reply the model input lost (sent again), and the per-request suggestion notes."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from skillcore import SkillSession
from skillcore.runtime import Reinjection, load_replies, require
from skillcore_openai._agents_state import SkillConversation
from skillcore_openai.calls import calls_of
from skillcore_openai.functions import _replies_of, latest_user_text, with_notes

require("agents", "agents", "skillcore_openai.agents_sdk (OpenAI Agents SDK tools)")

from agents import RunContextWrapper  # noqa: E402 - after the friendly dependency check
from agents.run import CallModelData, ModelInputData  # noqa: E402

from skillcore_openai._agents_guard import _TurnHooks  # noqa: E402 - needs the SDK
from skillcore_openai._agents_turns import TurnOrder  # noqa: E402

if TYPE_CHECKING:
    from agents import AgentBase

__all__ = ["AgentInstructions", "Instructions"]

#: Your part of the instructions: a string, or an instructions function of the Agents SDK.
Instructions = str | Callable[[RunContextWrapper[Any], Any], "str | Awaitable[str]"]


class AgentInstructions(TurnOrder):
    """The instructions part of :class:`~skillcore_openai.agents_sdk.AgentSkills` (which sets
    ``reinjection``)."""

    reinjection: Reinjection

    def input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """A ``RunConfig(call_model_input_filter=...)``: the "skills that may fit this
        request" note after each user message of the model input (never in the
        instructions, so their prefix stays cacheable). Nothing is stored in the run."""
        note_for = partial(self.toolkit.suggestion_note, self.toolkit.library.catalog)
        given = data.model_data
        return ModelInputData(
            input=with_notes(given.input, note_for), instructions=given.instructions
        )

    def instructions(
        self, base: Instructions = ""
    ) -> Callable[[RunContextWrapper[Any], AgentBase[Any]], Awaitable[str]]:
        """Dynamic ``instructions=`` for an Agent: ``base`` (a string or an instructions
        function) followed by the skill catalog of the run's session."""

        async def render(ctx: RunContextWrapper[Any], agent: AgentBase[Any]) -> str:
            text = base(ctx, agent) if callable(base) else base
            if inspect.isawaitable(text):
                text = await text
            # The run's input (``turn_input``, set before each model call) holds the user
            # message; with catalog_order="relevance" the catalog is ranked for it.
            turn_input = getattr(ctx, "turn_input", None)
            query = latest_user_text(turn_input)
            state = self.state_for(ctx)
            session = await self._turn_start(state, ctx)
            catalog = self.toolkit.instructions(session, query=query)
            if catalog:
                catalog += await self._lost(ctx, agent, session, state, turn_input)
            hooks = self.toolkit.hooks.context(state.hook_key)  # hook text, said once
            parts = (str(text or "").rstrip(), catalog, hooks)
            return "\n\n".join(part for part in parts if part)

        return render

    async def _lost(
        self,
        ctx: RunContextWrapper[Any],
        agent: AgentBase[Any],
        session: SkillSession,
        state: SkillConversation,
        turn_input: Iterable[Any] | None,
    ) -> str:
        """The instructions of loaded skills whose load reply the model input lacks ("" when
        none): the run's input holds the earlier replies, the hooks of ``guard_agent``
        know this run's own load calls. Without those hooks, or when the server keeps the
        conversation (its input holds only new items), only the configured and requested
        skills' (no tool reply delivered them) are repeated."""
        items = list(turn_input or ())
        seen = session.delivered(load_replies(items, _replies_of, calls_of, session.names.load))
        only: frozenset[str] | None = None
        if isinstance(getattr(agent, "hooks", None), _TurnHooks) and not self._kept(state):
            with self._lock:
                run = self._runs.get(ctx)
                ours = tuple(run.loads) if run is not None else ()
            deliveries = session.deliveries
            seen |= {deliveries[c] for c in ours if c in deliveries}
        else:
            only = self.toolkit.preset | state.requested
        missing = self.reinjection.missing(session, seen, only=only)
        return "\n\n" + await self.reinjection.atext(session, missing) if missing else ""
