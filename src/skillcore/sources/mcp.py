"""Skills served by an MCP server (the Skills extension, SEP-2640) as a skill source.

Sources::

    mcp+stdio://skillcore mcp ./skills       a command line (split like a shell would)
    mcp+http://127.0.0.1:8000/mcp            streamable HTTP (``mcp+https://`` too)
    mcp_source(target, label="team")         anything ``mcp.Client`` accepts (a Server, a
                                             Transport, StdioServerParameters, a URL)

The catalog comes from ``skills/list`` alone: the frontmatter of each entry is the skill's
metadata, and no file is fetched ahead of need. Every file read later is checked against
the held entry: only listed files are read, and a file whose size or sha256 digest differs
from the entry, or a SKILL.md whose frontmatter differs from it, is refused with a message
saying so (re-discovery fetches the current entries). Entries that break the extension's
rules (no file list, files outside the skill, more than 512 files or 16 MiB) are left out
with a diagnostic. Names that collide within one server are disambiguated by their path
(``acme-billing-refunds``); the storage option ``namespace`` prefixes every name of a server
(``namespace-name``) so two servers can never claim the same name. When the server cannot be
reached, the library keeps the last good catalog (``SOURCE_STALE``).

Storage options: ``mode`` (``auto`` or ``legacy``, how the client connects), ``timeout``
(seconds per request, default 30), ``discovery_timeout`` (seconds for one whole listing,
connecting included, default 120), ``namespace``, ``allow_dynamic`` (load skills whose files
are ``"dynamic"``, i.e. unverifiable; default False), ``env`` and ``cwd`` (stdio).
"""

from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import re
import shlex
import threading
import weakref
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from skillcore._text import describe, root_cause
from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import SkillcoreError, SourceError, require
from skillcore.model import Resource, ResourceKind
from skillcore.sources.errors import ReadError, SourceUnavailable
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.registry import register_reader
from skillcore.sources.scan import Scan, ScanEntry
from skillcore.sources.source import SKILL_FILE, SkillSource

require("mcp", "mcp", "Skills served over MCP")

import mcp_types as types  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402

from skillcore.sources.mcp_spec import (  # noqa: E402
    MAX_SKILL_BYTES,
    MAX_SKILL_FILES,
    SKILLS_EXTENSION,
    raw_frontmatter,
)

#: Pages of ``skills/list`` read at most in one scan.
MAX_PAGES = 1_000
#: Entries of ``skills/list`` read at most in one scan, counting those left out or repeated
#: (a server could otherwise send empty or invalid pages forever).
MAX_LISTED_ITEMS = 10_000
#: Default seconds a request may take.
DEFAULT_TIMEOUT = 30.0
#: Default seconds one whole discovery may take (connecting and every page); storage option
#: ``discovery_timeout``.
DEFAULT_DISCOVERY_TIMEOUT = 120.0
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_ANY = TypeAdapter(dict[str, Any])


class _ListSkills(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class _GetSkillParams(types.RequestParams):
    uri: str


class _GetSkill(types.Request[_GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: _GetSkillParams


@attrs.frozen
class SkillEntry:
    """A verified-shape ``Skill`` entry as held by the host."""

    uri: str
    #: The skill's path on the server (the URI between the scheme and ``/SKILL.md``).
    path: str
    frontmatter: Mapping[str, Any]
    #: File path (relative to the skill) -> (digest, size); None when ``"dynamic"``.
    files: Mapping[str, tuple[str, int]] | None
    #: The name the skill gets in the catalog (namespaced or disambiguated if needed).
    local_name: str
    stamp: str


class InvalidEntry(SkillcoreError, ValueError):
    """A ``skills/list`` entry that breaks the extension's rules."""


def parse_entry(raw: Any) -> SkillEntry:
    """Check one raw entry's shape and limits. Raises :class:`InvalidEntry`."""
    if not isinstance(raw, Mapping):
        raise InvalidEntry("an entry is not an object")
    uri, fm, res = raw.get("uri"), raw.get("frontmatter"), raw.get("resources")
    if not isinstance(uri, str) or not uri.endswith("/" + SKILL_FILE) or "://" not in uri:
        raise InvalidEntry(f"entry uri {str(uri)[:200]!r} is not the URI of a SKILL.md")
    root = uri[: -len(SKILL_FILE)]
    path = root.split("://", 1)[1].strip("/")
    name = fm.get("name") if isinstance(fm, Mapping) else None
    if not isinstance(name, str) or not isinstance(fm.get("description"), str):  # type: ignore[union-attr]
        raise InvalidEntry(f"{uri[:200]}: frontmatter lacks a string name and description")
    if posixpath.basename(path) != name:
        raise InvalidEntry(f"{uri[:200]}: the last path segment is not the skill name {name!r}")
    files: dict[str, tuple[str, int]] | None
    if res == "dynamic":
        files = None
    elif isinstance(res, list):
        if len(res) > MAX_SKILL_FILES:
            raise InvalidEntry(f"{uri[:200]}: lists {len(res)} files (limit {MAX_SKILL_FILES})")
        files = {}
        total = 0
        for item in res:
            if not isinstance(item, Mapping):
                raise InvalidEntry(f"{uri[:200]}: a resource is not an object")
            f_uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
            if not isinstance(f_uri, str) or not f_uri.startswith(root):
                raise InvalidEntry(f"{uri[:200]}: file {str(f_uri)[:200]!r} is outside the skill")
            try:
                rel = safe_relpath(_unquote_path(f_uri[len(root) :]))
            except ReadError as exc:
                raise InvalidEntry(f"{uri[:200]}: {exc.message}") from None
            if not isinstance(digest, str) or not _DIGEST.match(digest):
                raise InvalidEntry(f"{uri[:200]}: {rel!r} has no valid sha256 digest")
            if type(size) is not int or size < 0:
                raise InvalidEntry(f"{uri[:200]}: {rel!r} has no valid size")
            if rel in files:
                raise InvalidEntry(f"{uri[:200]}: {rel!r} is listed twice")
            total += size
            files[rel] = (digest, size)
        if total > MAX_SKILL_BYTES:
            raise InvalidEntry(f"{uri[:200]}: its files total {total} bytes (limit 16 MiB)")
        if SKILL_FILE not in files:
            raise InvalidEntry(f"{uri[:200]}: the file list does not include SKILL.md")
    else:
        raise InvalidEntry(f"{uri[:200]}: resources must be a list of files or 'dynamic'")
    stamp = hashlib.sha256(
        json.dumps([uri, fm, res], sort_keys=True, default=str).encode()
    ).hexdigest()[:32]
    return SkillEntry(uri, path, dict(fm), files, name, stamp)  # type: ignore[arg-type]


def _unquote_path(path: str) -> str:
    from urllib.parse import unquote

    return "/".join(unquote(s) for s in path.split("/"))


def _head(entry: SkillEntry) -> bytes:
    """A SKILL.md head made of the entry's frontmatter (JSON is YAML), under the local name.
    Discovery never fetches SKILL.md itself."""
    fm = dict(entry.frontmatter)
    fm["name"] = entry.local_name
    return b"---\n" + json.dumps(fm, ensure_ascii=True).encode() + b"\n---\n"


class _Connection:
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
        weakref.finalize(self, _Connection._shutdown, self.__dict__)

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
            _Connection._shutdown(self.__dict__)
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


class McpReader(SourceReader):
    """Reads skills from an MCP server that implements the Skills extension."""

    def __init__(self, source: SkillSource, target: Any) -> None:
        super().__init__(source)
        opts = source.fsspec_options()
        self.namespace: str | None = opts.get("namespace")
        self.allow_dynamic = bool(opts.get("allow_dynamic", False))
        self.connection = _Connection(
            target, str(opts.get("mode", "auto")), float(opts.get("timeout", DEFAULT_TIMEOUT))
        )
        self.discovery_timeout = float(opts.get("discovery_timeout", DEFAULT_DISCOVERY_TIMEOUT))
        #: Held entries by skill directory (the skill's path on the server).
        self.entries: dict[str, SkillEntry] = {}

    def close(self) -> None:
        """Disconnect from the server."""
        self.connection.close()

    # -- discovery -------------------------------------------------------------------------

    def list_entries(self) -> tuple[list[SkillEntry], list[Diagnostic]]:
        """Every page of ``skills/list``, checked; bounded by pages, items and time (what
        was listed before a bound is kept, with a ``SOURCE_LIMIT`` warning). Raises
        SourceUnavailable."""
        import time

        deadline = time.monotonic() + self.discovery_timeout
        caps = self.connection.capabilities()
        extensions = getattr(caps, "extensions", None) or {}
        # Handshake-era (legacy) protocol versions carry no ``extensions`` capability: there
        # servers declare the extension under ``experimental``.
        experimental = getattr(caps, "experimental", None) or {}
        if SKILLS_EXTENSION not in extensions and SKILLS_EXTENSION not in experimental:
            raise SourceUnavailable(
                f"the MCP server at {self.source.url} does not declare the Skills extension "
                f"({SKILLS_EXTENSION})"
            )
        entries: list[SkillEntry] = []
        diags: list[Diagnostic] = []
        cursor: str | None = None
        uris: set[str] = set()
        items = pages = repeated = 0
        stopped: str | None = None
        while True:
            left = deadline - time.monotonic()
            if pages == MAX_PAGES or items >= MAX_LISTED_ITEMS or left <= 0:
                stopped = (
                    f"{MAX_PAGES} pages"
                    if pages == MAX_PAGES
                    else f"{MAX_LISTED_ITEMS} items"
                    if items >= MAX_LISTED_ITEMS
                    else f"{self.discovery_timeout:g} seconds"
                )
                break
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            try:
                page = self.connection.request(lambda p=params: _ListSkills(params=p), left)
            except SourceUnavailable:
                if pages and time.monotonic() >= deadline:
                    stopped = f"{self.discovery_timeout:g} seconds"
                    break
                raise
            pages += 1
            raw = page.get("skills")
            if not isinstance(raw, list):
                raise SourceUnavailable("skills/list returned no list of skills")
            for item in raw[: MAX_LISTED_ITEMS - items]:
                items += 1
                try:
                    entry = parse_entry(item)
                except InvalidEntry as exc:
                    if len(diags) < 100:  # one per entry, but not without end
                        diags.append(self._diag(Code.INVALID_TYPE, f"skipped: {exc}", ""))
                    continue
                if entry.uri in uris:
                    repeated += 1
                    continue
                uris.add(entry.uri)
                entries.append(entry)
                if len(entries) > self.source.max_entries:
                    break
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or len(entries) > self.source.max_entries:
                break
        if stopped is not None:
            diags.append(
                self._diag(
                    Code.SOURCE_LIMIT,
                    f"stopped reading skills/list at the limit of {stopped} after {pages} "
                    f"pages and {items} items (the server kept offering more pages); only "
                    "the skills listed so far are used",
                    "",
                    Severity.WARNING,
                )
            )
        if repeated:
            diags.append(
                self._diag(
                    Code.DUPLICATE_NAME,
                    f"the server listed {repeated} skills more than once; repeats skipped",
                    "",
                    Severity.WARNING,
                )
            )
        if len(entries) > self.source.max_entries:
            diags.append(
                self._diag(
                    Code.SOURCE_LIMIT,
                    f"the server lists more than {self.source.max_entries} skills; only the "
                    "first are read",
                    "",
                    Severity.WARNING,
                )
            )
            entries = entries[: self.source.max_entries]
        return self._names(entries, diags), diags

    def _names(self, entries: list[SkillEntry], diags: list[Diagnostic]) -> list[SkillEntry]:
        """Local names: colliding names within the listing take their path; a namespace
        prefixes every name."""
        seen: dict[str, int] = {}
        for e in entries:
            seen[e.local_name] = seen.get(e.local_name, 0) + 1
        out: list[SkillEntry] = []
        taken: set[str] = set()
        for e in sorted(entries, key=lambda e: e.path):
            name = e.local_name
            if seen[name] > 1:
                name = e.path.replace("/", "-")
                diags.append(
                    self._diag(
                        Code.DUPLICATE_NAME,
                        f"the server lists several skills named {e.local_name!r}; this one "
                        f"({e.uri[:200]}) is named {name!r} here",
                        e.path,
                        Severity.WARNING,
                    )
                )
            if self.namespace:
                name = f"{self.namespace}-{name}"
            if name in taken or e.path in {o.path for o in out}:
                diags.append(
                    self._diag(Code.DUPLICATE_NAME, f"skipped: {e.uri[:200]} repeats", e.path)
                )
                continue
            taken.add(name)
            out.append(attrs.evolve(e, local_name=name))
        return out

    def scan(self, head_bytes: int, known: Mapping[str, str]) -> Scan:
        """List the skills; no file is fetched (heads are made of the entries)."""
        entries, diags = self.list_entries()
        self.entries = {e.path: e for e in entries}
        out = []
        for e in entries:
            stamp = f"{e.stamp}:{e.local_name}"
            head = None if known.get(e.path) == stamp else _head(e)
            out.append(ScanEntry(e.path, e.local_name, stamp, head, False))
        return Scan(tuple(out), tuple(diags))

    # -- reading ---------------------------------------------------------------------------

    def _entry(self, directory: str) -> SkillEntry:
        entry = self.entries.get(directory)
        if entry is None:
            raise ReadError(
                OutcomeCode.RESOURCE_NOT_FOUND,
                f"the MCP server no longer lists the skill at {directory!r}",
                missing=True,
            )
        return entry

    def read_file(self, directory: str, rel_path: str, max_bytes: int) -> bytes:
        """Fetch one listed file and verify it against the held entry. Raises ReadError."""
        entry = self._entry(directory)
        rel = safe_relpath(rel_path)
        expected: tuple[str, int] | None = None
        if entry.files is None:
            if not self.allow_dynamic:
                raise ReadError(
                    OutcomeCode.READ_FAILED,
                    f"the server marks the files of {entry.uri[:200]} as dynamic (no digests), "
                    "so they cannot be verified; refused (allow_dynamic=True accepts them)",
                )
        else:
            expected = entry.files.get(rel)
            if expected is None:
                raise ReadError(
                    OutcomeCode.RESOURCE_NOT_FOUND,
                    f"no file {rel!r} in the skill's file list (unlisted files are not read)",
                    missing=True,
                )
            if expected[1] > max_bytes:
                raise ReadError(
                    OutcomeCode.TOO_LARGE, f"{rel!r} is over the {max_bytes}-byte limit"
                )
        uri = entry.uri[: -len(SKILL_FILE)] + "/".join(_quote(s) for s in rel.split("/"))
        try:
            result = self.connection.read(uri)
        except SourceUnavailable as exc:
            raise ReadError(OutcomeCode.READ_FAILED, str(exc)) from None
        except Exception as exc:  # the server answered with an error
            raise ReadError(
                OutcomeCode.READ_FAILED, f"the MCP server refused {uri[:200]}: {exc}"
            ) from None
        data = _content_bytes(result, max(max_bytes, MAX_SKILL_BYTES))
        if data is None:
            raise ReadError(OutcomeCode.READ_FAILED, f"{uri[:200]} returned no file content")
        if len(data) > max_bytes:
            raise ReadError(OutcomeCode.TOO_LARGE, f"{rel!r} is over the {max_bytes}-byte limit")
        if expected is not None:
            digest, size = expected
            if len(data) != size or "sha256:" + hashlib.sha256(data).hexdigest() != digest:
                raise ReadError(
                    OutcomeCode.READ_FAILED,
                    f"{rel!r} does not match the digest and size the server listed for it "
                    f"({len(data)} bytes, listed {size}); the content is refused. It may have "
                    "changed since the skills were listed: refresh the skill library",
                )
        if rel == SKILL_FILE and raw_frontmatter(data) != dict(entry.frontmatter):
            raise ReadError(
                OutcomeCode.READ_FAILED,
                "the frontmatter of SKILL.md differs from the entry the server listed; the "
                "skill is refused (refresh the skill library)",
            )
        return data

    def list_files(self, directory: str, max_entries: int) -> tuple[tuple[Resource, ...], bool]:
        """The held entry's files (nothing is fetched)."""
        entry = self.entries.get(directory)
        if entry is None or entry.files is None:
            return (), False
        paths = sorted(p for p in entry.files if p != SKILL_FILE)
        out = tuple(
            Resource(p, ResourceKind.for_path(p), entry.files[p][1]) for p in paths[:max_entries]
        )
        return out, len(paths) > max_entries

    def url_for(self, directory: str) -> str:
        """The skill's URI on its server, with the server's address."""
        entry = self.entries.get(directory)
        where = entry.uri if entry else directory
        return f"{self.source.url}#{where}" if where else self.source.url

    def _diag(
        self, code: Code, message: str, path: str, severity: Severity = Severity.ERROR
    ) -> Diagnostic:
        return Diagnostic(severity, code, message, self.source.label, path)


def _quote(segment: str) -> str:
    from urllib.parse import quote

    return quote(segment, safe="-._~")


def _content_bytes(result: Any, cap: int) -> bytes | None:
    contents = getattr(result, "contents", None) or []
    if not contents:
        return None
    first = contents[0]
    text = getattr(first, "text", None)
    if isinstance(text, str):
        return text.encode("utf-8")
    blob = getattr(first, "blob", None)
    if isinstance(blob, str) and len(blob) <= cap * 4 // 3 + 8:
        try:
            return base64.b64decode(blob, validate=True)
        except ValueError:
            return None
    return None


def target_from_url(source: SkillSource) -> Any:
    """What ``mcp.Client`` connects to for an ``mcp+stdio://`` or ``mcp+http(s)://`` URL."""
    url = source.url
    scheme, sep, rest = url.partition("://")
    if not sep or not rest.strip():
        raise SourceError(f"{url!r} names no MCP server")
    if scheme == "mcp+stdio":
        from mcp.client.stdio import StdioServerParameters

        argv = shlex.split(rest)
        opts = source.fsspec_options()
        env = opts.get("env")
        return StdioServerParameters(
            command=argv[0],
            args=argv[1:],
            env=dict(env) if env else None,
            cwd=opts.get("cwd"),
        )
    if scheme in ("mcp+http", "mcp+https"):
        return f"{scheme[4:]}://{rest}"
    raise SourceError(f"{url!r}: unknown MCP source scheme {scheme!r}")


def open_mcp_reader(source: SkillSource) -> McpReader:
    """Reader factory for ``mcp+stdio``, ``mcp+http``, ``mcp+https`` and :func:`mcp_source`."""
    target = source.fs.target if isinstance(source.fs, _Target) else target_from_url(source)
    return McpReader(source, target)


class _Target:
    """Carries a ready ``mcp.Client`` target inside a :class:`SkillSource`."""

    protocol = "mcp+client"

    def __init__(self, target: Any) -> None:
        self.target = target


def mcp_source(target: Any, *, label: str, **options: Any) -> SkillSource:
    """A source for an MCP server given as anything ``mcp.Client`` accepts (an in-process
    ``Server``, a ``Transport``, ``StdioServerParameters`` or a URL). ``options`` are the
    storage options (``namespace``, ``mode``, ``timeout``, ``allow_dynamic``)."""
    register_reader("mcp+client", open_mcp_reader)
    return SkillSource(
        f"mcp+client://{label}", label=label, storage_options=options, fs=_Target(target)
    )


for _scheme in ("mcp+stdio", "mcp+http", "mcp+https"):
    register_reader(_scheme, open_mcp_reader)

__all__ = [
    "InvalidEntry",
    "McpReader",
    "SkillEntry",
    "mcp_source",
    "open_mcp_reader",
    "parse_entry",
    "target_from_url",
]
