"""The runner tests and the conformance suite use: the local runner
(:class:`~skillcore.runner.LocalRunner`, without namespaces, so a run starts quickly), which
records every request it ran so a test can tell what ran. ``level`` caps the isolation it
reports (a test of a configuration that asks for more than a runner gives); a run's result
never reports more than the local runner gave."""

from __future__ import annotations

import attrs

from skillcore.runner import (
    Isolation,
    IsolationUnavailable,
    LocalRunner,
    ScriptRequest,
    ScriptResult,
    ScriptRunner,
)


class RecordingRunner:
    """A :class:`~skillcore.runner.ScriptRunner` over the local runner that records requests."""

    def __init__(
        self, level: Isolation = Isolation.PROCESS, inner: ScriptRunner | None = None
    ) -> None:
        self.inner: ScriptRunner = inner if inner is not None else LocalRunner(namespaces=False)
        self.level = min(level, self.inner.isolation())
        #: The requests run so far, in order.
        self.requests: list[ScriptRequest] = []

    def isolation(self) -> Isolation:
        """The isolation reported: at most ``level``, at most what the local runner gives."""
        return self.level

    def _accept(self, request: ScriptRequest) -> ScriptRequest:
        if request.require > self.level:
            raise IsolationUnavailable(
                f"{request.require.name} isolation is required; this runner gives {self.level.name}"
            )
        self.requests.append(request)
        return request

    def _reported(self, result: ScriptResult) -> ScriptResult:
        return attrs.evolve(result, isolation=min(result.isolation, self.level))

    def run(self, request: ScriptRequest) -> ScriptResult:
        """Run ``request`` through the local runner."""
        return self._reported(self.inner.run(self._accept(request)))

    async def arun(self, request: ScriptRequest) -> ScriptResult:
        """Async :meth:`run`."""
        return self._reported(await self.inner.arun(self._accept(request)))


__all__ = ["RecordingRunner"]
