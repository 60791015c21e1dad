"""The four skill tools, defined once for every adapter: schemas, argument validation and
execution against a session. Adapters only translate framework objects to these calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs

from skillcore.coordination import SessionCoordinator
from skillcore.library import ResourceContent, SkillLibrary
from skillcore.model import Catalog, SkillDocument
from skillcore.names import ToolNames
from skillcore.policy import ToolDecision
from skillcore.render import (
    CatalogFormat,
    catalog_view,
    entry_description,
    quoteattr,
    render_load_reply,
)
from skillcore.search import search_skills
from skillcore.session import (
    LoadRequest,
    Outcome,
    OutcomeCode,
    SkillSession,
)
from skillcore.sources import ReadError

#: Above this many loadable skills the ``skill_name`` parameter is a plain string, not an enum.
DEFAULT_ENUM_LIMIT = 200


@attrs.frozen
class ToolSpec:
    """A tool as the model sees it: name, description and JSON Schema of its arguments.

    ``parameters`` is already valid for OpenAI strict mode: every property required,
    optional ones nullable, ``additionalProperties: false``.
    """

    name: str
    kind: str
    description: str
    parameters: Mapping[str, Any]

    def json_schema(self) -> dict[str, Any]:
        """A deep copy of ``parameters`` (safe to hand to a framework that mutates it)."""
        return json.loads(json.dumps(self.parameters))


@attrs.frozen
class ToolResult:
    """The result of one skill tool call: the new session and the reply for the model."""

    session: SkillSession
    text: str
    code: OutcomeCode
    tool: str
    #: Position of this call within its turn (see :class:`SessionCoordinator`); 0 if none.
    seq: int = 0
    #: The loaded document when ``code`` is LOADED (adapters may keep it for re-injection).
    document: SkillDocument | None = None

    @property
    def ok(self) -> bool:
        """False for refusals and errors (adapters mark those replies as errors)."""
        return self.code in {
            OutcomeCode.LOADED,
            OutcomeCode.UNLOADED,
            OutcomeCode.RESOURCE_READ,
            OutcomeCode.SEARCH_RESULTS,
        }

    @property
    def terminal(self) -> bool:
        """True when retrying the same call cannot succeed."""
        return Outcome(self.code, "").terminal

    @property
    def changed(self) -> bool:
        """True when the session changed (adapters persist state only then)."""
        return self.code in (OutcomeCode.LOADED, OutcomeCode.UNLOADED)


@runtime_checkable
class SessionStore(Protocol):
    """Live session state shared by concurrent tool calls (e.g. ADK session state, or an
    object your agent loop keeps). ``read`` returns the current session, ``write`` replaces it;
    neither may await."""

    def read(self) -> SkillSession:
        """The current session."""
        ...

    def write(self, session: SkillSession) -> None:
        """Replace the session."""
        ...


class _Live:
    """Marks a call as running against a :class:`SessionStore` (never hashed or stored)."""

    __slots__ = ("store",)

    def __init__(self, store: SessionStore) -> None:
        self.store = store


class ArgumentError(ValueError):
    """Tool arguments did not validate; the message is written for the model."""


def _nullable_string(description: str) -> dict[str, Any]:
    return {"type": ["string", "null"], "description": description}


class SkillToolkit:
    """The skill tools bound to a library: schemas, instructions and execution.

    One toolkit can serve many conversations: sessions are passed in and returned.
    """

    def __init__(
        self,
        library: SkillLibrary,
        *,
        names: ToolNames | None = None,
        include_resource_tool: bool = True,
        catalog_format: CatalogFormat | str = CatalogFormat.MARKDOWN,
        enum_limit: int = DEFAULT_ENUM_LIMIT,
        coordinator: SessionCoordinator | None = None,
        budget_counter: Callable[[str], int] = len,
    ) -> None:
        self.library = library
        self.names = names or ToolNames()
        self.include_resource_tool = include_resource_tool
        self.catalog_format = CatalogFormat(catalog_format)
        self.enum_limit = enum_limit
        self.coordinator = coordinator or SessionCoordinator()
        #: Measures catalog entries against the budget: ``len`` (characters) or a token count.
        self.budget_counter = budget_counter
        self._specs_cache: tuple[Catalog, tuple[ToolSpec, ...]] | None = None

    # -- what the model sees ---------------------------------------------------------------

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the tools this toolkit exposes."""
        n = self.names
        if self.include_resource_tool:
            return (n.load, n.unload, n.resource, n.search)
        return (n.load, n.unload, n.search)

    def is_skill_tool(self, name: str) -> bool:
        """True if ``name`` is one of this toolkit's tools."""
        return name in self.tool_names

    def instructions(self, session: SkillSession, budget: int | None = None) -> str:
        """The catalog text for the system prompt; empty when there are no skills."""
        return catalog_view(session, self.catalog_format, budget, self.budget_counter).text

    def specs(self, session: SkillSession) -> tuple[ToolSpec, ...]:
        """Tool specs for this session; empty when the catalog has no model-visible skill.

        Memoised per catalog object: adapters ask on every model call.
        """
        cached = self._specs_cache
        if cached is not None and cached[0] is session.catalog:
            return cached[1]
        specs = self._build_specs(session)
        self._specs_cache = (session.catalog, specs)
        return specs

    def generic_specs(self) -> tuple[ToolSpec, ...]:
        """Specs that do not depend on a catalog (``skill_name`` is a plain string), for
        frameworks that must register their tools before any discovery."""
        return self._build_specs(None)

    def _build_specs(self, session: SkillSession | None) -> tuple[ToolSpec, ...]:
        name_schema: dict[str, Any] = {"type": "string", "description": "Exact skill name."}
        if session is not None:
            visible = session.catalog.model_visible
            if not visible:
                return ()
            loadable = [s.name for s in visible]
            if len(loadable) <= self.enum_limit:
                name_schema["enum"] = loadable
        n = self.names
        obj = {"type": "object", "additionalProperties": False}
        specs = [
            ToolSpec(
                n.load,
                "load",
                "Load a skill: returns its full instructions, its directory and its resource "
                "files. Call this when a task matches a skill's description, before acting.",
                {**obj, "properties": {"skill_name": name_schema}, "required": ["skill_name"]},
            ),
            ToolSpec(
                n.unload,
                "unload",
                "Unload a skill whose instructions no longer apply; frees a slot and lifts "
                "its tool restrictions.",
                {
                    **obj,
                    "properties": {"skill_name": {"type": "string", "description": "Skill name."}},
                    "required": ["skill_name"],
                },
            ),
        ]
        if self.include_resource_tool:
            specs.append(
                ToolSpec(
                    n.resource,
                    "resource",
                    "Read one file of a loaded skill (a script, reference or asset), by its "
                    "path relative to the skill directory as listed by "
                    f"{n.load}.",
                    {
                        **obj,
                        "properties": {
                            "skill_name": {"type": "string", "description": "Skill name."},
                            "path": {
                                "type": "string",
                                "description": "Path relative to the skill directory, "
                                "e.g. references/guide.md.",
                            },
                        },
                        "required": ["skill_name", "path"],
                    },
                )
            )
        specs.append(
            ToolSpec(
                n.search,
                "search",
                "Search all available skills by keywords and/or a file path (matched against "
                "names, descriptions, triggers and file patterns). Use it to find skills not "
                "listed in the prompt.",
                {
                    **obj,
                    "properties": {
                        "query": _nullable_string("Keywords describing the task, or null."),
                        "path": _nullable_string("A file path the task is about, or null."),
                    },
                    "required": ["query", "path"],
                },
            )
        )
        return tuple(specs)

    def check_tool(self, session: SkillSession, tool_name: str) -> ToolDecision:
        """The allowed-tools decision for a non-skill tool call (skill tools always pass)."""
        return session.check_tool(tool_name)

    # -- arguments -------------------------------------------------------------------------

    def parse_arguments(
        self, tool: str, arguments: Mapping[str, Any] | str | None
    ) -> dict[str, Any]:
        """Validate raw arguments (a mapping or a JSON string). Raises ArgumentError."""
        if arguments is None or arguments == "":
            args: Any = {}
        elif isinstance(arguments, str):
            try:
                args = json.loads(arguments)
            except json.JSONDecodeError as exc:
                raise ArgumentError(
                    f"arguments are not valid JSON ({exc.msg} at position {exc.pos}); "
                    "send a JSON object"
                ) from None
        else:
            args = arguments
        if not isinstance(args, Mapping):
            raise ArgumentError(f"arguments must be a JSON object, got {type(args).__name__}")
        kind = self._kind(tool)
        required = {
            "load": ("skill_name",),
            "unload": ("skill_name",),
            "resource": ("skill_name", "path"),
            "search": (),
        }[kind]
        optional = ("query", "path") if kind == "search" else ()
        allowed = set(required) | set(optional)
        extra = sorted(set(args) - allowed)
        if extra:
            raise ArgumentError(
                f"unexpected argument(s) {', '.join(extra)}; {tool} takes "
                f"{', '.join(sorted(allowed))}"
            )
        out: dict[str, Any] = {}
        for key in required:
            value = args.get(key)
            if value is None:
                raise ArgumentError(f"missing required argument {key!r} (a string)")
            if not isinstance(value, str) or not value.strip():
                raise ArgumentError(
                    f"argument {key!r} must be a non-empty string, got {value!r:.80}"
                )
            out[key] = value.strip()
        for key in optional:
            value = args.get(key)
            if value is not None and not isinstance(value, str):
                raise ArgumentError(f"argument {key!r} must be a string or null, got {value!r:.80}")
            out[key] = value.strip() if isinstance(value, str) and value.strip() else None
        return out

    def _kind(self, tool: str) -> str:
        n = self.names
        kinds = {n.load: "load", n.unload: "unload", n.search: "search"}
        if self.include_resource_tool:
            kinds[n.resource] = "resource"
        if tool not in kinds:
            raise KeyError(tool)
        return kinds[tool]

    # -- execution -------------------------------------------------------------------------

    def call(
        self,
        session: SkillSession,
        tool: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        turn: Hashable | None = None,
    ) -> ToolResult:
        """Execute a skill tool call. Never raises for bad model input.

        ``turn`` identifies the model turn the call belongs to (e.g. the id of the assistant
        message); calls of one turn are serialised so parallel calls stay truthful.
        """
        pre = self._prepare(session, tool, arguments, turn)
        if isinstance(pre, ToolResult):
            return pre
        kind, args = pre
        if kind == "load":
            req = self._current(turn, session).begin_load(args["skill_name"])
            if isinstance(req, Outcome):
                return self._refusal(session, tool, req)
            try:
                doc = self.library.read_document(req.name, self._file_cap(session))
            except ReadError as exc:
                return self._read_failure(session, tool, req, exc)
            return self._finish_load(session, tool, doc, turn)
        if kind == "resource":
            return self._resource(session, tool, args, turn, None)
        return self._pure(session, tool, kind, args, turn)

    async def acall(
        self,
        session: SkillSession,
        tool: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        turn: Hashable | None = None,
    ) -> ToolResult:
        """Async :meth:`call` (file reads do not block the event loop)."""
        pre = self._prepare(session, tool, arguments, turn)
        if isinstance(pre, ToolResult):
            return pre
        kind, args = pre
        if kind == "load":
            req = self._current(turn, session).begin_load(args["skill_name"])
            if isinstance(req, Outcome):
                return self._refusal(session, tool, req)
            try:
                doc = await self.library.aread_document(req.name, self._file_cap(session))
            except ReadError as exc:
                return self._read_failure(session, tool, req, exc)
            return self._finish_load(session, tool, doc, turn)
        if kind == "resource":
            check = self._resource_check(session, args, turn)
            if isinstance(check, ToolResult):
                return check
            try:
                content = await self.library.aread_resource(
                    args["skill_name"], args["path"], session.limits.max_resource_bytes
                )
            except ReadError as exc:
                content = exc
            return self._resource(session, tool, args, turn, content)
        return self._pure(session, tool, kind, args, turn)

    def call_in(
        self, store: SessionStore, tool: str, arguments: Mapping[str, Any] | str | None
    ) -> ToolResult:
        """Execute a call against live, shared state (see :class:`SessionStore`)."""
        return self.call(store.read(), tool, arguments, turn=_Live(store))

    async def acall_in(
        self, store: SessionStore, tool: str, arguments: Mapping[str, Any] | str | None
    ) -> ToolResult:
        """Async :meth:`call_in`: file reads are awaited first, then the store is read, the
        transition applied and the result written with no ``await`` in between, so parallel
        calls on one event loop never lose an update."""
        return await self.acall(store.read(), tool, arguments, turn=_Live(store))

    def _current(self, turn: Hashable | None, session: SkillSession) -> SkillSession:
        if isinstance(turn, _Live):
            return turn.store.read()
        return self.coordinator.current(turn, session)

    def _apply(
        self,
        turn: Hashable | None,
        session: SkillSession,
        transition: Callable[[SkillSession], tuple[SkillSession, Outcome]],
    ) -> tuple[SkillSession, Outcome, int]:
        if isinstance(turn, _Live):
            current = turn.store.read()
            new, outcome = transition(current)
            if new is not current:  # refusals return the very same session
                turn.store.write(new)
            return new, outcome, 0
        return self.coordinator.apply(turn, session, transition)

    def _file_cap(self, session: SkillSession) -> int:
        # The tighter of the library's and the session's caps applies.
        return min(self.library.max_file_bytes, session.limits.max_file_bytes)

    def _prepare(
        self, session: SkillSession, tool: str, arguments: Any, turn: Hashable | None
    ) -> ToolResult | tuple[str, dict[str, Any]]:
        try:
            kind = self._kind(tool)
        except KeyError:
            return ToolResult(
                session,
                f"Error: {tool!r} is not a skill tool (skill tools: {', '.join(self.tool_names)}).",
                OutcomeCode.UNKNOWN_TOOL,
                tool,
            )
        try:
            args = self.parse_arguments(tool, arguments)
        except ArgumentError as exc:
            return ToolResult(
                session,
                f"Error: invalid arguments for {tool}: {exc}",
                OutcomeCode.INVALID_ARGUMENTS,
                tool,
            )
        return kind, args

    def _refusal(self, session: SkillSession, tool: str, outcome: Outcome) -> ToolResult:
        return ToolResult(session, f"Error: {outcome.message}", outcome.code, tool)

    def _read_failure(
        self, session: SkillSession, tool: str, req: LoadRequest, exc: ReadError
    ) -> ToolResult:
        outcome = session.fail_load(req.name, exc.code, exc.message)
        return ToolResult(session, f"Error: {outcome.message}", outcome.code, tool)

    def _finish_load(
        self, session: SkillSession, tool: str, doc: SkillDocument, turn: Hashable | None
    ) -> ToolResult:
        new, outcome, seq = self._apply(turn, session, lambda s: s.finish_load(doc))
        if not outcome.ok:
            return ToolResult(session, f"Error: {outcome.message}", outcome.code, tool, seq)
        return ToolResult(new, self.load_reply(new, doc), outcome.code, tool, seq, doc)

    def load_reply(self, session: SkillSession, document: SkillDocument) -> str:
        """The text of a successful load of ``document`` (``<skill_content ...>``, directory,
        resources as the session recorded them, dependencies), e.g. to repeat instructions
        that were compacted out of a conversation."""
        loaded = session.loaded_skill(document.name)
        truncated = bool(loaded and loaded.resources_truncated)
        shown = attrs.evolve(document, resources=loaded.resources) if loaded else document
        return render_load_reply(
            shown, truncated, self.names.resource if self.include_resource_tool else None
        )

    def _pure(
        self,
        session: SkillSession,
        tool: str,
        kind: str,
        args: dict[str, Any],
        turn: Hashable | None,
    ) -> ToolResult:
        if kind == "unload":
            new, outcome, seq = self._apply(turn, session, lambda s: s.unload(args["skill_name"]))
            if not outcome.ok:
                return ToolResult(session, f"Error: {outcome.message}", outcome.code, tool, seq)
            return ToolResult(new, outcome.message, outcome.code, tool, seq)
        current = self._current(turn, session)
        return ToolResult(
            session,
            self.search_text(current, args.get("query"), args.get("path")),
            OutcomeCode.SEARCH_RESULTS,
            tool,
        )

    def search_text(self, session: SkillSession, query: str | None, path: str | None) -> str:
        """The reply of the search tool."""
        hits = search_skills(session.catalog, query, path, limit=10)
        what = (
            " and ".join(f"{k} {v!r}" for k, v in (("query", query), ("path", path)) if v)
            or "no filter"
        )
        if not hits:
            return (
                f"No skills match {what}. Try other keywords; "
                f"{len(session.catalog.model_visible)} skills are available."
            )
        lines = [f"Skills matching {what} (best first):"]
        for hit in hits:
            mark = " [Loaded]" if session.is_loaded(hit.skill.name) else ""
            lines.append(f"- {hit.skill.name}{mark}: {entry_description(hit.skill)}")
        lines.append(f"Call {self.names.load} with a name to use one.")
        return "\n".join(lines)

    def _resource_check(
        self, session: SkillSession, args: dict[str, Any], turn: Hashable | None
    ) -> ToolResult | None:
        name = args["skill_name"]
        current = self._current(turn, session)
        if name not in session.catalog or session.catalog.get(name).disable_model_invocation:  # type: ignore[union-attr]
            req = current.begin_load(name)
            msg = req.message if isinstance(req, Outcome) else f"No skill named {name!r}."
            return ToolResult(
                session, f"Error: {msg}", OutcomeCode.SKILL_NOT_FOUND, self.names.resource
            )
        return None

    def _resource(
        self,
        session: SkillSession,
        tool: str,
        args: dict[str, Any],
        turn: Hashable | None,
        content: ResourceContent | ReadError | None,
    ) -> ToolResult:
        check = self._resource_check(session, args, turn)
        if check is not None:
            return check
        name, path = args["skill_name"], args["path"]
        if content is None:
            try:
                content = self.library.read_resource(name, path, session.limits.max_resource_bytes)
            except ReadError as exc:
                content = exc
        if isinstance(content, ReadError):
            hint = ""
            if content.code is OutcomeCode.RESOURCE_NOT_FOUND:
                loaded = self._current(turn, session).loaded_skill(name)
                listing = ", ".join(r.path for r in loaded.resources[:20]) if loaded else ""
                hint = (
                    f" Files of this skill: {listing}."
                    if listing
                    else f" Load the skill with {self.names.load} to see its files."
                )
            return ToolResult(
                session,
                f"Error: cannot read {path!r} of skill {name!r}: {content.message}.{hint} "
                "Do not retry this path.",
                content.code,
                tool,
            )
        if content.binary:
            return ToolResult(
                session,
                f"Error: {path!r} of skill {name!r} is a binary file ({content.size} bytes); "
                "it cannot be shown as text. Use it by path (for example from a script) instead.",
                OutcomeCode.BINARY_RESOURCE,
                tool,
            )
        text = (
            f"<skill_resource skill={_q(name)} path={_q(path)}>\n{content.text}\n</skill_resource>"
        )
        return ToolResult(session, text, OutcomeCode.RESOURCE_READ, tool)


def _q(value: str) -> str:
    return quoteattr(value)
