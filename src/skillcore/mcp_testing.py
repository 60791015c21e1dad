"""The conformance driver of the MCP server: :mod:`skillcore.testing` through a real MCP
SDK ``Client`` connected in-process to :class:`~skillcore.apps.mcp_server.SkillMCPServer`.

Each conversation is one client connection (the server keeps a session per connection);
each turn sends the turn's calls concurrently, as a host running parallel tool calls would.
The server serves the skill tools and the catalog only: the host's own tools, the policy
over them and the per-call prompt are the host's, so the driver declares neither
:attr:`~skillcore.testing.Capability.HOST_TOOLS` nor
:attr:`~skillcore.testing.Capability.CONVERSATION_PROMPT`, and the server never learns which
tool replies a host dropped (no :attr:`~skillcore.testing.Capability.DROP_HISTORY`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import threading
from collections.abc import Awaitable, Coroutine, Sequence
from typing import Any, TypeVar

import mcp_types as types
from mcp import Client

from skillcore.apps import STATE_META_KEY, SkillMCPServer
from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.policy import ToolPolicy
from skillcore.testing import AdapterDriver, Attachment, Call, Capability, Reply
from skillcore.tools import SkillToolkit

__all__ = ["McpServerDriver"]

_T = TypeVar("_T")


class McpServerDriver(AdapterDriver):
    """Runs the conformance checks the MCP server can take part in (see the module docs)."""

    capabilities = frozenset(
        {Capability.CONVERSATIONS, Capability.BINARY_PARTS, Capability.OFFERED_TOOLS}
    )

    def __init__(self) -> None:
        # The client's task groups must be entered and left in one task: a loop of its own
        # in a thread, whose one owner task holds every connection open until close().
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._queue: asyncio.Queue[asyncio.Future[Client] | None] | None = None
        self._owner: asyncio.Future[None] | None = None
        self._clients: dict[str, Client] = {}
        self._tools: list[str] = []

    def _run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        toolkit = SkillToolkit(library, prompt_mode=self.prompt_mode, **self.options)
        self.server = SkillMCPServer(library, toolkit=toolkit, limits=limits, policy=policy)
        self.use_conversation("main")

    async def _hold(self, opened: asyncio.Queue[asyncio.Future[Client] | None]) -> None:
        """The owner task: opens each connection asked for, closes them all at the end."""
        async with contextlib.AsyncExitStack() as stack:
            while (wanted := await opened.get()) is not None:
                try:
                    # Legacy mode: a session per connection, where the server keeps state.
                    client = Client(self.server.server, mode="legacy")
                    wanted.set_result(await stack.enter_async_context(client))
                except Exception as exc:  # reported to the caller waiting on it
                    wanted.set_exception(exc)

    async def _connect(self) -> Client:
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._owner = asyncio.ensure_future(self._hold(self._queue))
        wanted: asyncio.Future[Client] = self._loop.create_future()
        await self._queue.put(wanted)
        return await wanted

    def use_conversation(self, key: str) -> None:
        self.key = key
        if key not in self._clients:
            self._clients[key] = self._run(self._connect())

    @property
    def client(self) -> Client:
        """The connection of the current conversation."""
        return self._clients[self.key]

    async def _turn(self, calls: Sequence[Call]) -> list[types.CallToolResult]:
        self._tools = [t.name for t in (await self.client.list_tools()).tools]
        pending: list[Awaitable[types.CallToolResult]] = [
            self.client.call_tool(c.tool, dict(c.args)) for c in calls
        ]
        return list(await asyncio.gather(*pending))

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        return [_reply(c.tool, r) for c, r in zip(calls, self._run(self._turn(calls)))]

    def instructions(self) -> str:
        return self.client.instructions or ""

    def offered(self) -> list[str]:
        return list(self._tools)

    def loaded(self) -> list[str]:
        async def names() -> list[str]:
            # Every result carries the connection's state (signed); a search changes none.
            search = self.server.toolkit.names.search
            result = await self.client.call_tool(search, {"query": "", "path": None})
            token = (result.meta or {}).get(STATE_META_KEY)
            session = self.server.state_from_token(token).read()
            return list(session.loaded_names)

        return self._run(names())

    def close(self) -> None:
        if self._queue is not None and self._owner is not None:
            self._run(self._queue.put(None))
            self._run(_wait(self._owner))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


async def _wait(future: asyncio.Future[None]) -> None:
    await future


def _reply(tool: str, result: types.CallToolResult) -> Reply:
    texts: list[str] = []
    parts: list[Attachment] = []
    for item in result.content:
        if isinstance(item, types.TextContent):
            texts.append(item.text)
        elif isinstance(item, types.ImageContent):
            parts.append(Attachment(item.mime_type, base64.b64decode(item.data)))
        elif isinstance(item, types.EmbeddedResource) and isinstance(
            item.resource, types.BlobResourceContents
        ):
            mime = item.resource.mime_type or "application/octet-stream"
            parts.append(Attachment(mime, base64.b64decode(item.resource.blob)))
    return Reply(tool, "\n".join(texts), bool(result.is_error), tuple(parts))
