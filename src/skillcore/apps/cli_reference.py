"""``skillcore validate --mode reference``: the verdicts of the Agent Skills reference validator
(:mod:`skillcore.parse.reference`) over local skill folders, and ``show --json`` in the shape of
its ``read-properties``."""

from __future__ import annotations

import os
from pathlib import Path

from skillcore.diagnostics import Code, Diagnostic, Severity
from skillcore.limits import DEFAULT_MAX_FILE_BYTES
from skillcore.parse import reference_errors

#: The file names the reference accepts, in its order of preference.
_SKILL_FILES = ("SKILL.md", "skill.md")


def skill_folders(source: str) -> list[Path] | None:
    """The skill folders of a local ``source``: the folder itself when it holds a skill file
    (or ``source`` is that file), else its sub-folders that do; None when it is not a local
    folder or file."""
    if "://" in source and not source.startswith("file://"):
        return None
    path = _local(source)
    if path.is_file() and path.name.lower() == "skill.md":
        return [path.parent]
    if not path.is_dir():
        return None
    if _skill_file(path) is not None:
        return [path]
    try:
        children = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return None
    return [Path(e.path) for e in children if e.is_dir() and _skill_file(Path(e.path))]


def _local(source: str) -> Path:
    return Path(source[len("file://") :] if source.startswith("file://") else source)


def _skill_file(folder: Path) -> Path | None:
    for name in _SKILL_FILES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def check_folder(folder: Path, source: str) -> tuple[str | None, list[Diagnostic]]:
    """``(name, diagnostics)`` of one skill folder of ``source`` (as :func:`skill_folders`
    gave it) under the reference's rules: the name when the skill is valid, one error per
    broken rule otherwise."""
    skill_file = _skill_file(folder)
    rel = folder.name if folder.parent == _local(source) else ""
    where = f"{rel}/{skill_file.name}" if rel and skill_file else (skill_file or folder).name

    def error(message: str) -> Diagnostic:
        return Diagnostic(Severity.ERROR, Code.REFERENCE_RULE, message, source, where)

    if skill_file is None:
        return None, [error("Missing required file: SKILL.md")]
    try:
        with open(skill_file, "rb") as fh:
            data = fh.read(DEFAULT_MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, [error(f"cannot read {skill_file.name}: {exc.strerror or exc}")]
    if len(data) > DEFAULT_MAX_FILE_BYTES:
        return None, [error(f"{skill_file.name} is over the {DEFAULT_MAX_FILE_BYTES}-byte limit")]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, [error(f"{skill_file.name} is not UTF-8 text")]
    # The folder's own name, also for a relative path such as ``.``.
    errors = reference_errors(text, folder.resolve().name)
    if errors:
        return None, [error(e) for e in errors]
    return folder.resolve().name, []


__all__ = ["check_folder", "skill_folders"]
