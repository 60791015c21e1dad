"""A :class:`~skillcore.runner.ScriptRunner` over an ADK code executor
(``google.adk.code_executors``): skill scripts run where the agent's generated code runs.

ADK executors run Python code, so this bridge runs Python scripts only (others get exit code
126 and the reason; nothing runs). The code it sends is skillcore's sandbox program with the
skill's files and the request: inside the executor it drops the executor's environment,
writes the files read-only to a fresh folder, runs the script in a fresh working directory
with resource limits, cuts its output and kills its process group at the wall clock.

The isolation reported is ``PROCESS`` unless you say more: skillcore cannot see inside the
executor. ``UnsafeLocalCodeExecutor`` runs on the host with the host user's rights (PROCESS
is all there is); a ``ContainerCodeExecutor`` (Docker) or a hosted one may give more, and
``isolation=`` states it for the record and for :class:`IsolationUnavailable` checks.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from google.adk.code_executors import BaseCodeExecutor
from google.adk.code_executors.code_execution_utils import CodeExecutionInput

from skillcore.runtime import Isolation, ScriptRequest, ScriptResult, bridge


class CodeExecutorRunner:
    """Runs Python skill scripts through ``executor.execute_code``.

    ``invocation_context``: passed to the executor (the local and container executors do
    not use it; Agent Engine's needs one with a session).
    """

    def __init__(
        self,
        executor: BaseCodeExecutor,
        *,
        isolation: Isolation = Isolation.PROCESS,
        invocation_context: Any = None,
    ) -> None:
        self.executor = executor
        self.level = isolation
        self.invocation_context = invocation_context

    def isolation(self) -> Isolation:
        """The level this bridge reports (PROCESS unless the host states more)."""
        return self.level

    def mechanisms(self) -> tuple[str, ...]:
        """How the isolation is obtained."""
        return (f"adk:{type(self.executor).__name__}", *bridge.PROGRAM_MECHANISMS)

    def run(self, request: ScriptRequest) -> ScriptResult:
        """Run ``request`` in the executor; never raises for what the script does."""
        what = f"the ADK {type(self.executor).__name__} bridge"
        bridge.check(request, self.level, what)
        job = bridge.prepare(request, ("python",), what)
        if isinstance(job, ScriptResult):
            return job
        started = time.monotonic()
        try:
            out = self.executor.execute_code(
                self.invocation_context, CodeExecutionInput(code=job.inline_code())
            )
            text = (out.stdout or "") + "\n" + (out.stderr or "")
            exit_code = getattr(out, "exit_code", None)
        except Exception as exc:  # the executor failed: a result, not an exception
            text, exit_code = f"the executor failed: {type(exc).__name__}: {exc}", None
        return bridge.parse(
            text,
            job.nonce,
            level=self.level,
            mechanisms=self.mechanisms(),
            duration=time.monotonic() - started,
            output_bytes=request.limits.output_bytes,
            sandbox_exit=exit_code,
        )

    async def arun(self, request: ScriptRequest) -> ScriptResult:
        """Async :meth:`run` (ADK executors are synchronous: in a worker thread)."""
        return await asyncio.to_thread(self.run, request)
