"""When the skill toolset re-scans its sources: once per invocation (or as the refresh gate
says), one scan shared by the callers that arrive meanwhile (ADK resolves tools in
parallel)."""

from __future__ import annotations

import asyncio
from typing import Any

from skillcore import RefreshGate, SkillLibrary


class SharedScan:
    """Discovery on first use, then re-scans as the gate says; concurrent callers share one
    scan, and a cancelled caller never cancels the scan the others wait for."""

    def __init__(self) -> None:
        self._pending: asyncio.Future[Any] | None = None

    async def ensure(
        self, library: SkillLibrary, gate: RefreshGate, invocation_id: str | None
    ) -> None:
        """Scan ``library`` if ``gate`` says it is due for ``invocation_id``, else wait for a
        scan under way in this loop."""
        if not gate.due(invocation_id or ""):
            pending = self._pending
            if (
                pending is not None
                and not pending.done()
                and (pending.get_loop() is asyncio.get_running_loop())
            ):
                await asyncio.shield(pending)
            return
        self._pending = asyncio.ensure_future(library.arefresh())
        try:
            # Shielded: one caller being cancelled must not cancel the scan the others share.
            await asyncio.shield(self._pending)
        except BaseException:
            gate.reset()  # try again on the next call
            raise
