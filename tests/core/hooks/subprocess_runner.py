"""A small ScriptRunner for the hook tests: a child process in its own session with CPU,
memory and file-size limits, killed (its group) at the wall-clock limit. It records every
request it ran, so tests can tell what ran."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time

import anyio

from skillcore.runner import Isolation, IsolationUnavailable, ScriptRequest, ScriptResult


class SubprocessRunner:
    """Implements :class:`skillcore.runner.ScriptRunner` with ``subprocess``."""

    def __init__(self, isolation: Isolation = Isolation.LIMITS) -> None:
        self.level = isolation
        self.ran: list[ScriptRequest] = []

    def isolation(self) -> Isolation:
        return self.level

    def run(self, request: ScriptRequest) -> ScriptResult:
        if request.require > self.level:
            raise IsolationUnavailable(f"{request.require.name} asked, {self.level.name} here")
        self.ran.append(request)
        limits = request.limits

        def confine() -> None:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds))
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))

        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **request.env}
        start = time.monotonic()
        proc = subprocess.Popen(
            request.argv,
            cwd=request.skill_dir,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=confine,
        )
        timed_out = False
        try:
            out, err = proc.communicate(request.stdin, timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        cap = limits.output_bytes
        return ScriptResult(
            exit_code=None if timed_out else proc.returncode,
            stdout=out[:cap],
            stderr=err[:cap],
            duration_seconds=time.monotonic() - start,
            truncated=len(out) > cap or len(err) > cap,
            timed_out=timed_out,
            isolation=self.level,
            killed="timeout" if timed_out else "",
        )

    async def arun(self, request: ScriptRequest) -> ScriptResult:
        return await anyio.to_thread.run_sync(self.run, request)
