"""What a session's transitions return: a refusal or result (:class:`Outcome`: a stable code,
the skill and the facts behind it), or a request for the I/O shell to read a document or a
file first. Outcomes carry no prose: their ``message`` is worded by :mod:`skillcore.outcome_texts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from skillcore._frozen import FrozenDict
from skillcore.codes import Coded, OutcomeCode
from skillcore.outcome_texts import outcome_text

#: The facts of an outcome whose text needs none (shared: most outcomes have none).
_NO_FACTS: FrozenDict[str, Any] = FrozenDict()


def _facts(value: Mapping[str, Any] | None) -> FrozenDict[str, Any]:
    if isinstance(value, FrozenDict):
        return value
    return FrozenDict(value) if value else _NO_FACTS


@attrs.frozen
class Outcome(Coded):
    """What a transition did: ``code`` (stable; ``ok`` is False for refusals and failures),
    the ``skill`` it was about, and the ``facts`` its message is worded from (names, counts,
    tools; see :data:`skillcore.outcome_texts.OUTCOME_TEXTS`)."""

    code: OutcomeCode
    skill: str | None = None
    facts: FrozenDict[str, Any] = attrs.field(default=_NO_FACTS, converter=_facts)
    #: Which text words it, for a code with more than one (empty: the code's own).
    text_id: str = ""

    @property
    def message(self) -> str:
        """What happened and what to do next, written for the model."""
        return outcome_text(self.text_id or self.code.value, self.skill or "", self.facts)


@attrs.frozen
class LoadRequest:
    """Phase one of a load accepted: the shell should read this skill's document."""

    name: str
    #: The skill is loaded but its instructions are gone from what the model sees: send the
    #: body again (:attr:`OutcomeCode.REDELIVERED`) instead of loading.
    redeliver: bool = False
    #: The agent's tool names, when the adapter knows them (see
    #: :meth:`SkillSession.missing_tools`); None skips the check.
    available: frozenset[str] | None = None
    #: Asked for by the user's own invocation (``/name``), under the user's rules.
    by_user: bool = False


@attrs.frozen
class ResourceRequest:
    """Phase one of a resource read accepted: the shell should read ``path`` of ``name``."""

    name: str
    path: str
    #: Read one page of the file from this character offset (None: the whole file).
    offset: int | None = None


@attrs.frozen
class ScriptRequestPlan:
    """Phase one of a script run accepted by the session (loaded, path, trust, policy): the
    shell checks the file is listed, reads the skill's files, asks for approval and runs."""

    name: str
    script: str
    args: tuple[str, ...] = ()
    stdin: str | None = None
    #: What allowed the run (the policy decision's reason), for events.
    allowed_by: str = ""


__all__ = ["LoadRequest", "Outcome", "ResourceRequest", "ScriptRequestPlan"]
