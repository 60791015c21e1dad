"""The conformance suite run against the core directly (the reference every adapter matches):
calls of a turn run concurrently in a thread pool, ordered by a ``TurnStore`` and merged by
the reducer, like a framework would."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skillcore import Limits, SkillLibrary, SkillToolkit, ToolPolicy
from skillcore.runtime import TurnCalls, TurnStore, merge_states, replies
from skillcore.testing import (
    ALL_CAPABILITIES,
    CHECKS,
    PLAIN_TOOLS,
    SHELL_TOOL,
    AdapterDriver,
    Attachment,
    Call,
    Capability,
    Reply,
    UserTurn,
    run_check,
    shell_reply,
)
from skillcore.tools.reinjection import Reinjection


class CoreDriver(AdapterDriver):
    #: The core has no subagent mechanism: a forked skill's load is a ``FORK`` result.
    capabilities = ALL_CAPABILITIES - {Capability.SUBAGENTS}

    def start(self, library: SkillLibrary, limits: Limits, policy: ToolPolicy) -> None:
        self.library = library
        self.toolkit = SkillToolkit(library, prompt_mode=self.prompt_mode, **self.options)
        self.reinjection = Reinjection(self.toolkit)
        self.limits, self.policy = limits, policy
        self.turns_store = TurnStore()
        self.states: dict[str, dict | None] = {}
        self.counts: dict[str, int] = {}
        #: Per conversation, the tool replies the model has received (its history), as
        #: ``(call id, text)``.
        self.histories: dict[str, list[tuple[str, str]]] = {}
        self._instructions = ""
        self.use_conversation("main")

    def use_conversation(self, key: str) -> None:
        self.key = key
        self.states.setdefault(key, None)
        self.counts.setdefault(key, 0)
        self.histories.setdefault(key, [])

    def drop_history(self) -> None:
        self.histories[self.key] = []

    def user_turn(self, text: str) -> UserTurn:
        # A custom loop: the core helper applies the user's message before the model call.
        session = self._session()
        self._instructions = self.toolkit.instructions(session)
        result = self.toolkit.invoke(session, text, session_id=self.key)
        if result is None:
            return UserTurn()
        if not result.ok:
            return UserTurn(answer=result.text)
        self.states[self.key] = result.session.to_state()
        self.histories[self.key].append((result.call_id, result.text))
        return UserTurn(delivered=result.text)

    def _session(self):
        state = self.states[self.key]
        session = self.library.restore(state, self.limits, self.policy)
        return self.toolkit.ensure(session, fresh=state is None)[0]  # turn start

    def turn(self, calls: Sequence[Call]) -> list[Reply]:
        session = self._session()
        self._instructions = self.toolkit.instructions(session)
        # Configured skills' instructions: no tool reply delivered them.
        missing = self.reinjection.missing(session, frozenset(), only=self.toolkit.preset)
        if missing:
            self._instructions += "\n\n" + self.reinjection.text(session, missing)
        self._offered = session.offered_tools([*PLAIN_TOOLS, *self.gated])
        self.counts[self.key] += 1  # every conversation numbers its turns the same way
        ids = [f"{self.key}-{self.counts[self.key]}-{i}" for i in range(len(calls))]
        turn = TurnCalls.of(
            self.key,
            str(self.counts[self.key]),
            zip(ids, (c.tool for c in calls)),
            self.toolkit.is_skill_tool,
        )
        history = self.histories[self.key]
        hidden = session.undelivered(reversed(history))

        def run(i: int) -> tuple[Reply, dict | None]:
            call = calls[i]
            with self.turns_store.enter(turn, ids[i], session) as view:
                if not self.toolkit.is_skill_tool(call.tool):
                    decision = self.toolkit.check_call(view, call.tool, arguments=call.args)
                    ran = shell_reply(call.args["command"]) if call.tool == SHELL_TOOL else "ok"
                    text = ran if decision.allowed else replies.blocked(decision)
                    return Reply(call.tool, text, not decision.allowed), None
                res = self.toolkit.call(view, call.tool, call.args, hidden=hidden, call_id=ids[i])
                update = res.session.to_state(turn=turn.turn, seq=view.seq) if res.changed else None
                b = res.binary
                parts = (Attachment(b.mime_type, b.data),) if b is not None else ()
                return Reply(call.tool, res.text, not res.ok, parts), update

        # Reverse submission order: later calls start first and must wait for earlier ones.
        with ThreadPoolExecutor(max_workers=max(1, len(calls))) as pool:
            futures = [pool.submit(run, i) for i in reversed(range(len(calls)))][::-1]
            results = [f.result() for f in futures]
        for _, update in reversed(results):  # the reducer sees writes in any order
            if update is not None:
                self.states[self.key] = merge_states(self.states[self.key], update)
        history.extend((ids[i], reply.text) for i, (reply, _) in enumerate(results))
        return [reply for reply, _ in results]

    def instructions(self) -> str:
        return self._instructions

    def offered(self) -> list[str]:
        return self._offered

    def loaded(self) -> list[str]:
        return list(self._session().loaded_names)


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_core_conformance(check, tmp_path: Path) -> None:
    run_check(check, CoreDriver(), tmp_path)
