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
import shlex
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from skillcore.codes import OutcomeCode
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.errors import SourceError, require
from skillcore.model import Resource, ResourceKind
from skillcore.sources.errors import ReadError, SourceUnavailable
from skillcore.sources.reader import SourceReader, safe_relpath
from skillcore.sources.registry import register_reader
from skillcore.sources.scan import Scan, ScanEntry
from skillcore.sources.source import SKILL_FILE, SkillSource

require("mcp", "mcp", "Skills served over MCP")

import mcp_types as types  # noqa: E402

from skillcore.sources.mcp_connection import McpConnection  # noqa: E402
from skillcore.sources.mcp_entries import (  # noqa: E402
    InvalidEntry,
    SkillEntry,
    entry_head,
    parse_entry,
)
from skillcore.sources.mcp_spec import (  # noqa: E402
    MAX_SKILL_BYTES,
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


class _ListSkills(types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: types.PaginatedRequestParams | None = None


class McpReader(SourceReader):
    """Reads skills from an MCP server that implements the Skills extension."""

    def __init__(self, source: SkillSource, target: Any) -> None:
        super().__init__(source)
        opts = source.fsspec_options()
        self.namespace: str | None = opts.get("namespace")
        self.allow_dynamic = bool(opts.get("allow_dynamic", False))
        self.connection = McpConnection(
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
        self._check_extension()
        listing = _Listing(self, deadline)
        listing.run()
        entries = listing.entries
        diags = listing.diags
        diags.extend(listing.warnings())
        if len(entries) > self.source.max_entries:
            diags.append(
                self.diag(
                    Code.SOURCE_LIMIT,
                    f"the server lists more than {self.source.max_entries} skills; only the "
                    "first are read",
                    "",
                    Severity.WARNING,
                )
            )
            entries = entries[: self.source.max_entries]
        return self._names(entries, diags), diags

    def _check_extension(self) -> None:
        """Raise SourceUnavailable unless the server declares the Skills extension."""
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
                    self.diag(
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
                    self.diag(Code.DUPLICATE_NAME, f"skipped: {e.uri[:200]} repeats", e.path)
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
            head = None if known.get(e.path) == stamp else entry_head(e)
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


class _Listing:
    """One reading of ``skills/list``, page by page: the entries so far (each URI once) and
    the counts its bounds are checked against."""

    def __init__(self, reader: McpReader, deadline: float) -> None:
        self.reader = reader
        self.deadline = deadline
        self.entries: list[SkillEntry] = []
        self.diags: list[Diagnostic] = []
        self.uris: set[str] = set()
        self.items = self.pages = self.repeated = 0
        #: The bound that stopped the reading, if one did.
        self.stopped: str | None = None

    def run(self) -> None:
        """Read pages until the last, a bound, or more entries than the source takes."""
        import time

        reader = self.reader
        timeout = f"{reader.discovery_timeout:g} seconds"
        cursor: str | None = None
        while True:
            left = self.deadline - time.monotonic()
            if self.pages == MAX_PAGES or self.items >= MAX_LISTED_ITEMS or left <= 0:
                self.stopped = (
                    f"{MAX_PAGES} pages"
                    if self.pages == MAX_PAGES
                    else f"{MAX_LISTED_ITEMS} items"
                    if self.items >= MAX_LISTED_ITEMS
                    else timeout
                )
                return
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            try:
                page = reader.connection.request(lambda p=params: _ListSkills(params=p), left)
            except SourceUnavailable:
                if self.pages and time.monotonic() >= self.deadline:
                    self.stopped = timeout
                    return
                raise
            self.pages += 1
            self._add(page.get("skills"))
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or len(self.entries) > reader.source.max_entries:
                return

    def _add(self, raw: Any) -> None:
        """The entries of one page (invalid ones reported, repeats counted)."""
        if not isinstance(raw, list):
            raise SourceUnavailable("skills/list returned no list of skills")
        for item in raw[: MAX_LISTED_ITEMS - self.items]:
            self.items += 1
            try:
                entry = parse_entry(item)
            except InvalidEntry as exc:
                if len(self.diags) < 100:  # one per entry, but not without end
                    self.diags.append(self.reader.diag(Code.INVALID_TYPE, f"skipped: {exc}", ""))
                continue
            if entry.uri in self.uris:
                self.repeated += 1
                continue
            self.uris.add(entry.uri)
            self.entries.append(entry)
            if len(self.entries) > self.reader.source.max_entries:
                return

    def warnings(self) -> list[Diagnostic]:
        """The reading stopped at a bound; the server listed skills more than once."""
        found = []
        if self.stopped is not None:
            found.append(
                self.reader.diag(
                    Code.SOURCE_LIMIT,
                    f"stopped reading skills/list at the limit of {self.stopped} after "
                    f"{self.pages} pages and {self.items} items (the server kept offering "
                    "more pages); only the skills listed so far are used",
                    "",
                    Severity.WARNING,
                )
            )
        if self.repeated:
            found.append(
                self.reader.diag(
                    Code.DUPLICATE_NAME,
                    f"the server listed {self.repeated} skills more than once; repeats skipped",
                    "",
                    Severity.WARNING,
                )
            )
        return found


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
