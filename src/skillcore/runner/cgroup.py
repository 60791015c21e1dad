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


def _parent_dir() -> Path | None:
    """The directory runs' cgroups are made in, or None when there is none to write."""
    candidates = []
    v1 = _own_path("pids")
    if v1 is not None:
        candidates.append(CGROUP_ROOT / "pids" / v1)
    v2 = _own_path("")
    if v2 is not None and (CGROUP_ROOT / "cgroup.controllers").exists():
        candidates.append(CGROUP_ROOT / v2)
    for parent in candidates:
        if (parent / "cgroup.procs").exists() and os.access(parent, os.W_OK):
            return parent
    return None


class PidsCgroup:
    """One run's cgroup: made with a ``pids.max``, joined by the child before it runs the
    script (it writes its pid into :attr:`procs`), emptied (every process killed) and
    removed after the run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: The file the child writes its pid into to join.
        self.procs = str(path / "cgroup.procs")

    @classmethod
    def create(cls, max_processes: int) -> PidsCgroup | None:
        """A new cgroup capped at ``max_processes``, or None when none can be made here."""
        parent = _parent_dir()
        if parent is None:
            return None
        path = parent / f"skillcore-run-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except OSError:
            return None
        try:
            (path / "pids.max").write_text(str(max_processes))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cls(path)

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        try:
            text = Path(self.procs).read_text()
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
        """Kill what is left and remove the cgroup (a few tries: the killed must be reaped)."""
        self.kill_all()
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.01)


def available() -> bool:
    """Whether a run's cgroup can be made here (tried once: make one and remove it)."""
    probe = PidsCgroup.create(1)
    if probe is None:
        return False
    probe.remove()
    return True
