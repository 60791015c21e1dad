"""The shared ledger's rows are bounded and never stop a conversation: long or odd ids
(huge, NUL, lone surrogates) are stored as a short digest, and a damaged row (hand-edited,
another version) reads as an unknown head: a fork, reported once, then healed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skillcore.limits import MAX_STORED_ID_CHARS
from skillcore.state.ledger import MemoryLedger, SQLLedger, stored_id

LONG = "c" * 6_600


@pytest.fixture(params=["sqlite", "postgres"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLLedger]:
    if request.param == "sqlite":
        made = SQLLedger.sqlite(tmp_path / "ledger.db")
    else:
        made = SQLLedger.postgres(request.getfixturevalue("postgres_url"), table="t_rows")
        with made._tx() as cur:  # a fresh table per test
            cur.execute("DELETE FROM t_rows")
    yield made
    made.close()


def _raw(ledger: SQLLedger, sql: str, params: tuple[Any, ...] = ()) -> Any:
    with ledger._tx() as cur:
        cur.execute(sql.replace("?", ledger._p), params)
        return cur.fetchall() if sql.startswith("SELECT") else None


def test_stored_ids_are_short_and_distinct() -> None:
    plain = "call_abc123"
    assert stored_id(plain) == plain
    odd = [LONG, LONG + "x", "a\x00b", "a\ud800b", stored_id(LONG), "x" * MAX_STORED_ID_CHARS]
    out = [stored_id(s) for s in odd]
    assert all(len(s) <= MAX_STORED_ID_CHARS and "\x00" not in s for s in out)
    assert all(s.encode() for s in out)  # encodable: no lone surrogate survives
    assert len(set(out)) == len(out)  # a digest's own spelling is digested again


def test_long_call_ids_keep_the_row_small(ledger: SQLLedger) -> None:
    """Before, each write rewrote every earlier call id of the turn in full (6.6 MB rows
    for 1,000 such calls); now a row holds at most MAX_TURN_CALLS short ids."""
    ids = [f"{i:04d}{LONG}" for i in range(100)]
    assert ledger.observe("conv", "", LONG, ()) is None
    for seq, call in enumerate(ids, 1):
        assert ledger.advance("conv", "", LONG, seq, ["a"], call) is None
    ((rev, calls),) = _raw(ledger, f"SELECT rev, calls FROM {ledger.table}")
    assert len(rev) <= MAX_STORED_ID_CHARS
    assert len(calls) <= 100 * (MAX_STORED_ID_CHARS + 4)
    head = ledger.head("conv")
    assert head is not None and head.rev == stored_id(LONG)
    assert head.calls == tuple(stored_id(c) for c in ids)


@pytest.mark.parametrize("odd", ["turn\x00x", "t\ud800", LONG], ids=["nul", "surrogate", "long"])
def test_odd_ids_are_stored(ledger: SQLLedger, odd: str) -> None:
    """A NUL (PostgreSQL refuses it in text), a lone surrogate (not UTF-8) or a huge id, in
    the conversation, the revision or a call id, neither raises nor forks."""
    assert ledger.observe(odd, odd, odd, ["a"]) is None
    assert ledger.advance(odd, odd, odd, 1, ["a"], odd) is None
    assert ledger.observe(odd, odd, odd, ["a"]) is None  # a resume: no fork, no error
    head = ledger.head(odd)
    assert head is not None and head.calls == (stored_id(odd),)


DAMAGED = {
    "seq text": ("seq", "'abc'"),
    "seq overflow": ("seq", "1e400"),
    "loaded not json": ("loaded", "'[['"),
    "loaded deep": ("loaded", "'" + "[" * 100_000 + "]" * 100_000 + "'"),
    "calls not a list": ("calls", "'{}'"),
}


@pytest.mark.parametrize("column,value", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_row_is_a_fork_once(tmp_path: Path, column: str, value: str) -> None:
    ledger = SQLLedger.sqlite(tmp_path / "ledger.db")
    assert ledger.observe("conv", "r1", "t1", ["a"]) is None
    _raw(ledger, f"UPDATE skillcore_heads SET {column} = {value}")
    head = ledger.head("conv")
    assert head is not None and head.damaged  # unknown, never an error
    fork = ledger.observe("conv", "r1", "t2", ["a"])
    assert fork is not None and fork.damaged and fork.loaded == ()
    # The turn that found it is told again (another worker of the turn, a retry)...
    again = ledger.advance("conv", "r1", "t2", 1, ["a"], "c1")
    assert again is not None and again.damaged
    # ... and healed: the next turn sees the row this one wrote.
    assert ledger.observe("conv", "t2", "t3", ["a"]) is None
    assert ledger.advance("conv", "t2", "t3", 1, ["a"], "c2") is None


def test_memory_ledger_stores_ids_the_same_way() -> None:
    ledger = MemoryLedger()
    assert ledger.observe("conv", "", LONG, ()) is None
    assert ledger.advance("conv", "", LONG, 1, ["a"], LONG) is None
    head = ledger.head("conv")
    assert head is not None and head.rev == stored_id(LONG) and head.calls == (stored_id(LONG),)
