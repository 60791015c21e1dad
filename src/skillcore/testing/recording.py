"""Recording skillcore's structured events while a check runs."""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any

import attrs

from skillcore.events import EVENTS


@attrs.frozen
class Event:
    """One structured event as logged: its name, logger, level and fields."""

    name: str
    logger: str
    level: int
    fields: dict[str, Any]


class EventRecorder(logging.Handler):
    """Records skillcore's structured events (every level) while used as a context manager::

    with EventRecorder() as rec:
        toolkit.call(session, "load_skill", {"skill_name": "x"})
    assert rec.names() == ["skill.loaded"]
    """

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.events: list[Event] = []
        self._logger = logging.getLogger("skillcore")
        self._level = self._logger.level

    def emit(self, record: logging.LogRecord) -> None:
        """Keep records that carry a ``skillcore_event``."""
        name = getattr(record, "skillcore_event", None)
        if isinstance(name, str) and name in EVENTS:
            fields = {f: getattr(record, f, None) for f in EVENTS[name].fields}
            self.events.append(Event(name, record.name, record.levelno, fields))

    def names(self) -> list[str]:
        """Names of the recorded events, in order."""
        return [e.name for e in self.events]

    def take(self) -> list[Event]:
        """The recorded events, then forget them."""
        out, self.events = self.events, []
        return out

    def __enter__(self) -> EventRecorder:
        self._level = self._logger.level
        self._logger.setLevel(logging.DEBUG)
        self._logger.addHandler(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)
