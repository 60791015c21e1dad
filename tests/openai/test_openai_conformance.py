"""The core's conformance scenario through the dispatcher (plain, and profiled with the
scenario as one of two profiles), the real ``openai`` client and the scripted server: each
model turn is a scripted assistant response with the given tool calls, and the loop handles
the plain tools ``Read`` and ``Write``."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillcore.testing import CHECKS, run_check
from skillcore_openai.testing import (
    ChatDriver,
    DispatcherDriver,
    ProfiledChatDriver,
    ProfiledResponsesDriver,
    ResponsesDriver,
)

DRIVERS = {
    "chat": ChatDriver,
    "responses": ResponsesDriver,
    "profiled-chat": ProfiledChatDriver,
    "profiled-responses": ProfiledResponsesDriver,
}


@pytest.mark.parametrize("driver_cls", list(DRIVERS.values()), ids=list(DRIVERS))
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_openai_conformance(check, driver_cls: type[DispatcherDriver], tmp_path: Path) -> None:
    run_check(check, driver_cls(), tmp_path)
