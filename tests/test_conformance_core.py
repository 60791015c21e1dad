"""The conformance suite run against the core directly (the reference every adapter matches)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillcore import Limits, SkillLibrary, SkillToolkit, ToolPolicy, merge_states
from skillcore.testing import CHECKS, PLAIN_TOOLS, AdapterDriver, Call, Reply


class CoreDriver(AdapterDriver):
    """Runs tool calls through SkillToolkit with a thread pool and the merge reducer, like a
    framework would."""

    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        self.library = library
        self.toolkit = SkillToolkit(library)
        self.limits, self.policy = limits, policy
        self.state: dict | None = None
        self.turns = 0
        self._instructions = ""

    def _session(self):
        return self.library.restore(self.state, self.limits, self.policy)

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        session = self._session()
        self._instructions = self.toolkit.instructions(session)
        self.turns += 1
        turn = ("t", self.turns)

        def run(call: Call):
            if self.toolkit.is_skill_tool(call.tool):
                return self.toolkit.call(session, call.tool, call.args, turn=turn)
            decision = self.toolkit.check_tool(session, call.tool)
            return decision

        with ThreadPoolExecutor(max_workers=max(1, len(calls))) as pool:
            results = list(pool.map(run, calls))
        replies = []
        for call, res in zip(calls, results):
            if call.tool in PLAIN_TOOLS:
                replies.append(
                    Reply(call.tool, "ok" if res.allowed else res.reason, not res.allowed)
                )
                continue
            if res.changed:
                update = {**res.session.to_state(), "turn": list(turn), "seq": res.seq}
                self.state = merge_states(self.state, update)
            replies.append(Reply(call.tool, res.text, not res.ok))
        return replies

    def instructions(self) -> str:
        return self._instructions

    def loaded(self) -> list[str]:
        return list(self._session().loaded_names)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_core_conformance(check, tmp_path: Path) -> None:
    check(CoreDriver(), tmp_path)
