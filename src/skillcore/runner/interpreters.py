"""The interpreter table: which program runs a skill's script, chosen by skillcore.

A script is run by an interpreter of the table, picked by its extension (``.py``, ``.sh``,
``.bash``, ``.js``, ``.mjs``) or, without a known extension, by its shebang line; a shebang
only picks among the table's interpreters (``#!/usr/bin/env python3`` picks Python), it never
names the program that runs. Anything else is refused: a script is never executed directly,
so a file that is (or links to) ``/bin/sh`` or any other binary is not run.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import attrs

from skillcore._frozen import to_frozen

#: Refusal code: the path is not a regular file of the skill (a link, a folder, missing).
SCRIPT_NOT_RUNNABLE = "SCRIPT_NOT_RUNNABLE"
#: Refusal code: no interpreter of the table runs this file here.
NO_INTERPRETER = "NO_INTERPRETER"

#: Bytes of a script read to find its shebang line.
SHEBANG_BYTES = 256

#: Interpreter kinds by file extension.
EXTENSIONS: Mapping[str, str] = {
    ".py": "python",
    ".sh": "bash",
    ".bash": "bash",
    ".js": "node",
    ".mjs": "node",
}

#: Interpreter kinds by the program a shebang names (its last path part, or the word after
#: ``env``), so ``#!/bin/sh`` and ``#!/usr/bin/env python3`` pick from the table.
SHEBANG_NAMES: Mapping[str, str] = {
    "python": "python",
    "python3": "python",
    "bash": "bash",
    "sh": "bash",
    "node": "node",
    "nodejs": "node",
}


@attrs.frozen
class Refusal:
    """Why a script is not run (the reply to the model says it)."""

    code: str
    message: str


def default_interpreters() -> Mapping[str, tuple[str, ...]]:
    """The table on this machine: Python is the running interpreter; bash and node where
    installed (each an argv prefix, resolved to an absolute path)."""
    table: dict[str, tuple[str, ...]] = {"python": (sys.executable,)}
    for kind in ("bash", "node"):
        found = shutil.which(kind)
        if found:
            table[kind] = (found,)
    return to_frozen(table)


def _shebang_kind(script: Path) -> str | None:
    try:
        fd = os.open(script, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        head = os.read(fd, SHEBANG_BYTES)
    finally:
        os.close(fd)
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("ascii", "replace").split()
    if not words:
        return None
    name = os.path.basename(words[0])
    if name == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        name = rest[0] if rest else ""
    return SHEBANG_NAMES.get(name)


def command_for(
    script_path: Path, interpreters: Mapping[str, tuple[str, ...]] | None = None
) -> tuple[str, ...] | Refusal:
    """The argv that runs ``script_path`` (interpreter prefix + the script), or why not.

    ``interpreters`` maps a kind (``python``, ``bash``, ``node``) to its argv prefix
    (:func:`default_interpreters` when omitted). A symlink is refused whatever it points to:
    the script must be a regular file of the skill.
    """
    table = default_interpreters() if interpreters is None else interpreters
    path = Path(script_path)
    if path.is_symlink() or not path.is_file():
        return Refusal(
            SCRIPT_NOT_RUNNABLE, f"{path.name} is not a regular file of the skill; not run."
        )
    kind = EXTENSIONS.get(path.suffix.lower()) or _shebang_kind(path)
    if kind is None:
        known = ", ".join(sorted(EXTENSIONS))
        return Refusal(
            NO_INTERPRETER,
            f"{path.name} has no known interpreter (extensions {known}, or a python, bash "
            "or node shebang); not run.",
        )
    prefix = table.get(kind)
    if not prefix:
        return Refusal(NO_INTERPRETER, f"{path.name} needs {kind}, which is not available here.")
    return (*prefix, str(path))
