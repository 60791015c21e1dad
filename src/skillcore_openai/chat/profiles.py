"""``ProfiledOpenAISkills``: several skill profiles for a custom OpenAI agent loop, one
selected per run.

Translation only: the profiles and the selection rule are :class:`skillcore.SkillProfiles`;
each profile is a complete :class:`OpenAISkills` built once, whose saved conversation states
are kept apart from the other profiles' (:class:`skillcore.runtime.profiles.ProfileStateStore`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from skillcore import (
    MemoryStateStore,
    ProfileChoice,
    SkillConfig,
    SkillLibrary,
    SkillProfiles,
    SkillSession,
    StateStore,
)
from skillcore.runtime import DEFAULT_CONTEXT_KEY, ProfileStateStore, Sources, read_selector
from skillcore_openai.chat.dispatcher import Handler, OnHandlerError, OpenAISkills

__all__ = ["ProfiledOpenAISkills"]


class ProfiledOpenAISkills:
    """Skills for a custom OpenAI loop serving several profiles (tenants)::

        skills = ProfiledOpenAISkills({"acme": "./skills/acme", "beta": "./skills/beta"})
        run = skills.for_run(tenant)          # tenant: from your own (trusted) request data
        session = run.load(conversation_id)
        ... run.instructions(session), run.chat_tools(session), run.dispatch_all(...)
        run.save(conversation_id, session)

    ``for_run`` returns the selected profile's :class:`OpenAISkills`; a missing selection gets
    ``default`` (or no skills), an unknown or malformed one no skills (an :class:`OpenAISkills`
    over an empty catalog: no catalog, no skill tools, and a skill call is ``SKILL_NOT_FOUND``).
    Use one profile's object for a whole run: its sessions belong to its catalog.
    """

    def __init__(
        self,
        profiles: Mapping[str, Any],
        skills: Sources | None = None,
        config: SkillConfig | None = None,
        *,
        default: str | None = None,
        select: str | Callable[[Any], object] = DEFAULT_CONTEXT_KEY,
        handlers: Mapping[str, Handler] | None = None,
        strict: bool = True,
        states: StateStore | None = None,
        on_handler_error: OnHandlerError = "reply",
        tools: Iterable[Mapping[str, Any]] = (),
        **options: Any,
    ) -> None:
        """``profiles``: name -> a :class:`~skillcore.SkillConfig` (over ``skills``), skill
        sources (with ``config``, or its fields as ``options``), or ``(sources, config)``.
        ``states`` is shared by the profiles, each under its own keys. The other arguments are
        :class:`OpenAISkills`' (``tools``, skill-gated tools, are in every profile, unlocked
        only by a skill of the run's own profile); ``select`` is for :meth:`for_context`."""
        store: StateStore = states if states is not None else MemoryStateStore()
        base = SkillConfig.build(config, **options)
        gated = [dict(t) for t in tools]

        def make(name: str | None, library: SkillLibrary, cfg: SkillConfig) -> OpenAISkills:
            return OpenAISkills(
                library,
                cfg,
                handlers=handlers,
                strict=strict,
                states=ProfileStateStore(store, name),
                on_handler_error=on_handler_error,
                tools=gated,
            )

        self.profiles: SkillProfiles[OpenAISkills] = SkillProfiles(
            profiles, make, sources=skills, config=base, default=default
        )
        self.select = select

    def choose(self, profile: object) -> ProfileChoice[OpenAISkills]:
        """The selection for a run whose profile is ``profile`` (a name, or None for none)."""
        return self.profiles.select(profile)

    def for_run(self, profile: object) -> OpenAISkills:
        """The :class:`OpenAISkills` of the profile named ``profile`` (see the class docs)."""
        return self.choose(profile).item

    def for_context(self, context: Any) -> OpenAISkills:
        """:meth:`for_run` with the profile read from ``context`` (its ``select`` key or
        attribute, or ``select(context)``)."""
        return self.for_run(read_selector(context, self.select))

    def session_for(self, conversation_id: str, profile: object) -> SkillSession:
        """The saved session of a conversation in the profile named ``profile`` (see
        :meth:`OpenAISkills.session_for`)."""
        return self.for_run(profile).session_for(conversation_id)
