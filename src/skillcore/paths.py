"""The one rule for a path a model or a skill gives relative to a skill directory.

Every reader (local, fsspec, Git, MCP) and the session's resource request use it, and the
reason it gives is a value (:class:`PathProblem`), never read back from message text.
"""

from __future__ import annotations

import enum

#: Longer paths are refused before any other check (they cannot name a real resource).
MAX_PATH_CHARS = 1024

#: Directory names never descended into, nor listed or read as resources (compared
#: case-insensitively: on macOS and Windows ``NODE_MODULES`` opens ``node_modules``).
SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".hg", ".svn"})


class PathProblem(enum.Enum):
    """Why a path cannot name a file inside a skill directory; the value is the reason."""

    EMPTY = "the path is empty"
    TOO_LONG = "the path is too long"
    NOT_UNICODE = "the path is not valid Unicode text"
    CONTROL = "the path contains control characters"
    BACKSLASH = "the path contains NUL or backslashes"
    ABSOLUTE = "the path is absolute; give a path relative to the skill directory"
    OUTSIDE = "the path goes outside the skill directory ('..')"
    DIRECTORY = "the path names the skill directory itself"
    HIDDEN = (
        "the path names a hidden file or folder (a name starting with '.', or .git, "
        "node_modules, __pycache__, venv); only the files the skill lists can be read"
    )


def hidden_name(name: str) -> bool:
    """True for a path segment that is hidden (``.env``, ``.git``) or a folder never
    descended into (:data:`SKIP_DIRS`). The one rule for what a resource listing leaves out
    and what no read may open, whatever path a model or a link gives."""
    return name.startswith(".") or name.casefold() in SKIP_DIRS


def undecodable(name: str) -> bool:
    """True when a file name holds bytes that are not UTF-8 (``surrogateescape`` surrogates):
    such a name can neither be shown in JSON/UTF-8 replies nor passed back by a model."""
    if name.isascii():
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def printable_name(name: str) -> str:
    """``name`` with undecodable bytes shown as ``\\xNN`` (safe in any UTF-8 output)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def path_problem(path: object, *, max_chars: int = MAX_PATH_CHARS) -> PathProblem | None:
    """Why ``path`` cannot name a file of a skill directory, or None when it can."""
    if not isinstance(path, str) or not path.strip():
        return PathProblem.EMPTY
    if len(path) > max_chars:
        return PathProblem.TOO_LONG
    p = path.strip()
    if "\x00" in p or "\\" in p:
        return PathProblem.BACKSLASH
    if undecodable(p):
        return PathProblem.NOT_UNICODE
    if any(ord(c) < 32 or ord(c) == 127 for c in p):
        return PathProblem.CONTROL
    if p.startswith("/") or (len(p) > 1 and p[1] == ":") or "://" in p:
        return PathProblem.ABSOLUTE
    parts = [seg for seg in p.split("/") if seg not in ("", ".")]
    if ".." in parts:
        return PathProblem.OUTSIDE
    if not parts:
        return PathProblem.DIRECTORY
    if any(hidden_name(seg) for seg in parts):
        return PathProblem.HIDDEN
    return None


def normalise_relpath(path: str) -> str:
    """The canonical form (``a/b``) of a path :func:`path_problem` accepted."""
    return "/".join(seg for seg in path.strip().split("/") if seg not in ("", "."))
