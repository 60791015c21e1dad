"""Pure parsing and validation of ``SKILL.md`` bytes: no I/O, never raises for bad input.

Frontmatter is bounded *before* it reaches a YAML parser: libyaml's C loader can crash the
process on deeply nested input and the pure-Python loader raises ``RecursionError``.
"""

from __future__ import annotations

import datetime
import enum
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

import attrs
import yaml

from skillcore._frozen import FrozenDict
from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import SkillLocation, SkillMetadata

try:  # libyaml is ~10x faster; fall back to the pure-Python *safe* loader, never an unsafe one.
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
#: Frontmatter larger than this is refused before parsing.
MAX_FRONTMATTER_BYTES = 64 * 1024
#: Bracket / indentation nesting deeper than this is refused before parsing.
MAX_NESTING = 32
#: Values expanded from aliases beyond this count are refused (alias bombs).
MAX_NODES = 20_000

_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Characters that would break a prompt entry, a path or a tool enum even in lenient mode.
_FORBIDDEN_NAME = re.compile(r"[\s/\\<>&\"'`\x00-\x1f\x7f]")
_TOP_KEY_LINE = re.compile(r"^([A-Za-z0-9_-]+):[ \t]+(.+?)\s*$")


class ValidationMode(str, enum.Enum):
    """LENIENT follows the agentskills client guide; STRICT applies the spec to the letter."""

    LENIENT = "lenient"
    STRICT = "strict"


@attrs.frozen
class ParseResult:
    """The outcome of parsing one ``SKILL.md``: metadata (None when skipped) and diagnostics."""

    metadata: SkillMetadata | None
    diagnostics: tuple[Diagnostic, ...] = ()
    #: True when the head ended before the frontmatter did; the caller should read more.
    need_more: bool = False
    body_offset: int = 0


@attrs.frozen
class _Ctx:
    source: str
    path: str
    mode: ValidationMode

    def diag(self, sev: Severity, code: Code, message: str, field: str | None = None) -> Diagnostic:
        return Diagnostic(sev, code, message, self.source, self.path, field)

    def problem(self, code: Code, message: str, field: str | None = None) -> Diagnostic:
        """An error in strict mode, a warning in lenient mode."""
        sev = Severity.ERROR if self.mode is ValidationMode.STRICT else Severity.WARNING
        return self.diag(sev, code, message, field)


def decode_text(data: bytes) -> tuple[str | None, Code | None, str]:
    """Decode UTF-8 (BOM tolerated). Returns ``(text, error_code, message)``."""
    if b"\x00" in data[:8192]:
        return None, Code.BINARY_FILE, "file contains NUL bytes; it looks binary, not Markdown"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # A head cut in the middle of a multi-byte character is not an error.
        if exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            text = data[: exc.start].decode("utf-8-sig")
        else:
            line = data[: exc.start].count(b"\n") + 1
            return (
                None,
                Code.DECODE_ERROR,
                f"not valid UTF-8 at byte {exc.start} (line {line}): {exc.reason}; "
                "save the file as UTF-8",
            )
    return text, None, ""


def split_frontmatter(text: str) -> tuple[str | None, int, bool]:
    """Find the frontmatter. Returns ``(yaml_text, body_offset, terminated)``.

    ``yaml_text`` is None when the file does not start with a ``---`` line.
    """
    if not text.startswith("---"):
        return None, 0, False
    first_nl = text.find("\n")
    if first_nl == -1 or text[:first_nl].strip() != "---":
        return None, 0, False
    m = _CLOSING.search(text, first_nl + 1)
    if m is None:
        return text[first_nl + 1 :], len(text), False
    end = m.end()
    body_offset = end + 1 if end < len(text) else end
    return text[first_nl + 1 : m.start()], body_offset, True


#: A line that closes the frontmatter: ``---`` or ``...`` with optional trailing blanks.
_CLOSING = re.compile(r"^(?:---|\.\.\.)[ \t\r]*$", re.M)


def _nesting_depth(yaml_text: str) -> int:
    """A cheap upper bound on YAML nesting: flow brackets plus block indentation levels."""
    if (
        yaml_text.count("[") + yaml_text.count("{") <= MAX_NESTING
        and "\n" + " " * 24 not in yaml_text
        and "- - - -" not in yaml_text
    ):
        # Fewer brackets than the limit, indentation under 24 and no long "- - -" runs:
        # the exact walk below cannot exceed the limit, so skip it (hot path of discovery).
        return 0
    flow = 0
    max_flow = 0
    for ch in yaml_text:
        if ch in "[{":
            flow += 1
            max_flow = max(max_flow, flow)
        elif ch in "]}" and flow:
            flow -= 1
    stack: list[int] = []
    max_block = 0
    for raw in yaml_text.splitlines():
        stripped = raw.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(raw) - len(stripped)
        while stack and stack[-1] >= indent:
            stack.pop()
        stack.append(indent)
        dashes = 0
        while stripped.startswith("- ") or stripped == "-":
            dashes += 1
            stripped = stripped[2:].lstrip(" ")
        max_block = max(max_block, len(stack) + dashes)
    return max(max_flow, max_block)


def _indicator_count(yaml_text: str) -> int:
    """How many characters could each open a nesting level without a new indented line."""
    return (
        yaml_text.count("[")
        + yaml_text.count("{")
        + yaml_text.count("?")
        + yaml_text.count("- ")
        + yaml_text.count("-\t")
        + yaml_text.count(": -")
    )


def _event_depth(yaml_text: str, limit: int) -> int:
    """Exact nesting depth from the parser's event stream, stopping once past ``limit``.

    libyaml's event parser keeps an explicit stack (no C recursion), so this is safe on input
    that would crash the recursive composer behind ``yaml.load``.
    """
    depth = max_depth = 0
    try:
        for event in yaml.parse(yaml_text, Loader=_Loader):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > max_depth:
                    max_depth = depth
                    if max_depth > limit:
                        return max_depth
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except (yaml.YAMLError, RecursionError):
        pass  # the real load reports the syntax error; the depth reached so far is exact
    return max_depth


def _too_deep(yaml_text: str) -> bool:
    """True when the frontmatter nests deeper than MAX_NESTING.

    The cheap scan proves the common case shallow. It can be fooled (``]`` inside quotes,
    ``? `` chains), so anything it cannot prove shallow gets the exact event-stream check.
    """
    half = MAX_NESTING // 2  # the two cheap counts add up to a bound on the real depth
    if _nesting_depth(yaml_text) < half and _indicator_count(yaml_text) < half:
        return False
    return _event_depth(yaml_text, MAX_NESTING) > MAX_NESTING


def _count_nodes(value: Any, limit: int) -> int:
    """Count values as a consumer would see them, expanding aliases; stops past ``limit``."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            return count
        if isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return count


def _quote_colon_values(yaml_text: str) -> str:
    """The agentskills fallback: quote top-level scalar values that contain an unquoted colon."""
    out = []
    for line in yaml_text.splitlines():
        m = _TOP_KEY_LINE.match(line)
        if m and ": " in m.group(2) and m.group(2)[0] not in "\"'[{|>&*!":
            value = m.group(2).replace("\\", "\\\\").replace('"', '\\"')
            line = f'{m.group(1)}: "{value}"'
        out.append(line)
    return "\n".join(out) + "\n"


def _load_yaml(yaml_text: str) -> Any:
    return yaml.load(yaml_text, Loader=_Loader)


def parse_skill_file(
    data: bytes,
    *,
    directory_name: str,
    location: SkillLocation,
    path: str,
    mode: ValidationMode = ValidationMode.LENIENT,
    complete: bool = True,
    stamp: str = "",
) -> ParseResult:
    """Parse and validate one ``SKILL.md`` (its head or all of it).

    ``complete`` says whether ``data`` is the whole file; if it is only a head and the
    frontmatter does not end inside it, the result has ``need_more=True``.
    """
    ctx = _Ctx(location.source, path, mode)
    if not data.strip():
        return _skip(ctx, Code.EMPTY_FILE, "SKILL.md is empty")
    text, err, msg = decode_text(data)
    if text is None:
        assert err is not None
        return _skip(ctx, err, msg)
    yaml_text, body_offset, terminated = split_frontmatter(text)
    if yaml_text is None:
        return _skip(
            ctx,
            Code.NO_FRONTMATTER,
            "SKILL.md must start with a '---' line opening YAML frontmatter",
        )
    if not terminated:
        if not complete and len(yaml_text.encode()) < MAX_FRONTMATTER_BYTES:
            return ParseResult(None, (), need_more=True)
        if len(yaml_text.encode()) >= MAX_FRONTMATTER_BYTES:
            return _skip(
                ctx,
                Code.YAML_TOO_COMPLEX,
                f"frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes",
            )
        return _skip(ctx, Code.UNTERMINATED_FRONTMATTER, "frontmatter has no closing '---' line")
    if len(yaml_text.encode()) > MAX_FRONTMATTER_BYTES:
        return _skip(
            ctx, Code.YAML_TOO_COMPLEX, f"frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes"
        )
    too_deep = (
        f"frontmatter nests more than {MAX_NESTING} levels deep; refused before parsing "
        "(flatten the YAML)"
    )
    if _too_deep(yaml_text):
        return _skip(ctx, Code.YAML_TOO_COMPLEX, too_deep)
    diags: list[Diagnostic] = []
    try:
        raw = _load_yaml(yaml_text)
    except (yaml.YAMLError, RecursionError) as exc:
        first_error = _yaml_message(exc)
        if mode is ValidationMode.STRICT:
            return _skip(ctx, Code.YAML_ERROR, f"invalid YAML: {first_error}")
        fixed = _quote_colon_values(yaml_text)
        # Quoting can turn text that sat inside a string into structure: check depth again.
        if _too_deep(fixed):
            return _skip(ctx, Code.YAML_TOO_COMPLEX, too_deep)
        try:
            raw = _load_yaml(fixed)
        except (yaml.YAMLError, RecursionError):
            return _skip(ctx, Code.YAML_ERROR, f"invalid YAML: {first_error}")
        diags.append(
            ctx.diag(
                Severity.WARNING,
                Code.YAML_FALLBACK,
                "YAML parsed only after quoting values that contain ': '; quote them in the file",
            )
        )
    # Without an anchor there can be no alias, so no expansion to bound.
    if "&" in yaml_text and _count_nodes(raw, MAX_NODES) > MAX_NODES:
        return _skip(
            ctx,
            Code.YAML_TOO_COMPLEX,
            f"frontmatter expands to more than {MAX_NODES} values (alias bomb?)",
        )
    if not isinstance(raw, Mapping):
        kind = "empty" if raw is None else type(raw).__name__
        return _skip(ctx, Code.NOT_A_MAPPING, f"frontmatter must be a YAML mapping, got {kind}")
    return _build(raw, ctx, diags, directory_name, location, stamp, body_offset)


def _yaml_message(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nesting too deep"
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is not None:
        # +1: the frontmatter starts on the second line of the file.
        return f"{problem} (line {mark.line + 2}, column {mark.column + 1})"
    return str(problem)


def _skip(ctx: _Ctx, code: Code, message: str, field: str | None = None) -> ParseResult:
    return ParseResult(None, (ctx.diag(Severity.ERROR, code, f"skipped: {message}", field),))


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "date"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "mapping"
    return type(value).__name__


#: A space-separated token whose parenthesised groups may contain spaces.
_SPACE_TOKENS = re.compile(r"(?:[^\s(]|\([^)]*\))+")


def _split_tools(text: str) -> list[str]:
    """Split an allowed-tools string on spaces or commas, never inside parentheses."""
    if "," not in text:
        if "(" not in text:
            return text.split()  # the common case, without the character walk
        if text.count("(") == text.count(")"):
            return _SPACE_TOKENS.findall(text)  # "Bash(git log:*) Read": groups keep spaces
    sep_is_comma = False
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            sep_is_comma = True
            break
    items: list[str] = []
    buf: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        is_sep = (ch == "," if sep_is_comma else ch.isspace()) and depth == 0
        if is_sep:
            items.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    items.append("".join(buf))
    return [i.strip() for i in items if i.strip()]


def parse_allowed_tools(value: Any) -> tuple[str, ...] | None:
    """Spec string (space-separated), YAML list, or comma-separated text -> tuple of entries."""
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(_split_tools(value))
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for item in value:
            if isinstance(item, str) and item.strip():
                out.append(item.strip())
        return tuple(out)
    raise TypeError(_type_name(value))


def _str_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(",") if p.strip())
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            if type(v) is not str:
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    raise TypeError("list of non-strings")
                v = str(v)
            v = v.strip()
            if v:
                out.append(v)
        return tuple(out)
    raise TypeError(_type_name(value))


_KNOWN = {
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "version",
    "triggers",
    "file-patterns",
    "priority",
    "dependencies",
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
}
_SPEC_FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}


def check_name(name: str, mode: ValidationMode) -> tuple[bool, str | None]:
    """Validate a skill name. Returns ``(usable, problem)``.

    A name is unusable in any mode if it is empty, longer than 128 characters or contains
    whitespace, path separators, markup or control characters; otherwise spec violations are
    problems (fatal only in strict mode).
    """
    if not name:
        return False, "name is empty"
    if len(name) > 2 * MAX_NAME:
        return False, f"name is {len(name)} characters long (at most {2 * MAX_NAME} are usable)"
    bad = _FORBIDDEN_NAME.search(name)
    if bad:
        char = bad.group()
        what = "whitespace" if char.isspace() else f"the character {char!r}"
        return False, (
            f"name {name!r} contains {what}, which cannot appear in a tool argument, a path or "
            "a prompt entry; use lowercase letters, digits and hyphens"
        )
    if unicodedata.normalize("NFKC", name) != name:
        return False, f"name {name!r} is not in Unicode normal form NFKC"
    if len(name) > MAX_NAME:
        return True, f"name is {len(name)} characters long (limit {MAX_NAME})"
    if not _NAME_RE.match(name):
        return True, (
            f"name {name!r} must be lowercase a-z, 0-9 and single hyphens, "
            "not starting or ending with a hyphen"
        )
    return True, None


def _build(
    raw: Mapping[Any, Any],
    ctx: _Ctx,
    diags: list[Diagnostic],
    directory_name: str,
    location: SkillLocation,
    stamp: str,
    body_offset: int,
) -> ParseResult:
    fm: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            diags.append(ctx.problem(Code.INVALID_TYPE, f"ignored non-string key {key!r}"))
            continue
        norm = key.strip().lower().replace("_", "-")
        if norm in _KNOWN:
            fm[norm] = value
        else:
            extra[key] = _jsonable(value)
            if ctx.mode is ValidationMode.STRICT:
                diags.append(
                    ctx.diag(
                        Severity.WARNING,
                        Code.UNKNOWN_FIELD,
                        f"field {key!r} is not part of the Agent Skills spec",
                        key,
                    )
                )
    if ctx.mode is ValidationMode.STRICT:
        for key in sorted(set(fm) - _SPEC_FIELDS):
            diags.append(
                ctx.diag(
                    Severity.INFO,
                    Code.UNKNOWN_FIELD,
                    f"field {key!r} is a known extension, not part of the spec",
                    key,
                )
            )

    # -- name
    name = fm.get("name")
    if name is None and "name" not in fm:
        if ctx.mode is ValidationMode.STRICT:
            return _fail(ctx, diags, Code.MISSING_FIELD, "required field 'name' is missing", "name")
        diags.append(
            ctx.diag(
                Severity.WARNING,
                Code.MISSING_FIELD,
                f"field 'name' is missing; using the directory name {directory_name!r}",
                "name",
            )
        )
        name = directory_name
    if not isinstance(name, str):
        return _fail(
            ctx,
            diags,
            Code.INVALID_TYPE,
            f"'name' must be a string, got {_type_name(name)} ({name!r}); quote it in YAML",
            "name",
        )
    name = name.strip()
    usable, problem = check_name(name, ctx.mode)
    if not usable:
        return _fail(ctx, diags, Code.INVALID_NAME, problem or "invalid name", "name")
    if problem:
        code = Code.FIELD_TOO_LONG if "characters long" in problem else Code.INVALID_NAME
        diags.append(ctx.problem(code, problem, "name"))
    if name != directory_name:
        diags.append(
            ctx.problem(
                Code.NAME_MISMATCH,
                f"name {name!r} does not match its directory {directory_name!r}",
                "name",
            )
        )

    # -- description
    description = fm.get("description")
    if description is None:
        what = "missing" if "description" not in fm else "empty (null)"
        return _fail(ctx, diags, Code.MISSING_FIELD, f"'description' is {what}", "description")
    if not isinstance(description, str):
        return _fail(
            ctx,
            diags,
            Code.INVALID_TYPE,
            f"'description' must be a string, got {_type_name(description)}",
            "description",
        )
    description = " ".join(description.split())
    if not description:
        return _fail(ctx, diags, Code.MISSING_FIELD, "'description' is empty", "description")
    if len(description) > MAX_DESCRIPTION:
        diags.append(
            ctx.problem(
                Code.FIELD_TOO_LONG,
                f"description is {len(description)} characters long (limit {MAX_DESCRIPTION})"
                + ("" if ctx.mode is ValidationMode.STRICT else "; truncated"),
                "description",
            )
        )
        description = description[: MAX_DESCRIPTION - 1] + "…"

    kwargs: dict[str, Any] = {}
    for field, limit in (("license", None), ("compatibility", MAX_COMPATIBILITY)):
        if field not in fm or fm[field] is None:
            continue
        value = fm[field]
        if not isinstance(value, str):
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE, f"'{field}' must be a string, got {_type_name(value)}", field
                )
            )
            value = str(value)
        if limit and len(value) > limit:
            diags.append(
                ctx.problem(
                    Code.FIELD_TOO_LONG,
                    f"{field} is {len(value)} characters long (limit {limit})",
                    field,
                )
            )
        kwargs[field] = value

    meta = fm.get("metadata")
    if meta is not None:
        if isinstance(meta, Mapping):
            clean: dict[str, str] = {}
            for k, v in meta.items():
                if not isinstance(k, str) or not isinstance(v, str):
                    diags.append(
                        ctx.problem(
                            Code.INVALID_TYPE,
                            f"metadata entry {k!r} should map a string to a string; "
                            "converted to text",
                            "metadata",
                        )
                    )
                clean[str(k)] = v if isinstance(v, str) else _scalar_text(v)
            kwargs["metadata"] = FrozenDict(clean)  # str -> str: no deep freeze needed
        else:
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'metadata' must be a mapping, got {_type_name(meta)}; ignored",
                    "metadata",
                )
            )

    if "allowed-tools" in fm:
        try:
            kwargs["allowed_tools"] = parse_allowed_tools(fm["allowed-tools"])
        except TypeError as exc:
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'allowed-tools' must be a string or a list of strings, got {exc}; ignored",
                    "allowed-tools",
                )
            )

    if fm.get("version") is not None:
        version = fm["version"]
        if isinstance(version, (str, int, float)) and not isinstance(version, bool):
            kwargs["version"] = str(version)
        else:
            diags.append(
                ctx.problem(Code.INVALID_TYPE, "'version' must be a string; ignored", "version")
            )

    for field, attr in (
        ("triggers", "triggers"),
        ("file-patterns", "file_patterns"),
        ("dependencies", "dependencies"),
    ):
        if fm.get(field) is None:
            continue
        try:
            kwargs[attr] = _str_list(fm[field])
        except TypeError:
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'{field}' must be a list of strings or comma-separated text; ignored",
                    field,
                )
            )

    if fm.get("priority") is not None:
        prio = fm["priority"]
        if isinstance(prio, int) and not isinstance(prio, bool):
            kwargs["priority"] = prio
        else:
            diags.append(
                ctx.problem(
                    Code.INVALID_TYPE,
                    f"'priority' must be an integer, got {_type_name(prio)}; using 0",
                    "priority",
                )
            )

    for field, attr in (
        ("disable-model-invocation", "disable_model_invocation"),
        ("user-invocable", "user_invocable"),
    ):
        if fm.get(field) is None:
            continue
        flag = fm[field]
        if isinstance(flag, bool):
            kwargs[attr] = flag
        else:
            diags.append(
                ctx.problem(Code.INVALID_TYPE, f"'{field}' must be true or false; ignored", field)
            )

    if "version" not in kwargs:
        meta_version = kwargs.get("metadata", {}).get("version")
        if meta_version:
            kwargs["version"] = meta_version  # a common convention: metadata: {version: ...}

    if fm.get("argument-hint") is not None:
        kwargs["argument_hint"] = _scalar_text(fm["argument-hint"])

    if ctx.mode is ValidationMode.STRICT and any(d.severity is Severity.ERROR for d in diags):
        return ParseResult(None, tuple(diags), body_offset=body_offset)
    metadata = SkillMetadata(
        name=name,
        description=description,
        location=location,
        extra=extra,
        stamp=stamp,
        **kwargs,
    )
    return ParseResult(metadata, tuple(diags), body_offset=body_offset)


def _fail(ctx: _Ctx, diags: list[Diagnostic], code: Code, message: str, field: str) -> ParseResult:
    diags.append(ctx.diag(Severity.ERROR, code, f"skipped: {message}", field))
    return ParseResult(None, tuple(diags))


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value)


def _jsonable(value: Any) -> Any:
    """Unknown frontmatter values as JSON-native data (dates become ISO text)."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return _scalar_text(value)


def body_of(text: str) -> str:
    """The Markdown body of a full ``SKILL.md`` text (everything after the frontmatter)."""
    _, offset, terminated = split_frontmatter(text)
    # "\r" too: a CRLF file would otherwise start with a blank "\r\n" line and end with "\r".
    return text[offset:].strip("\r\n") if terminated else text
