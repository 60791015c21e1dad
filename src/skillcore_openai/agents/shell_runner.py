"""A :class:`~skillcore.runner.ScriptRunner` over an OpenAI Agents SDK sandbox session
(``agents.sandbox``: a started session of ``UnixLocalSandboxClient``, ``DockerSandboxClient``
or a hosted provider), so skill scripts run in the workspace a ``SandboxAgent``'s shell uses.

The SDK's ``ShellTool`` has no executor to bridge: its local executor is a callable the host
writes (run it with a :class:`~skillcore.runner.LocalRunner` if you like), and the hosted
container's commands are issued by the model on OpenAI's side, with no API for the host to
run one. Sandbox sessions do offer one (``write`` and ``exec``): this bridge writes
skillcore's sandbox program and a payload (the skill's files, the command, stdin, the
limits) into the session's workspace and runs ``python3 -I`` on them. Inside, the program
drops the session's environment, writes the files to a fresh folder, runs the script in a
fresh working directory with resource limits, cuts its output and kills its process group at
the wall clock. The session needs ``python3`` (and bash or node for those scripts).

The isolation reported is ``PROCESS`` unless you state more (``isolation=``): skillcore
cannot see what the session gives. ``UnixLocalSandboxClient`` on Linux runs on the host with
no OS confinement (the SDK says so): PROCESS is all there is; a Docker session may give more.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import shlex
import threading
import time
from pathlib import PurePosixPath
from typing import Any

from skillcore.runtime import BRIDGE_GRACE_SECONDS, Isolation, ScriptRequest, ScriptResult, bridge


class SandboxSessionRunner:
    """Runs skill scripts through an Agents SDK sandbox session's ``exec``.

    ``session``: a started session (``await client.create()``, then ``await
    session.start()``). ``folder``: the workspace folder for the program and its payload
    (each run's files have a fresh random name and are removed by the run).
    """

    def __init__(
        self,
        session: Any,
        *,
        isolation: Isolation = Isolation.PROCESS,
        folder: str = ".skillcore",
        python: str = "python3",
    ) -> None:
        self.session = session
        self.level = isolation
        self.folder = folder
        self.python = python

    def isolation(self) -> Isolation:
        """The level this bridge reports (PROCESS unless the host states more)."""
        return self.level

    def mechanisms(self) -> tuple[str, ...]:
        """How the isolation is obtained."""
        inner = getattr(self.session, "_inner", self.session)
        return (f"agents-sandbox:{type(inner).__name__}", *bridge.PROGRAM_MECHANISMS)

    def _what(self) -> str:
        return "the Agents SDK sandbox bridge"

    def run(self, request: ScriptRequest) -> ScriptResult:
        """Sync :meth:`arun` (on an event loop of its own, in a worker thread)."""
        bridge.check(request, self.level, self._what())
        result: list[ScriptResult] = []

        def work() -> None:
            result.append(asyncio.run(self.arun(request)))

        thread = threading.Thread(target=work, name="skillcore-sandbox-run")
        thread.start()
        thread.join()
        if not result:
            return bridge.refused("the sandbox session failed; see the log")
        return result[0]

    async def arun(self, request: ScriptRequest) -> ScriptResult:
        """Run ``request`` in the session; never raises for what the script does."""
        bridge.check(request, self.level, self._what())
        job = bridge.prepare(request, what=self._what())
        if isinstance(job, ScriptResult):
            return job
        stem = PurePosixPath(self.folder) / f"skillcore-{job.nonce}"
        program, payload = f"{stem}.py", f"{stem}.json"
        started = time.monotonic()
        timed_out, code = False, None
        try:
            await self.session.write(PurePosixPath(program), io.BytesIO(job.program_file()))
            await self.session.write(PurePosixPath(payload), io.BytesIO(job.payload))
            answer = await self.session.exec(
                self.python,
                "-I",
                program,
                payload,
                shell=False,
                timeout=request.limits.wall_seconds + BRIDGE_GRACE_SECONDS,
            )
            text = bytes(answer.stdout).decode("utf-8", "replace")
            text += "\n" + bytes(answer.stderr).decode("utf-8", "replace")
            code = answer.exit_code
        except Exception as exc:  # the session failed: a result, not an exception
            timed_out = "timeout" in type(exc).__name__.lower()
            text = f"the sandbox failed: {type(exc).__name__}"
            await self._remove(program, payload)
        return bridge.parse(
            text,
            job.nonce,
            level=self.level,
            mechanisms=self.mechanisms(),
            duration=time.monotonic() - started,
            output_bytes=request.limits.output_bytes,
            sandbox_exit=code,
            sandbox_timed_out=timed_out,
        )

    async def _remove(self, *paths: str) -> None:
        """Remove what a failed run left (a run that started removes its own files)."""
        with contextlib.suppress(Exception):
            await self.session.exec(shlex.join(["rm", "-f", *paths]), timeout=30)
