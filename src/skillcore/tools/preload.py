"""Configured skills: ``default_skills`` (loaded when a conversation starts) and
``pinned_skills`` (loaded on every turn, never unloaded by the model).

The rule is the pure :meth:`SkillSession.ensure_loaded`; this is its I/O shell: it reads the
documents the transition needs (cached, since some adapters apply it on every model call) and
reports what it did as structured events. Adapters call it at turn start through
:meth:`SkillToolkit.ensure`.

A run may also ask for skills to be loaded now (``load=``: LangChain's ``skillcore_load``
input, ADK's ``skillcore:load`` state, the OpenAI ``load=`` arguments): the same transition
with the model's own rules (no eviction), so a request can load only what the model could
load itself. :func:`requested_names` bounds and validates such a value.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterable, Mapping
from typing import cast

from skillcore import events
from skillcore._recent import Recent
from skillcore.codes import OutcomeCode
from skillcore.library import SkillLibrary
from skillcore.model import Catalog, SkillDocument, SkillMetadata
from skillcore.parse import MAX_NAME_USABLE
from skillcore.sources import ReadError
from skillcore.state import LoadRequest, Outcome, SkillSession
from skillcore.tools import calls

#: At most this many names in one run's load request (a longer request is ignored whole).
MAX_REQUESTED = 32


def requested_names(value: object) -> tuple[str, ...]:
    """The skill names of a run's load request (``skillcore_load``, ``skillcore:load``,
    ``load=``): a list or tuple of at most :data:`MAX_REQUESTED` names, each a non-empty
    string of at most ``MAX_NAME_USABLE`` characters; a single name given as a string is one
    name. ``None`` or empty is no request; anything else is ignored whole with a
    ``load_request.ignored`` event and a :class:`UserWarning` (never raises): the value may
    come from a user or from state a tool wrote."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        # ``"release-notes"`` for ``["release-notes"]``: the obvious meaning, not a reason
        # to drop the request (nor to take it letter by letter).
        value = [value]
    problem: str | None = None
    if not isinstance(value, list | tuple):
        problem = f"expected a list of skill names, got {type(value).__name__}"
    elif len(value) > MAX_REQUESTED:
        problem = f"{len(value)} names requested; at most {MAX_REQUESTED} are accepted"
    elif not all(isinstance(n, str) and 0 < len(n) <= MAX_NAME_USABLE for n in value):
        problem = f"every entry must be a skill name of 1 to {MAX_NAME_USABLE} characters"
    if problem is not None:
        events.emit("load_request.ignored", {"detail": problem})
        # Also through ``warnings``: the event alone is silent until logging is set up.
        warnings.warn(f"skill load request ignored: {problem}", UserWarning, stacklevel=2)
        return ()
    # The checks above made ``value`` a list or tuple of names; mypy cannot follow all().
    return tuple(dict.fromkeys(cast("list[str] | tuple[str, ...]", value)))


class Preload:
    """The configured skills of one toolkit. Thread-safe."""

    def __init__(
        self,
        library: SkillLibrary,
        default_skills: Iterable[str] = (),
        pinned_skills: Iterable[str] = (),
    ) -> None:
        self.library = library
        self.default_skills: tuple[str, ...] = tuple(dict.fromkeys(default_skills))
        self.pinned_skills: tuple[str, ...] = tuple(dict.fromkeys(pinned_skills))
        #: Names of the configured skills (default and pinned).
        self.preset = frozenset((*self.default_skills, *self.pinned_skills))
        # Re-read documents of the configured skills (a few spare for changed files).
        self._docs: Recent[SkillMetadata, SkillDocument] = Recent(
            lambda: max(8, 2 * len(self.preset))
        )
        self._lock = threading.Lock()
        self._skipped: tuple[Catalog | None, set[tuple[str, OutcomeCode]]] = (None, set())

    def names(self, fresh: bool) -> tuple[str, ...]:
        """What :meth:`ensure` loads: the pinned skills, then (``fresh``: the conversation
        has no saved state yet) the default skills."""
        return tuple(dict.fromkeys(self.pinned_skills + (self.default_skills if fresh else ())))

    def ensure(
        self, session: SkillSession, *, fresh: bool = False, load: object = None
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        """Load the pinned skills that are not loaded and, when ``fresh`` (a new
        conversation), the default skills (:meth:`SkillSession.ensure_loaded`). Names that
        cannot be loaded are skipped and reported once per catalog (``preload.skipped``);
        never raises for them. Then ``load``, the run's request (:func:`requested_names`),
        under the model's rules: each refusal is reported (``load_request.skipped``).
        Returns the same session when nothing changes."""
        names = self.names(fresh)
        if names and not all(session.is_loaded(n) for n in names):
            docs = {n: self._doc(session, n) for n in session.to_ensure(names)}
            session, outcomes = self._ensured(session, names, docs)
        else:
            outcomes = ()  # the usual case, on every turn: nothing to do
        requested = requested_names(load)
        if not requested:
            return session, outcomes
        docs = {n: self._doc(session, n) for n in session.to_ensure(requested)}
        session, more = self._requested(session, requested, docs)
        return session, outcomes + more

    async def aensure(
        self, session: SkillSession, *, fresh: bool = False, load: object = None
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        """Async :meth:`ensure` (documents are read without blocking the event loop)."""
        names = self.names(fresh)
        if names and not all(session.is_loaded(n) for n in names):
            docs = {n: await self._adoc(session, n) for n in session.to_ensure(names)}
            session, outcomes = self._ensured(session, names, docs)
        else:
            outcomes = ()
        requested = requested_names(load)
        if not requested:
            return session, outcomes
        docs = {n: await self._adoc(session, n) for n in session.to_ensure(requested)}
        session, more = self._requested(session, requested, docs)
        return session, outcomes + more

    def check(self, catalog: Catalog) -> tuple[Outcome, ...]:
        """The configured skills ``catalog`` cannot provide (``SKILL_NOT_FOUND``, ``DISABLED``),
        reported as ``preload.skipped`` warnings (once per catalog, shared with :meth:`ensure`):
        adapters call it when they are built over an already discovered library."""
        session = SkillSession(catalog)
        names = tuple(dict.fromkeys((*self.pinned_skills, *self.default_skills)))
        refused = (OutcomeCode.SKILL_NOT_FOUND, OutcomeCode.DISABLED)
        outcomes = tuple(o for o in session.ensure_loaded(names, {})[1] if o.code in refused)
        self._report(session, outcomes)
        return outcomes

    def _ensured(
        self,
        session: SkillSession,
        names: tuple[str, ...],
        docs: Mapping[str, SkillDocument | ReadError],
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        new, outcomes = _apply(session, names, docs, self.pinned_skills)
        self._report(new, outcomes)
        return new, outcomes

    def _requested(
        self,
        session: SkillSession,
        names: tuple[str, ...],
        docs: Mapping[str, SkillDocument | ReadError],
    ) -> tuple[SkillSession, tuple[Outcome, ...]]:
        # pinned=(): a request never evicts (the model's load_skill rule); over-limit names
        # are refused and reported, like the model's own extra loads.
        new, outcomes = _apply(session, names, docs, ())
        for o in outcomes:
            if o.code is OutcomeCode.LOADED:
                fields = {"skill": o.skill, "pinned": False, "loaded": new.loaded_names}
                events.emit("skill.preloaded", fields)
            else:  # every time: each request is the user's, not configuration
                fields = {"skill": o.skill, "code": o.code.value, "detail": o.message}
                events.emit("load_request.skipped", fields)
        return new, outcomes

    def _report(self, session: SkillSession, outcomes: tuple[Outcome, ...]) -> None:
        catalog, skipped = self._skipped
        if catalog is not session.catalog:
            skipped = set()
            self._skipped = (session.catalog, skipped)
        for o in outcomes:
            if o.code is OutcomeCode.LOADED:
                fields = {"skill": o.skill, "pinned": o.skill in self.pinned_skills}
                events.emit("skill.preloaded", {**fields, "loaded": session.loaded_names})
            elif o.code is OutcomeCode.UNLOADED:
                events.emit("skill.unloaded", {"skill": o.skill, "loaded": session.loaded_names})
            elif (o.skill or "", o.code) not in skipped:  # once per catalog, not every turn
                skipped.add((o.skill or "", o.code))
                fields = {"skill": o.skill, "code": o.code.value, "detail": o.message}
                events.emit("preload.skipped", fields)

    def _cached(self, session: SkillSession, name: str) -> SkillDocument | None:
        meta = session.catalog.get(name)
        with self._lock:
            return self._docs.get(meta) if meta is not None else None

    def _keep(self, data: calls.Data) -> SkillDocument | ReadError:
        if isinstance(data, SkillDocument):
            with self._lock:
                self._docs.set(data.metadata, data)
            return data
        if isinstance(data, ReadError):
            return data
        return ReadError(OutcomeCode.READ_FAILED, "the document could not be read")

    def _doc(self, session: SkillSession, name: str) -> SkillDocument | ReadError:
        # Cached: adapters whose turn-start state is not persisted until a tool call writes
        # (ADK) apply this on every model call.
        cached = self._cached(session, name)
        if cached is not None:
            return cached
        return self._keep(calls.read(self.library, LoadRequest(name), session))

    async def _adoc(self, session: SkillSession, name: str) -> SkillDocument | ReadError:
        cached = self._cached(session, name)
        if cached is not None:
            return cached
        return self._keep(await calls.aread(self.library, LoadRequest(name), session))


def _apply(
    session: SkillSession,
    names: tuple[str, ...],
    docs: Mapping[str, SkillDocument | ReadError],
    pinned: tuple[str, ...],
) -> tuple[SkillSession, tuple[Outcome, ...]]:
    """:meth:`SkillSession.ensure_loaded` over the documents that were read; a name whose
    read failed gets its read error as its outcome."""
    read = {n: d for n, d in docs.items() if isinstance(d, SkillDocument)}
    new, outcomes = session.ensure_loaded(names, read, pinned=pinned)
    failed = {n: d for n, d in docs.items() if isinstance(d, ReadError)}
    return new, tuple(
        session.fail_load(o.skill, failed[o.skill].code, failed[o.skill].message)
        if o.skill in failed
        else o
        for o in outcomes
    )


__all__ = ["MAX_REQUESTED", "Preload", "requested_names"]
