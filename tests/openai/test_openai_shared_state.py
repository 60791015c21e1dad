"""Workers sharing one state store (SQLite file or PostgreSQL): a conversation saved by one
worker is loaded by the next, and two workers on one conversation at once (a fork) are
reported, with both runs' effects kept, through the real dispatcher."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillcore.state.saved import PostgresStateStore, SQLiteStateStore, StateStore
from skillcore.testing import write_skill
from skillcore_openai import OpenAISkills


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write_skill(root, "skill-00", "Restricts.", "Zero: only Read.", "allowed-tools: Read\n")
    write_skill(root, "skill-01", "Restricts too.", "One: only Read.", "allowed-tools: Read\n")
    write_skill(root, "skill-02", "Open.", "Two: anything goes.")
    return root


@pytest.fixture(params=["sqlite", "postgres"])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    made: list[Any] = []
    if request.param == "sqlite":
        path = tmp_path / "state.db"

        def make() -> StateStore:
            made.append(SQLiteStateStore(path))
            return made[-1]
    else:
        url = request.getfixturevalue("postgres_url")
        table = f"state_{abs(hash(str(tmp_path))) % 10**8}"

        def make() -> StateStore:
            made.append(PostgresStateStore(url, table=table))
            return made[-1]

    yield make
    for store in made:
        store.close()


def call(name: str, skill: str, i: int = 0) -> dict[str, Any]:
    import json

    return {
        "id": f"c{i}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps({"skill_name": skill})},
    }


class Forks(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "skillcore_event", "") == "state.forked":
            self.seen.append(record.getMessage())


@pytest.fixture
def forks() -> Iterator[Forks]:
    handler, logger = Forks(), logging.getLogger("skillcore")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(old)


def test_workers_take_turns_on_one_conversation(
    lib: Path, store_factory: Any, forks: Forks
) -> None:
    w1 = OpenAISkills(lib, states=store_factory(), allowed_tools_policy="restrict")
    w2 = OpenAISkills(lib, states=store_factory(), allowed_tools_policy="restrict")
    s = w1.load("conv")
    w1.save("conv", w1.dispatch_all(s, [call("load_skill", "skill-00")]).session)
    s = w2.load("conv")
    assert s.loaded_names == ("skill-00",)
    assert not s.check_tool("Write").allowed
    w2.save("conv", w2.dispatch_all(s, [call("load_skill", "skill-02")]).session)
    assert w1.load("conv").loaded_names == ("skill-00", "skill-02")
    assert forks.seen == []


def test_two_workers_at_once_are_reported_and_both_effects_kept(
    lib: Path, store_factory: Any, forks: Forks
) -> None:
    w1 = OpenAISkills(lib, states=store_factory(), allowed_tools_policy="restrict")
    w2 = OpenAISkills(lib, states=store_factory(), allowed_tools_policy="restrict")
    setup = w1.load("conv")
    w1.save("conv", w1.dispatch_all(setup, [call("load_skill", "skill-02")]).session)
    a, b = w1.load("conv"), w2.load("conv")  # both start from {skill-02}
    w1.save("conv", w1.dispatch_all(a, [call("load_skill", "skill-00")]).session)
    # Worker 2 unloads the open skill: on its own branch that lifts nothing, but after
    # worker 1's restricting load the merged state must hold skill-00 alone: restricted.
    w2.save("conv", w2.dispatch_all(b, [call("unload_skill", "skill-02")]).session)
    assert len(forks.seen) == 1
    final = w1.load("conv")
    assert final.loaded_names == ("skill-00",)
    assert not final.check_tool("Write").allowed


def plain(name: str, i: int = 0) -> dict[str, Any]:
    return {"id": f"p{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}


@pytest.mark.parametrize("how", ["dispatch_all", "adispatch_all", "dispatch"])
def test_a_write_after_another_workers_restricting_save_does_not_run(
    lib: Path, store_factory: Any, forks: Forks, how: str
) -> None:
    """Worker 2 loads a restricting skill and saves while worker 1's run (started from the
    state before it) is still going: worker 1's ``Write`` is refused before its handler
    runs (the dispatcher reads the conversation's latest revision once per model turn)."""
    ran: list[str] = []
    handlers = {"Write": lambda args: ran.append("Write") or "wrote", "Read": lambda args: "r"}
    w1, w2 = (
        OpenAISkills(
            lib, states=store_factory(), allowed_tools_policy="restrict", handlers=handlers
        )
        for _ in range(2)
    )
    a, b = w1.load("conv"), w2.load("conv")
    w2.save("conv", w2.dispatch_all(b, [call("load_skill", "skill-00")]).session)
    calls = [plain("Read", 1), plain("Write", 2)]
    if how == "dispatch_all":
        results = w1.dispatch_all(a, calls).results
    elif how == "adispatch_all":
        import asyncio

        results = asyncio.run(w1.adispatch_all(a, calls)).results
    else:
        results = tuple(w1.dispatch(a, c) for c in calls)
    assert ran == [], "a Write ran beside another worker's restricting load"
    assert [r.is_error for r in results] == [False, True]
    assert len(forks.seen) == 1
    w1.save("conv", a)
    assert len(forks.seen) == 1, "the fork was reported twice"
    assert w2.load("conv").loaded_names == ("skill-00",)
