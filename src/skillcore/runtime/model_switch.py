"""The model of the next model call, as the loaded skills ask for it: the session's
:attr:`~skillcore.SkillSession.model_choice` (the rule: the last loaded skill naming a model
wins) turned into the framework's model by the user's resolver. Adapters only translate the
result (LangChain's request override, ADK's ``LlmRequest.model``, the dispatcher's report,
the Agents SDK's ``RunConfig``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from skillcore._escaping import single_line
from skillcore.state import SkillSession

#: What the user gives as ``SkillConfig.model_resolver``: skill model names (``haiku``,
#: ``gpt-5-mini``) -> the framework's model (a model object, or a name where the framework
#: takes names), as a mapping or a callable returning None for a name it does not know.
ModelResolver = Mapping[str, Any] | Callable[[str], Any]

#: Claude Code's ``effort`` levels -> OpenAI's ``reasoning_effort`` values.
OPENAI_EFFORT = {"low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}
#: Most (skill, model) pairs warned about once each; past it nothing more is remembered.
MAX_MODEL_WARNINGS = 256


@attrs.frozen
class ModelOverride:
    """The model call's model and effort while the loaded skills ask for them.

    ``model``: the resolved framework model of the last loaded skill naming one the
    resolver knows (None: keep the agent's own); ``name`` and ``skill``: the name as that
    skill wrote it and which skill (None when ``model`` is None). ``effort``: the effort
    level the last loaded skill naming one asks for (Claude Code's levels), ``effort_skill``
    which skill."""

    model: Any = None
    name: str | None = None
    skill: str | None = None
    effort: str | None = None
    effort_skill: str | None = None

    @property
    def reasoning_effort(self) -> str | None:
        """``effort`` as OpenAI's ``reasoning_effort`` (None: no skill asks for one)."""
        return None if self.effort is None else OPENAI_EFFORT.get(self.effort)


def unknown_model_message(skill: str, name: str) -> str:
    """The warning for a skill naming a model the resolver does not know."""
    return (
        f"skill {single_line(skill)!r} asks for model {single_line(name)[:200]!r}, which the "
        "model_resolver does not know; the current model is kept (add the name to "
        "model_resolver to switch to it)"
    )


class ModelSwitch:
    """Resolves the loaded skills' model for each model call, warning once per unknown
    (skill, name). ``resolver`` None: skills never switch the model (``effort`` is still
    reported)."""

    def __init__(self, resolver: ModelResolver | None) -> None:
        if resolver is not None and not isinstance(resolver, Mapping) and not callable(resolver):
            raise TypeError(
                f"model_resolver must be a mapping or a callable, got {type(resolver).__name__}"
            )
        self.resolver = resolver
        self._warned: set[tuple[str, str]] = set()

    def choose(self, session: SkillSession) -> ModelOverride:
        """What the next model call of ``session``'s conversation uses."""
        choice = session.model_choice
        # The last loaded skill naming a model the resolver knows: an unknown name keeps the
        # model in use before its skill was loaded.
        for skill, name in reversed(choice.models):
            model = self._resolve(skill, name)
            if model is not None:
                return ModelOverride(model, name, skill, choice.effort, choice.effort_skill)
        return ModelOverride(None, None, None, choice.effort, choice.effort_skill)

    def _resolve(self, skill: str, name: str) -> Any:
        resolver = self.resolver
        if resolver is None:
            return None
        try:
            model = resolver.get(name) if isinstance(resolver, Mapping) else resolver(name)
        except Exception:  # a failing resolver keeps the current model (the warning says so)
            model = None
        if model is None:
            self._warn(skill, name)
        return model

    def _warn(self, skill: str, name: str) -> None:
        key = (skill, name)
        if key in self._warned or len(self._warned) >= MAX_MODEL_WARNINGS:
            return
        self._warned.add(key)
        warnings.warn(unknown_model_message(skill, name), UserWarning, stacklevel=4)


__all__ = [
    "MAX_MODEL_WARNINGS",
    "OPENAI_EFFORT",
    "ModelOverride",
    "ModelResolver",
    "ModelSwitch",
    "unknown_model_message",
]
