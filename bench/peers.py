"""Skill discovery as the peer systems really do it, plus two hand-written baselines.

Every function takes the root of a skill library (a directory of skill directories) and returns
how many skills it discovered. Each peer is driven through the same public or internal entry
point that the peer itself uses when an agent starts, with nothing mocked: only the LLM is left
out. Peer imports happen lazily inside the functions so that a missing peer only disables its
own row, and so that import time is never counted (the benchmark warms up first).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

HEAD_BYTES = 4096

DiscoverFn = Callable[[Path], int]


def version_of(dist: str) -> str:
    """Return the installed version of distribution ``dist``, or ``"missing"``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "missing"


# --------------------------------------------------------------------------- deepagents


def _deepagents_middleware(root: Path) -> Any:
    from deepagents.backends import FilesystemBackend
    from deepagents.middleware.skills import SkillsMiddleware

    # The documented local setup: a FilesystemBackend rooted at the skills directory
    # (virtual_mode=True is its default) and the source given as a virtual path.
    backend = FilesystemBackend(root_dir=root)
    return SkillsMiddleware(backend=backend, sources=["/"])


def deepagents_skills(root: Path) -> int:
    """deepagents ``SkillsMiddleware.before_agent`` over a ``FilesystemBackend``.

    Calls ``deepagents.middleware.skills.SkillsMiddleware(backend=FilesystemBackend(root_dir=root),
    sources=["/"]).before_agent({}, None, None)`` (deepagents 0.7.x; version recorded by the
    benchmark). ``before_agent`` is exactly what LangChain runs at the start of every agent
    invocation whose state has no ``skills_metadata`` yet; it ignores ``runtime`` and ``config``,
    so ``None`` is passed. Internally: ``backend.ls`` of the source, ``backend.download_files`` of
    every ``*/SKILL.md`` (whole files), then a regex split and ``yaml.safe_load`` (pure-Python
    loader) per file.
    """
    middleware = _deepagents_middleware(root)
    update = middleware.before_agent({}, None, None)  # type: ignore[arg-type]
    return len(update["skills_metadata"]) if update else 0


def deepagents_skills_async(root: Path) -> int:
    """deepagents ``SkillsMiddleware.abefore_agent`` (what ``agent.ainvoke`` runs).

    Same as :func:`deepagents_skills` through the async hook, driven by ``asyncio.run``. The
    backend's ``als``/``adownload_files`` hop to a thread with ``asyncio.to_thread``, but the YAML
    parsing then runs on the event loop thread, blocking it for the whole parse.
    """
    middleware = _deepagents_middleware(root)
    update = asyncio.run(middleware.abefore_agent({}, None, None))  # type: ignore[arg-type]
    return len(update["skills_metadata"]) if update else 0


# --------------------------------------------------------------------------- Google ADK


def adk_load_skills(root: Path) -> int:
    """Google ADK's native skills: ``load_skills_from_dir`` + ``SkillToolset``.

    Calls ``google.adk.skills.load_skills_from_dir(root)`` and hands the result to
    ``google.adk.tools.skill_toolset.SkillToolset(skills=...)`` (google-adk 2.x), which is how an
    ADK agent gets skills from local disk: the toolset only accepts fully loaded ``Skill``
    objects. Per skill this reads the whole ``SKILL.md``, ``yaml.safe_load``s the frontmatter
    (pure-Python loader), validates it with pydantic, and reads *every* file under
    ``references/``, ``assets/`` and ``scripts/`` into memory. It raises on the first invalid
    skill instead of skipping it.
    """
    from google.adk.skills import load_skills_from_dir
    from google.adk.tools.skill_toolset import SkillToolset

    skills = load_skills_from_dir(root)
    toolset = SkillToolset(skills=skills)
    return len(toolset._skills)  # no public accessor; this is the toolset's registry


def adk_list_skills(root: Path) -> int:
    """Google ADK's frontmatter-only listing: ``list_skills_in_dir``.

    Calls ``google.adk.skills.list_skills_in_dir(root)`` (google-adk 2.x): per skill directory,
    a whole-file read, ``yaml.safe_load`` and pydantic ``Frontmatter`` validation; invalid skills
    are logged and skipped. This is ADK's lighter path (no resources), usable for catalogs.
    """
    from google.adk.skills import list_skills_in_dir

    return len(list_skills_in_dir(root))


# --------------------------------------------------------------------------- skills-ref


def skills_ref_read_properties(root: Path) -> int:
    """agentskills reference library: ``skills_ref.read_properties`` per skill directory.

    Calls ``skills_ref.read_properties(skill_dir)`` (skills-ref 0.1.x) for every directory under
    ``root`` that ``skills_ref.find_skill_md`` accepts, the same loop ``skills_ref.to_prompt``
    runs. Parsing uses ``strictyaml`` (built on ruamel.yaml, pure Python), which rejects
    flow-style YAML such as ``[a, b]``; errors raise ``ParseError``/``ValidationError`` and are
    counted as not discovered here.
    """
    from skills_ref import SkillError, find_skill_md, read_properties

    count = 0
    for entry in sorted(root.iterdir()):
        if not entry.is_dir() or find_skill_md(entry) is None:
            continue
        try:
            read_properties(entry)
        except SkillError:
            continue
        count += 1
    return count


# --------------------------------------------------------------------------- baselines


def _frontmatter(text: str) -> str | None:
    """Return the YAML between the opening and closing ``---`` lines, or ``None``."""
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    return None if end < 0 else text[3:end]


def _is_skill(data: object) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("name"), str)
        and isinstance(data.get("description"), str)
    )


def plain_loop(root: Path) -> int:
    """Baseline: one ``os.scandir``, a 4 KiB head read per ``SKILL.md``, libyaml ``CSafeLoader``.

    The floor a careful implementation should reach on local disk: no pathlib, no whole-file
    reads (a longer frontmatter falls back to reading the rest of the file).
    """
    count = 0
    with os.scandir(root) as entries:
        for entry in entries:
            if not entry.is_dir():
                continue
            try:
                with open(os.path.join(entry.path, "SKILL.md"), "rb") as fh:
                    raw = fh.read(HEAD_BYTES)
                    text = raw.decode("utf-8", "replace")
                    fm = _frontmatter(text)
                    if fm is None and len(raw) == HEAD_BYTES:
                        fm = _frontmatter(text + fh.read().decode("utf-8", "replace"))
            except OSError:
                continue
            if fm is None:
                continue
            try:
                data = yaml.load(fm, Loader=yaml.CSafeLoader)  # CSafeLoader is a safe loader
            except yaml.YAMLError:
                continue
            count += _is_skill(data)
    return count


def pure_python_loop(root: Path) -> int:
    """Baseline: as :func:`plain_loop`, but whole-file reads and pure-Python ``yaml.safe_load``.

    Isolates the cost of the YAML loader, which is what the peers pay.
    """
    count = 0
    with os.scandir(root) as entries:
        for entry in entries:
            if not entry.is_dir():
                continue
            try:
                with open(os.path.join(entry.path, "SKILL.md"), encoding="utf-8") as fh:
                    fm = _frontmatter(fh.read())
            except (OSError, UnicodeDecodeError):
                continue
            if fm is None:
                continue
            try:
                data = yaml.safe_load(fm)
            except yaml.YAMLError:
                continue
            count += _is_skill(data)
    return count


# name -> (function, distribution whose version is reported)
PEERS: dict[str, tuple[DiscoverFn, str]] = {
    "deepagents SkillsMiddleware.before_agent": (deepagents_skills, "deepagents"),
    "deepagents SkillsMiddleware.abefore_agent": (deepagents_skills_async, "deepagents"),
    "ADK load_skills_from_dir + SkillToolset": (adk_load_skills, "google-adk"),
    "ADK list_skills_in_dir": (adk_list_skills, "google-adk"),
    "skills-ref read_properties": (skills_ref_read_properties, "skills-ref"),
}
BASELINES: dict[str, tuple[DiscoverFn, str]] = {
    "plain loop (head + CSafeLoader)": (plain_loop, "PyYAML"),
    "pure-Python loop (whole file + safe_load)": (pure_python_loop, "PyYAML"),
}
