"""The conformance suite run against the core directly (the reference every adapter matches):
calls of a turn run concurrently in a thread pool, ordered by a ``TurnStore`` and merged by
the reducer, like a framework would."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillcore import (
    Limits,
    SkillLibrary,
    SkillToolkit,
    ToolPolicy,
    TurnCalls,
    TurnStore,
    merge_states,
    replies,
)
from skillcore.testing import CHECKS, PLAIN_TOOLS, AdapterDriver, Call, Reply


class CoreDriver(AdapterDriver):
    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        self.library = library
        self.toolkit = SkillToolkit(library)
        self.limits, self.policy = limits, policy
        self.turns_store = TurnStore()
        self.states: dict[str, dict | None] = {}
        self.counts: dict[str, int] = {}
        self._instructions = ""
        self.use_conversation("main")

    def use_conversation(self, key: str) -> None:
        self.key = key
        self.states.setdefault(key, None)
        self.counts.setdefault(key, 0)

    def _session(self):
        return self.library.restore(self.states[self.key], self.limits, self.policy)

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        session = self._session()
        self._instructions = self.toolkit.instructions(session)
        self._offered = session.offered_tools([*PLAIN_TOOLS, *self.gated])
        self.counts[self.key] += 1  # every conversation numbers its turns the same way
        ids = [str(i) for i in range(len(calls))]
        turn = TurnCalls.of(
            self.key,
            str(self.counts[self.key]),
            zip(ids, (c.tool for c in calls)),
            self.toolkit.is_skill_tool,
        )

        def run(i: int) -> tuple[Reply, dict | None]:
            call = calls[i]
            with self.turns_store.enter(turn, ids[i], session) as view:
                if not self.toolkit.is_skill_tool(call.tool):
                    decision = self.toolkit.check_call(view, call.tool)
                    text = "ok" if decision.allowed else replies.blocked(decision)
                    return Reply(call.tool, text, not decision.allowed), None
                res = self.toolkit.call(view, call.tool, call.args)
                update = res.session.to_state(turn=turn.turn, seq=view.seq) if res.changed else None
                return Reply(call.tool, res.text, not res.ok), update

        # Reverse submission order: later calls start first and must wait for earlier ones.
        with ThreadPoolExecutor(max_workers=max(1, len(calls))) as pool:
            futures = [pool.submit(run, i) for i in reversed(range(len(calls)))][::-1]
            results = [f.result() for f in futures]
        for _, update in reversed(results):  # the reducer sees writes in any order
            if update is not None:
                self.states[self.key] = merge_states(self.states[self.key], update)
        return [reply for reply, _ in results]

    def instructions(self) -> str:
        return self._instructions

    def offered(self) -> list[str]:
        return self._offered

    def loaded(self) -> list[str]:
        return list(self._session().loaded_names)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_core_conformance(check, tmp_path: Path) -> None:
    check(CoreDriver(), tmp_path)
