"""Where one call reads and writes its session: the :class:`SessionStore` protocol, a store
that also saves marks beside the session (:class:`MarkedStore`), and the simplest store, a
session in a box."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from skillcore.state.transitions import SkillSession


@runtime_checkable
class SessionStore(Protocol):
    """Where a call reads and writes its session. ``read`` returns the current session and
    ``write`` replaces it; neither may await (so a read-transition-write is atomic on one
    event loop)."""

    def read(self) -> SkillSession:
        """The current session."""
        ...

    def write(self, session: SkillSession) -> None:
        """Replace the session."""
        ...


class MarkedStore(abc.ABC):
    """A :class:`SessionStore` that can save marks beside the session (an ADK session's
    state): a call placed in its turn writes the turn's revision (``rev``) and the one it
    started from (``parent``) with the session, so a later turn can tell whether it starts
    from the latest state. Nominal (an ABC, not a protocol): a protocol's ``isinstance``
    costs tens of microseconds on every write."""

    @abc.abstractmethod
    def read(self) -> SkillSession:
        """The current session."""

    @abc.abstractmethod
    def write(self, session: SkillSession) -> None:
        """Replace the session."""

    @abc.abstractmethod
    def write_marked(self, session: SkillSession, marks: Mapping[str, Any]) -> None:
        """Replace the session, saving ``marks`` (JSON-native values) with it."""


class SessionRef:
    """The simplest store: one session in a box (what a plain ``SkillSession`` becomes)."""

    __slots__ = ("session",)

    def __init__(self, session: SkillSession) -> None:
        self.session = session

    def read(self) -> SkillSession:
        """The current session."""
        return self.session

    def write(self, session: SkillSession) -> None:
        """Replace the session."""
        self.session = session


def as_store(target: SkillSession | SessionStore) -> SessionStore:
    """``target`` as a store (a session is boxed in a :class:`SessionRef`)."""
    return SessionRef(target) if isinstance(target, SkillSession) else target
