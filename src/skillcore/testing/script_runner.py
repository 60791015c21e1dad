"""A minimal real runner for tests and the conformance suite: a child process in its own
process group and working folder, with the request's environment, a wall-clock limit and an
output cap. It gives :attr:`~skillcore.runner.Isolation.PROCESS` only (no OS limits, no
sandbox): use the runner layer's own runners for anything else."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time

import anyio.to_thread

from skillcore.runner import (
    Isolation,
    IsolationUnavailable,
    ScriptRequest,
    ScriptResult,
)


class SubprocessRunner:
    """Runs a request with :mod:`subprocess` (see the module docstring)."""

    def __init__(self) -> None:
        #: The requests run so far (tests look at them).
        self.requests: list[ScriptRequest] = []

    def isolation(self) -> Isolation:
        """Process isolation only."""
        return Isolation.PROCESS

    def run(self, request: ScriptRequest) -> ScriptResult:
        """Run ``request`` to the end or its wall-clock limit."""
        if request.require > Isolation.PROCESS:
            raise IsolationUnavailable(
                f"{request.require.name} isolation is required; this runner gives PROCESS only"
            )
        self.requests.append(request)
        cap = request.limits.output_bytes
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="skillcore-run-") as work:
            proc = subprocess.Popen(
                list(request.argv),
                cwd=work,
                env=dict(request.env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            timed_out = False
            try:
                out, err = proc.communicate(request.stdin, timeout=request.limits.wall_seconds)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)  # nothing outlives the run
        return ScriptResult(
            exit_code=None if timed_out else proc.returncode,
            stdout=out[:cap],
            stderr=err[:cap],
            duration_seconds=time.monotonic() - start,
            truncated=len(out) > cap or len(err) > cap,
            timed_out=timed_out,
            isolation=Isolation.PROCESS,
            killed="timeout" if timed_out else "",
        )

    async def arun(self, request: ScriptRequest) -> ScriptResult:
        """Async :meth:`run` (in a worker thread)."""
        return await anyio.to_thread.run_sync(self.run, request)


__all__ = ["SubprocessRunner"]
