"""The runner protocol: what a host implements to run a skill's code in its own sandbox.

A request names a program and its arguments already chosen by skillcore (the interpreter
comes from skillcore's table, never from the script), the folder holding the skill's files,
the limits and the isolation the configuration requires. A runner returns a result, never
raises for anything the script does; it raises :class:`IsolationUnavailable` before running
anything when it cannot give the isolation asked for (never silently weaker).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import attrs

from skillcore import limits as _limits
from skillcore._frozen import to_frozen
from skillcore.errors import SkillcoreError


class Isolation(enum.IntEnum):
    """How far a run is kept from the host, weakest first (a configuration asks for at
    least one level; a runner reports the one it gave)."""

    #: A child process in its own process group and working directory, with a reduced
    #: environment: nothing stops it reading the user's files or the network.
    PROCESS = 1
    #: PROCESS plus OS resource limits (CPU, memory, processes, file size, open files).
    LIMITS = 2
    #: LIMITS plus no network (a network namespace of its own).
    NO_NETWORK = 3
    #: NO_NETWORK plus a filesystem view of its own (bubblewrap or an equivalent sandbox):
    #: the skill folder read-only, a fresh writable working directory, no home directory.
    SANDBOX = 4


def _positive(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{attribute.name} must be a positive number, got {value!r}")


@attrs.frozen
class RunLimits:
    """The bounds of one run (defaults in :mod:`skillcore.limits`)."""

    wall_seconds: float = attrs.field(default=_limits.DEFAULT_RUN_WALL_SECONDS, validator=_positive)
    cpu_seconds: int = attrs.field(default=_limits.DEFAULT_RUN_CPU_SECONDS, validator=_positive)
    memory_bytes: int = attrs.field(default=_limits.DEFAULT_RUN_MEMORY_BYTES, validator=_positive)
    processes: int = attrs.field(default=_limits.DEFAULT_RUN_PROCESSES, validator=_positive)
    file_bytes: int = attrs.field(default=_limits.DEFAULT_RUN_FILE_BYTES, validator=_positive)
    output_bytes: int = attrs.field(default=_limits.DEFAULT_RUN_OUTPUT_BYTES, validator=_positive)
    open_files: int = attrs.field(default=_limits.DEFAULT_RUN_OPEN_FILES, validator=_positive)


@attrs.frozen
class ScriptRequest:
    """One run: ``argv[0]`` is the interpreter (or the program) skillcore chose."""

    skill: str
    #: The script's path relative to the skill folder (what the model named).
    script: str
    argv: tuple[str, ...]
    #: The folder holding the skill's files (read-only for the run).
    skill_dir: Path
    stdin: bytes = b""
    #: The environment of the run (an allow-list, never the host's whole environment).
    env: Mapping[str, str] = attrs.field(factory=dict, converter=to_frozen)
    limits: RunLimits = RunLimits()
    #: The least isolation the configuration accepts.
    require: Isolation = Isolation.LIMITS


@attrs.frozen
class ScriptResult:
    """What a run did, as the reply to the model and the events report it."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes
    duration_seconds: float
    #: Output past ``limits.output_bytes`` was dropped.
    truncated: bool
    timed_out: bool
    #: The isolation in force for this run.
    isolation: Isolation
    #: Why the run was ended early ("" when it ended by itself): "timeout", "memory", ...
    killed: str = ""
    #: The largest resident memory of any process of the run, when the runner can tell.
    memory_peak_bytes: int | None = None
    #: How the isolation was obtained (e.g. ``"cgroup"``, ``"pid-namespace"``,
    #: ``"net-namespace"``, ``"bubblewrap"``), for the record.
    mechanisms: tuple[str, ...] = ()


class IsolationUnavailable(SkillcoreError):
    """The isolation a request requires is not available here; nothing was run."""


@runtime_checkable
class ScriptRunner(Protocol):
    """Runs one request; sync and async. Never raises for what the script does."""

    def isolation(self) -> Isolation:
        """The isolation this runner gives on this machine."""
        ...

    def run(self, request: ScriptRequest) -> ScriptResult:
        """Run ``request`` to the end (or its limits)."""
        ...

    async def arun(self, request: ScriptRequest) -> ScriptResult:
        """Async :meth:`run`."""
        ...
