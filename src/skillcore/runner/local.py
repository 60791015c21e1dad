"""The local runner: a skill's script as a child process confined by the OS.

Each run gets a fresh working directory (removed afterwards, with a HOME and TMPDIR inside),
an environment reduced to an allow-list, resource limits set in the child, its own session
and process group, and, where this machine allows, a ``pids`` cgroup (the process cap, and
the handle that kills every process of the run), a PID namespace (nothing outlives the run)
and a network namespace (no network); :class:`BubblewrapRunner` adds a filesystem view of its
own (the skill folder read-only). It reports the isolation it gives and raises
:class:`IsolationUnavailable` before running anything when a request requires more.

Output is read as it comes: the first ``output_bytes`` of stdout and of stderr are kept, the
rest is read and dropped (so a chatty script still finishes), and a run that writes more than
``MAX_RUN_DISCARDED_BYTES`` past what is kept is killed (endless output ends at once).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from skillcore.limits import MAX_RUN_DISCARDED_BYTES, RUN_KILL_GRACE_SECONDS
from skillcore.runner import cgroup, confine
from skillcore.runner.base import Isolation, IsolationUnavailable, ScriptRequest, ScriptResult
from skillcore.runner.cgroup import PidsCgroup

#: Bytes read from a pipe at a time.
CHUNK = 64 * 1024


class LocalRunner:
    """Runs scripts as confined child processes of this one (POSIX; namespaces on Linux).

    ``namespaces``: a PID and a network namespace of the run's own (``unshare``) where the
    OS allows. ``cgroups``: a ``pids`` cgroup per run where one can be made. ``bubblewrap``:
    a bubblewrap sandbox (SANDBOX) when ``bwrap`` is installed and works here; otherwise the
    runner gives what it can and says so. ``read_only``: more folders a sandbox shows
    read-only (the system folders and the interpreter's installation are always shown).
    ``work_root``: where runs' working directories are made (the system's temporary folder
    by default; a tmpfs is faster to clean but what a script writes there uses memory).
    """

    def __init__(
        self,
        *,
        namespaces: bool = True,
        cgroups: bool = True,
        bubblewrap: bool = False,
        read_only: tuple[str, ...] = (),
        work_root: str | None = None,
    ) -> None:
        self.namespaces = namespaces
        self.cgroups = cgroups
        self.bubblewrap = bubblewrap
        self.read_only = tuple(read_only)
        self.work_root = work_root

    @functools.cached_property
    def _facilities(self) -> tuple[Isolation, tuple[str, ...]]:
        """The level this runner gives here and how (probed once)."""
        if os.name != "posix":
            return Isolation.PROCESS, ("process",)
        how = ["process-group", "rlimits"]
        if self.cgroups:
            how += cgroup.available()
        # RLIMIT_NPROC caps a non-root user's processes (counted through /proc, to set it
        # above what the user already runs); root needs the cgroup.
        capped = "cgroup-pids" in how or (os.geteuid() != 0 and os.path.isdir("/proc"))
        level = Isolation.LIMITS if capped else Isolation.PROCESS
        if self.bubblewrap and confine.bwrap_path():
            how.append("bubblewrap")
            return (Isolation.SANDBOX if capped else level), tuple(how)
        if self.namespaces and confine.unshare_prefix(network=True):
            how += ["pid-namespace", "net-namespace"]
            level = Isolation.NO_NETWORK if capped else level
        elif self.namespaces and confine.unshare_prefix(network=False):
            how.append("pid-namespace")
        return level, tuple(how)

    def isolation(self) -> Isolation:
        """The isolation this runner gives on this machine."""
        return self._facilities[0]

    def mechanisms(self) -> tuple[str, ...]:
        """How the isolation is obtained (``process-group``, ``rlimits``, ``cgroup-pids``,
        ``pid-namespace``, ``net-namespace``, ``bubblewrap``)."""
        return self._facilities[1]

    def run(self, request: ScriptRequest) -> ScriptResult:
        """Run ``request`` to its end or its limits; never raises for what the script does."""
        level, how = self._facilities
        if request.require > level:
            raise IsolationUnavailable(
                f"the run requires isolation {request.require.name}; this runner gives "
                f"{level.name} here ({', '.join(how)}); nothing was run"
            )
        work = Path(tempfile.mkdtemp(prefix="skillcore-run-", dir=self.work_root))
        group = None
        if "cgroup-pids" in how:
            group = PidsCgroup.create(request.limits.processes, request.limits.memory_bytes)
        try:
            (work / "home").mkdir()
            (work / "tmp").mkdir()
            argv = self._argv(request, work, how)
            started = time.monotonic()
            try:
                proc = self._spawn(request, argv, work, group)
            except OSError as exc:
                message = f"could not start {argv[0]}: {exc.strerror or exc}\n".encode()
                return ScriptResult(127, b"", message, 0.0, False, False, level, mechanisms=how)
            wrapped = len(argv) > len(request.argv)
            outcome = _Pump(proc, request, group, wrapped).run()
            if not outcome.killed and group is not None and group.oom_killed():
                outcome.killed = "memory"
            return ScriptResult(
                exit_code=outcome.exit_code,
                stdout=bytes(outcome.out[0]),
                stderr=bytes(outcome.out[1]),
                duration_seconds=time.monotonic() - started,
                truncated=outcome.truncated,
                timed_out=outcome.killed == "timeout",
                isolation=level,
                killed=outcome.killed,
                memory_peak_bytes=group.memory_peak() if group else None,
                mechanisms=how,
            )
        finally:
            if group is not None:
                group.remove()
            _remove_tree(work)

    async def arun(self, request: ScriptRequest) -> ScriptResult:
        """Async :meth:`run` (in a worker thread; a run ends by its wall-clock limit)."""
        return await asyncio.to_thread(self.run, request)

    def _argv(self, request: ScriptRequest, work: Path, how: tuple[str, ...]) -> list[str]:
        if "bubblewrap" in how:
            bwrap = confine.bwrap_path()
            assert bwrap is not None  # probed in _facilities
            return confine.bwrap_argv(bwrap, request.argv, request.skill_dir, work, self.read_only)
        prefix: tuple[str, ...] = ()
        if "pid-namespace" in how:
            prefix = confine.unshare_prefix(network="net-namespace" in how) or ()
        return [*prefix, *request.argv]

    def _spawn(
        self, request: ScriptRequest, argv: list[str], work: Path, group: PidsCgroup | None
    ) -> subprocess.Popen[bytes]:
        if os.name == "posix":
            cap_nproc = group is None and os.geteuid() != 0
            setup = confine.setup_prefix(request.limits, group.procs if group else (), cap_nproc)
            argv = [*setup, *argv]
        return subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=work,
            env=confine.run_env(request.env, work),
            start_new_session=True,
            close_fds=True,
        )


class BubblewrapRunner(LocalRunner):
    """The local runner in a bubblewrap sandbox (SANDBOX): every namespace new (no network,
    its own PIDs), the system folders, the interpreter and the skill folder read-only, a
    fresh writable working directory with HOME inside, a fresh /tmp, nothing else of the
    host's files. Where ``bwrap`` is missing it reports the level it can give instead."""

    def __init__(
        self,
        *,
        cgroups: bool = True,
        read_only: tuple[str, ...] = (),
        work_root: str | None = None,
    ) -> None:
        super().__init__(
            namespaces=True,
            cgroups=cgroups,
            bubblewrap=True,
            read_only=read_only,
            work_root=work_root,
        )


class _Pump:
    """One child's life: feed stdin, read stdout and stderr up to the cap, wait for the end
    or the wall clock, then kill every process of the run."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        request: ScriptRequest,
        group: PidsCgroup | None,
        wrapped: bool,
    ) -> None:
        self.proc, self.group, self.limits = proc, group, request.limits
        #: The child is a wrapper (unshare, bwrap) that reports a signal as 128 + signal.
        self.wrapped = wrapped
        self.stdin = request.stdin
        self.out = (bytearray(), bytearray())
        self.truncated = False
        self.discarded = 0
        self.killed = ""
        self.exit_code: int | None = None
        self.sel = selectors.DefaultSelector()

    def run(self) -> _Pump:
        proc = self.proc
        assert proc.stdin and proc.stdout and proc.stderr
        for index, pipe in enumerate((proc.stdout, proc.stderr)):
            os.set_blocking(pipe.fileno(), False)
            self.sel.register(pipe, selectors.EVENT_READ, index)
        if self.stdin:
            os.set_blocking(proc.stdin.fileno(), False)
            self.sel.register(proc.stdin, selectors.EVENT_WRITE, "stdin")
        else:
            proc.stdin.close()
        pidfd = _pidfd(proc.pid)
        if pidfd is not None:
            self.sel.register(pidfd, selectors.EVENT_READ, "exit")
        try:
            self._loop(time.monotonic() + self.limits.wall_seconds)
            self._end()
        finally:
            self.sel.close()
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                with contextlib.suppress(OSError):
                    pipe.close()
            if pidfd is not None:
                os.close(pidfd)
        return self

    def _loop(self, deadline: float) -> None:
        while not self._exited():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.killed = "timeout"
                return
            for key, _ in self.sel.select(timeout=min(remaining, 0.05)):
                if key.data == "stdin":
                    self._feed(key)
                elif isinstance(key.data, int):
                    self._read(key)
                    if self.discarded > MAX_RUN_DISCARDED_BYTES:
                        self.killed = "output"
                        return

    def _exited(self) -> bool:
        """Whether the child has exited (left a zombie: not reaped, so its process group id
        cannot be reused before the group is killed)."""
        try:
            info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None

    def _feed(self, key: selectors.SelectorKey) -> None:
        try:
            sent = os.write(key.fd, self.stdin[:CHUNK])
        except BlockingIOError:
            return
        except OSError:  # the script closed its stdin
            sent = len(self.stdin)
        self.stdin = self.stdin[sent:]
        if not self.stdin:
            self.sel.unregister(key.fileobj)
            with contextlib.suppress(OSError):
                key.fileobj.close()  # type: ignore[union-attr]

    def _read(self, key: selectors.SelectorKey) -> None:
        try:
            chunk = os.read(key.fd, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.sel.unregister(key.fileobj)
            return
        kept = self.out[key.data]
        room = max(0, self.limits.output_bytes - len(kept))
        kept += chunk[:room]
        if len(chunk) > room:
            self.truncated = True
            self.discarded += len(chunk) - room

    def _end(self) -> None:
        """Stop every process of the run, reap the child, read what is left in the pipes."""
        if self.killed:
            self._signal(signal.SIGTERM)
            grace = time.monotonic() + RUN_KILL_GRACE_SECONDS
            while not self._exited() and time.monotonic() < grace:
                time.sleep(0.01)
        # Whatever is left of the process group and the cgroup goes, before the reap.
        self._signal(signal.SIGKILL)
        if self.group is not None:
            self.group.kill_all()
        try:
            _, status = os.waitpid(self.proc.pid, 0)
        except ChildProcessError:
            status = 0
        self.proc.returncode = code = os.waitstatus_to_exitcode(status)
        if self.wrapped and code > 128 and code - 128 in signal.valid_signals():
            code = 128 - code  # the wrapper's 128 + signal, as a direct child's -signal
        self.exit_code = code
        self._drain(time.monotonic() + RUN_KILL_GRACE_SECONDS)

    def _drain(self, deadline: float) -> None:
        """Read the pipes to their end (the writers are dead), bounded in time: a process
        that escaped every containment could hold them open."""
        while time.monotonic() < deadline:
            readers = [k for k in self.sel.get_map().values() if isinstance(k.data, int)]
            if not readers:
                return
            for key, _ in self.sel.select(timeout=max(0.0, deadline - time.monotonic())):
                if isinstance(key.data, int):
                    self._read(key)

    def _signal(self, sig: signal.Signals) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, sig)


def _pidfd(pid: int) -> int | None:
    """A descriptor readable when ``pid`` exits (Linux 5.3+), so the loop wakes at once."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


def _remove_tree(path: Path) -> None:
    """Remove a run's working directory, whatever modes the script left on it."""

    def retry(function: object, name: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            os.chmod(name, 0o700)
        with contextlib.suppress(OSError):
            if os.path.isdir(name) and not os.path.islink(name):
                os.rmdir(name)
            else:
                os.unlink(name)

    shutil.rmtree(path, onerror=retry)
