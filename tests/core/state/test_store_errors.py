"""Errors that keep their cause: a full disk under the SQLite ledger or state store is
reported as such (not as the failed rollback after it), and a PostgreSQL restart costs a
pooled ledger connection no failed operation."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from skillcore.state.ledger import SQLLedger
from skillcore.state.saved import SQLiteStateStore


def tiny(path: Path) -> sqlite3.Connection:
    """A connection to a database that cannot grow past a few pages (a full disk)."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA max_page_count = 8")
    return conn


def test_a_full_disk_under_the_sqlite_ledger_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    ledger = SQLLedger(lambda: tiny(path), dialect="sqlite")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        for i in range(10_000):
            ledger.advance(f"conversation-{i:05}-" + "x" * 40, "", f"turn-{i}", 0, ["a"] * 20)
    ledger.close()


def test_a_full_disk_under_the_sqlite_state_store_is_reported(tmp_path: Path) -> None:
    store = SQLiteStateStore(tmp_path / "state.db")
    store._conn.execute("PRAGMA max_page_count = 8")
    with pytest.raises(sqlite3.OperationalError, match="full"):
        for i in range(10_000):
            store.update(f"conversation-{i:05}", lambda _: {"loaded": ["x" * 500]})
    store.close()


def test_a_postgres_restart_costs_the_pooled_ledger_no_failed_operation() -> None:
    pytest.importorskip("psycopg")
    import pgserver

    if pgserver.binaries() is None:
        pytest.skip("PostgreSQL binaries not found")
    with pgserver.PgServer() as pg:
        ledger = SQLLedger.postgres(pg.url)
        try:
            ledger.advance("c", "", "t1", 0, ["a"], "x")
            assert ledger.head("c") is not None  # a connection is pooled now
            pg.restart()
            for turn in ("t2", "t3"):  # every stale pooled connection is replaced at once
                ledger.advance("c", "", turn, 0, ["a"], "y")
            head = ledger.head("c")
            assert head is not None and head.rev == "t3"
        finally:
            ledger.close()
