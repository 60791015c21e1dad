"""ADK workers sharing one PostgreSQL (``DatabaseSessionService``) and one ledger: a
session's turns run on whichever worker is free, each with its own toolset and memory, and
the skill state, RESTRICT and the fork ledger carry over as in one process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

import pytest
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import Runner

from skillcore.runtime import loaded_names_of
from skillcore.state.ledger import SQLLedger
from skillcore_adk import SkillToolset

from .conftest import agent_with, response_of, responses, run_turn, scripted

pytestmark = pytest.mark.anyio
pytest.importorskip("psycopg")


def worker(skills_dir: Path, url: str, ledger: SQLLedger, *steps: Any) -> Runner:
    from google.adk.sessions import DatabaseSessionService

    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict", ledger=ledger)
    agent = agent_with(scripted(*steps), toolset, before_tool_callback=toolset.before_tool_callback)
    service = DatabaseSessionService(url.replace("postgresql://", "postgresql+psycopg://", 1))
    return Runner(agent=agent, app_name="app", session_service=service)


async def test_turns_move_between_workers_on_one_postgres(
    skills_dir: Path, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    ledger = SQLLedger.postgres(postgres_url)
    w1 = worker(
        skills_dir,
        postgres_url,
        ledger,
        [("load_skill", {"skill_name": "alpha-tools"}), ("Read", {})],
        "done",
    )
    session = await w1.session_service.create_session(app_name="app", user_id="u")
    with caplog.at_level(logging.INFO, logger="skillcore"):
        events = await run_turn(w1, session.id)
        assert "result" in response_of(events, "load_skill")
        # The next turn on another worker: the restriction holds there.
        w2 = worker(
            skills_dir,
            postgres_url,
            ledger,
            [("Write", {}), ("unload_skill", {"skill_name": "alpha-tools"})],
            [("Write", {})],
            "done",
        )
        events = await run_turn(w2, session.id)
        blocked, after_unload = [r.response for r in responses(events) if r.name == "Write"]
        assert blocked.get("error_code") == "TOOL_BLOCKED"  # the restriction carried over
        assert "result" in after_unload
        # ... and on the first one again, after the unload: Write runs.
        w1b = worker(skills_dir, postgres_url, ledger, [("Write", {})], "done")
        events = await run_turn(w1b, session.id)
        assert "error" not in response_of(events, "Write")
    stored = await w1b.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None
    assert loaded_names_of(stored.state["skillcore:assistant"]) == []
    forks = [r for r in caplog.records if getattr(r, "skillcore_event", "") == "state.forked"]
    assert forks == [], "turns that follow each other are no fork"
    for runner in (w1, w2, w1b):
        await runner.close()
    ledger.close()


class DiesInCall(BasePlugin):
    """Once armed, the worker dies in the call at position ``dies`` of a model turn after the
    call at position ``after`` finished (ADK runs a turn's calls concurrently): the call
    hangs, and the test cancels the run, as SIGKILL would end it. ADK then has saved none of
    the turn's function responses, nor their state changes; skill calls that finished
    reached the shared ledger only."""

    def __init__(self, dies: int, after: int) -> None:
        super().__init__(name="dies_in_call")
        self.dies, self.after = dies, after
        self.armed = False
        self.dead = asyncio.Event()
        self.finished: set[str] = set()

    async def before_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any
    ) -> dict[str, Any] | None:
        call = tool_context.function_call_id
        calls = next(
            [c.id for c in e.get_function_calls()]
            for e in reversed(tool_context.session.events)
            if call in [c.id for c in e.get_function_calls()]
        )
        if self.armed and calls.index(call) == self.dies:
            while calls[self.after] not in self.finished:
                await asyncio.sleep(0.005)
            self.dead.set()
            await asyncio.Event().wait()  # until the run is cancelled
        return None

    async def after_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, result: Any
    ) -> dict[str, Any] | None:
        self.finished.add(tool_context.function_call_id)
        return None


def resumable(
    skills_dir: Path, sessions: Any, ledger: Any, model: Any, plugins: list[Any]
) -> Runner:
    """A worker: a resumable app with its own toolset (its own memory) on ``sessions``."""
    from google.adk.apps import App, ResumabilityConfig

    toolset = SkillToolset(skills_dir, allowed_tools_policy="restrict", ledger=ledger)
    agent = agent_with(model, toolset, before_tool_callback=toolset.before_tool_callback)
    app = App(
        name="app",
        root_agent=agent,
        plugins=plugins,
        resumability_config=ResumabilityConfig(is_resumable=True),
    )
    return Runner(app=app, session_service=sessions)


def user_text(event: Any) -> bool:
    """True for a user message (not a function response)."""
    return event.author == "user" and any(p.text for p in (event.content.parts or ()))


def unfinished_invocation(events: list[Any]) -> str | None:
    """The invocation of the last user message while it has not ended (the recipe of
    docs/many-workers.md: a resumable app records ``end_of_agent`` when a run ends)."""
    for event in reversed(events):
        if event.content is not None and user_text(event):
            ended = any(
                e.invocation_id == event.invocation_id and e.actions.end_of_agent for e in events
            )
            return None if ended else event.invocation_id
    return None


def replies_per_turn(events: list[Any]) -> list[list[tuple[str, str]]]:
    """Per user turn, each function response as (tool, error code or "ok"), in call order."""
    turns: list[list[tuple[str, str]]] = []
    for event in events:
        if event.content is not None and user_text(event):
            turns.append([])
        elif turns:
            turns[-1].extend(
                (r.name or "", (r.response or {}).get("error_code", "ok"))
                for r in event.get_function_responses()
            )
    return turns


ALPHA, BETA, GAMMA = "alpha-tools", "beta-open", "gamma-files"  # alpha, gamma restrict
OK, BLOCKED = "ok", "TOOL_BLOCKED"


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


def unload(name: str) -> tuple[str, dict[str, Any]]:
    return ("unload_skill", {"skill_name": name})


WRITE: tuple[str, dict[str, Any]] = ("Write", {})

#: Turns before; the turn that dies; in which call, after which call finished; the codes
#: of the turn's replies and of the next turn's ``Write`` (what one process gives).
TURN_CASES: dict[str, tuple[list[Any], list[Any], int, int, list[str], str]] = {
    # beta-open declares no allowed-tools: it lifts nothing, so alpha's restriction holds.
    "two loads, dies in the second": ([], [load(ALPHA), load(BETA)], 1, 0, [OK, OK], BLOCKED),
    "unload, then load, from a restricting set; dies in the load": (
        [[load(ALPHA), load(BETA)]],
        [unload(BETA), load(GAMMA)],
        1,
        0,
        [OK, OK],
        BLOCKED,
    ),
    "unload of the restricting skill, then Write; dies in Write": (
        [[load(ALPHA)]],
        [unload(ALPHA), WRITE],
        1,
        0,
        [OK, OK],
        OK,
    ),
    "load of a restricting skill, then Write; dies in Write": (
        [],
        [load(ALPHA), WRITE],
        1,
        0,
        [OK, BLOCKED],
        BLOCKED,
    ),
    "Write, then unload of the restricting skill; dies in Write after the unload": (
        [[load(ALPHA)]],
        [WRITE, unload(ALPHA)],
        0,
        1,
        [BLOCKED, OK],
        OK,
    ),
    "Write, then load of a restricting skill; dies in Write after the load": (
        [],
        [WRITE, load(ALPHA)],
        0,
        1,
        [OK, OK],
        BLOCKED,
    ),
    "two loads, dies in the first after the second": (
        [],
        [load(ALPHA), load(BETA)],
        0,
        1,
        [OK, OK],
        BLOCKED,
    ),
}


@pytest.mark.parametrize("case", TURN_CASES)
async def test_a_turn_cut_between_two_calls_is_resumed_by_another_worker(
    case: str, skills_dir: Path, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker dies in one call of a turn after another call finished; another worker finds
    the unfinished invocation and resumes it (``run_async(invocation_id=...)``, which runs the
    turn's calls again): the replies, the loaded skills and the next turn's ``Write`` are
    those one process gives, and the resumption is no fork."""
    from google.adk.sessions import DatabaseSessionService, InMemorySessionService

    before, turn, dies, after, codes, write = TURN_CASES[case]
    steps: list[Any] = [s for calls in before for s in (calls, "done")]
    # One process, nothing dies.
    model = scripted(*steps, turn, "done", [WRITE], "done")
    alone = resumable(skills_dir, InMemorySessionService(), None, model, [])
    session = await alone.session_service.create_session(app_name="app", user_id="u")
    for _ in range(len(before) + 2):
        await run_turn(alone, session.id)
    want = await alone.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert want is not None
    assert [code for _, code in replies_per_turn(want.events)[len(before)]] == codes
    assert replies_per_turn(want.events)[-1] == [("Write", write)]
    # Two workers on one PostgreSQL: the first dies in the turn, the second resumes it.
    url = postgres_url.replace("postgresql://", "postgresql+psycopg://", 1)
    death = DiesInCall(dies, after)
    ledger = SQLLedger.postgres(postgres_url)
    w1 = resumable(skills_dir, DatabaseSessionService(url), ledger, scripted(*steps, turn), [death])
    session = await w1.session_service.create_session(app_name="app", user_id="u")
    for _ in before:
        await run_turn(w1, session.id)
    death.armed = True
    running = asyncio.create_task(run_turn(w1, session.id))
    await asyncio.wait_for(death.dead.wait(), 30)
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running
    model = scripted("done", [WRITE], "done")
    w2 = resumable(
        skills_dir, DatabaseSessionService(url), SQLLedger.postgres(postgres_url), model, []
    )
    stored = await w2.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None
    invocation = unfinished_invocation(stored.events)
    assert invocation is not None
    mid_turn = [e for e in stored.events if e.invocation_id == invocation]
    assert not any(e.get_function_responses() or e.actions.state_delta for e in mid_turn)
    with caplog.at_level(logging.INFO, logger="skillcore"):
        async for _ in w2.run_async(user_id="u", session_id=session.id, invocation_id=invocation):
            pass
        stored = await w2.session_service.get_session(
            app_name="app", user_id="u", session_id=session.id
        )
        assert stored is not None and unfinished_invocation(stored.events) is None
        await run_turn(w2, session.id)
    got = await w2.session_service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert got is not None
    assert replies_per_turn(got.events) == replies_per_turn(want.events)
    key = "skillcore:assistant"
    assert loaded_names_of(got.state[key]) == loaded_names_of(want.state[key])
    forks = [r for r in caplog.records if getattr(r, "skillcore_event", "") == "state.forked"]
    assert forks == [], "a resumed turn is no fork"
    for runner in (alone, w1, w2):
        await runner.close()
