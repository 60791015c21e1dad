"""The user's own invocation of a skill: a user message ``/name args`` (or Codex's
``$name args``) loads the skill with its arguments, under the user's rules.

The rules live here and in :meth:`SkillSession.user_refusal`, once for every adapter:

- only a message that *starts* with ``/name`` or ``$name`` (then whitespace or its end) is an
  invocation, and only of a skill in the catalog that is not hidden from both the model and
  the user; anything else is ordinary text (a path such as ``/usr/bin`` never matches);
- ``disable-model-invocation`` skills are the user's to load; ``user-invocable: false`` ones
  are refused (``NOT_USER_INVOCABLE``) with a reply for the user;
- the argument text is bounded (:data:`~skillcore.limits.MAX_INVOCATION_ARGUMENTS`, refused
  whole past it) and only ever substituted into the body, once
  (:mod:`skillcore.state.substitution`): it is never read as another invocation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from skillcore.codes import OutcomeCode
from skillcore.limits import MAX_INVOCATION_ARGUMENTS
from skillcore.model import Catalog, SkillDocument, SkillMetadata
from skillcore.state.outcomes import LoadRequest, Outcome
from skillcore.state.substitution import Substituted, argument_names, substitute_arguments
from skillcore.state.transitions import SkillSession

#: The characters that start an invocation: Claude Code's ``/`` and Codex's ``$``.
SIGILS = ("/", "$")
#: The longest name read after the sigil (longer: not an invocation).
_MAX_NAME = 128
_INVOCATION = re.compile(
    r"\s*(?P<sigil>[/$])(?P<name>[A-Za-z0-9][A-Za-z0-9_.:-]{0,"
    + str(_MAX_NAME - 1)
    + r"})(?:\s+(?P<args>.*))?\s*",
    re.DOTALL,
)


@attrs.frozen
class Invocation:
    """A user message read as an invocation: the skill ``name``, the ``arguments`` text as
    typed after it (stripped; "" for none) and the ``sigil`` used."""

    name: str
    arguments: str = ""
    sigil: str = "/"


def user_listed(meta: SkillMetadata) -> bool:
    """Whether the user may invoke (and is shown) ``meta``: ``user-invocable`` (a skill hidden
    from both the model and the user has it false)."""
    return bool(meta.user_invocable)


def user_skills(catalog: Catalog) -> tuple[SkillMetadata, ...]:
    """The skills a user may pick (``/name``), in catalog order: ``user-invocable`` ones."""
    return tuple(m for m in catalog if user_listed(m))


def parse_invocation(message: object, catalog: Catalog) -> Invocation | None:
    """``message`` (a user message's text) read as an invocation of a skill of ``catalog``,
    or None for ordinary text. A skill hidden from both the model and the user is never
    named (the message stays ordinary text); one with ``user-invocable: false`` is (its
    invocation is refused with a reply). Never raises."""
    if not isinstance(message, str) or not message or message.lstrip()[:1] not in SIGILS:
        return None
    match = _INVOCATION.fullmatch(message)
    if match is None:
        return None
    name = match.group("name")
    meta = catalog.get(name)
    if meta is None or (meta.disable_model_invocation and not meta.user_invocable):
        return None
    return Invocation(name, (match.group("args") or "").strip(), match.group("sigil"))


def begin_invoke(
    session: SkillSession, invocation: Invocation, *, available: frozenset[str] | None = None
) -> LoadRequest | Outcome:
    """Phase one of a user invocation: a refusal (unknown or hidden, ``NOT_USER_INVOCABLE``,
    ``ARGUMENTS_TOO_LONG``, over the load limit) or the request for the document. Finish with
    :meth:`SkillSession.finish_load` and ``by_user=True``."""
    size = len(invocation.arguments)
    if size > MAX_INVOCATION_ARGUMENTS:
        facts = {"length": size, "limit": MAX_INVOCATION_ARGUMENTS}
        return Outcome(OutcomeCode.ARGUMENTS_TOO_LONG, invocation.name, facts)
    return session.begin_load(invocation.name, available=available, by_user=True)


def expand(
    document: SkillDocument,
    invocation: Invocation,
    *,
    session_id: str | None = None,
    state: Mapping[str, Any] | None = None,
) -> SkillDocument | Outcome:
    """``document`` with its body expanded for ``invocation`` (arguments, skill directory,
    session id, and ``{var}`` from ``state`` when the skill sets ``adk_inject_state``), or
    ``ARGUMENTS_TOO_LONG`` when the expansion is over its bound."""
    meta = document.metadata
    done: Substituted = substitute_arguments(
        document.body,
        invocation.arguments,
        names=argument_names(meta.extra.get("arguments")),
        skill_dir=meta.location.url,
        session_id=session_id,
        state=state if injects_state(meta) else None,
    )
    if done.overflow:
        facts = {"length": len(invocation.arguments), "limit": MAX_INVOCATION_ARGUMENTS}
        return Outcome(OutcomeCode.ARGUMENTS_TOO_LONG, invocation.name, facts)
    return attrs.evolve(document, body=done.text)


def injects_state(meta: SkillMetadata) -> bool:
    """Whether the skill asks for ``{var}`` substitution from session state (ADK's
    ``metadata.adk_inject_state: true``)."""
    return meta.metadata.get("adk_inject_state", "").strip().lower() == "true"


__all__ = [
    "SIGILS",
    "Invocation",
    "begin_invoke",
    "expand",
    "injects_state",
    "parse_invocation",
    "user_listed",
    "user_skills",
]
