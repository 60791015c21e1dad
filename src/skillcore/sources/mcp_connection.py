"""A client connection to an MCP server, held open in a private event-loop thread so that
sync and async callers in any thread can use it; reconnected when it dies. The MCP client is
imported on first connection."""

from __future__ import annotations

import threading
import weakref
from typing import Any

from pydantic import TypeAdapter

from skillcore._escaping import describe, root_cause
from skillcore.sources.errors import SourceUnavailable

_ANY = TypeAdapter(dict[str, Any])


class McpConnection:
    """One client connection held open in a private event-loop thread (so sync and async
    callers in any thread can use it); reconnected when it dies."""

    def __init__(self, target: Any, mode: str, timeout: float) -> None:
        self.target, self.mode, self.timeout = target, mode, timeout
        self._lock = threading.Lock()
        self._portal_cm: Any = None
        self._portal: Any = None
        self._client: Any = None
        self._task: Any = None
        self._stop: Any = None
        weakref.finalize(self, McpConnection._shutdown, self.__dict__)

    @staticmethod
    def _shutdown(state: dict[str, Any]) -> None:
        portal, stop, cm = state.get("_portal"), state.get("_stop"), state.get("_portal_cm")
        try:
            if portal is not None and stop is not None:
                portal.call(stop.set)
            if cm is not None:
                cm.__exit__(None, None, None)
        except Exception:
            pass

    def close(self) -> None:
        """Disconnect and stop the thread."""
        with self._lock:
            McpConnection._shutdown(self.__dict__)
            self._portal_cm = self._portal = self._client = self._task = self._stop = None

    async def _own(self, task_status: Any) -> None:
        import math

        import anyio
        from mcp import Client

        self._stop = anyio.Event()
        # Connecting is bounded as a whole: in ``auto`` mode the client may probe, restart
        # the server and try again, each with its own timeout (14 s for timeout=2). Two
        # requests' time (a probe and the handshake) and a second; then the bound is lifted.
        with anyio.fail_after(2 * self.timeout + 1) as scope:
            async with Client(self.target, mode=self.mode, read_timeout_seconds=self.timeout) as c:
                scope.deadline = math.inf
                task_status.started(c)
                await self._stop.wait()

    def _connect(self) -> Any:
        from anyio.from_thread import start_blocking_portal

        if self._portal is None:
            self._portal_cm = start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
        if self._task is None or self._task.done():
            self._task, self._client = self._portal.start_task(self._own)
        return self._client

    def request(self, build: Any, seconds: float | None = None) -> dict[str, Any]:
        """Send a request (``build()`` makes it) and return the raw result, waiting at most
        ``seconds`` (None: the per-request timeout only). Raises SourceUnavailable when the
        server cannot be reached or does not answer in time."""
        with self._lock:
            try:
                client = self._connect()
                return self._portal.call(  # type: ignore[no-any-return]
                    _within, seconds, client.session.send_request, build(), _ANY
                )
            except Exception as exc:
                if self._task is not None and not self._task.done():
                    self._portal.call(self._stop.set)
                self._task = None
                raise SourceUnavailable(_describe(exc)) from exc

    def read(self, uri: str) -> Any:
        """``resources/read`` of ``uri``."""
        with self._lock:
            try:
                client = self._connect()
                return self._portal.call(client.read_resource, uri)
            except Exception as exc:
                if isinstance(exc, _mcp_error()):
                    raise
                self._task = None
                raise SourceUnavailable(_describe(exc)) from exc

    def capabilities(self) -> Any:
        """The server's capabilities. Raises SourceUnavailable when it cannot be reached."""
        with self._lock:
            try:
                return self._connect().server_capabilities
            except Exception as exc:
                self._task = None
                raise SourceUnavailable(_describe(exc)) from exc


async def _within(seconds: float | None, call: Any, *args: Any) -> Any:
    import anyio

    if seconds is None:
        return await call(*args)
    with anyio.fail_after(max(seconds, 0.0)):
        return await call(*args)


def _mcp_error() -> type[Exception]:
    from mcp.shared.exceptions import MCPError

    return MCPError


def _describe(exc: BaseException) -> str:
    cause = root_cause(exc)  # an exception group says nothing: name its first cause
    if isinstance(cause, TimeoutError) and not str(cause):
        return "the MCP server cannot be reached or failed: it did not answer in time (timed out)"
    return f"the MCP server cannot be reached or failed ({describe(cause)})"
