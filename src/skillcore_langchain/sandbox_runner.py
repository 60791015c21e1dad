"""A :class:`~skillcore.runner.ScriptRunner` over a deepagents sandbox backend (anything with
deepagents' ``SandboxBackendProtocol``: ``upload_files`` and ``execute``), so skill scripts
run in the sandbox the agent already uses (Daytona, Modal, Runloop, ``LocalShellBackend``).

The bridge uploads skillcore's sandbox program and a payload (the skill's files, the command,
stdin, the limits) to ``remote_dir`` and runs ``python3 -I`` on them: inside the sandbox the
program drops the sandbox's environment, writes the files to a fresh folder, runs the script
in a fresh working directory with resource limits, cuts its output and kills its process
group at the wall clock. The sandbox needs ``python3`` (and bash or node for those scripts).

Works on the backend object it is given; deepagents itself is not imported here. The
isolation reported is ``PROCESS`` unless you state more (``isolation=``): skillcore cannot
see what the sandbox gives. ``LocalShellBackend`` runs on the host: PROCESS is all there is.
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import shlex
import time
from typing import Any

from skillcore.runtime import BRIDGE_GRACE_SECONDS, Isolation, ScriptRequest, ScriptResult, bridge


class SandboxBackendRunner:
    """Runs skill scripts through a deepagents sandbox backend's ``execute``.

    ``remote_dir``: a writable folder of the sandbox for the program, its payload and its
    result (each run's files have a fresh random name and are removed); ``command_dir``: the
    same folder as the sandbox's shell names it, when that differs (``LocalShellBackend``
    with ``virtual_mode=True``: ``remote_dir="/.skillcore"``, ``command_dir=".skillcore"``).
    ``python``: the sandbox's Python.
    """

    def __init__(
        self,
        backend: Any,
        *,
        isolation: Isolation = Isolation.PROCESS,
        remote_dir: str = "/tmp",
        command_dir: str | None = None,
        python: str = "python3",
    ) -> None:
        self.backend = backend
        self.level = isolation
        self.remote_dir = remote_dir
        self.command_dir = remote_dir if command_dir is None else command_dir
        self.python = python

    def isolation(self) -> Isolation:
        """The level this bridge reports (PROCESS unless the host states more)."""
        return self.level

    def mechanisms(self) -> tuple[str, ...]:
        """How the isolation is obtained."""
        return (f"deepagents:{type(self.backend).__name__}", *bridge.PROGRAM_MECHANISMS)

    def _what(self) -> str:
        return f"the deepagents {type(self.backend).__name__} bridge"

    def _upload(self, job: bridge.Job) -> ScriptResult | None:
        """Upload the program and payload; None, or a result saying why not."""
        stem = posixpath.join(self.remote_dir, f"skillcore-{job.nonce}")
        files = [(f"{stem}.py", job.program_file()), (f"{stem}.json", job.payload)]
        try:
            answers = self.backend.upload_files(files)
        except Exception as exc:  # the sandbox failed: a result, not an exception
            return bridge.refused(f"could not upload to the sandbox: {type(exc).__name__}")
        errors = [getattr(a, "error", None) for a in answers or ()]
        if len(errors) != len(files) or any(errors):
            return bridge.refused(f"could not upload to the sandbox: {errors}")
        return None

    def _result_text(self, job: bridge.Job, shown: str) -> str:
        """The result line: from the result file where the backend can download it (a
        backend may cut ``execute`` output), else from the output; the file is removed."""
        text = shown
        download = getattr(self.backend, "download_files", None)
        if download is not None:
            try:
                (got,) = download([posixpath.join(self.remote_dir, f"skillcore-{job.nonce}.out")])
                if getattr(got, "content", None):
                    text = bytes(got.content).decode("ascii", "replace")
            except Exception:  # the output still holds the line, unless it was cut
                pass
        out = posixpath.join(self.command_dir, f"skillcore-{job.nonce}.out")
        with contextlib.suppress(Exception):
            self.backend.execute(shlex.join(["rm", "-f", out]), timeout=30)
        return text

    def run(self, request: ScriptRequest) -> ScriptResult:
        """Run ``request`` in the sandbox; never raises for what the script does."""
        bridge.check(request, self.level, self._what())
        job = bridge.prepare(request, what=self._what())
        if isinstance(job, ScriptResult):
            return job
        started = time.monotonic()
        failed = self._upload(job)
        if failed is not None:
            return failed
        stem = posixpath.join(self.command_dir, f"skillcore-{job.nonce}")
        command = shlex.join([self.python, "-I", f"{stem}.py", f"{stem}.json", f"{stem}.out"])
        timeout = int(request.limits.wall_seconds + BRIDGE_GRACE_SECONDS)
        try:
            answer = self.backend.execute(command, timeout=timeout)
            text, code = str(answer.output or ""), answer.exit_code
        except Exception as exc:
            text, code = f"the sandbox failed: {type(exc).__name__}: {exc}", None
        return bridge.parse(
            self._result_text(job, text),
            job.nonce,
            level=self.level,
            mechanisms=self.mechanisms(),
            duration=time.monotonic() - started,
            output_bytes=request.limits.output_bytes,
            sandbox_exit=code,
        )

    async def arun(self, request: ScriptRequest) -> ScriptResult:
        """Async :meth:`run` (in a worker thread, as deepagents' own ``aexecute`` does)."""
        return await asyncio.to_thread(self.run, request)
