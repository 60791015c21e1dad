"""Serve a skill library over MCP: the four skill tools, skill files as resources, and the
Skills extension (``io.modelcontextprotocol/skills``: ``skills/list`` and ``skills/get``).

A thin adapter on the official ``mcp`` SDK's low-level ``Server``: every rule lives in
:class:`~skillcore.SkillToolkit` and :class:`~skillcore.SkillSession`; this module only
translates. Each client connection has its own session (never shared). On the stateless
2026-07-28 HTTP exchange, where no connection outlives a request, the conversation's state
travels with the client: every tool result carries a signed state token in its ``_meta``
(:data:`STATE_META_KEY`), and a call that sends it back in its own ``_meta`` is decided
against that state (see :mod:`skillcore.state.token`); a call without one stands alone. A
connection's own session and the tokens it hands out are one state (see ``_state_of_call``).

What the server can enforce is limited to its own tools: the host runs every other tool, so
``allowed-tools`` (RESTRICT) is advisory over MCP. See ``docs/mcp.md``.
"""

from __future__ import annotations

import base64
import logging
import socket
import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import anyio
import attrs

from skillcore._escaping import single_line
from skillcore._recent import Recent
from skillcore.apps.mcp_files import (
    LIST_TTL_MS,
    MAX_CURSOR_DIGITS,
    PAGE_SIZE,
    SKILL_SCHEME,
    GetSkillParams,
    ListSkillsParams,
    digest_of,
    page_start,
    parse_skill_uri,
    skill_uri,
)
from skillcore.codes import OutcomeCode
from skillcore.errors import StateError, require
from skillcore.events import library_logger
from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.model import SkillMetadata
from skillcore.parse import decode_text
from skillcore.policy import ToolPolicy
from skillcore.runtime import OrchestratorCatalog, SkillConfig, touched_paths
from skillcore.sources import (
    MAX_SKILL_BYTES,
    MAX_SKILL_FILES,
    SKILL_FILE,
    SKILLS_EXTENSION,
    ReadError,
    raw_frontmatter,
)
from skillcore.state import SkillSession, StateSigner, restore_session
from skillcore.tools import BinaryPayload, Reinjection, SkillToolkit

require("mcp", "mcp", "The MCP server")

import mcp_types as types  # noqa: E402
from mcp.server.lowlevel.server import NotificationOptions, Server  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from skillcore.apps.mcp_prompts import get_prompt, list_prompts  # noqa: E402

logger = logging.getLogger(__name__)
library_logger(logging)  # the library convention: a NullHandler, the application decides

#: The Skills extension identifier (SEP-2640).
#: The ``_meta`` key of the signed conversation state: in every tool result, and sent back
#: by the client in the ``_meta`` of its next tool call (stateless HTTP keeps no session).
STATE_META_KEY = "io.skillcore/state"
#: The ``_meta`` key of a ``skills/list`` entry's trust tier (trusted, pinned, untrusted).
TIER_META_KEY = "io.skillcore/tier"
#: Client sessions kept at most (least recently used dropped first).
DEFAULT_MAX_SESSIONS = 1024
#: State tokens a connection remembers minting (their signatures), newest last: a token it
#: minted is already part of its state (see :meth:`SkillMCPServer._call_tool`).
MAX_KNOWN_TOKENS = 64
#: Sent to every connected client after a refresh changed the catalog.
_CHANGED: tuple[str, ...] = ("notifications/tools/list_changed",)
_CHANGED += ("notifications/resources/list_changed", "notifications/prompts/list_changed")


def _binary_content(payload: BinaryPayload) -> Any:
    """A binary resource as MCP content: an image, or the file as an embedded blob."""
    if payload.is_image:
        return types.ImageContent(type="image", data=payload.base64(), mime_type=payload.mime_type)
    blob = types.BlobResourceContents(
        uri=skill_uri(payload.skill, payload.path),
        mime_type=payload.mime_type,
        blob=payload.base64(),
    )
    return types.EmbeddedResource(type="resource", resource=blob)


class _Server(Server[Any]):
    """The SDK's server, announcing ``listChanged`` for tools and resources on every
    transport (refreshes send those notifications)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        options = notification_options or NotificationOptions(
            tools_changed=True, resources_changed=True
        )
        # Handshake-era protocol versions have no ``extensions`` capability (the SDK removes
        # it from their replies): the Skills extension is declared under ``experimental``
        # too, where those clients look for it.
        experimental = {**dict(self.extensions), **(experimental_capabilities or {})}
        return super().create_initialization_options(options, experimental, extensions)


class _ClientState:
    """The session of one client connection (a :class:`~skillcore.runtime.SessionStore`), and the
    state tokens it handed out."""

    __slots__ = ("__weakref__", "known", "outbound", "server", "session")

    def __init__(self, server: SkillMCPServer, outbound: Any) -> None:
        self.server = server
        self.session = server.new_session()
        self.outbound = outbound
        self.known: Recent[str, None] = Recent(MAX_KNOWN_TOKENS)

    def knows(self, token: str) -> bool:
        """True when this connection minted (or already adopted) ``token``."""
        return token.rpartition(".")[2] in self.known

    def remember(self, token: str) -> None:
        """Note a token minted or adopted here (its signature; the last few only)."""
        self.known.set(token.rpartition(".")[2], None)

    def read(self) -> SkillSession:
        """The session, rebound to the server's current catalog."""
        catalog, touched = self.server.catalog(), self.server.touched
        if self.session.catalog is not catalog:
            self.session, _dropped = self.session.with_catalog(catalog)
        if self.session.touched_paths != touched:
            self.session = attrs.evolve(self.session, touched_paths=touched)
        return self.session

    def write(self, session: SkillSession) -> None:
        """Replace the session."""
        self.session = session


class SkillMCPServer:
    """An MCP server over a :class:`~skillcore.SkillLibrary`.

    ``SkillMCPServer(SkillLibrary(["./skills"])).run("stdio")``, or mount
    :meth:`streamable_http_app`. ``server`` is the SDK's low-level ``Server`` (connect an
    ``mcp.Client`` to it in-process for tests). ``refresh`` re-scans the sources every that
    many seconds while serving (None: never); a refresh that changes the catalog updates
    the instructions and sends ``notifications/tools/list_changed`` and
    ``notifications/resources/list_changed`` to every connected client that can receive them.
    """

    def __init__(
        self,
        library: SkillLibrary,
        *,
        toolkit: SkillToolkit | None = None,
        limits: Limits | None = None,
        policy: ToolPolicy | None = None,
        name: str = "skillcore",
        budget: int | None = None,
        refresh: float | None = None,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        state_secret: bytes | str | None = None,
        hidden_skills: Iterable[str] = (),
    ) -> None:
        from skillcore import __version__

        self.library = library
        rules = SkillConfig(hidden_skills=hidden_skills).subagent_rules()
        #: What clients see: the library's catalog less ``hidden_skills`` (everywhere).
        self.catalog = OrchestratorCatalog(library, rules)
        #: The paths the work touches (:meth:`touch_paths`), for skills with ``paths:``.
        self.touched: frozenset[str] = frozenset()
        self.toolkit = toolkit or SkillToolkit(library)
        self.limits = limits
        self.policy = policy
        self.budget = budget
        self.refresh_interval = refresh
        self.max_sessions = max_sessions
        #: Signs the state tokens of stateless clients (``state_secret``, bytes or text:
        #: shared by every process of a deployment; None: a random per-process secret).
        self.signer = StateSigner(state_secret)
        # Keyed by the connection's outbound channel (one per client connection); weak, so a
        # closed connection's state goes with it, and capped in number.
        self._states: weakref.WeakKeyDictionary[Any, _ClientState] = weakref.WeakKeyDictionary()
        self._recent: Recent[int, _ClientState] = Recent(lambda: self.max_sessions)
        self.server: Server[Any] = _Server(
            name,
            version=__version__,
            instructions=None,
            lifespan=self._lifespan,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
            on_list_prompts=partial(list_prompts, self),
            on_get_prompt=partial(get_prompt, self),
        )
        self.server.add_request_handler("skills/list", ListSkillsParams, self._skills_list)
        self.server.add_request_handler("skills/get", GetSkillParams, self._skills_get)
        self.server.extensions = {SKILLS_EXTENSION: {}}
        self._catalog = library.catalog
        self.server.instructions = self.instructions()

    # -- sessions --------------------------------------------------------------------------

    def new_session(self) -> SkillSession:
        """A fresh session over the current catalog, with the toolkit's configured skills
        (``default_skills``, ``pinned_skills``) loaded."""
        limits, policy = self.limits or Limits(), self.policy or ToolPolicy()
        session = SkillSession(self.catalog(), limits, policy, (), self.toolkit.names, self.touched)
        return self.toolkit.ensure(session, fresh=True)[0]

    def touch_paths(self, paths: Iterable[str]) -> None:
        """Report the paths the work touches now (replacing the earlier report): a skill with
        ``paths:`` is offered (instructions, search, ``load_skill``) only while one of them
        matches its globs. Applies to every client's next call."""
        self.touched = touched_paths(paths)
        self.server.instructions = self.instructions()

    def state_for(self, ctx: Any) -> _ClientState:
        """The state of the client connection behind a request context. A connection
        without its own channel (stateless HTTP) gets a fresh, unshared state per request."""
        connection = getattr(ctx.session, "_connection", None)
        outbound = getattr(connection, "outbound", None)
        if connection is None or not getattr(connection, "has_standalone_channel", False):
            return _ClientState(self, None)
        state = self._states.get(outbound)
        if state is None:
            state = self._states[outbound] = _ClientState(self, outbound)
        for old in self._recent.set(id(state), state):
            if old.outbound is not None:
                self._states.pop(old.outbound, None)
        return state

    def instructions(self) -> str:
        """The budgeted catalog (what ``initialize`` / ``server/discover`` send as
        instructions); empty with no model-visible skill."""
        session = self.new_session()
        text = self.toolkit.instructions(session, self.budget)
        # The configured skills' instructions: no tool reply delivers them to the client.
        preset = [m for n in session.loaded_names if (m := session.catalog.get(n)) is not None]
        if text and preset:
            text += "\n\n" + Reinjection(self.toolkit).text(session, preset)
        return text

    # -- refresh ---------------------------------------------------------------------------

    async def arefresh(self) -> bool:
        """Re-scan the sources; when the catalog changed, update the instructions and notify
        connected clients. Returns whether it changed."""
        catalog = await self.library.arefresh()
        if catalog is self._catalog:
            return False
        self._catalog = catalog
        self.server.instructions = self.instructions()
        for outbound in list(self._states.keys()):
            for method in _CHANGED:
                try:
                    await outbound.notify(method, None)
                except Exception as exc:  # a client that went away must not stop the others
                    logger.debug("could not notify a client of %s: %s", method, exc)
        return True

    @asynccontextmanager
    async def _lifespan(self, _server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        interval = self.refresh_interval
        if interval is None:
            yield {}
            return
        async with anyio.create_task_group() as tg:

            async def loop() -> None:
                while True:
                    await anyio.sleep(interval)
                    try:
                        await self.arefresh()
                    except Exception:
                        logger.exception("refreshing the skill library failed")

            tg.start_soon(loop)
            try:
                yield {}
            finally:
                tg.cancel_scope.cancel()

    # -- tools -----------------------------------------------------------------------------

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        session = self.new_session()
        tools = [
            types.Tool(name=s.name, description=s.description, input_schema=s.json_schema())
            for s in self.toolkit.specs(session)
        ]
        return types.ListToolsResult(tools=tools, ttl_ms=LIST_TTL_MS, cache_scope="private")

    def session_from_token(self, token: Any) -> SkillSession:
        """The conversation state a client sent back (see :mod:`skillcore.state.token`),
        restored over the current catalog. A token this server did not sign is refused:
        starting afresh instead would silently lift a RESTRICT policy."""
        try:
            saved = self.signer.open(token)
        except StateError as exc:
            raise MCPError(
                types.INVALID_PARAMS,
                f"{exc}; send back the {STATE_META_KEY} value of the last tool result, or "
                "none to start a new conversation",
            ) from None
        catalog = self.catalog()
        names, touched = self.toolkit.names, self.touched
        restored = restore_session(saved, catalog, self.limits, self.policy, names, touched)
        return self.toolkit.ensure(restored.session)[0]

    def state_from_token(self, token: Any) -> _ClientState:
        """A connection-less state holding :meth:`session_from_token`'s session."""
        state = _ClientState(self, None)
        state.session = self.session_from_token(token)
        return state

    async def _state_of_call(self, ctx: Any, params: types.CallToolRequestParams) -> _ClientState:
        """The one state a call is decided against and writes to.

        A connection (stdio, handshake-era HTTP) is its conversation: a token it minted is
        already part of its state; a token from elsewhere (another process with the same
        secret) is checked and becomes the connection's state, so calls with and without
        tokens never see two states. On stateless HTTP the token is the state; without one
        each call stands alone: a resource read first loads its skill (the load that delivered
        the instructions pointing at the file left no trace the server can see).
        """
        token = (ctx.meta or {}).get(STATE_META_KEY)
        state = self.state_for(ctx)
        if token is not None:
            session = self.session_from_token(token)  # refuses what this server did not sign
            if state.outbound is None or not state.knows(token):
                state.session = session
                state.remember(token)
        elif state.outbound is None and params.name == self.toolkit.names.resource:
            skill = (params.arguments or {}).get("skill_name")
            if isinstance(skill, str):
                state.session = (await self.toolkit.aensure(state.session, load=[skill]))[0]
        return state

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        state = await self._state_of_call(ctx, params)
        result = await self.toolkit.acall(state, params.name, dict(params.arguments or {}))
        content: list[Any] = [types.TextContent(type="text", text=result.text)]
        if result.binary is not None:  # a binary resource (the toolkit's binary_resources)
            content.append(_binary_content(result.binary))
        token = self.signer.seal(state.read())
        state.remember(token)
        return types.CallToolResult(
            content=content, is_error=not result.ok, _meta={STATE_META_KEY: token}
        )

    # -- skill files: resources and the Skills extension (SEP-2640) -----------------------

    def _skill(self, name: str) -> SkillMetadata:
        meta = self.catalog().get(name)
        if meta is None or meta.disable_model_invocation:
            raise MCPError(types.INVALID_PARAMS, f"no skill named {name!r} is served here")
        return meta

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        skills = self.catalog().model_visible
        start = page_start(getattr(params, "cursor", None), len(skills))
        page = skills[start : start + PAGE_SIZE]
        resources = [
            types.Resource(
                uri=skill_uri(m.name),
                name=m.name,
                description=single_line(m.description),  # no control or invisible chars
                mime_type="text/markdown",
            )
            for m in page
        ]
        nxt = str(start + PAGE_SIZE) if start + PAGE_SIZE < len(skills) else None
        return types.ListResourcesResult(
            resources=resources, next_cursor=nxt, ttl_ms=LIST_TTL_MS, cache_scope="private"
        )

    async def _list_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            name="skill-file",
            uri_template=f"{SKILL_SCHEME}://{{skill}}/{{+path}}",
            description="A file of a skill: its SKILL.md or a file it lists.",
        )
        return types.ListResourceTemplatesResult(
            resource_templates=[template], ttl_ms=LIST_TTL_MS, cache_scope="private"
        )

    def _read_raw(self, meta: SkillMetadata, path: str) -> bytes:
        reader = self.library.reader(meta.location.source)
        return reader.read_file(meta.location.directory, path, self.library.max_file_bytes)

    def _listing(self, meta: SkillMetadata) -> tuple[list[str], bool]:
        reader = self.library.reader(meta.location.source)
        files, truncated = reader.list_files(meta.location.directory, MAX_SKILL_FILES)
        return [SKILL_FILE, *(r.path for r in files)], truncated

    async def _read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        parsed = parse_skill_uri(uri)
        if parsed is None:
            raise MCPError(types.INVALID_PARAMS, f"not a skill file URI: {uri[:200]!r}")
        name, path = parsed
        meta = self._skill(name)

        def read() -> bytes:
            listed, _truncated = self._listing(meta)
            if path not in listed:
                raise ReadError(
                    OutcomeCode.RESOURCE_NOT_FOUND, f"{path!r} is not a file of skill {name!r}"
                )
            return self._read_raw(meta, path)

        try:
            data = await anyio.to_thread.run_sync(read)
        except ReadError as exc:
            raise MCPError(types.INVALID_PARAMS, exc.message) from None
        text, _code, _msg = decode_text(data)
        mime = "text/markdown" if path.endswith(".md") else None
        if text is not None and b"\x00" not in data and text.encode("utf-8") == data:
            content: Any = types.TextResourceContents(uri=uri, mime_type=mime, text=text)
        else:
            blob = base64.b64encode(data).decode("ascii")
            content = types.BlobResourceContents(
                uri=uri, mime_type=mime or "application/octet-stream", blob=blob
            )
        return types.ReadResourceResult(contents=[content], ttl_ms=0, cache_scope="private")

    # -- SEP-2640 --------------------------------------------------------------------------

    def skill_entry(self, meta: SkillMetadata) -> dict[str, Any]:
        """The SEP-2640 ``Skill`` entry of a skill: URI, verbatim frontmatter, every file with
        its digest and size. Raises ValueError when the skill cannot be described (over the
        limits, unreadable, frontmatter not readable)."""
        listed, truncated = self._listing(meta)
        if truncated or len(listed) > MAX_SKILL_FILES:
            raise ValueError(f"skill {meta.name!r} has more than {MAX_SKILL_FILES} files")
        resources: list[dict[str, Any]] = []
        total = 0
        frontmatter: dict[str, Any] | None = None
        for path in listed:
            try:
                data = self._read_raw(meta, path)
            except ReadError as exc:
                raise ValueError(f"skill {meta.name!r}: {exc.message}") from None
            total += len(data)
            if total > MAX_SKILL_BYTES:
                raise ValueError(f"skill {meta.name!r} is larger than {MAX_SKILL_BYTES} bytes")
            if path == SKILL_FILE:
                frontmatter = raw_frontmatter(data)
            resources.append(
                {"uri": skill_uri(meta.name, path), "digest": digest_of(data), "size": len(data)}
            )
        if frontmatter is None or "name" not in frontmatter or "description" not in frontmatter:
            raise ValueError(f"skill {meta.name!r}: its frontmatter cannot be read")
        # The trust tier (whether the skill's code may run here) in the entry's ``_meta``.
        tier = {TIER_META_KEY: self.library.tier(meta).value}
        return {
            "uri": skill_uri(meta.name),
            "frontmatter": frontmatter,
            "resources": resources,
            "_meta": tier,
        }

    def _entries(self, metas: Iterable[SkillMetadata]) -> list[dict[str, Any]]:
        out = []
        for meta in metas:
            try:
                out.append(self.skill_entry(meta))
            except ValueError as exc:  # not served: a host could not load it anyway
                logger.warning("skills/list leaves out a skill: %s", exc)
        return out

    async def _skills_list(self, ctx: Any, params: ListSkillsParams) -> dict[str, Any]:
        skills = self.catalog().model_visible
        start = page_start(params.cursor, len(skills))
        page = skills[start : start + PAGE_SIZE]
        entries = await anyio.to_thread.run_sync(self._entries, page)
        result: dict[str, Any] = {
            "resultType": "complete",
            "skills": entries,
            "ttlMs": LIST_TTL_MS,
            "cacheScope": "private",
        }
        if start + PAGE_SIZE < len(skills):
            result["nextCursor"] = str(start + PAGE_SIZE)
        return result

    async def _skills_get(self, ctx: Any, params: GetSkillParams) -> dict[str, Any]:
        parsed = parse_skill_uri(params.uri)
        if parsed is None or parsed[1] != SKILL_FILE:
            raise MCPError(
                types.INVALID_PARAMS, f"not the URI of a skill's SKILL.md: {params.uri[:200]!r}"
            )
        meta = self._skill(parsed[0])
        try:
            entry = await anyio.to_thread.run_sync(self.skill_entry, meta)
        except ValueError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        return {"resultType": "complete", "skill": entry, "ttlMs": 0, "cacheScope": "private"}

    # -- running ---------------------------------------------------------------------------

    async def run_stdio(self) -> None:
        """Serve one client over stdin/stdout."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.server.create_initialization_options())

    def streamable_http_app(self, **kwargs: Any) -> Any:
        """The Starlette app of the streamable HTTP transport (path ``/mcp``)."""
        return self.server.streamable_http_app(**kwargs)

    async def run_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        on_ready: Callable[[str], None] | None = None,
    ) -> None:
        """Serve streamable HTTP with uvicorn; ``on_ready`` gets the URL once it listens
        (with the real port when ``port`` is 0). Raises as :func:`listen_socket` does."""
        await self.serve_http(listen_socket(host, port), host, on_ready)

    async def serve_http(
        self,
        listener: socket.socket,
        host: str = "127.0.0.1",
        on_ready: Callable[[str], None] | None = None,
    ) -> None:
        """Serve streamable HTTP with uvicorn on a socket from :func:`listen_socket`
        (closed when serving stops); ``host``: the name clients use (checked against their
        ``Host`` header)."""
        import uvicorn

        app = self.streamable_http_app(host=host)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        with listener:
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.serve, [listener])
                while not server.started:
                    if server.should_exit:  # failed to start
                        return
                    await anyio.sleep(0.02)
                if on_ready is not None:
                    bound = listener.getsockname()[1]
                    shown = f"[{host}]" if ":" in host else host
                    on_ready(f"http://{shown}:{bound}/mcp")


def listen_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (0: any free port) for :meth:`serve_http`.

    Raises ValueError for a port out of range or a host that names no address, and
    OSError when the address cannot be bound (e.g. the port is in use): binding here, before
    uvicorn starts, turns both into one exception instead of a server that exits."""
    if not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"not a port number (0 to 65535): {port!r}")
    if not host or not host.strip():
        raise ValueError("the host is empty (use 127.0.0.1, or 0.0.0.0 for every interface)")
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ValueError(f"{host!r:.80} is not a host name or address here ({exc})") from None
    family, kind, proto, _name, address = found[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


__all__ = [
    "LIST_TTL_MS",
    "MAX_CURSOR_DIGITS",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "PAGE_SIZE",
    "SKILLS_EXTENSION",
    "SKILL_SCHEME",
    "STATE_META_KEY",
    "TIER_META_KEY",
    "GetSkillParams",
    "ListSkillsParams",
    "SkillMCPServer",
    "digest_of",
    "listen_socket",
    "parse_skill_uri",
    "raw_frontmatter",
    "skill_uri",
]
