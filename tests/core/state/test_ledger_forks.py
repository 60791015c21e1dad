"""A fork a turn found stays found for that turn in the shared ledger: a second worker
resuming the turn after a crash is told too, and so is a retry whose reply was lost after
the ledger committed (the row, not the worker, remembers); the next turn starts clean. A
table an earlier version made gets the new columns."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillcore.state.ledger import SQLLedger


@pytest.fixture(params=["sqlite", "postgres"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLLedger]:
    if request.param == "sqlite":
        made = SQLLedger.sqlite(tmp_path / "ledger.db")
    else:
        made = SQLLedger.postgres(request.getfixturevalue("postgres_url"), table="t_forks")
        with made._tx() as cur:  # a fresh table per test
            cur.execute("DELETE FROM t_forks")
    yield made
    made.close()


def forked(ledger: SQLLedger) -> None:
    """Another run's restricting load reached the ledger; this run's turn ``t`` started
    from the older revision ``r0``."""
    assert ledger.observe("conv", "r0", "t0", ()) is None
    assert ledger.advance("conv", "r0", "other", 1, ["r"], "o1") is None


def test_a_second_worker_of_a_forked_turn_sees_the_fork(ledger: SQLLedger) -> None:
    forked(ledger)
    first = ledger.observe("conv", "r0", "t", ())  # worker A, then A dies
    assert first is not None and first.rev == "other" and first.loaded == ("r",)
    # Worker B resumes the turn: its check at the start, or its first write, sees it too.
    second = ledger.observe("conv", "r0", "t", ())
    assert second is not None and second.rev == "other" and second.loaded == ("r",)
    wrote = ledger.advance("conv", "r0", "t", 2, ["x"], "c2")
    assert wrote is not None and wrote.loaded == ("r",)
    later = ledger.advance("conv", "r0", "t", 3, ["x"], "c3")
    assert later is not None and later.rev == "other"
    # The next turn starts from this one's revision: no fork.
    assert ledger.observe("conv", "t", "t2", ["x"]) is None
    assert ledger.advance("conv", "t", "t2", 1, ["x"], "d1") is None


def test_a_fork_found_at_a_write_is_kept_for_the_turn(ledger: SQLLedger) -> None:
    forked(ledger)
    found = ledger.advance("conv", "r0", "t", 1, ["x"], "c1")  # no check first: the write
    assert found is not None and found.rev == "other"
    again = ledger.advance("conv", "r0", "t", 1, ["x"], "c1")  # its reply was lost
    assert again is not None and again.rev == "other"
    resumed = ledger.observe("conv", "r0", "t", ())  # another worker of the turn
    assert resumed is not None and resumed.rev == "other"


def test_a_lost_reply_is_recognised_on_retry(ledger: SQLLedger) -> None:
    forked(ledger)
    assert ledger.observe("conv", "r0", "t", ()) is not None  # committed; reply lost
    retry = ledger.observe("conv", "r0", "t", ())
    assert retry is not None and retry.rev == "other" and retry.loaded == ("r",)
    head = ledger.head("conv")
    assert head is not None and head.rev == "r0"  # converged on this run


def test_a_table_of_an_earlier_version_gets_the_fork_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE skillcore_heads (conversation TEXT PRIMARY KEY, rev TEXT NOT NULL, "
            "seq INTEGER NOT NULL, loaded TEXT NOT NULL, calls TEXT NOT NULL)"
        )
        db.execute("INSERT INTO skillcore_heads VALUES ('conv', 'r0', 0, '[]', '[]')")
    ledger = SQLLedger.sqlite(path)
    try:
        assert ledger.observe("conv", "r0", "t", ()) is None
        forked_head = ledger.observe("conv", "zz", "u", ())
        assert forked_head is not None and forked_head.rev == "r0"
        assert ledger.observe("conv", "zz", "u", ()) is not None  # remembered
    finally:
        ledger.close()
