"""A ``pids`` cgroup per run (Linux): the process cap that holds for root too, and the handle
that kills every process of a run, even one that left the process group with ``setsid``.

``RLIMIT_NPROC`` counts a user's processes across the machine and does not apply to root, so
the cap on a run's processes is a cgroup's ``pids.max`` where one can be created (cgroup v2
with the ``pids`` controller delegated, or the v1 ``pids`` hierarchy).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from pathlib import Path

#: Where the cgroup file systems are mounted.
CGROUP_ROOT = Path("/sys/fs/cgroup")
#: Rounds of "kill every process listed" before a cgroup is given up on (each round kills
#: all it sees; ``pids.max`` stops a fork bomb from outrunning them).
KILL_ROUNDS = 200


def _own_path(controller: str) -> str | None:
    """This process's cgroup path in the hierarchy of ``controller`` ("" for v2)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path.lstrip("/")
    return None


def _parent_dir(controller: str, control_file: str) -> Path | None:
    """The directory runs' cgroups of ``controller`` are made in (``control_file``: a file
    such a cgroup has), or None when there is none to write."""
    candidates = []
    v1 = _own_path(controller)
    if v1 is not None:
        candidates.append(CGROUP_ROOT / controller / v1)
    v2 = _own_path("")
    if v2 is not None and (CGROUP_ROOT / "cgroup.controllers").exists():
        candidates.append(CGROUP_ROOT / v2)
    for parent in candidates:
        writable = (parent / "cgroup.procs").exists() and os.access(parent, os.W_OK)
        if writable and (controller == "pids" or (parent / control_file).exists()):
            return parent
    return None


def _make(parent: Path, name: str, settings: dict[str, str]) -> Path | None:
    path = parent / name
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        for file, value in settings.items():
            (path / file).write_text(value)
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None
    return path


class PidsCgroup:
    """One run's cgroup: made with a ``pids.max``, joined by the child before it runs the
    script (it writes its pid into :attr:`procs`), emptied (every process killed) and
    removed after the run."""

    def __init__(self, path: Path, memory: Path | None = None) -> None:
        self.path = path
        #: The run's memory cgroup (cgroup v1 keeps it in its own hierarchy; on v2 it is
        #: ``path`` itself), or None when memory cannot be capped per run here.
        self.memory = memory
        #: The files the child writes its pid into to join.
        self.procs = tuple(
            str(p / "cgroup.procs") for p in dict.fromkeys(x for x in (path, memory) if x)
        )

    @classmethod
    def create(cls, max_processes: int, memory_bytes: int | None = None) -> PidsCgroup | None:
        """A new cgroup capped at ``max_processes`` (and, where the memory controller can be
        written, at ``memory_bytes`` for the whole run), or None when none can be made."""
        parent = _parent_dir("pids", "pids.max")
        if parent is None:
            return None
        name = f"skillcore-run-{os.getpid()}-{secrets.token_hex(4)}"
        path = _make(parent, name, {"pids.max": str(max_processes)})
        if path is None:
            return None
        memory = None
        if memory_bytes is not None:
            if (path / "memory.max").exists():  # v2: both controllers in one cgroup
                with contextlib.suppress(OSError):
                    (path / "memory.max").write_text(str(memory_bytes))
                    memory = path
            else:
                mem_parent = _parent_dir("memory", "memory.limit_in_bytes")
                if mem_parent is not None:
                    memory = _make(mem_parent, name, {"memory.limit_in_bytes": str(memory_bytes)})
        return cls(path, memory)

    def memory_peak(self) -> int | None:
        """The run's largest memory use (all its processes, page cache included)."""
        if self.memory is None:
            return None
        for file in ("memory.max_usage_in_bytes", "memory.peak"):
            with contextlib.suppress(OSError, ValueError):
                return int((self.memory / file).read_text())
        return None

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the run for using too much memory."""
        if self.memory is None:
            return False
        for file in ("memory.oom_control", "memory.events"):
            with contextlib.suppress(OSError):
                for line in (self.memory / file).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip() not in ("", "0"):
                        return True
        return False

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        try:
            text = (self.path / "cgroup.procs").read_text()
        except OSError:
            return []
        return [int(p) for p in text.split()]

    def kill_all(self) -> bool:
        """Kill every process in the cgroup; True when it is empty afterwards."""
        kill_file = self.path / "cgroup.kill"
        if kill_file.exists():
            with contextlib.suppress(OSError):
                kill_file.write_text("1")
        for _ in range(KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return True
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)
        return not self.pids()

    def remove(self) -> None:
        """Kill what is left and remove the cgroups (a few tries: the killed must be reaped)."""
        self.kill_all()
        for path in dict.fromkeys(x for x in (self.path, self.memory) if x):
            for _ in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def available() -> list[str]:
    """What a run's cgroup gives here (tried once: make one and remove it):
    ``cgroup-pids`` (the process cap and the kill of every process), ``cgroup-memory`` (one
    memory cap for the whole run, and its peak)."""
    probe = PidsCgroup.create(1, 64 * 1024 * 1024)
    if probe is None:
        return []
    probe.remove()
    return ["cgroup-pids", *(["cgroup-memory"] if probe.memory else [])]
