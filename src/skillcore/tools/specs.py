"""The skill tools as the model sees them: JSON Schemas and argument validation.

Schemas are valid for OpenAI strict mode (every property required, optional ones nullable,
``additionalProperties: false``); adapters translate them to their framework's shape.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from skillcore.errors import SkillcoreError
from skillcore.names import ToolNames

#: Above this many loadable skills the ``skill_name`` parameter is a plain string, not an enum.
DEFAULT_ENUM_LIMIT = 200
#: Raw JSON arguments longer than this are refused before parsing (skill tool arguments are
#: a name and a path).
MAX_ARGUMENT_CHARS = 64 * 1024
#: The longest single string argument (a name, a path, a query), however the arguments came.
MAX_ARGUMENT_VALUE_CHARS = 4096
#: The most command-line arguments one script run takes (each at most
#: :data:`MAX_ARGUMENT_VALUE_CHARS`).
MAX_SCRIPT_ARGS = 64
#: The longest stdin text one script run takes (the raw arguments stay within
#: :data:`MAX_ARGUMENT_CHARS` too).
MAX_SCRIPT_STDIN_CHARS = 32 * 1024


class ToolKind(str, enum.Enum):
    """What a skill tool does (independent of its possibly prefixed name)."""

    LOAD = "load"
    UNLOAD = "unload"
    RESOURCE = "resource"
    SEARCH = "search"
    SCRIPT = "script"


#: Required and optional arguments of each tool kind.
_ARGUMENTS: dict[ToolKind, tuple[tuple[str, ...], tuple[str, ...]]] = {
    ToolKind.LOAD: (("skill_name",), ()),
    ToolKind.UNLOAD: (("skill_name",), ()),
    ToolKind.RESOURCE: (("skill_name", "path"), ("offset",)),
    ToolKind.SEARCH: ((), ("query", "path")),
    ToolKind.SCRIPT: (("skill_name", "script"), ("args", "stdin")),
}


#: Optional arguments that are whole numbers (0 or more), not text.
_INTEGER_ARGUMENTS = frozenset({"offset"})
#: The largest offset accepted (far past any file a skill may hold).
MAX_OFFSET = 2**31


class ArgumentError(SkillcoreError, ValueError):
    """Tool arguments did not validate; the message is written for the model."""


@attrs.frozen
class ToolSpec:
    """A tool as the model sees it: name, description and JSON Schema of its arguments."""

    name: str
    kind: str
    description: str
    parameters: Mapping[str, Any]

    def json_schema(self) -> dict[str, Any]:
        """A deep copy of ``parameters`` (safe to hand to a framework that mutates it)."""
        copy: dict[str, Any] = json.loads(json.dumps(self.parameters))
        return copy


def _nullable_string(description: str) -> dict[str, Any]:
    return {"type": ["string", "null"], "description": description}


def _string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def build_specs(
    names: ToolNames,
    *,
    include_resource_tool: bool = True,
    loadable: Sequence[str] | None = None,
    enum_limit: int = DEFAULT_ENUM_LIMIT,
    include_script_tool: bool = False,
) -> tuple[ToolSpec, ...]:
    """The tool specs; ``loadable`` (when given and short enough) becomes the enum of
    ``skill_name`` for the load tool. ``include_script_tool``: offer ``run_skill_script``
    (only when a script runner is configured)."""
    name_schema = _string("Exact skill name.")
    if loadable is not None and len(loadable) <= enum_limit:
        name_schema["enum"] = list(loadable)
    specs = [_load_spec(names, name_schema), _unload_spec(names)]
    if include_resource_tool:
        specs.append(_resource_spec(names))
    specs.append(_search_spec(names))
    if include_script_tool:
        specs.append(_script_spec(names))
    return tuple(specs)


def _object(props: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema object of ``props``, all required, nothing else allowed."""
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": props,
        "required": list(props),
    }


def _load_spec(names: ToolNames, name_schema: dict[str, Any]) -> ToolSpec:
    return ToolSpec(
        names.load,
        ToolKind.LOAD.value,
        "Load a skill: returns its full instructions, its directory and its resource "
        "files. Call this when a task matches a skill's description, before acting.",
        _object({"skill_name": name_schema}),
    )


def _unload_spec(names: ToolNames) -> ToolSpec:
    return ToolSpec(
        names.unload,
        ToolKind.UNLOAD.value,
        "Unload a skill whose instructions no longer apply; frees a slot and lifts "
        "its tool restrictions.",
        _object({"skill_name": _string("Skill name.")}),
    )


def _resource_spec(names: ToolNames) -> ToolSpec:
    return ToolSpec(
        names.resource,
        ToolKind.RESOURCE.value,
        "Read one file of a loaded skill (a script, reference or asset), by its "
        f"path relative to the skill directory as listed by {names.load}.",
        _object(
            {
                "skill_name": _string("Skill name."),
                "path": _string("Path relative to the skill directory, e.g. references/guide.md."),
                "offset": {
                    "type": ["integer", "null"],
                    "description": "null to read the whole file; a character offset to read "
                    "one part from there (a cut reply names the offset of the next part).",
                },
            }
        ),
    )


def _search_spec(names: ToolNames) -> ToolSpec:
    return ToolSpec(
        names.search,
        ToolKind.SEARCH.value,
        "Search all available skills by keywords and/or a file path (matched against "
        "names, descriptions, triggers and file patterns). Use it to find skills not "
        "listed in the prompt.",
        _object(
            {
                "query": _nullable_string("Keywords describing the task, or null."),
                "path": _nullable_string("A file path the task is about, or null."),
            }
        ),
    )


def _script_spec(names: ToolNames) -> ToolSpec:
    return ToolSpec(
        names.script,
        ToolKind.SCRIPT.value,
        "Run a script of a loaded skill (a file its load reply lists, e.g. scripts/x.py) "
        "in a sandbox, with arguments and optional stdin; returns the exit code, stdout and "
        "stderr. Run scripts only when the skill's instructions say to.",
        _object(
            {
                "skill_name": _string("Skill name (the skill must be loaded)."),
                "script": _string("Path of the script relative to the skill directory."),
                "args": {
                    "type": ["array", "null"],
                    "items": {"type": "string"},
                    "description": f"Command-line arguments (at most {MAX_SCRIPT_ARGS}), or null.",
                },
                "stdin": _nullable_string("Text given to the script on standard input, or null."),
            }
        ),
    )


def parse_json_object(arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """Tool arguments as a dict: a mapping, a JSON object string, or nothing.

    Raises :class:`ArgumentError` (short message) for anything else, including oversized,
    too deeply nested or otherwise unparseable JSON.
    """
    if arguments is None or arguments == "":
        return {}
    value: Any = arguments
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENT_CHARS:
            raise ArgumentError(f"arguments are longer than {MAX_ARGUMENT_CHARS} characters")
        try:
            value = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ArgumentError(
                f"arguments are not valid JSON ({exc.msg} at position {exc.pos}); "
                "send a JSON object"
            ) from None
        except (ValueError, RecursionError):  # huge integers, deep nesting
            raise ArgumentError("arguments are not a JSON object this tool can read") from None
    if not isinstance(value, Mapping):
        raise ArgumentError(f"arguments must be a JSON object, got {type(value).__name__}")
    return dict(value)


def parse_arguments(kind: ToolKind, tool: str, arguments: Any) -> dict[str, Any]:
    """Validate raw arguments of a ``kind`` tool named ``tool``. Raises ArgumentError."""
    args = parse_json_object(arguments)
    required, optional = _ARGUMENTS[kind]
    allowed = {*required, *optional}
    extra = sorted(str(k)[:40] for k in args if k not in allowed)
    if extra:
        raise ArgumentError(
            f"unexpected argument(s) {', '.join(extra[:5])}; {tool} takes "
            f"{', '.join(sorted(allowed)) or 'no arguments'}"
        )
    for key, value in args.items():
        if kind is ToolKind.SCRIPT and key in ("args", "stdin"):
            continue  # their own bounds (_script_args, _stdin)
        if isinstance(value, str) and len(value) > MAX_ARGUMENT_VALUE_CHARS:
            raise ArgumentError(
                f"argument {key!r} is longer than {MAX_ARGUMENT_VALUE_CHARS} characters"
            )
    out: dict[str, Any] = {}
    for key in required:
        value = args.get(key)
        if value is None:
            raise ArgumentError(f"missing required argument {key!r} (a string)")
        if not isinstance(value, str) or not value.strip():
            raise ArgumentError(f"argument {key!r} must be a non-empty string, {_got(value)}")
        out[key] = value.strip()
    for key in optional:
        value = args.get(key)
        if key in _INTEGER_ARGUMENTS:
            out[key] = _offset(key, value)
            continue
        if kind is ToolKind.SCRIPT:
            out[key] = _script_args(value) if key == "args" else _stdin(value)
            continue
        if value is not None and not isinstance(value, str):
            raise ArgumentError(f"argument {key!r} must be a string or null, {_got(value)}")
        out[key] = value.strip() if isinstance(value, str) and value.strip() else None
    return out


def _offset(key: str, value: Any) -> int | None:
    """A whole number 0 or more (digits in a string too: models send ``"120"``), or None."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value) < 12:
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if type(value) is not int or not 0 <= value <= MAX_OFFSET:
        raise ArgumentError(f"argument {key!r} must be a whole number 0 or more, or null")
    return value


def _script_args(value: Any) -> tuple[str, ...]:
    """Command-line arguments: a list of strings (null: none), bounded in count and length;
    a NUL or text that is not valid Unicode cannot be an argument."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ArgumentError(f"argument 'args' must be a list of strings or null, {_got(value)}")
    if len(value) > MAX_SCRIPT_ARGS:
        raise ArgumentError(f"argument 'args' has more than {MAX_SCRIPT_ARGS} items")
    for item in value:
        if not isinstance(item, str):
            raise ArgumentError(f"every item of 'args' must be a string, {_got(item)}")
        if len(item) > MAX_ARGUMENT_VALUE_CHARS:
            raise ArgumentError(
                f"an item of 'args' is longer than {MAX_ARGUMENT_VALUE_CHARS} characters"
            )
        if "\x00" in item or not _encodable(item):
            raise ArgumentError("an item of 'args' holds a NUL or text that is not valid Unicode")
    return tuple(value)


def _stdin(value: Any) -> str | None:
    """Standard input text (null: none), bounded."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ArgumentError(f"argument 'stdin' must be a string or null, {_got(value)}")
    if len(value) > MAX_SCRIPT_STDIN_CHARS:
        raise ArgumentError(f"argument 'stdin' is longer than {MAX_SCRIPT_STDIN_CHARS} characters")
    if not _encodable(value):
        raise ArgumentError("argument 'stdin' is not valid Unicode text")
    return value


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON allows "\ud800")
        return False
    return True


def _got(value: Any) -> str:
    # Never the repr of model input: it may be huge, deeply nested or not encodable.
    return "got an empty string" if value == "" else f"got {type(value).__name__}"


__all__ = [
    "DEFAULT_ENUM_LIMIT",
    "MAX_ARGUMENT_CHARS",
    "MAX_ARGUMENT_VALUE_CHARS",
    "MAX_SCRIPT_ARGS",
    "MAX_SCRIPT_STDIN_CHARS",
    "ArgumentError",
    "ToolKind",
    "ToolSpec",
    "build_specs",
    "parse_arguments",
    "parse_json_object",
]
