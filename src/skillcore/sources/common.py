"""Helpers shared by the backends that see a source as a flat list of file paths."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.model import Resource, ResourceKind
from skillcore.paths import hidden_name, undecodable
from skillcore.sources.source import SKILL_FILE, SkillSource

_T = TypeVar("_T")


def hidden_or_skipped(segments: Iterable[str]) -> bool:
    """True when any path segment is hidden (``.x``) or a directory never descended into
    (the rule is :func:`skillcore.paths.hidden_name`)."""
    return any(hidden_name(s) for s in segments)


def skill_directories(rel_files: Iterable[str], source: SkillSource) -> list[str]:
    """Skill directories (relative to the source root) among ``rel_files``, sorted.

    ``['']`` when the root itself holds ``SKILL.md``. Otherwise every ``<dir>/SKILL.md`` at
    depth 1 (or up to ``source.max_depth`` for recursive sources), skipping hidden and
    :data:`SKIP_DIRS` folders and folders inside another skill (those are its resources).
    """
    depth = source.max_depth if source.recursive else 1
    found: set[str] = set()
    for rel in rel_files:
        if rel == SKILL_FILE:
            return [""]
        if not rel.endswith("/" + SKILL_FILE):
            continue
        directory = rel[: -len(SKILL_FILE) - 1]
        segments = directory.split("/")
        if len(segments) > depth or hidden_or_skipped(segments) or undecodable(directory):
            continue  # (readers report undecodable names when they index them)
        found.add(directory)
    return sorted(d for d in found if not inside_other(d, found))


def cap_skill_directories(dirs: list[_T], source: SkillSource) -> tuple[list[_T], list[Diagnostic]]:
    """At most ``source.max_entries`` directories, with a SOURCE_LIMIT warning when cut."""
    if len(dirs) <= source.max_entries:
        return dirs, []
    warning = Diagnostic(
        Severity.WARNING,
        Code.SOURCE_LIMIT,
        f"found {len(dirs)} skills; only the first {source.max_entries} are read",
        source.label,
    )
    return dirs[: source.max_entries], [warning]


def inside_other(directory: str, dirs: set[str]) -> bool:
    """True when a parent folder of ``directory`` is one of ``dirs`` (a skill's own folder)."""
    parts = directory.split("/")
    return any("/".join(parts[:i]) in dirs for i in range(1, len(parts)))


def describe_error(exc: BaseException) -> str:
    """``Type: message`` with a hint for the errors users meet most."""
    text = str(exc).strip() or repr(exc)
    name = type(exc).__name__
    code = _service_code(exc)
    if code and code not in text:
        name = f"{name} {code}"
    if isinstance(exc, PermissionError):
        return f"access denied ({name}: {text}); check the credentials and permissions"
    if isinstance(exc, FileNotFoundError):
        return f"not found ({name}: {text})"
    if name in {"EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError"}:
        return f"the endpoint could not be reached ({name}: {text})"
    if name in {"ReadTimeoutError", "TimeoutError", "FSTimeoutError"} or isinstance(
        exc, TimeoutError
    ):
        return f"the server did not answer in time ({name}: {text})"
    return f"{name}: {text}"


def _service_code(exc: BaseException) -> str | None:
    """The service's error code (e.g. ``InvalidAccessKeyId``) of a botocore ClientError that
    s3fs translated into an OSError, found on the exception's cause chain."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 5:
        response = getattr(current, "response", None)
        if isinstance(response, dict):
            code = response.get("Error", {}).get("Code")
            if isinstance(code, str) and code:
                return code
        current = current.__cause__ or current.__context__
        seen += 1
    return None


def listed_resources(
    files: Iterable[tuple[str, int | None]], prefix: str, max_entries: int
) -> tuple[tuple[Resource, ...], bool]:
    """The resources among ``(path, size)`` pairs (in path order) below ``prefix``, their
    paths relative to it: ``SKILL.md`` and hidden or skipped folders left out, at most
    ``max_entries``; ``(resources, truncated)``."""
    out: list[Resource] = []
    for path, size in files:
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix) :]
        if rel == SKILL_FILE or hidden_or_skipped(rel.split("/")):
            continue
        if len(out) >= max_entries:
            return tuple(out), True
        out.append(Resource(rel, ResourceKind.for_path(rel), size))
    return tuple(out), False
